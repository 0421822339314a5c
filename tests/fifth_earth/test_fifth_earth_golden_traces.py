"""Golden traces: stored seeded Fifth-Earth games, replayed step by step.

Each file in ``tests/fifth_earth/golden/`` holds a game's actions, a hash of every agent's
observation before every step, the rewards and the game record. A failure names the first step
that differs. If the change is intended, regenerate with
``python tests/fifth_earth/regen_golden.py`` and say why in the commit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fight_envs import fifth_earth_v0
from fight_envs.games.fifth_earth.record import replay
from fight_envs.testing import replay_trace

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
FILES = sorted(GOLDEN_DIR.glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def test_golden_traces_cover_two_and_five_players_and_the_royale() -> None:
    traces = [load(p) for p in FILES]
    assert {t["options"]["num_players"] for t in traces} >= {2, 5}
    assert any(t["options"].get("format") == "royale" for t in traces)
    assert all(t["record"]["finished"] for t in traces), "each trace is a whole game"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_trace_replays_step_by_step(path: Path) -> None:
    trace = load(path)
    env = replay_trace(fifth_earth_v0, trace)
    assert env.unwrapped.game.is_terminal()
    game = replay(trace["record"])
    assert game.destinations_won.tolist() == trace["record"]["destinations_won"]


def test_golden_replay_notices_a_changed_action() -> None:
    trace = load(GOLDEN_DIR / "2p_seed7.json")
    steps = trace["steps"]
    env = fifth_earth_v0.env(**trace["options"])
    env.reset(seed=trace["seed"])
    # find the first lay with more than one legal choice and play another card there
    for i, step in enumerate(steps):
        legal = env.observe(step["agent"])["action_mask"].nonzero()[0].tolist()
        if len(legal) > 1 and step["action"] < 175:
            steps[i]["action"] = next(a for a in legal if a != step["action"])
            break
        env.step(step["action"])
    with pytest.raises(AssertionError, match=r"step \d+ \(player_\d\): (observations|rewards) differ|acts"):
        replay_trace(fifth_earth_v0, trace)
