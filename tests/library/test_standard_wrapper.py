"""``env()``'s fused wrapper (``StandardWrapper``) against PettingZoo's own three wrappers.

Every env's ``env()`` is ``StandardWrapper(raw_env)``, one layer instead of PettingZoo's
``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(raw_env)))``. These tests
drive both side by side with the same seeds and the same script of calls (legal moves, masked-out
moves, out-of-range and wrongly typed actions, observing other agents, steps after the end, calls
before reset) and require the same observations, rewards, flags, infos, warnings and errors.
"""

from __future__ import annotations

import logging
import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.utils import wrappers

from fight_envs.envs.base import StandardWrapper, pettingzoo_stack
from fight_envs.registry import make

ILLEGAL = -1.0
CASES = [
    ("fight5_v0", {"num_players": 2}), ("fight5_v0", {"num_players": 5}),
    ("brawl_v0", {"num_players": 2}), ("brawl_v0", {"num_players": 5}),
    ("fifth_earth_v0", {"num_players": 2}), ("fifth_earth_v0", {"num_players": 4}),
    ("fight_klub_v0", {}), ("fight_klub_deckbuild_v0", {"games": 1}),
]


def _same(a: Any, b: Any, where: str) -> None:
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for k in a:
            _same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype, where
        np.testing.assert_array_equal(a, b, err_msg=where)
    else:
        assert type(a) is type(b) and a == b, f"{where}: {a!r} != {b!r}"


