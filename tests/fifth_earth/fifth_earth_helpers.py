"""Scenario helpers shared by the Fifth-Earth tests: fixed deals and dice written by card name.

Rule scenarios are played with ``SCENARIO_CARDS``, the card data of v1 frozen in
``scenario_cards.json`` (same names and ids as the packaged data, other powers), so that a rule
stays pinned by its scenario whatever the packaged powers become; the packaged data's own design
is pinned in ``test_fifth_earth_cards.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fight_envs.games.fifth_earth.cards import DEFAULT_CARDS, FifthEarthCards, load_cards
from fight_envs.games.fifth_earth.rules import (
    CHALLENGE_BASE,
    DESTINATION_BASE,
    FifthEarthConfig,
    FifthEarthGame,
    parse_deal,
    run_action,
)

SCENARIO_CARDS = load_cards(Path(__file__).resolve().parent / "scenario_cards.json")
"""The v1 card data: Greytok 1/3/6/10, Ashvane 7/8/9/10, ... (power cards +1..+8 and -1..-6)."""

ND = [1, 2]
"""A roll that is not a double (total 3)."""
POWER_IN_ORDER = list(DEFAULT_CARDS.power_names)


def run(name: str, stages: int) -> list[str]:
    """Stages 1..stages of a character, by name."""
    return [f"{name} {s}" for s in range(1, stages + 1)]


def cid(name: str) -> int:
    return DEFAULT_CARDS.parse_card(name)


def char(name: str) -> int:
    return DEFAULT_CARDS.character_names.index(name)


def lay_run(name: str, length: int) -> int:
    return run_action(char(name), length)


def start(hands: list[list[str]], dice: list[int], power_deck: list[str] | None = None,
          cards: FifthEarthCards = SCENARIO_CARDS, **cfg: object) -> FifthEarthGame:
    """A game with the given hands (one destination deal) and the given die faces first."""
    n = len(hands)
    cfg.setdefault("rules", "classic")
    game = FifthEarthGame(FifthEarthConfig(num_players=n, **cfg), cards)  # type: ignore[arg-type]
    deal = parse_deal({"hands": hands, "power_deck": power_deck or POWER_IN_ORDER}, n, cards)
    game.new_game(np.random.default_rng(0), [deal], dice)
    return game


def choose(game: FifthEarthGame, seat: int, destination: int = 0) -> None:
    game.apply_action(seat, DESTINATION_BASE + destination)


def challenge(game: FifthEarthGame, seat: int, opponent: int) -> None:
    game.apply_action(seat, CHALLENGE_BASE + (opponent - seat) % game.num_players - 1)


def conservation_problems(game: FifthEarthGame) -> list[str]:
    """Every way the game's cards fail to be each in exactly one place (empty when all is well)."""
    from fight_envs.games.fifth_earth.cards import NUM_CARDS, NUM_POWER_CARDS
    from fight_envs.games.fifth_earth.rules import NOBODY

    count = game.undealt.astype(np.int64) + game.retired + (1 - game.in_play)
    count += game.hands.sum(axis=0) + (game.rest_since != NOBODY).sum(axis=0) + game.spoils.sum(axis=0)
    if game.battle is not None:
        for laid in game.battle.laid.values():
            count[laid] += 1
    problems = []
    if not game.deals_used:
        if count.any() and not (count == 1).all():
            problems.append("before the first deal the cards are not all in one place")
    elif not (count == 1).all():
        bad = {DEFAULT_CARDS.card_name(int(c)): int(count[c]) for c in np.flatnonzero(count != 1)}
        problems.append(f"character cards not in exactly one place: {bad}")
    power = sorted(game.power_deck + game.power_discard)
    if game.deals_used and power != list(range(NUM_POWER_CARDS)):
        problems.append(f"power cards deck+discard = {power}")
    if len(count) != NUM_CARDS:
        problems.append("wrong card count")
    for s in range(game.num_players):
        if not game.alive[s] and (game.hands[s].any() or game.spoils[s].any() or (game.rest_since[s] != NOBODY).any()):
            problems.append(f"knocked-out seat {s} still holds cards")
    return problems
