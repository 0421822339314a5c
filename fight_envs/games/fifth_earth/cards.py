"""Fifth-Earth card data: loads ``cards.json``, validates it, and exposes it as typed constants.

The rulebook fixes the counts (25 characters with four power stages each = 100 character cards,
14 power cards, 25 destination cards) but gives no numbers, so the powers, modifiers and names
are data of this project (``seeds/fifth_earth.md`` says why they were chosen).

A character card is identified by its *card id* ``4 * character + (stage - 1)``, 0..99.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fight_envs.core.data import load_json_data
from fight_envs.core.errors import CardDataError
from fight_envs.core.records import safe_repr

NUM_CHARACTERS = 25
NUM_STAGES = 4
NUM_CARDS = NUM_CHARACTERS * NUM_STAGES
NUM_POWER_CARDS = 14
NUM_DESTINATIONS = 25
CARDS_FORMAT = "fight-envs/fifth-earth-cards/v1"
MAX_MODIFIER = 20
CARD_FIELDS = ("format", "note", "hand_size", "rest_fights", "characters", "power_cards", "destinations")
"""The top-level fields of a card file (``note`` is a comment)."""


def card_id(character: int, stage: int) -> int:
    """Card id of ``character`` (0..24) at ``stage`` (1..4)."""
    return character * NUM_STAGES + stage - 1


def character_of(card: int) -> int:
    return card // NUM_STAGES


def stage_of(card: int) -> int:
    """Stage 1..4 of a card id."""
    return card % NUM_STAGES + 1


@dataclass(frozen=True)
class FifthEarthCards:
    """Validated card data."""

    character_names: tuple[str, ...]
    stage_power: np.ndarray
    """int64[25, 4]: power of each character at stages 1..4."""
    power_names: tuple[str, ...]
    power_modifiers: np.ndarray
    """int64[14]: points a power card adds to (or, negative, takes from) its drawer's total."""
    destination_names: tuple[str, ...]
    hand_size: int
    """Character cards dealt to each player per destination (eight)."""
    rest_fights: int
    """A character used in fight f may be laid again from fight f + rest_fights (four)."""

    @property
    def card_power(self) -> np.ndarray:
        """int64[100]: power of each card id."""
        return self.stage_power.reshape(-1)

    def card_name(self, card: int) -> str:
        return f"{self.character_names[character_of(card)]} {stage_of(card)}"

    def parse_card(self, card: Any, where: str = "card") -> int:
        """A card given as its id (0..99) or its name ('Greytok 2'); CardDataError-free ValueError otherwise."""
        if isinstance(card, (int, np.integer)) and not isinstance(card, bool) and 0 <= int(card) < NUM_CARDS:
            return int(card)
        if isinstance(card, str):
            name, _, stage = card.strip().rpartition(" ")
            lowered = [n.lower() for n in self.character_names]
            if name.lower() in lowered and stage in ("1", "2", "3", "4"):
                return card_id(lowered.index(name.lower()), int(stage))
        raise ValueError(f"{where}: unknown character card {safe_repr(card)}; give an id 0..99 or a name like "
                         f"'{self.character_names[0]} 2' (stages 1..4)")

    def parse_power_card(self, card: Any, where: str = "power card") -> int:
        if isinstance(card, (int, np.integer)) and not isinstance(card, bool) and 0 <= int(card) < NUM_POWER_CARDS:
            return int(card)
        if isinstance(card, str) and card.strip().lower() in [n.lower() for n in self.power_names]:
            return [n.lower() for n in self.power_names].index(card.strip().lower())
        raise ValueError(f"{where}: unknown power card {safe_repr(card)}; give an index 0..13 or one of "
                         f"{list(self.power_names)}")


def _names(data: dict[str, Any], key: str, count: int, source: str) -> tuple[str, ...]:
    values = data.get(key)
    if not isinstance(values, list) or len(values) != count:
        raise CardDataError(f"{source}: '{key}' must be a list of {count} entries")
    return tuple(values)


