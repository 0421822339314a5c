"""Golden traces: stored seeded Fight 5 games, replayed step by step.

Each file in ``tests/golden/fight5/`` holds a game's actions, a hash of every agent's
observation before every step, the rewards and the game record. A failure names the first step
that differs. If the change is intended (new rules reading, new observation layout), regenerate
with ``python scripts/regen_golden_fight5.py`` and say why in the commit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fight_envs import fight5_v0
from fight_envs.games.fight5.record import replay
from fight_envs.testing import replay_trace

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden" / "fight5"
FILES = sorted(GOLDEN_DIR.glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def test_golden_traces_cover_two_and_five_players_and_both_apis() -> None:
    traces = [load(p) for p in FILES]
    assert {t["options"]["num_players"] for t in traces} >= {2, 5}
    assert {t["api"] for t in traces} == {"aec", "parallel"}
    assert all(t["record"]["finished"] for t in traces), "each trace is a whole game"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_trace_replays_step_by_step(path: Path) -> None:
    trace = load(path)
    env = replay_trace(fight5_v0, trace)
    assert env.unwrapped.game.is_terminal()
    game = replay(trace["record"])
    assert game.scores.tolist() == trace["record"]["scores"]


def test_golden_replay_notices_a_changed_action() -> None:
    trace = load(GOLDEN_DIR / "2p_aec_seed7.json")
    steps = trace["steps"]
    # Step 6 is player_1's second placement; put another card it holds there instead.
    env = fight5_v0.env(**trace["options"])
    env.reset(seed=trace["seed"])
    for step in steps[:6]:
        env.step(step["action"])
    legal = env.observe("player_1")["action_mask"].nonzero()[0].tolist()
    steps[6]["action"] = next(a for a in legal if a != steps[6]["action"])
    with pytest.raises(AssertionError, match="step 7 \\(player_1\\): observations differ"):
        replay_trace(fight5_v0, trace)
