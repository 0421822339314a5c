"""Shared fixtures of the training tests: small untrained checkpoints (no training needed)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from sb3_contrib import MaskablePPO

from fight_envs.agents.checkpoint import checkpoint_metadata, save_checkpoint, write_metadata
from fight_envs.wrappers import SingleAgentEnv

torch.set_num_threads(1)


def _fight5_metadata(**changes: object) -> dict:
    meta = checkpoint_metadata(game="fight5", env="fight5_v0", num_players=[2], observation_shape=(627,),
                               num_actions=13, env_options={"reward": "outcome"}, label="test@0")
    meta.update(changes)
    return meta


@pytest.fixture()
def fight5_metadata() -> Callable[..., dict]:
    """Builds a Fight 5 sidecar; keyword arguments replace fields."""
    return _fight5_metadata


@pytest.fixture(scope="session")
def fight5_model() -> MaskablePPO:
    return MaskablePPO("MlpPolicy", SingleAgentEnv(seed=0), policy_kwargs={"net_arch": [16, 16]}, seed=0, n_steps=16)


@pytest.fixture()
def fight5_checkpoint(tmp_path: Path, fight5_model: MaskablePPO) -> Path:
    """A full (training) checkpoint in the data-only format with its sidecar, in a fresh directory."""
    return save_checkpoint(fight5_model, tmp_path / "model.zip", _fight5_metadata())


@pytest.fixture()
def fight5_pickled_checkpoint(tmp_path: Path, fight5_model: MaskablePPO) -> Path:
    """A plain ``MaskablePPO.save`` file (pickled: loads only with trust=True) with its sidecar."""
    path = tmp_path / "pickled.zip"
    fight5_model.save(path)
    write_metadata(path, _fight5_metadata())
    return path
