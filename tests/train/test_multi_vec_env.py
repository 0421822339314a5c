"""The multi-game self-play VecEnv (``fight_envs.train.multi_vec_env``) on every game: SB3's contract, the
learner's rewards and observations checked against a replay of each game on a fresh PettingZoo env,
opponents acting in one batched call per policy, seeding, and a tiny MaskablePPO run per game."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.monitor import Monitor

from fight_envs.core.errors import ConfigError
from fight_envs.registry import make
from fight_envs.train.config import load_config
from fight_envs.train.multi_vec_env import MultiGameVecEnv
from fight_envs.train.selfplay import train_main
from vec_helpers import random_actions, write_manifest

torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parents[2]
GAMES = [("fight5_v0", [2, 3, 5], {"reward": "score", "num_bouts": 1}), ("brawl_v0", [2, 3, 5], {}),
         ("fifth_earth_v0", [2, 3], {}), ("fight_klub_v0", [2], {})]
IDS = [g[0] for g in GAMES]


class StepLog:
    """Wraps every raw env's ``step`` and ``reset`` to log each game's moves, so it can be replayed:
    ``finished[i]`` holds env ``i``'s last finished game's (agent, action) list."""

    def __init__(self, vec: MultiGameVecEnv) -> None:
        self.current: list[list[tuple[str, Any]]] = [[] for _ in vec.envs]
        self.finished: dict[int, list[tuple[str, Any]]] = {}
        for i, env in enumerate(vec.envs):
            step, reset = env.step, env.reset

            def logged_step(action: Any, env: Any = env, i: int = i, step: Any = step) -> None:
                self.current[i].append((env.agent_selection, action))
                step(action)

            def logged_reset(*args: Any, i: int = i, reset: Any = reset, **kwargs: Any) -> Any:
                self.finished[i], self.current[i] = self.current[i], []
                return reset(*args, **kwargs)

            env.step, env.reset = logged_step, logged_reset


def replay(name: str, n: int, options: dict[str, Any], seed: int, moves: list[tuple[str, Any]], learner: str
           ) -> tuple[list[np.ndarray], list[float]]:
    """The learner's observations at its decisions and its reward per transition, on a fresh env:
    transition k earns what the learner's cumulative reward holds at decision k + 1 (or at the end),
    and the first transition also what it held at the first decision."""
    env = make(name, api="raw", num_players=n, **options)
    env.reset(seed=seed)
    observations, reads = [], []
    for agent, action in moves:
        if agent == learner and action is not None:
            observations.append(env.observe(learner)["observation"].copy())
            reads.append(float(env._cumulative_rewards[learner]))
        env.step(action)
    assert env.terminations[learner] or env.truncations[learner]
    rewards = reads[1:] + [float(env._cumulative_rewards[learner])]
    rewards[0] += reads[0]
    return observations, rewards


# ------------------------------------------------------------------------------- the contract
@pytest.mark.parametrize("name,counts,options", GAMES, ids=IDS)
def test_contract_and_replay_equivalence(name: str, counts: list[int], options: dict[str, Any]) -> None:
    """Every finished game replays on a fresh env to the same learner observations and rewards."""
    n_envs = 3
    vec = MultiGameVecEnv(name, n_envs, counts, seed=5, **options)
    log = StepLog(vec)
    obs = vec.reset()
    assert obs.shape == (n_envs * len(counts), *vec.observation_space.shape)
    assert obs.dtype == vec.observation_space.dtype
    assert is_masking_supported(vec)
    np.testing.assert_array_equal(get_action_masks(vec), vec.action_masks())
    assert vec.get_attr("num_players") == [n for n in counts for _ in range(n_envs)]
    assert vec.env_is_wrapped(Monitor) == [True] * vec.num_envs
    rng = np.random.default_rng(1)
    seen_obs: list[list[np.ndarray]] = [[o.copy()] for o in obs]
    seen_rewards: list[list[float]] = [[] for _ in range(vec.num_envs)]
    checked = 0
    for _ in range(400):
        masks = vec.action_masks()
        assert masks.any(axis=1).all()
        seat_before = vec.learner_seats.copy()
        obs, rewards, dones, infos = vec.step(random_actions(masks, rng))
        for i in range(vec.num_envs):
            seen_rewards[i].append(float(rewards[i]))
            if not dones[i]:
                seen_obs[i].append(obs[i].copy())
                assert infos[i] == {}
                continue
            info = infos[i]
            n = int(vec.env_num_players[i])
            assert info["num_players"] == n and info["learner_seat"] == seat_before[i]
            assert len(info["opponents"]) == n - 1 and 0.0 <= info["result"] <= 1.0
            assert info["episode"]["l"] == len(seen_rewards[i])
            assert info["episode"]["r"] == pytest.approx(sum(seen_rewards[i]), abs=1e-5)
            learner = f"player_{seat_before[i]}"
            ref_obs, ref_rewards = replay(name, n, options, info["seed"], log.finished[i], learner)
            assert len(ref_obs) == len(seen_obs[i])
            for a, b in zip(ref_obs, seen_obs[i]):
                np.testing.assert_array_equal(a, b)
            np.testing.assert_allclose(ref_rewards, seen_rewards[i], atol=1e-6)
            checked += 1
            seen_obs[i], seen_rewards[i] = [obs[i].copy()], []
        if checked >= 4:
            break
    assert checked >= 3, "too few games finished to check"


def test_rejects_bad_arguments() -> None:
    with pytest.raises(ConfigError, match="n_envs"):
        MultiGameVecEnv("brawl_v0", 0)
    with pytest.raises(ConfigError, match="distinct"):
        MultiGameVecEnv("brawl_v0", 2, [2, 2])
    with pytest.raises(ConfigError, match="learner_seat"):
        MultiGameVecEnv("brawl_v0", 2, [2], learner_seat="left")


def test_same_seed_same_rollout() -> None:
    def rollout(seed: int) -> list[np.ndarray]:
        vec = MultiGameVecEnv("brawl_v0", 4, [2, 3], seed=seed)
        out = [vec.reset()]
        rng = np.random.default_rng(0)
        for _ in range(40):
            obs, rewards, dones, _ = vec.step(random_actions(vec.action_masks(), rng))
            out += [obs, rewards, dones]
        return out

    a, b, c = rollout(3), rollout(3), rollout(4)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))


def test_rotate_fixes_the_learner_seat() -> None:
    vec = MultiGameVecEnv("fight5_v0", 6, [3], seed=0, learner_seat="rotate", num_bouts=1)
    vec.reset()
    assert vec.get_attr("learner_seat") == [0, 1, 2, 0, 1, 2]


def test_opponents_act_in_one_batched_call_per_policy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With many games waiting on the same scripted baseline, it is called once per round for all of them."""
    from fight_envs.train.batched_vec_env import _BatchHandler

    calls: list[int] = []
    original = _BatchHandler.act_engines

    def counted(self: _BatchHandler, engines: list[Any], seats: list[int], games: np.ndarray) -> np.ndarray | None:
        calls.append(len(engines))
        return original(self, engines, seats, games)

    monkeypatch.setattr(_BatchHandler, "act_engines", counted)
    manifest = write_manifest(tmp_path / "manifest.json", "brawl", {"heuristic": 1.0})
    vec = MultiGameVecEnv("brawl_v0", 16, [2], manifest_path=manifest, seed=0)
    vec.reset()
    rng = np.random.default_rng(0)
    for _ in range(5):
        vec.step(random_actions(vec.action_masks(), rng))
    assert calls and max(calls) > 1  # several games in one call
    assert sum(calls) / len(calls) > 4