class _Recorder(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _call(env: Any, fn: str, *args: Any) -> tuple[str, Any, list[str]]:
    """(outcome kind, value or error, warnings and PettingZoo ``EnvLogger`` lines) of ``env.fn(*args)``."""
    logger, recorder = logging.getLogger("pettingzoo.utils.env_logger"), _Recorder()
    logger.addHandler(recorder)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                value = getattr(env, fn)(*args)
                kind = "ok"
            except Exception as e:  # noqa: BLE001 - the same exception type and message on both sides
                value, kind = f"{type(e).__name__}: {e}", "error"
    finally:
        logger.removeHandler(recorder)
    return kind, value, [str(w.message) for w in caught] + recorder.messages


def _snapshot(env: Any) -> dict[str, Any]:
    return {"agents": list(env.agents), "agent_selection": env.agent_selection,
            "rewards": dict(env.rewards), "cumulative": dict(env._cumulative_rewards),
            "terminations": dict(env.terminations), "truncations": dict(env.truncations),
            "infos": {a: dict(i) for a, i in env.infos.items()}}


def _drive(name: str, options: dict[str, Any], seed: int, fused: Any, stack: Any) -> int:
    """Play one scripted game on both; return how many calls were compared."""
    rng = np.random.default_rng(seed)
    calls = 0

    def both(fn: str, *args: Any) -> Any:
        nonlocal calls
        a, b = _call(fused, fn, *args), _call(stack, fn, *args)
        _same(a, b, f"{name} {options} seed {seed}, call {calls}: {fn}{args!r}")
        calls += 1
        return a[1]

    both("reset", seed)
    for _ in range(4000):
        if not fused.agents:
            break
        _same(_snapshot(fused), _snapshot(stack), f"{name} seed {seed} state before call {calls}")
        roll = rng.random()
        agent = fused.agent_selection
        if roll < 0.15:  # observe someone, maybe not the mover
            both("observe", fused.agents[int(rng.integers(len(fused.agents)))])
            continue
        obs, _, term, trunc, _ = both("last")
        if term or trunc:
            both("step", None)
            continue
        mask = obs["action_mask"]
        legal, illegal = np.flatnonzero(mask), np.flatnonzero(mask == 0)
        n = fused.action_space(agent).n
        if roll < 0.18:
            both("step", n + int(rng.integers(3)))  # out of range: AssertionError on both
            both("step", -1 - int(rng.integers(2)))
            both("step", "0")  # wrongly typed
        if roll > 0.995 and illegal.size:
            both("step", int(rng.choice(illegal)))  # ends the game with the penalty
        else:
            pick = rng.choice(legal)
            both("step", [int(pick), np.int64(pick), np.array(pick)][int(rng.integers(3))])
    for _ in range(2):  # steps after the end warn and change nothing
        both("step", None)
    _same(_snapshot(fused), _snapshot(stack), f"{name} seed {seed} final state")
    return calls


@pytest.mark.parametrize(("name", "options"), CASES, ids=[f"{n}-{o}" for n, o in CASES])
def test_env_plays_exactly_like_pettingzoos_three_wrappers(name: str, options: dict[str, Any]) -> None:
    fused = make(name, api="aec", **options)
    assert isinstance(fused, StandardWrapper) and isinstance(fused, wrappers.OrderEnforcingWrapper)
    stack = pettingzoo_stack(make(name, api="raw", **options), ILLEGAL)
    games = 3 if name == "fight_klub_deckbuild_v0" else 6
    calls = sum(_drive(name, options, seed, fused, stack) for seed in range(games))
    assert calls > 50 * games


def test_an_illegal_move_ends_the_game_with_the_penalty_on_both() -> None:
    for builder in (lambda: make("brawl_v0", api="aec"),
                    lambda: pettingzoo_stack(make("brawl_v0", api="raw"), ILLEGAL)):
        env = builder()
        env.reset(seed=3)
        mover = env.agent_selection
        bad = int(np.flatnonzero(env.observe(mover)["action_mask"] == 0)[0])
        kind, _, said = _call(env, "step", bad)
        assert kind == "ok" and any("Illegal move" in m for m in said), said
        assert all(env.terminations.values()) and all(env.truncations.values())
        assert env._cumulative_rewards[mover] == ILLEGAL
        assert all(r == 0 for a, r in env._cumulative_rewards.items() if a != mover)


def test_calls_before_reset_fail_the_same_way() -> None:
    fused = make("fight5_v0", api="aec")
    stack = pettingzoo_stack(make("fight5_v0", api="raw"), ILLEGAL)
    for attr in ("agents", "rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents"):
        errors = []
        for env in (fused, stack):
            with pytest.raises(AttributeError) as e:
                getattr(env, attr)
            errors.append(str(e.value))
        assert errors[0] == errors[1], attr
    for fn, args in (("step", (0,)), ("observe", ("player_0",)), ("agent_iter", ())):
        _same(_call(fused, fn, *args), _call(stack, fn, *args), fn)
    assert str(fused) == str(stack)
    assert fused.unwrapped is fused.env


def test_agent_iter_still_requires_a_step_between_agents() -> None:
    env = make("fight5_v0", api="aec")
    env.reset(seed=0)
    it = iter(env.agent_iter())
    next(it)
    with pytest.raises(AssertionError, match="need to call step"):
        next(it)


@pytest.mark.parametrize(("name", "options"), CASES, ids=[f"{n}-{o}" for n, o in CASES])
def test_agent_iter_yields_what_pettingzoos_iterator_yields(name: str, options: dict[str, Any]) -> None:
    """The fused ``agent_iter`` (it reads the raw env directly) against PettingZoo's: the same agents in
    the same order, to the end of the game and up to ``max_iter``."""
    for seed, max_iter in ((0, 2**63), (1, 7), (2, 0)):
        fused = StandardWrapper(make(name, api="raw", **options), ILLEGAL)
        stack = pettingzoo_stack(make(name, api="raw", **options), ILLEGAL)
        seen = []
        for env in (fused, stack):
            env.reset(seed=seed)
            rng, agents = np.random.default_rng(seed), []
            for agent in env.agent_iter(max_iter):
                agents.append(agent)
                obs, _, term, trunc, _ = env.last()
                env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            seen.append(agents)
        assert seen[0] == seen[1], f"{name} seed {seed} max_iter {max_iter}"
        if max_iter < 100:  # every game here is longer than 7 decisions: the limit stops it
            assert len(seen[0]) == max_iter
        else:  # played to the end: the iterator stops when no agent is left
            assert not fused.agents and not stack.agents
