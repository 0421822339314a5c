"""``fight_klub_cards`` features: each card slot goes through the embedding shared by its kind, in its
position, the other blocks pass unchanged; a checkpoint with it saves data-only, loads and plays
through torch; a short training run with it steps."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from gymnasium import spaces

from fight_envs.agents.checkpoint import PolicyAgent, checkpoint_metadata, load_checkpoint_agent, save_checkpoint
from fight_envs.games.fight_klub.observe import (
    CHARACTER_SIZE,
    FIGHT_CARD_SIZE,
    FIGHT_STATE_SIZE,
    OBS_SIZE,
    OBS_SLICES,
    SUPPORT_SIZE,
)
from fight_envs.games.fight_klub.rules import FIGHTS_PER_TURN, MAX_HAND, MAX_SUPPORT, NUM_ACTIONS
from fight_envs.testing import random_play_observations
from fight_envs.train.config import load_config
from fight_envs.train.features import (
    CHARACTER_EMBED,
    FEATURES,
    FIGHT_EMBED,
    SUPPORT_EMBED,
    FightKlubCardExtractor,
)

SPACE = spaces.Box(-100.0, 100.0, (OBS_SIZE,), np.float32)


def fight_klub_observations(count: int, seed: int = 0) -> np.ndarray:
    return random_play_observations("fight_klub_v0", count, seed)


def test_every_slot_goes_through_its_kinds_embedding_in_place() -> None:
    torch.manual_seed(0)
    extractor = FightKlubCardExtractor(SPACE)
    obs = fight_klub_observations(40, seed=1)
    with torch.no_grad():
        out = extractor(torch.as_tensor(obs)).numpy()
    slots = (MAX_HAND + 2 * MAX_SUPPORT) * SUPPORT_EMBED
    cards = 2 * FIGHTS_PER_TURN * FIGHT_EMBED
    states = FIGHTS_PER_TURN * FIGHT_STATE_SIZE
    assert out.shape == (40, extractor.features_dim) and extractor.features_dim < OBS_SIZE / 10

    def layer(seq: torch.nn.Sequential, rows: np.ndarray) -> np.ndarray:
        lin = seq[0]
        return np.tanh(rows @ lin.weight.detach().numpy().T + lin.bias.detach().numpy())

    hand = obs[:, OBS_SLICES["hand"]].reshape(40, MAX_HAND, SUPPORT_SIZE)
    hand = np.concatenate([hand, np.zeros((40, MAX_HAND, 1), np.float32)], axis=2)
    areas = obs[:, OBS_SLICES["support_me"].start:OBS_SLICES["support_opp"].stop].reshape(40, 2 * MAX_SUPPORT, SUPPORT_SIZE + 1)
    want = layer(extractor.support, np.concatenate([hand, areas], axis=1)).reshape(40, -1)
    np.testing.assert_allclose(out[:, :slots], want, atol=1e-5)
    fights = obs[:, OBS_SLICES["fights"]].reshape(40, FIGHTS_PER_TURN, -1)
    fight_cards = fights[:, :, :2 * FIGHT_CARD_SIZE].reshape(40, 2 * FIGHTS_PER_TURN, FIGHT_CARD_SIZE)
    np.testing.assert_allclose(out[:, slots:slots + cards], layer(extractor.fight, fight_cards).reshape(40, -1), atol=1e-5)
    np.testing.assert_array_equal(out[:, slots + cards:slots + cards + states],
                                  fights[:, :, 2 * FIGHT_CARD_SIZE:].reshape(40, -1))
    at = slots + cards + states
    chars = obs[:, OBS_SLICES["character_me"].start:OBS_SLICES["character_opp"].stop].reshape(40, 2, CHARACTER_SIZE)
    np.testing.assert_allclose(out[:, at:at + 2 * CHARACTER_EMBED], layer(extractor.character, chars).reshape(40, -1), atol=1e-5)
    rest = np.concatenate([obs[:, OBS_SLICES[k]] for k in ("global", "me", "opp", "deck_me", "stack_me", "deck_opp",
                                                            "stack_opp", "plays_opp")], axis=1)
    np.testing.assert_array_equal(out[:, at + 2 * CHARACTER_EMBED:], rest)
    # the hand's positions stay apart: a card moved to another position moves its embedding with it
    swapped = obs.copy()
    h = OBS_SLICES["hand"].start
    row0, row1 = swapped[:, h:h + SUPPORT_SIZE].copy(), swapped[:, h + SUPPORT_SIZE:h + 2 * SUPPORT_SIZE].copy()
    swapped[:, h:h + SUPPORT_SIZE], swapped[:, h + SUPPORT_SIZE:h + 2 * SUPPORT_SIZE] = row1, row0
    with torch.no_grad():
        out2 = extractor(torch.as_tensor(swapped)).numpy()
    np.testing.assert_allclose(out2[:, :SUPPORT_EMBED], out[:, SUPPORT_EMBED:2 * SUPPORT_EMBED], atol=1e-6)


def test_the_config_names_it_and_a_wrong_observation_is_refused() -> None:
    assert FEATURES["fight_klub_cards"] is FightKlubCardExtractor
    config = load_config(None, ["env.name=fight_klub_v0", "ppo.features=fight_klub_cards"])
    assert config.ppo.features == "fight_klub_cards"
    with pytest.raises(ValueError, match=r"fight_klub_cards features need the Fight Klub observation \(20274,\)"):
        FightKlubCardExtractor(spaces.Box(0.0, 1.0, (10,), np.float32))


def test_checkpoint_with_card_features_saves_data_only_and_plays_through_torch(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    from fight_envs.wrappers import SingleAgentEnv

    env = SingleAgentEnv("fight_klub_v0", seed=0)
    model = MaskablePPO("MlpPolicy", env, seed=0, n_steps=32, batch_size=32, n_epochs=1,
                        policy_kwargs={"net_arch": [16], "features_extractor_class": FightKlubCardExtractor})
    model.learn(64)  # the update runs through the extractor's parameters
    path = tmp_path / "cards.zip"
    save_checkpoint(model, path, checkpoint_metadata(game="fight_klub", env="fight_klub_v0", num_players=[2],
                                                     observation_shape=(OBS_SIZE,), num_actions=NUM_ACTIONS,
                                                     env_options={}, label="cards@64"))
    agent = load_checkpoint_agent(path, game="fight_klub")  # data-only: no trust needed
    assert agent._numpy is None  # an extractor with parameters plays through torch
    obs = fight_klub_observations(16, seed=3)
    want = PolicyAgent(model.policy, use_numpy=False).logits(obs)
    np.testing.assert_allclose(agent.logits(obs), want, rtol=1e-5, atol=1e-6)
