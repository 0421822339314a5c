"""Determinism of Brawl: seeded games are reproduced exactly whatever the global random state
does, and stored golden traces (every observation's digest at every step) still replay.

Regenerate the golden traces after an intended rules or observation change with
``python tests/brawl/test_brawl_determinism.py`` and say why in the commit.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from fight_envs import brawl_v0
from fight_envs.testing import dump_trace, record_trace, replay_trace

GOLDEN = Path(__file__).resolve().parent / "golden"
TRACES = {
    "3p_aec_seed7.json": {"options": {"num_players": 3}, "seed": 7, "policy_seed": 1, "api": "aec"},
    "8p_aec_seed3.json": {"options": {"num_players": 8}, "seed": 3, "policy_seed": 2, "api": "aec"},
    "4p_aec_nowindows_seed5.json": {"options": {"num_players": 4, "chaos_windows": False}, "seed": 5,
                                    "policy_seed": 3, "api": "aec"},
}


def _disturb() -> None:
    random.random()
    np.random.random()


def test_same_seed_same_game_despite_global_random_calls() -> None:
    a = record_trace(brawl_v0, {"num_players": 5}, seed=11, policy_seed=4)
    b = record_trace(brawl_v0, {"num_players": 5}, seed=11, policy_seed=4, between_steps=_disturb)
    assert a == b
    c = record_trace(brawl_v0, {"num_players": 5}, seed=12, policy_seed=4)
    assert c["steps"] != a["steps"]


def _parallel_trace(seed: int, disturb: bool) -> list[bytes]:
    # fight_envs.testing.record_trace samples every agent's mask; here only the decider has one
    env = brawl_v0.parallel_env(num_players=4)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(0)
    out = []
    while env.agents:
        out.append(b"".join(obs[a]["observation"].tobytes() for a in env.agents))
        if disturb:
            _disturb()
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) if obs[a]["action_mask"].any() else 0
                   for a in env.agents}
        obs, *_ = env.step(actions)
    return out


def test_parallel_env_is_deterministic_too() -> None:
    assert _parallel_trace(9, False) == _parallel_trace(9, True)
    assert _parallel_trace(9, False) != _parallel_trace(10, False)


@pytest.mark.parametrize("name", sorted(TRACES))
def test_golden_trace_replays(name: str) -> None:
    trace = json.loads((GOLDEN / name).read_text())
    replay_trace(brawl_v0, trace)


def main() -> None:  # pragma: no cover - regenerates the golden files
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name, params in TRACES.items():
        (GOLDEN / name).write_text(dump_trace(record_trace(brawl_v0, **params)))


if __name__ == "__main__":  # pragma: no cover
    main()
