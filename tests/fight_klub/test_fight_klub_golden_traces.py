"""Golden traces: stored seeded Fight Klub games, replayed step by step.

Each file in ``tests/fight_klub/golden/`` holds a game's actions, a hash of both agents'
observations before every step, the rewards and the game record. A failure names the first
step that differs. If a change is intended (new rules reading, new observation layout, new card
data), regenerate with ``python tests/fight_klub/test_fight_klub_golden_traces.py --regen`` and
say why in the commit.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from fight_envs import fight_klub_v0
from fight_envs.games.fight_klub.record import replay
from fight_envs.testing import dump_trace, record_trace, replay_trace

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
FILES = sorted(GOLDEN_DIR.glob("*.json"))
GAMES = [  # (file stem, decks, seed, policy seed)
    ("vega_vs_hollow_seed7", ["vega_blitz", "hollow_control"], 7, 1),
    ("queen_vs_sage_seed21", ["queen_pressure", "sage_patience"], 21, 2),
]


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def test_golden_traces_exist_and_are_whole_games() -> None:
    assert [p.stem for p in FILES] == sorted(stem for stem, *_ in GAMES)
    assert all(load(p)["record"]["finished"] for p in FILES)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_trace_replays_step_by_step(path: Path) -> None:
    trace = load(path)
    env = replay_trace(fight_klub_v0, trace)
    assert env.unwrapped.game.is_terminal()
    game = replay(trace["record"])
    assert [p.dealt for p in game.players] == trace["record"]["damage"]


def test_golden_replay_notices_a_changed_action() -> None:
    trace = load(GOLDEN_DIR / "vega_vs_hollow_seed7.json")
    steps = trace["steps"]
    env = fight_klub_v0.env(**trace["options"])
    env.reset(seed=trace["seed"])
    k = 4  # from step 4 on, the first step whose agent had a real alternative
    for step in steps[:k]:
        env.step(step["action"])
    legal = env.observe(steps[k]["agent"])["action_mask"].nonzero()[0].tolist()
    while len(legal) < 2:
        env.step(steps[k]["action"])
        k += 1
        legal = env.observe(steps[k]["agent"])["action_mask"].nonzero()[0].tolist()
    steps[k]["action"] = next(a for a in legal if a != steps[k]["action"])
    with pytest.raises(AssertionError, match=rf"step {k + 1}\b"):
        replay_trace(fight_klub_v0, trace)


if __name__ == "__main__" and "--regen" in sys.argv:
    GOLDEN_DIR.mkdir(exist_ok=True)
    for stem, decks, seed, policy in GAMES:
        trace = record_trace(fight_klub_v0, {"decks": decks}, seed=seed, policy_seed=policy)
        (GOLDEN_DIR / f"{stem}.json").write_text(dump_trace(trace), encoding="utf-8")
        print(stem, len(trace["steps"]), "steps")