def parse_cards(data: Any, source: str = "card data") -> FifthEarthCards:
    """Validate card data (the parsed JSON) and build :class:`FifthEarthCards`."""
    if not isinstance(data, dict):
        raise CardDataError(f"{source}: the top level must be an object")
    if data.get("format") != CARDS_FORMAT:
        raise CardDataError(f"{source}: 'format' must be {CARDS_FORMAT!r}, got {safe_repr(data.get('format'))}")
    unknown = sorted(str(k) for k in set(data) - set(CARD_FIELDS))
    if unknown:
        raise CardDataError(f"{source}: unknown field(s) {unknown}; the fields are {list(CARD_FIELDS)}")
    chars = _names(data, "characters", NUM_CHARACTERS, source)
    names, powers = [], []
    for i, ch in enumerate(chars):
        if not isinstance(ch, dict) or not isinstance(ch.get("name"), str) or not ch["name"].strip():
            raise CardDataError(f"{source}: characters[{i}].name must be a non-empty string")
        if " " in ch["name"].strip() and ch["name"].strip().rpartition(" ")[2].isdigit():
            raise CardDataError(f"{source}: characters[{i}].name must not end in a number (card names add the stage)")
        st = ch.get("stages")
        if (not isinstance(st, list) or len(st) != NUM_STAGES
                or not all(isinstance(p, int) and not isinstance(p, bool) and 1 <= p <= 99 for p in st)):
            raise CardDataError(f"{source}: characters[{i}].stages must be {NUM_STAGES} integers in 1..99, got {st!r}")
        names.append(ch["name"].strip())
        powers.append(st)
    if len({n.lower() for n in names}) != NUM_CHARACTERS:
        raise CardDataError(f"{source}: characters[].name must be unique")
    pcs = _names(data, "power_cards", NUM_POWER_CARDS, source)
    pnames, mods = [], []
    for i, pc in enumerate(pcs):
        if not isinstance(pc, dict) or not isinstance(pc.get("name"), str) or not pc["name"].strip():
            raise CardDataError(f"{source}: power_cards[{i}].name must be a non-empty string")
        m = pc.get("modifier")
        if not isinstance(m, int) or isinstance(m, bool) or m == 0 or abs(m) > MAX_MODIFIER:
            raise CardDataError(f"{source}: power_cards[{i}].modifier must be a non-zero integer in "
                                f"-{MAX_MODIFIER}..{MAX_MODIFIER}, got {m!r}")
        pnames.append(pc["name"].strip())
        mods.append(m)
    if len({n.lower() for n in pnames}) != NUM_POWER_CARDS:
        raise CardDataError(f"{source}: power_cards[].name must be unique")
    dests = _names(data, "destinations", NUM_DESTINATIONS, source)
    if not all(isinstance(d, str) and d.strip() for d in dests) or len({d.lower() for d in dests}) != NUM_DESTINATIONS:
        raise CardDataError(f"{source}: destinations must be {NUM_DESTINATIONS} unique non-empty strings")
    hand = data.get("hand_size")
    if not isinstance(hand, int) or isinstance(hand, bool) or not 1 <= hand <= NUM_CARDS // 6:
        raise CardDataError(f"{source}: 'hand_size' must be an integer in 1..{NUM_CARDS // 6} (six players are dealt), "
                            f"got {hand!r}")
    rest = data.get("rest_fights")
    if not isinstance(rest, int) or isinstance(rest, bool) or not 1 <= rest <= 20:
        raise CardDataError(f"{source}: 'rest_fights' must be an integer in 1..20, got {rest!r}")
    return FifthEarthCards(
        character_names=tuple(names),
        stage_power=np.array(powers, dtype=np.int64),
        power_names=tuple(pnames),
        power_modifiers=np.array(mods, dtype=np.int64),
        destination_names=tuple(d.strip() for d in dests),
        hand_size=hand,
        rest_fights=rest,
    )


def load_cards(path: str | Path | None = None) -> FifthEarthCards:
    """Load and validate card data from ``path`` (None: the packaged ``cards.json``)."""
    data, source = load_json_data("fight_envs.games.fifth_earth", "cards.json", path, "fifth_earth/cards.json")
    return parse_cards(data, source)


DEFAULT_CARDS = load_cards()
