"""The batched self-play VecEnv (``fight_envs.train.batched_vec_env``): SB3's contract, the learner's rewards,
exact equivalence with the PettingZoo env game by game, and a tiny MaskablePPO run on it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.monitor import Monitor

from fight_envs.agents.checkpoint import load_checkpoint_agent
from fight_envs.agents.fight5 import GreedyAgent, HeuristicAgent
from fight_envs import fight5_v0
from fight_envs.core.errors import ConfigError, IllegalActionError
from fight_envs.games.fight5.batched import random_legal_actions
from fight_envs.train.batched_vec_env import BatchedFight5VecEnv
from fight_envs.train.config import load_config
from fight_envs.train.selfplay import train_main

torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "configs" / "fight5_selfplay_tiny.yaml"


def write_manifest(path: Path, weights: dict[str, float], deterministic: bool = False) -> Path:
    entries = [{"id": k, "kind": "baseline", "spec": k, "weight": w} for k, w in weights.items()]
    path.write_text(json.dumps({"game": "fight5", "deterministic": deterministic, "entries": entries}))
    return path


def learner_rule(t: int, mask: np.ndarray) -> int:
    """A fixed learner that both sides can play: the k-th legal rank, k from the decision index."""
    legal = np.flatnonzero(mask)
    return int(legal[(7 * t + 3) % legal.size])


# ------------------------------------------------------------------------------- the contract
def test_vec_env_contract_shapes_dtypes_and_terminal_observation() -> None:
    env = BatchedFight5VecEnv(5, [2, 3], seed=3, reward="outcome", num_bouts=1)
    assert env.num_envs == 10
    assert env.observation_space.shape == (627,) and env.action_space.n == 13
    obs = env.reset()
    assert obs.shape == (10, 627) and obs.dtype == np.float32
    assert env.observation_space.contains(obs[0])
    masks = env.action_masks()
    assert masks.shape == (10, 13) and masks.dtype == bool and masks.any(axis=1).all()
    assert is_masking_supported(env)
    np.testing.assert_array_equal(get_action_masks(env), masks)  # what MaskablePPO reads
    assert env.get_attr("num_players") == [2] * 5 + [3] * 5
    assert env.get_attr("learner_seat") == [0, 1, 0, 1, 0, 0, 1, 2, 0, 1]
    assert env.env_is_wrapped(Monitor) == [True] * 10
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(30):  # one bout: 25 learner decisions per game
        obs, rewards, dones, infos = env.step(random_legal_actions(env.action_masks(), rng))
        assert obs.shape == (10, 627) and obs.dtype == np.float32
        assert rewards.shape == (10,) and rewards.dtype == np.float32
        assert dones.shape == (10,) and dones.dtype == bool
        assert isinstance(infos, list) and len(infos) == 10
        for i in np.flatnonzero(dones):
            info = infos[i]
            ended += 1
            term = info["terminal_observation"]
            assert term.shape == (627,) and term.dtype == np.float32
            assert not np.array_equal(term, obs[i])  # obs is already the next game's
            assert info["episode"]["l"] == 25 and info["episode"]["r"] == pytest.approx(rewards[i])
            assert info["num_players"] == env.get_attr("num_players")[i]
            assert info["opponents"] == ["random"] * (info["num_players"] - 1)
            assert info["result"] in (0.0, 1.0, 0.5, 1 / 3)
        for i in np.flatnonzero(~dones):
            assert infos[i] == {}
    assert ended == 10


def test_seed_reproduces_everything_and_actions_are_checked() -> None:
    def run(seed: int) -> list[Any]:
        env = BatchedFight5VecEnv(4, [2], seed=None, reward="score")
        env.seed(seed)
        out = [env.reset()]
        rng = np.random.default_rng(1)
        for _ in range(80):
            obs, r, d, _ = env.step(random_legal_actions(env.action_masks(), rng))
            out += [obs, r, d]
        return out

    a, b, c = run(11), run(11), run(12)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))
    env = BatchedFight5VecEnv(2, [2], seed=0)
    env.reset()
    illegal = np.array([np.flatnonzero(~m)[0] for m in env.action_masks()])  # a rank not in hand
    with pytest.raises(IllegalActionError, match="illegal actions"):
        env.step(illegal)


def test_bad_options_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="takes the options"):
        BatchedFight5VecEnv(2, [2], render_mode="ansi")
    with pytest.raises(ConfigError, match="n_envs"):
        BatchedFight5VecEnv(0, [2])
    with pytest.raises(ConfigError, match="distinct player counts"):
        BatchedFight5VecEnv(2, [2, 2])
    with pytest.raises(ConfigError, match="vec_env=batched needs a game with a batched engine"):
        load_config(TINY, ["vec_env=batched", "env.name=fight_klub_v0"])


# ------------------------------------------------------------------- rewards are the learner's
@pytest.mark.parametrize("reward", ["outcome", "score"])
def test_learner_rewards_are_its_own_and_terminal_rewards_arrive(reward: str) -> None:
    env = BatchedFight5VecEnv(6, [2, 3], seed=5, reward=reward)
    env.reset()
    rng = np.random.default_rng(2)
    returns = np.zeros(env.num_envs)
    checked = 0
    for _ in range(160):
        _, r, d, infos = env.step(random_legal_actions(env.action_masks(), rng))
        returns += r
        for i in np.flatnonzero(d):
            info, scores = infos[i], infos[i]["scores"]  # egocentric: the learner first
            mine, others = scores[0], scores[1:]
            if reward == "outcome":
                expected = 1.0 if mine > others.max() else 0.0 if mine == others.max() else -1.0
            else:  # the bout differences add up to the game's
                expected = (mine - others.mean()) / 100.0
            assert returns[i] == pytest.approx(expected, abs=1e-5)
            assert info["episode"]["r"] == pytest.approx(expected, abs=1e-5)
            assert info["result"] == (0.0 if mine < scores.max() else 1.0 / int((scores == scores.max()).sum()))
            returns[i] = 0.0
            checked += 1
    assert checked >= 12


# ------------------------------------------------------- the same games as the PettingZoo env
def reference_episode(seed: int, n: int, seat: int, opponents: dict[int, Any], **options: Any) -> dict[str, Any]:
    """The game ``seed`` in ``fight5_v0.raw_env``, the learner at ``seat`` playing ``learner_rule``."""
    env = fight5_v0.raw_env(num_players=n, **options)
    env.reset(seed=seed)
    for agent in opponents.values():
        agent.reset()
    learner = env.possible_agents[seat]
    obs, rewards, t = [], [], 0
    while not env.terminations[learner]:
        agent = env.agent_selection
        o = env.observe(agent)
        if agent == learner:
            if t:
                rewards.append(env._cumulative_rewards[learner])
            obs.append(o["observation"].copy())
            env.step(learner_rule(t, o["action_mask"]))
            t += 1
        else:
            env.step(int(opponents[env.possible_agents.index(agent)].act(o["observation"], o["action_mask"])))
    rewards.append(env._cumulative_rewards[learner])
    return {"obs": obs, "rewards": rewards, "final": env.observe(learner)["observation"],
            "scores": np.asarray(env.infos[learner]["scores"])}


def batched_episodes(env: BatchedFight5VecEnv, per_env: int) -> list[dict[str, Any]]:
    """Play ``learner_rule`` in every env until each has finished ``per_env`` games."""
    obs = env.reset()
    current: list[dict[str, Any]] = [{"obs": [obs[i]], "rewards": []} for i in range(env.num_envs)]
    t = np.zeros(env.num_envs, dtype=int)
    done_count = np.zeros(env.num_envs, dtype=int)
    episodes = []
    while done_count.min() < per_env:
        masks = env.action_masks()
        actions = np.array([learner_rule(int(t[i]), masks[i]) for i in range(env.num_envs)])
        obs, r, d, infos = env.step(actions)
        t += 1
        for i in range(env.num_envs):
            current[i]["rewards"].append(float(r[i]))
            if d[i]:
                ep = current[i]
                ep.update(env=i, final=infos[i]["terminal_observation"], info=infos[i])
                if done_count[i] < per_env:
                    episodes.append(ep)
                done_count[i] += 1
                current[i] = {"obs": [], "rewards": []}
                t[i] = 0
            current[i]["obs"].append(obs[i])
    return episodes


def assert_same_episode(ep: dict[str, Any], ref: dict[str, Any]) -> None:
    assert len(ep["obs"]) == len(ref["obs"]) == ep["info"]["episode"]["l"]
    for k, (a, b) in enumerate(zip(ep["obs"], ref["obs"])):
        np.testing.assert_array_equal(a, b, err_msg=f"observation at learner decision {k}")
    np.testing.assert_allclose(ep["rewards"], ref["rewards"], atol=1e-6)
    np.testing.assert_array_equal(ep["final"], ref["final"])
    np.testing.assert_array_equal(ep["info"]["scores"], ref["scores"])


def test_episodes_match_the_pettingzoo_env_with_scripted_opponents(tmp_path: Path) -> None:
    # Greedy opponents are a function of their observation, so the reference replays them exactly.
    manifest = write_manifest(tmp_path / "manifest.json", {"greedy": 1.0})
    env = BatchedFight5VecEnv(3, [2, 3], manifest_path=manifest, seed=7, reward="score")
    episodes = batched_episodes(env, per_env=2)
    assert len(episodes) == 12
    for ep in episodes:
        info = ep["info"]
        n, seat = info["num_players"], info["learner_seat"]
        assert info["opponents"] == ["greedy"] * (n - 1)
        ref = reference_episode(info["seed"], n, seat, {s: GreedyAgent() for s in range(n) if s != seat}, reward="score")
        assert_same_episode(ep, ref)


def test_mixed_and_per_game_opponents_match_the_pettingzoo_env(tmp_path: Path) -> None:
    # The heuristic keeps a plan per game (one instance per game and seat); greedy shares one.
    manifest = write_manifest(tmp_path / "manifest.json", {"greedy": 0.5, "heuristic": 0.5})
    env = BatchedFight5VecEnv(4, [3], manifest_path=manifest, seed=1, reward="outcome", num_bouts=1)
    episodes = batched_episodes(env, per_env=1)
    kinds = {"greedy": GreedyAgent, "heuristic": HeuristicAgent}
    seen = set()
    for ep in episodes:
        info = ep["info"]
        seat, labels = info["learner_seat"], info["opponents"]
        seen.update(labels)
        seats = [(seat + k) % 3 for k in (1, 2)]  # the labels are clockwise from the learner
        ref = reference_episode(info["seed"], 3, seat, {s: kinds[lab]() for s, lab in zip(seats, labels)},
                                reward="outcome", num_bouts=1)
        assert_same_episode(ep, ref)
    assert seen == {"greedy", "heuristic"}


def test_manifest_changes_are_picked_up_at_game_starts(tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path / "manifest.json", {"random": 1.0})
    env = BatchedFight5VecEnv(4, [2], manifest_path=manifest, seed=0, num_bouts=1)
    env.reset()
    rng = np.random.default_rng(0)
    write_manifest(manifest, {"greedy": 1.0})
    labels = []
    for _ in range(50):  # two games per env
        _, _, d, infos = env.step(random_legal_actions(env.action_masks(), rng))
        labels += [infos[i]["opponents"] for i in np.flatnonzero(d)]
    assert labels[:4] == [["random"]] * 4 and labels[4:] == [["greedy"]] * 4


# ---------------------------------------------------------------------------- training on it
def test_tiny_maskableppo_run_on_the_batched_vec_env_writes_a_loadable_checkpoint(tmp_path: Path) -> None:
    run = train_main(load_config(TINY, [f"runs_dir={tmp_path}", "vec_env=batched", "n_envs=8", "ppo.n_steps=16",
                                        "eval.games=0"]))
    agent = load_checkpoint_agent(run / "final.zip", game="fight5")
    env = BatchedFight5VecEnv(2, [2], seed=0)
    obs = env.reset()
    actions = agent.act_batch(obs, env.action_masks())
    assert env.action_masks()[np.arange(2), actions].all()
    summary = json.loads((run / "summary.json").read_text())
    assert summary["num_timesteps"] >= 256
    assert (run / "pool" / "manifest.json").is_file() and any((run / "pool").glob("self_*.zip"))
