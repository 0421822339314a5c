"""The trained Fight 5 model shipped in ``models/`` (the one ``docs/results.md`` reports) loads
through the public checkpoint loader, plays only legal moves and clearly beats random."""

from __future__ import annotations

from pathlib import Path

from fight_envs.agents.checkpoint import read_metadata
from fight_envs.agents.evaluate import versus_baseline
from fight_envs.agents.registry import make_agent
from fight_envs import fight5_v0

MODEL = Path(__file__).resolve().parents[2] / "models" / "fight5_2p_default.zip"


def test_shipped_model_metadata_names_its_game():
    meta = read_metadata(MODEL)
    assert meta["game"] == "fight5" and meta["num_actions"] == 13 and list(meta["observation_shape"]) == [627]


def test_shipped_model_beats_random():
    learner = make_agent(str(MODEL), game="fight5", seed=0)
    stats = versus_baseline(lambda: fight5_v0.raw_env(num_players=2), learner, make_agent("random", seed=1),
                            num_deals=15, seed=3)
    assert stats.win_rate > 0.7  # measured 0.934 over 2,000 games (docs/results.md)
