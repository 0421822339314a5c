"""Fight 5 card data: loads ``cards.json``, validates it, and exposes it as typed constants.

A card is identified by its *rank index*: 0..11 for the numbers 2..13 and 12 for the Star.
Rank indices double as action ids ("play a card of this rank here").
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

from fight_envs.core.data import decode_json, read_data_text
from fight_envs.core.errors import CardDataError

NUM_RANKS = 13
MAX_COUNT = 10_000
"""Most copies of one card a deck may hold (the rulebook's decks hold at most a few)."""
MAX_POINTS = 1_000_000
"""Largest value of a scoring field: scores stay far inside int64 however long a game runs."""
STAR = 12
RANK_NAMES: tuple[str, ...] = tuple(str(v) for v in range(2, 14)) + ("star",)
RANK_VALUES = np.array(list(range(2, 14)) + [0], dtype=np.int64)
"""Face value of each rank when it is a Clash Card (a Star Clash Card counts as 0)."""

_NAME_TO_RANK = {name: i for i, name in enumerate(RANK_NAMES)}
_NAME_TO_RANK["*"] = STAR


def rank_of(card: Any) -> int:
    """Parse a card given as a name ('2'..'13', 'star', '*') or a number 2..13."""
    if isinstance(card, (int, np.integer)) and not isinstance(card, bool):
        if 2 <= int(card) <= 13:
            return int(card) - 2
    elif isinstance(card, str) and card.strip().lower() in _NAME_TO_RANK:
        return _NAME_TO_RANK[card.strip().lower()]
    raise ValueError(f"unknown Fight 5 card {card!r}; cards are 2..13 or 'star'")


@dataclass(frozen=True)
class Fight5Cards:
    """Validated card data. Compositions are count vectors indexed by rank."""

    clash_deck: np.ndarray
    player_deck: np.ndarray
    elements: tuple[str, ...]
    clash_stacks: dict[int, int]
    stack_size: int
    rounds_per_bout: int
    high_card_min_value: int
    high_card_points: int
    star_points: int
    most_cards_bonus: int

    @property
    def hand_size(self) -> int:
        """Cards drawn each round: one per clash of a player (five)."""
        return int(self.player_deck.sum()) // self.rounds_per_bout

    def points_per_rank(self) -> np.ndarray:
        """Points one card of each rank is worth in a Point Pile (Scoring)."""
        pts = np.where(RANK_VALUES >= self.high_card_min_value, self.high_card_points, 0)
        pts[STAR] = self.star_points
        return pts.astype(np.int64)


def _composition(data: dict[str, Any], key: str, source: str) -> np.ndarray:
    comp = data.get(key)
    if not isinstance(comp, dict):
        raise CardDataError(f"{source}: '{key}' must be an object mapping card names to counts")
    unknown = sorted(set(comp) - set(RANK_NAMES))
    missing = sorted(set(RANK_NAMES) - set(comp), key=RANK_NAMES.index)
    if unknown or missing:
        raise CardDataError(
            f"{source}: '{key}' has unknown cards {unknown} / missing cards {missing}; "
            f"expected exactly {list(RANK_NAMES)}"
        )
    counts = np.zeros(NUM_RANKS, dtype=np.int64)
    for name, count in comp.items():
        if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= MAX_COUNT:
            raise CardDataError(f"{source}: '{key}.{name}' must be an integer in 0..{MAX_COUNT:,}, got {count!r}")
        counts[_NAME_TO_RANK[name]] = count
    return counts


def _int_field(data: dict[str, Any], key: str, source: str, minimum: int = 1, maximum: int = 10_000) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not minimum <= value <= maximum:
        raise CardDataError(f"{source}: '{key}' must be an integer in {minimum}..{maximum:,}, got {value!r}")
    return value


def parse_cards(data: dict[str, Any], source: str = "cards.json") -> Fight5Cards:
    """Validate raw card data and build :class:`Fight5Cards`; errors name the bad field."""
    if not isinstance(data, dict):
        raise CardDataError(f"{source}: top level must be an object")
    allowed = {"_comment", "ranks", "clash_deck", "player_deck", "elements", "clash_stacks",
               "stack_size", "rounds_per_bout", "scoring"}
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise CardDataError(f"{source}: unknown fields {unknown}; allowed: {sorted(allowed)}")
    if data.get("ranks") != list(RANK_NAMES):
        raise CardDataError(f"{source}: 'ranks' must be {list(RANK_NAMES)}")
    clash_deck = _composition(data, "clash_deck", source)
    player_deck = _composition(data, "player_deck", source)
    elements = data.get("elements")
    if not (isinstance(elements, list) and all(isinstance(e, str) for e in elements)):
        raise CardDataError(f"{source}: 'elements' must be a list of names")
    stack_size = _int_field(data, "stack_size", source)
    rounds = _int_field(data, "rounds_per_bout", source)
    stacks_raw = data.get("clash_stacks")
    if not isinstance(stacks_raw, dict) or not stacks_raw:
        raise CardDataError(f"{source}: 'clash_stacks' must map player counts to stack counts")
    clash_stacks: dict[int, int] = {}
    for players, stacks in stacks_raw.items():
        if not str(players).isdigit() or len(str(players)) > 3 or isinstance(stacks, bool) or not isinstance(stacks, int):
            raise CardDataError(f"{source}: 'clash_stacks' entry {players!r}: {stacks!r} is not int: int")
        n = int(players)
        if stacks != 2 * n + 1:
            raise CardDataError(
                f"{source}: 'clash_stacks': {n} players need {2 * n + 1} clash stacks (one middle clash and "
                f"two per neighbouring pair), got {stacks}"
            )
        if stacks * stack_size > clash_deck.sum():
            raise CardDataError(
                f"{source}: 'clash_stacks': {stacks} stacks of {stack_size} need more than the clash deck's "
                f"{clash_deck.sum()} cards"
            )
        if n > len(elements):
            raise CardDataError(
                f"{source}: 'elements': {n} players need {n} player decks but only {len(elements)} elements are named"
            )
        clash_stacks[n] = stacks
    if player_deck.sum() % rounds != 0:
        raise CardDataError(
            f"{source}: 'player_deck': a deck of {player_deck.sum()} cards does not split into {rounds} rounds"
        )
    if player_deck.sum() // rounds != 5:
        raise CardDataError(
            f"{source}: 'player_deck': each round draws one card per clash (5); the deck must hold {5 * rounds} cards"
        )
    if stack_size < rounds:
        raise CardDataError(f"{source}: 'stack_size': stacks of {stack_size} cards run out before {rounds} rounds")
    scoring = data.get("scoring")
    if not isinstance(scoring, dict):
        raise CardDataError(f"{source}: 'scoring' must be an object")
    score_keys = {"high_card_min_value", "high_card_points", "star_points", "most_cards_bonus"}
    if set(scoring) != score_keys:
        raise CardDataError(f"{source}: 'scoring' must have exactly {sorted(score_keys)}")
    return Fight5Cards(
        clash_deck=clash_deck,
        player_deck=player_deck,
        elements=tuple(elements),
        clash_stacks=clash_stacks,
        stack_size=stack_size,
        rounds_per_bout=rounds,
        high_card_min_value=_int_field(scoring, "high_card_min_value", source + " scoring", 0),
        high_card_points=_int_field(scoring, "high_card_points", source + " scoring", 0, MAX_POINTS),
        star_points=_int_field(scoring, "star_points", source + " scoring", 0, MAX_POINTS),
        most_cards_bonus=_int_field(scoring, "most_cards_bonus", source + " scoring", 0, MAX_POINTS),
    )


def load_cards(path: str | None = None) -> Fight5Cards:
    """Load card data from ``path``, or the packaged ``cards.json`` when ``path`` is None."""
    if path is None:
        text = resources.files("fight_envs.games.fight5").joinpath("cards.json").read_text("utf-8")
        source = "fight_envs/games/fight5/cards.json"
    else:
        source = str(path)
        text = read_data_text(path)  # refuses a non-path (``cards=1`` would read file descriptor 1)
    return parse_cards(decode_json(text, source), source)


DEFAULT_CARDS = load_cards()
