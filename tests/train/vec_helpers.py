"""What the vec-env tests share (``test_multi_vec_env.py``, ``test_sharded_vec_env.py``): random legal
actions for every env, and an opponent-pool manifest of baselines."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1)


def write_manifest(path: Path, game: str, weights: dict[str, float]) -> Path:
    entries = [{"id": k, "kind": "baseline", "spec": k, "weight": w} for k, w in weights.items()]
    path.write_text(json.dumps({"game": game, "deterministic": False, "entries": entries}))
    return path
