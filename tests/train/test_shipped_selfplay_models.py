"""The self-play models of issue 16 shipped in ``models/`` load as data-only policies (no trust needed),
name their game and player count, and beat random at the count they were trained for."""

from __future__ import annotations

from pathlib import Path

import pytest

from fight_envs.agents.checkpoint import read_metadata
from fight_envs.agents.evaluate import evaluate
from fight_envs.agents.registry import make_agent
from fight_envs.registry import make

MODELS = Path(__file__).resolve().parents[2] / "models"
SHIPPED = {"fight5_2p_3m.zip": ("fight5", 2), "fight5_2p_6m.zip": ("fight5", 2), "fight5_3p.zip": ("fight5", 3),
           "fight5_5p.zip": ("fight5", 5),
           "fifth_earth_2p.zip": ("fifth_earth", 2), "fifth_earth_3p.zip": ("fifth_earth", 3),
           "fifth_earth_5p.zip": ("fifth_earth", 5), "brawl_2p.zip": ("brawl", 2), "brawl_3p.zip": ("brawl", 3),
           "brawl_5p.zip": ("brawl", 5), "fight_klub_2p.zip": ("fight_klub", 2)}
"""Model file -> the game and player count it was trained at (docs/results.md has their evaluations)."""
DEALS = {("fight5", 2): 10, ("fight5", 3): 10, ("fight5", 5): 10,
         ("fifth_earth", 2): 30, ("fifth_earth", 3): 20, ("fifth_earth", 5): 10, ("brawl", 2): 20, ("brawl", 3): 20,
         ("brawl", 5): 10, ("fight_klub", 2): 20}
"""Deals per check (each from every seat): a Fifth-Earth campaign is decided by a few destinations, so more games."""


@pytest.mark.parametrize("name", list(SHIPPED))
def test_shipped_model_beats_random_at_its_player_count(name: str) -> None:
    game, n = SHIPPED[name]
    meta = read_metadata(MODELS / name)
    assert meta["game"] == game and meta["num_players"] == [n]
    learner = make_agent(str(MODELS / name), game=game, seed=0)
    others = [make_agent("random", game=game, seed=k) for k in range(1, n)]
    result = evaluate(lambda: make(f"{game}_v0", api="raw", num_players=n, **meta["env_options"]),
                      [learner, *others], num_deals=DEALS[game, n], seed=3)
    # Fight 5: measured 0.583 (3M) and 0.631 (6M) against one heuristic at 2 players (1,000 deals), 0.543
    # against two at 3 and 0.378 against four at 5 (300 deals each); Fifth-Earth: 0.891 against one heuristic (1,000 deals);
    # Brawl at 2: 0.678 against one heuristic (1,000 deals); at 3: 0.876 against two random (300 deals), 0.440
    # against two heuristics; at 5: 0.769 against four random (100 deals), 0.195 against four heuristics (300 deals);
    # Fight Klub: 0.623 against the heuristic (1,000 deals), 0.79 against play_anything and 0.91 against random
    # (ladder, 400 games each)
    assert result.stats[0].win_rate > 1.6 / n
