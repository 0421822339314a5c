"""Checkpoints as agents: loading, playing legal moves, numpy vs torch actor, and every load error."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from fight_envs.agents.arena import play_game
from fight_envs.agents.base import RandomAgent
from fight_envs.agents.checkpoint import CheckpointError, PolicyAgent, load_checkpoint_agent, load_policy, save_policy
from fight_envs import fight5_v0
from fight_envs.wrappers import SingleAgentEnv

Metadata = Callable[..., dict]


def test_checkpoint_plays_legal_moves_in_every_player_count(fight5_checkpoint: Path) -> None:
    agent = load_checkpoint_agent(fight5_checkpoint, game="fight5")
    assert agent.label == "test@0" and agent.game == "fight5"
    for n in (2, 3, 5):
        env = fight5_v0.raw_env(num_players=n)  # raw: an illegal move would raise
        result = play_game(env, [agent] + [RandomAgent() for _ in range(n - 1)], seed=n)
        assert env.game.is_terminal() and result.num_steps > 0


def test_act_batch_matches_act_and_respects_masks(fight5_checkpoint: Path) -> None:
    agent = load_checkpoint_agent(fight5_checkpoint, deterministic=False, seed=3)
    env = SingleAgentEnv(seed=0)
    obs = []
    masks = []
    o, _ = env.reset()
    for _ in range(12):
        obs.append(o)
        masks.append(env.action_masks())
        o, *_ = env.step(int(np.flatnonzero(env.action_masks())[0]))
    obs_b, masks_b = np.array(obs), np.array(masks)
    greedy = load_checkpoint_agent(fight5_checkpoint, deterministic=True)
    batch = greedy.act_batch(obs_b, masks_b)
    assert [greedy.act(o, m) for o, m in zip(obs_b, masks_b)] == batch.tolist()
    sampled = np.concatenate([agent.act_batch(obs_b, masks_b) for _ in range(20)])
    assert masks_b[np.arange(sampled.size) % len(obs), sampled].all()
    agent.seed(9)
    first = agent.act_batch(obs_b, masks_b)
    agent.seed(9)
    assert np.array_equal(first, agent.act_batch(obs_b, masks_b))  # seeded sampling reproduces


def test_numpy_actor_matches_the_torch_policy(fight5_checkpoint: Path) -> None:
    policy, _ = load_policy(fight5_checkpoint)
    fast = PolicyAgent(policy, use_numpy=True)
    slow = PolicyAgent(policy, use_numpy=False)
    assert fast._numpy is not None and slow._numpy is None
    obs = np.random.default_rng(0).random((32, 627)).astype(np.float32)
    np.testing.assert_allclose(fast.logits(obs), slow.logits(obs), rtol=1e-4, atol=1e-5)


def test_policy_only_checkpoint_loads_like_a_full_one(tmp_path: Path, fight5_model: MaskablePPO, fight5_metadata: Metadata) -> None:
    path = save_policy(fight5_model.policy, tmp_path / "snap.zip", fight5_metadata(label="snap"))
    full = tmp_path / "full.zip"
    fight5_model.save(full)
    assert path.stat().st_size < full.stat().st_size
    obs = np.random.default_rng(1).random((8, 627)).astype(np.float32)
    a = load_checkpoint_agent(path)
    np.testing.assert_allclose(a.logits(obs), PolicyAgent(fight5_model.policy).logits(obs), rtol=1e-5, atol=1e-6)


# --------------------------------------------------------------------- errors
def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no checkpoint at"):
        load_checkpoint_agent(tmp_path / "nope.zip")


def test_directory_instead_of_file(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="is not a file"):
        load_checkpoint_agent(tmp_path)


def test_missing_sidecar(fight5_checkpoint: Path) -> None:
    fight5_checkpoint.with_suffix(".json").unlink()
    with pytest.raises(CheckpointError, match="no metadata sidecar model.json"):
        load_checkpoint_agent(fight5_checkpoint)


def test_file_that_is_not_a_checkpoint(tmp_path: Path, fight5_metadata: Metadata) -> None:
    path = tmp_path / "notes.zip"
    path.write_text("hello")
    (tmp_path / "notes.json").write_text(json.dumps(fight5_metadata()))
    with pytest.raises(CheckpointError, match="is not a checkpoint"):
        load_checkpoint_agent(path)
    with zipfile.ZipFile(path, "w") as z:  # a real zip, without SB3's content
        z.writestr("readme.txt", "nothing here")
    with pytest.raises(CheckpointError, match="is not a checkpoint"):
        load_checkpoint_agent(path)


def test_sidecar_that_is_not_ours(fight5_checkpoint: Path) -> None:
    fight5_checkpoint.with_suffix(".json").write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(CheckpointError, match="not a fight-envs checkpoint sidecar"):
        load_checkpoint_agent(fight5_checkpoint)
    fight5_checkpoint.with_suffix(".json").write_text("{not json")
    with pytest.raises(CheckpointError, match="not valid JSON"):
        load_checkpoint_agent(fight5_checkpoint)


def test_wrong_game(fight5_checkpoint: Path) -> None:
    with pytest.raises(CheckpointError, match="is a 'fight5' checkpoint, not a 'brawl' one"):
        load_checkpoint_agent(fight5_checkpoint, game="brawl")


def test_sidecar_disagreeing_with_the_weights(fight5_checkpoint: Path, fight5_metadata: Metadata) -> None:
    side = fight5_checkpoint.with_suffix(".json")
    side.write_text(json.dumps(fight5_metadata(observation_shape=[600])))
    with pytest.raises(CheckpointError, match="disagree"):
        load_checkpoint_agent(fight5_checkpoint)


def test_observation_shape_that_no_longer_matches_the_env(tmp_path: Path, fight5_metadata: Metadata) -> None:
    # A policy trained on 500-feature observations: the sidecar agrees with it, the env does not.
    policy = MaskableActorCriticPolicy(spaces.Box(0, 1, (500,)), spaces.Discrete(13), lambda _: 0.0, net_arch=[8])
    path = save_policy(policy, tmp_path / "old.zip", fight5_metadata(observation_shape=[500]))
    with pytest.raises(CheckpointError, match=r"observations of shape \(500,\), but fight5_v0 now gives \(627,\)"):
        load_checkpoint_agent(path)


def test_action_count_that_no_longer_matches_the_env(tmp_path: Path, fight5_metadata: Metadata) -> None:
    policy = MaskableActorCriticPolicy(spaces.Box(0, 100, (627,)), spaces.Discrete(12), lambda _: 0.0, net_arch=[8])
    path = save_policy(policy, tmp_path / "old.zip", fight5_metadata(num_actions=12))
    with pytest.raises(CheckpointError, match="among 12 actions, but fight5_v0 now has 13"):
        load_checkpoint_agent(path)
