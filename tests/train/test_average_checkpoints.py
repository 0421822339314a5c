"""``scripts/average_checkpoints.py``: the mean of several checkpoints' weights, as a data-only checkpoint."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch
from sb3_contrib import MaskablePPO

from fight_envs.agents.checkpoint import load_policy, read_metadata, save_checkpoint
from fight_envs.wrappers import SingleAgentEnv

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("average_checkpoints", ROOT / "scripts" / "average_checkpoints.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _checkpoint(path: Path, seed: int, fight5_metadata, net_arch=(16, 16)) -> Path:
    model = MaskablePPO("MlpPolicy", SingleAgentEnv(seed=0), policy_kwargs={"net_arch": list(net_arch)}, seed=seed, n_steps=16)
    return save_checkpoint(model, path, fight5_metadata(label=f"seed{seed}@0"))


def test_average_is_the_mean_of_the_weights(tmp_path: Path, fight5_metadata) -> None:
    paths = [_checkpoint(tmp_path / f"c{s}.zip", s, fight5_metadata) for s in (1, 2, 3)]
    out = _script().average(paths, tmp_path / "avg.zip")
    states = [load_policy(p)[0].state_dict() for p in paths]
    averaged = load_policy(out)[0].state_dict()
    assert set(averaged) == set(states[0])
    for key, value in averaged.items():
        assert torch.allclose(value, sum(s[key] for s in states) / 3, atol=1e-7), key
    assert not torch.equal(states[0]["action_net.weight"], states[1]["action_net.weight"])  # they did differ
    meta = read_metadata(out)
    assert meta["label"] == "average of 3 checkpoints" and meta["averaged"] == [str(p) for p in paths]


def test_average_refuses_other_networks_and_a_single_checkpoint(tmp_path: Path, fight5_metadata) -> None:
    a = _checkpoint(tmp_path / "a.zip", 1, fight5_metadata)
    b = _checkpoint(tmp_path / "b.zip", 2, fight5_metadata, net_arch=(8, 8))
    with pytest.raises(SystemExit, match="another network"):
        _script().average([a, b], tmp_path / "avg.zip")
    with pytest.raises(SystemExit, match="at least two"):
        _script().average([a], tmp_path / "avg.zip")
    assert not (tmp_path / "avg.zip").exists()
