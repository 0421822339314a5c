"""Brawl card data: loads ``cards.json``, validates it, and exposes it as typed constants.

A card is identified by its *card type* index, which doubles as the action "play a card of this
type": for element ``e`` (0..3, in the order of ``elements``) ``2e`` is its PUNCH and ``2e + 1``
its KICK; then JUMP 8, DODGE 9, COUNTER 10, BLOCK 11, CHAOS 12. The data file may rename the
four elements and change every count and the hand size; the layout of types is fixed because
it is the action space.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fight_envs.core.data import load_json_data
from fight_envs.core.errors import CardDataError

NUM_ELEMENTS = 4
ATTACK_KINDS: tuple[str, ...] = ("PUNCH", "KICK")
SPECIALS: tuple[str, ...] = ("JUMP", "DODGE", "COUNTER", "BLOCK", "CHAOS")
NUM_ATTACKS = NUM_ELEMENTS * len(ATTACK_KINDS)
JUMP, DODGE, COUNTER, BLOCK, CHAOS = range(NUM_ATTACKS, NUM_ATTACKS + len(SPECIALS))
NUM_CARD_TYPES = NUM_ATTACKS + len(SPECIALS)
DEFENSIVE = (DODGE, COUNTER, BLOCK)


def is_attack(card: int) -> bool:
    return 0 <= card < NUM_ATTACKS


def element_of(card: int) -> int:
    """Element index of an attack card."""
    return card // 2


def attacks_of_element(element: int) -> tuple[int, int]:
    """The PUNCH and KICK card types of ``element``."""
    return (2 * element, 2 * element + 1)


@dataclass(frozen=True)
class BrawlCards:
    """Validated card data: the deck composition by card type and the hand sizes."""

    elements: tuple[str, ...]
    deck: np.ndarray
    """Copies of each card type in the deck (length NUM_CARD_TYPES)."""
    standard_hand_size: int
    extra_cards_dealt: int

    @property
    def deal_size(self) -> int:
        """Cards each fighter is dealt: the standard hand plus the extra card."""
        return self.standard_hand_size + self.extra_cards_dealt

    @functools.cached_property
    def deck_size(self) -> int:
        """Cards in the deck (kept: the deck's counts are fixed once validated)."""
        return int(self.deck.sum())

    @property
    def names(self) -> tuple[str, ...]:
        """Display name of every card type, e.g. 'FIRE PUNCH', 'JUMP'."""
        return tuple(f"{e} {k}" for e in self.elements for k in ATTACK_KINDS) + SPECIALS

    def card_of(self, name: Any) -> int:
        """Card type of a name ('FIRE PUNCH', 'fire_kick', 'JUMP'; case and '_' ignored)."""
        if isinstance(name, str):
            key = " ".join(name.replace("_", " ").upper().split())
            for i, n in enumerate(self.names):
                if n == key:
                    return i
        raise ValueError(f"unknown Brawl card {name!r}; cards are {', '.join(self.names)}")

    def to_json(self) -> dict[str, Any]:
        return {
            "elements": list(self.elements),
            "attacks_per_element": {k: int(self.deck[i]) for i, k in enumerate(ATTACK_KINDS)},
            "specials": {s: int(self.deck[NUM_ATTACKS + i]) for i, s in enumerate(SPECIALS)},
            "standard_hand_size": self.standard_hand_size,
            "extra_cards_dealt": self.extra_cards_dealt,
        }


MAX_COUNT = 10_000
"""Largest count a card file may give (a deck of 2**62 cards would exhaust memory dealing it)."""


def _count(value: Any, where: str, minimum: int = 0) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not minimum <= value <= MAX_COUNT:
        raise CardDataError(f"{where} must be an integer in {minimum}..{MAX_COUNT:,}, got {value!r}")
    return value


def _exact_keys(obj: Any, keys: tuple[str, ...], where: str) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise CardDataError(f"{where} must be an object with keys {list(keys)}, got {type(obj).__name__}")
    unknown, missing = sorted(set(obj) - set(keys)), [k for k in keys if k not in obj]
    if unknown or missing:
        raise CardDataError(f"{where} has unknown keys {unknown} / missing keys {missing}; expected exactly {list(keys)}")
    return obj


def parse_cards(data: Any, source: str = "card data") -> BrawlCards:
    """Validate card data given as a parsed JSON object; CardDataError names the bad field."""
    if not isinstance(data, dict):
        raise CardDataError(f"{source}: must be a JSON object")
    fields = ("elements", "attacks_per_element", "specials", "standard_hand_size", "extra_cards_dealt")
    _exact_keys({k: v for k, v in data.items() if not k.startswith("_")}, fields, source)
    elements = data["elements"]
    if (not isinstance(elements, list) or len(elements) != NUM_ELEMENTS
            or not all(isinstance(e, str) and e.strip() for e in elements)
            or len({e.strip().upper() for e in elements}) != NUM_ELEMENTS):
        raise CardDataError(f"{source}: 'elements' must list {NUM_ELEMENTS} distinct non-empty names, got {elements!r}")
    deck = np.zeros(NUM_CARD_TYPES, dtype=np.int64)
    attacks = _exact_keys(data["attacks_per_element"], ATTACK_KINDS, f"{source}: 'attacks_per_element'")
    for k, kind in enumerate(ATTACK_KINDS):
        n = _count(attacks[kind], f"{source}: 'attacks_per_element.{kind}'", 1)
        deck[k:NUM_ATTACKS:2] = n
    specials = _exact_keys(data["specials"], SPECIALS, f"{source}: 'specials'")
    for i, name in enumerate(SPECIALS):
        deck[NUM_ATTACKS + i] = _count(specials[name], f"{source}: 'specials.{name}'")
    hand = _count(data["standard_hand_size"], f"{source}: 'standard_hand_size'")
    extra = _count(data["extra_cards_dealt"], f"{source}: 'extra_cards_dealt'")
    if hand + extra < 1:
        raise CardDataError(f"{source}: 'standard_hand_size' + 'extra_cards_dealt' must deal at least 1 card, got 0")
    return BrawlCards(tuple(e.strip().upper() for e in elements), deck, hand, extra)


def load_cards(path: str | Path | None = None) -> BrawlCards:
    """Load and validate a card-data JSON file (None: the package's ``cards.json``)."""
    data, source = load_json_data("fight_envs.games.brawl", "cards.json", path, "brawl cards.json")
    return parse_cards(data, source)


def load_classic_cards() -> BrawlCards:
    """The classic rules' card data (``cards_classic.json``: 54 cards, standard hand 5)."""
    data, source = load_json_data("fight_envs.games.brawl", "cards_classic.json", None, "brawl cards_classic.json")
    return parse_cards(data, source)


DEFAULT_CARDS = load_cards()
"""The standard rules' card data (``cards.json``)."""
CLASSIC_CARDS = load_classic_cards()
"""The classic rules' card data (``cards_classic.json``), what ``rules="classic"`` deals without a card file."""


def cards_for(rules: str) -> BrawlCards:
    """The card data a rule set deals when no card file is given."""
    return CLASSIC_CARDS if rules == "classic" else DEFAULT_CARDS
