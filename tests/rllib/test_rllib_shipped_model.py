"""The RLlib-trained Fight 5 learner shipped in ``models/fight5_2p_rllib/`` (docs/results.md reports
it) loads as a suite agent through the agent registry, plays only legal moves and clearly beats random."""

from __future__ import annotations

from pathlib import Path

from fight_envs.agents.evaluate import versus_baseline
from fight_envs.agents.registry import make_agent
from fight_envs.agents.rllib_agent import RLlibModuleAgent
from fight_envs import fight5_v0

MODEL = Path(__file__).resolve().parents[2] / "models" / "fight5_2p_rllib"


def test_shipped_rllib_model_beats_random():
    learner = make_agent(str(MODEL), game="fight5", seed=0)
    assert isinstance(learner, RLlibModuleAgent) and learner.label == "fight5_2p_rllib"
    assert learner.metadata["features"] == "fight5_slot"
    stats = versus_baseline(lambda: fight5_v0.raw_env(num_players=2), learner, make_agent("random", seed=1),
                            num_deals=15, seed=3)
    assert stats.win_rate > 0.7  # measured 0.933 over 1,000 games (docs/results.md)


def test_a_relative_path_loads_too(monkeypatch):
    monkeypatch.chdir(MODEL.parent.parent)
    assert make_agent("models/fight5_2p_rllib", game="fight5").label == "fight5_2p_rllib"
