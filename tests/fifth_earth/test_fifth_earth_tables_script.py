"""The event parsers of ``benchmarks/fifth_earth_tables.py`` (the source of section 8's bye and battle rows)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from fight_envs.games.fifth_earth.rules import FifthEarthConfig, FifthEarthGame

_SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "fifth_earth_tables.py"
_spec = importlib.util.spec_from_file_location("fifth_earth_tables", _SCRIPT)
tables = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tables)


def test_bye_finals_reads_who_had_the_bye_before_the_final() -> None:
    events = ["round 1 seeding roll: P0 6, P1 4, P2 2", "P0 has a bye", "P2 challenges P1", "P2 wins the battle",
              "round 2 seeding roll: P0 5, P2 3", "P2 challenges P0", "P0 wins the battle",  # the bye player wins
              "round 1 seeding roll: P1 6, P0 4, P2 2", "P1 has a bye", "P2 challenges P0", "P0 wins the battle",
              "round 2 seeding roll: P1 5, P0 3", "P0 challenges P1", "P0 wins the battle"]  # ... and loses
    assert tables.bye_finals(events) == [1, 0]
    # two players from the start: no bye, no bye final
    assert tables.bye_finals(["round 1 seeding roll: P0 6, P1 4", "P1 challenges P0", "P1 wins the battle"]) == []


def test_every_three_player_destination_has_one_bye_final_and_two_battles() -> None:
    rng = np.random.default_rng(1)
    game = FifthEarthGame(FifthEarthConfig(num_players=3, num_destinations=4))
    game.new_game(np.random.default_rng(0))
    while not game.is_terminal():
        seat = game.current_player()
        legal = game.legal_actions(seat)
        game.apply_action(seat, legal[int(rng.integers(len(legal)))])
    finals = tables.bye_finals(game._events)
    assert len(finals) == 4 and set(finals) <= {0, 1}
    fought = tables.battles(game._events)
    assert [alive for alive, *_ in fought] == [3, 2] * 4
    for _, challenged, challenger, winner in fought:
        assert winner in (challenged, challenger) and challenged != challenger
