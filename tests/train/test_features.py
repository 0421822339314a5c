"""Feature extractors: the Fight 5 slot extractor picks the clash being filled, in torch and numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from fight_envs.agents.checkpoint import PolicyAgent, load_checkpoint_agent, write_metadata
from fight_envs.games.fight5.observe import CLASH_FEATURES, OBS_SIZE, OBS_SLICES
from fight_envs.wrappers import SingleAgentEnv
from fight_envs.train.features import Fight5SlotExtractor


def observations(count: int) -> np.ndarray:
    env = SingleAgentEnv(seed=0)
    obs, _ = env.reset()
    out = []
    while len(out) < count:
        out.append(obs)
        obs, _, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if done:
            obs, _ = env.reset()
    return np.array(out, dtype=np.float32)


def test_slot_extractor_appends_the_block_of_the_current_slot() -> None:
    obs = observations(10)
    extractor = Fight5SlotExtractor(SingleAgentEnv().observation_space)
    out = extractor(torch.as_tensor(obs)).numpy()
    assert out.shape == (10, OBS_SIZE + CLASH_FEATURES)
    slots = obs[:, OBS_SLICES["current_slot"]].argmax(axis=1)
    assert set(slots.tolist()) == {0, 1, 2, 3, 4}
    start = OBS_SLICES["clashes"].start
    for row, slot in zip(range(10), slots):
        block = obs[row, start + slot * CLASH_FEATURES: start + (slot + 1) * CLASH_FEATURES]
        np.testing.assert_array_equal(out[row, OBS_SIZE:], block)
    np.testing.assert_allclose(Fight5SlotExtractor.numpy_features(obs), out, atol=1e-6)


def test_checkpoint_with_slot_features_plays_through_numpy_like_torch(tmp_path: Path, fight5_metadata) -> None:
    model = MaskablePPO("MlpPolicy", SingleAgentEnv(seed=0), seed=0, n_steps=16,
                        policy_kwargs={"net_arch": [16], "features_extractor_class": Fight5SlotExtractor})
    path = tmp_path / "slot.zip"
    model.save(path)
    write_metadata(path, fight5_metadata())
    agent = load_checkpoint_agent(path, trust=True)  # a pickled SB3 zip: our own, trusted
    assert agent._numpy is not None and agent._numpy.features is not None
    obs = observations(16)
    torch_logits = PolicyAgent(model.policy, use_numpy=False).logits(obs)
    np.testing.assert_allclose(agent.logits(obs), torch_logits, rtol=1e-4, atol=1e-5)