@pytest.mark.parametrize("counts", [[2], [3, 5]])
def test_engine_read_opponents_play_as_on_observations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       counts: list[int]) -> None:
    """The Brawl heuristic reads each game's engine (``act_game``), so only the learners' observations are
    encoded, and the rollout (observations, masks, rewards, ends, infos) is the one it plays on encoded
    observations."""
    manifest = write_manifest(tmp_path / "manifest.json", "brawl", {"heuristic": 0.6, "random": 0.2,
                                                                     "first_legal": 0.2})

    def rollout(engine: bool) -> tuple[list[Any], list[str]]:
        vec = MultiGameVecEnv("brawl_v0", 6, counts, manifest_path=manifest, seed=3)
        assert vec._standard
        vec._standard = engine
        observed: list[str] = []
        for env in vec.envs:
            observe = env.observe
            monkeypatch.setattr(env, "observe", lambda agent, observe=observe: (observed.append(agent), observe(agent))[1])
        out: list[Any] = [vec.reset(), vec.action_masks()]
        rng = np.random.default_rng(0)
        for _ in range(150):
            obs, rewards, dones, infos = vec.step(random_actions(vec.action_masks(), rng))
            out += [obs, vec.action_masks(), rewards, dones,
                    [{k: v for k, v in info.items() if k != "episode"} for info in infos]]  # episode["t"]: a clock
        return out, observed

    fast, fast_observed = rollout(True)
    slow, slow_observed = rollout(False)
    assert len(fast) == len(slow)
    for a, b in zip(fast, slow):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)
        else:
            assert repr(a) == repr(b)
    assert sum(int(d.sum()) for d in fast[5::5]) >= 6  # games ended and restarted along the way
    assert len(fast_observed) < len(slow_observed)  # the heuristic's observations were not encoded


def test_random_opponents_never_encode_observations(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mask-only policy (random) reads the engine's mask: the learner's observation is the only one built."""
    vec = MultiGameVecEnv("fifth_earth_v0", 4, [3], seed=0)
    observed: list[str] = []
    for env in vec.envs:
        observe = env.observe
        monkeypatch.setattr(env, "observe", lambda agent, observe=observe: (observed.append(agent), observe(agent))[1])
    vec.reset()
    rng = np.random.default_rng(0)
    for _ in range(10):
        observed.clear()
        seats = vec.learner_seats.copy()
        _, _, dones, _ = vec.step(random_actions(vec.action_masks(), rng))
        if not dones.any():
            assert sorted(observed) == sorted(f"player_{s}" for s in seats)


# ------------------------------------------------------------------------------- training on it
@pytest.mark.parametrize("game", ["fight5", "brawl", "fifth_earth", "fight_klub"])
def test_tiny_training_run_on_every_game(tmp_path: Path, game: str) -> None:
    path = ROOT / "configs" / (f"{game}_selfplay_2p.yaml" if game != "fight5" else "fight5_selfplay_batched.yaml")
    config = load_config(path, [f"runs_dir={tmp_path}", "run_name=t", "total_timesteps=256", "n_envs=8",
                                "ppo.n_steps=16", "ppo.batch_size=64", "ppo.n_epochs=1", "ppo.net_arch=[16]",
                                "eval.games=0", "progress=none", "opponents.snapshot_every=128", "vec_env=multi",
                                "opponents.weights_start={random: 0.5, heuristic: 0.5}",
                                # a recipe that clones a teacher first (Brawl: 2,000 games of search) clones a few
                                # heuristic games here
                                *(["pretrain.teacher=heuristic", "pretrain.games=10", "pretrain.epochs=1"]
                                  if load_config(path).pretrain.games else [])])
    run = train_main(config)
    summary = json.loads((run / "summary.json").read_text())
    assert summary["num_timesteps"] == 256
    assert (run / "final.zip").is_file() and (run / "pool" / "self_0000000128.zip").is_file()
