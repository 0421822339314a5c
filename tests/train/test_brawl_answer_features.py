"""``brawl_answer`` features: the chances equal the Brawl heuristic's own (``BrawlView.p_answer`` and
``p_copies``) at 2, 3 and 5 fighters, the torch extractor equals its numpy twin, and a checkpoint
with it plays through numpy as through torch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from fight_envs.agents.brawl import _ANSWERS, BrawlView
from fight_envs.agents.checkpoint import PolicyAgent, checkpoint_metadata, load_checkpoint_agent, save_checkpoint
from fight_envs.games.brawl.cards import NUM_ATTACKS, NUM_CARD_TYPES
from fight_envs.games.brawl.observe import OBS_SIZE, OBS_SLICES
from fight_envs.testing import random_play_observations
from fight_envs.train.config import load_config
from fight_envs.train.features import (
    BRAWL_ANSWER_FEATURES,
    FEATURES,
    BrawlAnswerExtractor,
    _brawl_target,
    brawl_answer_features,
)


def brawl_observations(num_players: int, count: int, seed: int = 0) -> np.ndarray:
    """Observations of random-play Brawl games (every phase, hands hidden above two fighters)."""
    return random_play_observations("brawl_v0", count, seed, num_players=num_players)


def heuristic_chances(row: np.ndarray, target: int) -> list[float]:
    v = BrawlView.decode(row)
    return ([v.p_answer(target, (c, *_ANSWERS)) for c in range(NUM_ATTACKS)]
            + [v.p_answer(target, (c,)) for c in range(NUM_ATTACKS)]
            + [v.p_copies(target, c, v.combo[c] + 1) for c in range(NUM_ATTACKS)]
            + [v.p_answer(target, (s,)) for s in range(NUM_ATTACKS, NUM_CARD_TYPES)])


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_chances_equal_the_heuristics_own(num_players: int) -> None:
    obs = brawl_observations(num_players, 300, seed=num_players)
    features = brawl_answer_features(obs)
    assert features.shape == (300, BRAWL_ANSWER_FEATURES)
    n = obs[:, OBS_SLICES["present"]].sum(axis=1).astype(np.int64)
    targets = _brawl_target(np.rint(obs), n, obs[:, OBS_SLICES["fighting"]] > 0.5)
    assert ((targets > 0) & (targets < n)).all()  # always another fighter
    for row, target, got in zip(obs, targets, features):
        np.testing.assert_allclose(got, heuristic_chances(row, int(target)), atol=1e-6)
    fractional = ((features > 0) & (features < 1)).mean()
    if num_players == 2:
        assert fractional == 0.0  # the open showdown: the opponent's hand is known
    else:
        assert fractional > 0.3  # hidden hands: real chances, not only 0 and 1


def test_target_is_the_defender_else_the_aggressor_else_the_next_fighter() -> None:
    obs = np.zeros((3, OBS_SIZE), dtype=np.float32)
    obs[:, OBS_SLICES["present"].start: OBS_SLICES["present"].start + 4] = 1
    obs[:, OBS_SLICES["fighting"].start: OBS_SLICES["fighting"].start + 4] = 1
    obs[0, OBS_SLICES["defender"].start + 2] = 1  # I attack seat 2
    obs[1, OBS_SLICES["attacker"].start + 3] = 1  # seat 3 attacks me
    obs[1, OBS_SLICES["defender"].start] = 1
    obs[2, OBS_SLICES["direction"].start + 1] = 1  # counter-clockwise, seat 3 out: seat 2 is next
    obs[2, OBS_SLICES["fighting"].start + 3] = 0
    n = np.full(3, 4)
    assert _brawl_target(obs, n, obs[:, OBS_SLICES["fighting"]] > 0.5).tolist() == [2, 3, 2]


def test_torch_extractor_equals_the_numpy_twin() -> None:
    from gymnasium import spaces

    obs = np.concatenate([brawl_observations(2, 64, seed=1), brawl_observations(5, 64, seed=2)])
    extractor = BrawlAnswerExtractor(spaces.Box(0.0, 200.0, (OBS_SIZE,), np.float32))
    out = extractor(torch.as_tensor(obs)).numpy()
    assert out.shape == (128, OBS_SIZE + BRAWL_ANSWER_FEATURES)
    np.testing.assert_array_equal(out, BrawlAnswerExtractor.numpy_features(obs))
    np.testing.assert_array_equal(out[:, :OBS_SIZE], obs)
    assert FEATURES["brawl_answer"] is BrawlAnswerExtractor
    assert load_config(None, ["env.name=brawl_v0", "ppo.features=brawl_answer"]).ppo.features == "brawl_answer"
    with pytest.raises(ValueError, match="brawl_answer features need the Brawl observation"):
        BrawlAnswerExtractor(spaces.Box(0.0, 1.0, (10,), np.float32))


def test_checkpoint_with_answer_features_plays_through_numpy_like_torch(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    from fight_envs.wrappers import SingleAgentEnv

    env = SingleAgentEnv("brawl_v0", seed=0, num_players=2)
    model = MaskablePPO("MlpPolicy", env, seed=0, n_steps=16,
                        policy_kwargs={"net_arch": [16], "features_extractor_class": BrawlAnswerExtractor})
    path = tmp_path / "answer.zip"
    save_checkpoint(model, path, checkpoint_metadata(game="brawl", env="brawl_v0", num_players=[2],
                                                     observation_shape=(OBS_SIZE,), num_actions=16,
                                                     env_options={}, label="answer@0"))
    agent = load_checkpoint_agent(path, game="brawl")  # data-only: no trust needed
    assert agent._numpy is not None and agent._numpy.features is not None
    obs = brawl_observations(2, 16, seed=3)
    torch_logits = PolicyAgent(model.policy, use_numpy=False).logits(obs)
    np.testing.assert_allclose(agent.logits(obs), torch_logits, rtol=1e-4, atol=1e-5)
