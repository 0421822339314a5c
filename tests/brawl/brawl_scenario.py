"""Fixed-deal scenarios for the Brawl rules tests: short card names, deals, and a play helper.

Scenarios use card data with a standard hand of 1 (so 2 cards are dealt) unless they say
otherwise, which keeps every worked example a few decisions long. Short names: ``FP`` FIRE
PUNCH, ``FK`` FIRE KICK, ``WP``/``WK`` WATER, ``NP``/``NK`` WIND, ``EP``/``EK`` EARTH, ``J``
JUMP, ``D`` DODGE, ``C`` COUNTER, ``B`` BLOCK, ``X`` CHAOS, ``PASS``, ``CW``, ``CCW``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fight_envs.games.brawl.cards import CLASSIC_CARDS, BrawlCards, parse_cards
from fight_envs.games.brawl.rules import CLOCKWISE, COUNTER_CLOCKWISE, PASS, BrawlConfig, BrawlDeal, BrawlGame

SHORT = {"FP": "FIRE PUNCH", "FK": "FIRE KICK", "WP": "WATER PUNCH", "WK": "WATER KICK", "NP": "WIND PUNCH",
         "NK": "WIND KICK", "EP": "EARTH PUNCH", "EK": "EARTH KICK", "J": "JUMP", "D": "DODGE", "C": "COUNTER",
         "B": "BLOCK", "X": "CHAOS"}


def small_cards(standard_hand_size: int = 1, **changes: object) -> BrawlCards:
    """The classic card data with another standard hand size (and any other top-level field changed)."""
    data = CLASSIC_CARDS.to_json()
    data["standard_hand_size"] = standard_hand_size
    data.update(changes)
    return parse_cards(data, "scenario cards")


def card(name: str, cards: BrawlCards = CLASSIC_CARDS) -> int:
    return cards.card_of(SHORT.get(name, name))


def action(name: str, cards: BrawlCards = CLASSIC_CARDS) -> int:
    if name == "PASS":
        return PASS
    if name == "CW":
        return CLOCKWISE
    if name == "CCW":
        return COUNTER_CLOCKWISE
    return card(name, cards)


def make_deal(hands: Sequence[Sequence[str]], pile_top: Sequence[str] = (), cards: BrawlCards | None = None) -> BrawlDeal:
    """Hands as written; the draw pile starts with ``pile_top`` (top first), then the rest of the deck."""
    cards = cards or small_cards()
    remaining = cards.deck.copy()
    out_hands = []
    for h in hands:
        ids = tuple(card(c, cards) for c in h)
        for c in ids:
            remaining[c] -= 1
        out_hands.append(ids)
    top = [card(c, cards) for c in pile_top]
    for c in top:
        remaining[c] -= 1
    assert (remaining >= 0).all(), "the scenario uses more copies of a card than the deck holds"
    rest = [int(c) for c in np.repeat(np.arange(len(remaining)), remaining)]
    return BrawlDeal(tuple(out_hands), tuple(top + rest))


def new_game(hands: Sequence[Sequence[str]], pile_top: Sequence[str] = (), cards: BrawlCards | None = None,
             chaos_windows: bool | str | None = True, seed: int = 0, max_steps: int | None = None,
             rules: str = "classic", **levers: object) -> BrawlGame:
    """A game on a fixed deal; by default under ``rules="classic"`` (the scenarios of the first
    release); ``rules="standard"`` and single ``levers`` (``showdown=...``) for the new choices."""
    cards = cards or small_cards(len(hands[0]) - 1)
    config = BrawlConfig(num_players=len(hands), chaos_windows=chaos_windows, max_steps=max_steps, rules=rules,
                         **levers)
    game = BrawlGame(config, cards)
    game.new_game(np.random.default_rng(seed), make_deal(hands, pile_top, cards))
    return game


def play(game: BrawlGame, seat: int, name: str) -> None:
    """Seat ``seat`` takes action ``name``; it must be that seat's decision."""
    assert game.current_player() == seat, f"seat {game.current_player()} decides ({game.phase.name}), not {seat}"
    game.apply_action(seat, action(name, game.cards))


def hand(game: BrawlGame, seat: int) -> list[str]:
    """Seat's hand as sorted short names."""
    inverse = {v: k for k, v in SHORT.items()}
    names = game.cards.names
    return sorted(inverse[names[c]] for c in range(len(names)) for _ in range(int(game.hands[seat, c])))


def legal(game: BrawlGame) -> set[str]:
    inverse = {v: k for k, v in SHORT.items()}
    out = set()
    for a in game.legal_actions(game.current_player()):
        name = game.action_name(a)
        out.add({"CLOCKWISE": "CW", "COUNTER-CLOCKWISE": "CCW"}.get(name, inverse.get(name, name)))
    return out
