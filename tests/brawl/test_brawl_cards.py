"""Brawl card data: the shipped deck, and the errors a malformed card file gets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fight_envs.core.errors import CardDataError, ConfigError
from fight_envs.games.brawl.cards import CLASSIC_CARDS, DEFAULT_CARDS, NUM_CARD_TYPES, load_cards, parse_cards
from fight_envs.games.brawl.rules import BrawlConfig, BrawlGame


def test_default_deck_is_the_documented_design() -> None:
    c = DEFAULT_CARDS  # the standard rules' deck
    assert c.elements == ("FIRE", "WATER", "WIND", "EARTH")
    assert c.names[:4] == ("FIRE PUNCH", "FIRE KICK", "WATER PUNCH", "WATER KICK")
    assert c.names[8:] == ("JUMP", "DODGE", "COUNTER", "BLOCK", "CHAOS")
    assert c.deck.tolist() == [10] * 8 + [3, 2, 2, 2, 4]
    assert c.deck_size == 93 and c.standard_hand_size == 10 and c.deal_size == 11
    assert c.deal_size * 8 <= c.deck_size - 5  # eight fighters can be dealt, five cards left to draw


def test_classic_deck_is_the_first_releases() -> None:
    c = CLASSIC_CARDS
    assert c.elements == DEFAULT_CARDS.elements
    assert c.deck.tolist() == [4] * 8 + [6, 4, 4, 4, 4]
    assert c.deck_size == 54 and c.standard_hand_size == 5 and c.deal_size == 6
    assert c.deal_size * 8 <= c.deck_size  # eight fighters can be dealt


def test_card_data_round_trips_through_json(tmp_path: Path) -> None:
    path = tmp_path / "cards.json"
    path.write_text(json.dumps(DEFAULT_CARDS.to_json()))
    loaded = load_cards(path)
    assert loaded.deck.tolist() == DEFAULT_CARDS.deck.tolist() and loaded.elements == DEFAULT_CARDS.elements


def _with(**changes: Any) -> dict[str, Any]:
    data = DEFAULT_CARDS.to_json()
    data.update(changes)
    return data


@pytest.mark.parametrize(
    "data, message",
    [
        pytest.param([], "must be a JSON object", id="not-an-object"),
        pytest.param(_with(colour="red"), "unknown keys \\['colour'\\]", id="unknown-field"),
        pytest.param({k: v for k, v in _with().items() if k != "specials"}, "missing keys \\['specials'\\]",
                     id="missing-field"),
        pytest.param(_with(elements=["FIRE", "WATER", "WIND"]), "'elements' must list 4", id="three-elements"),
        pytest.param(_with(elements=["FIRE", "fire", "WIND", "EARTH"]), "distinct", id="repeated-element"),
        pytest.param(_with(attacks_per_element={"PUNCH": 4}), "'attacks_per_element' has unknown keys \\[\\] / missing keys \\['KICK'\\]",
                     id="missing-kick"),
        pytest.param(_with(attacks_per_element={"PUNCH": 0, "KICK": 4}), "'attacks_per_element.PUNCH' must be an integer in 1..",
                     id="no-punches"),
        pytest.param(_with(specials={"JUMP": 6, "DODGE": 4, "COUNTER": 4, "BLOCK": -1, "CHAOS": 4}),
                     "'specials.BLOCK' must be an integer in 0..", id="negative-count"),
        pytest.param(_with(standard_hand_size=2.5), "'standard_hand_size' must be an integer", id="float-hand"),
        pytest.param(_with(standard_hand_size=0, extra_cards_dealt=0), "deal at least 1 card", id="empty-deal"),
    ],
)
def test_bad_card_data_names_the_field(data: Any, message: str) -> None:
    with pytest.raises(CardDataError, match=message):
        parse_cards(data)


def test_unreadable_or_invalid_files(tmp_path: Path) -> None:
    with pytest.raises(CardDataError, match="cannot read card data"):
        load_cards(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(CardDataError, match="not valid JSON"):
        load_cards(bad)


def test_deck_too_small_for_the_table_is_a_config_error() -> None:
    small = parse_cards(_with(standard_hand_size=11))
    assert small.deal_size * 8 > small.deck_size
    with pytest.raises(ConfigError, match="too few to deal 12 to each of 8 fighters"):
        BrawlGame(BrawlConfig(num_players=8), small)


def test_card_names_parse_loosely_and_fail_clearly() -> None:
    assert DEFAULT_CARDS.card_of("fire_kick") == 1 and DEFAULT_CARDS.card_of(" chaos ") == NUM_CARD_TYPES - 1
    with pytest.raises(ValueError, match="unknown Brawl card 'THUNDER PUNCH'"):
        DEFAULT_CARDS.card_of("THUNDER PUNCH")
