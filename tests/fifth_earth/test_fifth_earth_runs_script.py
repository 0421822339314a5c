"""``benchmarks/fifth_earth_runs.py`` (the source of section 8's run rows): its probe, its power designs, its counts."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import fight_envs.agents.fifth_earth as fe_agents
from fight_envs.games.fifth_earth.cards import DEFAULT_CARDS, card_id, character_of, stage_of
from fight_envs.games.fifth_earth.rules import DESTINATION_BASE, RUN_BASE, FifthEarthConfig, FifthEarthGame

_DIR = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(_DIR))  # the script imports fifth_earth_tables beside it
_spec = importlib.util.spec_from_file_location("fifth_earth_runs", _DIR / "fifth_earth_runs.py")
runs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(runs)


def _play(game: FifthEarthGame, rng: np.random.Generator, check) -> int:
    """Random play, with ``check(game, seat, legal)`` called at every lay decision; returns the lay decisions."""
    seen = 0
    while not game.is_terminal():
        seat = game.current_player()
        legal = np.array(game.legal_actions(seat))
        if legal[0] < DESTINATION_BASE:
            check(game, seat, legal)
            seen += 1
        game.apply_action(seat, int(rng.choice(legal)))
    return seen


def test_run_keeper_never_breaks_a_pair_or_lays_a_run_while_another_single_is_legal() -> None:
    avoided = 0

    def check(game: FifthEarthGame, seat: int, legal: np.ndarray) -> None:
        nonlocal avoided
        a = runs.keeper_choice(game, seat, legal, np.random.default_rng(len(game.log)))
        assert a in legal
        hand = set(np.flatnonzero(game.hands[seat]).tolist())
        singles = [int(x) for x in legal if x < RUN_BASE]
        if not singles:
            assert a >= RUN_BASE  # only runs legal: it must lay one
            return
        assert a < RUN_BASE  # a single whenever one is legal

        def paired(c: int) -> bool:  # a card of a character whose stages 1 and 2 I hold
            return card_id(character_of(c), 1) in hand and card_id(character_of(c), 2) in hand

        def breaks(c: int) -> bool:
            return paired(c) and stage_of(c) <= 2

        if any(not breaks(c) for c in singles):
            assert not breaks(a)
            avoided += any(breaks(c) for c in singles)
        if any(not paired(c) for c in singles):
            assert not paired(a)  # nor rests such a character while a card of another is legal

    game = FifthEarthGame(FifthEarthConfig(num_players=2, num_destinations=8))
    game.new_game(np.random.default_rng(5))
    assert _play(game, np.random.default_rng(6), check) > 50
    assert avoided > 5  # it met pairs it could have broken, not only free choices


def test_designs_swap_the_packaged_profiles_and_the_baselines_judge_by_them() -> None:
    flat = runs.design_cards(runs.PROFILES["flat"])
    packaged = DEFAULT_CARDS.stage_power
    for ch in range(packaged.shape[0]):
        i = runs.PACKAGED.index(tuple(int(v) for v in packaged[ch]))
        assert tuple(int(v) for v in flat.stage_power[ch]) == runs.PROFILES["flat"][i]
    assert np.array_equal(flat.power_modifiers, DEFAULT_CARDS.power_modifiers)
    before = fe_agents.LAY_POWER.copy()
    for name in ("heuristic", "cheapest_beat", "strongest_single"):
        powers = runs.agent(name, 1, flat).powers
        assert powers.lay_power[card_id(0, 1)] == flat.stage_power[0, 0]
        assert not np.array_equal(powers.lay_power, before)
    assert np.array_equal(fe_agents.LAY_POWER, before)  # the packaged constants are left as shipped
    with pytest.raises(SystemExit, match="three profiles of four"):
        runs.parse_profile("bad=1/2/3/4,1/2/3/4")
    with pytest.raises(SystemExit, match="unknown profile"):
        runs.parse_profile("nope")


def test_a_cell_counts_every_lay_decision_and_the_keeper_keeps_more_runs_than_random() -> None:
    keeper = runs.cell(DEFAULT_CARDS, "run_keeper", "run_keeper", deals=2, seed=3, options={"num_destinations": 3})
    rand = runs.cell(DEFAULT_CARDS, "random", "random", deals=2, seed=3, options={"num_destinations": 3})
    for r in (keeper, rand):
        assert r["lay_decisions"] == sum(round(v["share"] * r["lay_decisions"]) for v in r["by_hand"].values())
        assert 0.0 <= r["runs_offered"] <= 1.0
    assert keeper["lays_that_are_runs"] < rand["lays_that_are_runs"]
    assert keeper["runs_offered"] > rand["runs_offered"]
