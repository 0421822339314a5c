"""``copy.deepcopy`` and ``pickle`` of every env mid-game: the copy continues exactly as the original."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from fight_envs.registry import list_envs, make

CASES = [(s.name, api) for s in list_envs() for api in ("raw", "aec", "parallel_raw")
         if api != "parallel_raw" or hasattr(s.load(), "parallel_raw_env")]
COPIES = {"deepcopy": copy.deepcopy, "pickle": lambda env: pickle.loads(pickle.dumps(env))}


def trace_aec(env, rng: np.random.Generator, steps: int) -> list:
    out = []
    for _ in range(steps):
        if not env.agents:
            break
        agent = env.agent_selection
        obs, reward, term, trunc, info = env.last()
        out.append((agent, obs["observation"].copy(), obs["action_mask"].copy(), reward, term, trunc,
                    {k: np.asarray(v).tolist() for k, v in info.items()}))
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


def trace_parallel(env, obs: dict, rng: np.random.Generator, steps: int) -> tuple[list, dict]:
    """Play ``steps`` steps from observations ``obs``; returns what was seen and the last observations."""
    out = []
    for _ in range(steps):
        if not env.agents:
            break
        actions = {}
        for a in env.agents:
            legal = np.flatnonzero(obs[a]["action_mask"])
            actions[a] = int(rng.choice(legal)) if len(legal) else 0
        obs, rewards, terms, truncs, infos = env.step(actions)
        out.append(({a: o["observation"].tolist() for a, o in obs.items()}, rewards, terms, truncs))
    return out, obs


def same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(a, b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


@pytest.mark.parametrize("how", sorted(COPIES))
@pytest.mark.parametrize(("name", "api"), CASES)
def test_a_copy_mid_game_continues_identically(name: str, api: str, how: str) -> None:
    env = make(name, api=api)
    if api == "parallel_raw":
        obs, _ = env.reset(seed=11)
        _, obs = trace_parallel(env, obs, np.random.default_rng(1), 7)  # into the game
        twin = COPIES[how](env)
        first, _ = trace_parallel(env, copy.deepcopy(obs), np.random.default_rng(2), 400)
        second, _ = trace_parallel(twin, copy.deepcopy(obs), np.random.default_rng(2), 400)
    else:
        env.reset(seed=11)
        trace_aec(env, np.random.default_rng(1), 7)
        twin = COPIES[how](env)
        first = trace_aec(env, np.random.default_rng(2), 400)
        second = trace_aec(twin, np.random.default_rng(2), 400)
    assert len(first) > 10
    assert same(first, second)

