"""Fifth-Earth rules engine: destinations, the knockout (or battle royale), battles and fights.

Pure game logic, no RL imports. One ``FifthEarthGame`` plays a whole campaign: for each
destination the players roll for order, the highest chooses the destination, eight character
cards are dealt to everyone, and players battle until one claims the destination. Every
decision is one action of one seat (``current_player``); the dice, power-card draws and
reveals happen automatically between decisions.

Actions (``NUM_ACTIONS`` = 205), one id space for every decision:

* ``0..99`` LAY a single character card (its card id, ``4 * character + stage - 1``);
* ``100..174`` LAY a stage run: ``100 + 3 * character + (length - 2)``, stages 1..length
  (length 2..4) of one character (a run of length 1 is the single stage-1 card, id ``0..99``);
* ``175..199`` CHOOSE destination ``action - 175`` (index into the card data's 25);
* ``200..204`` CHALLENGE the seat ``offset = action - 199`` places after me (1..5, egocentric,
  so one policy serves every seat).

Design choices where the rulebook is silent are listed, each with its test, in
``seeds/fifth_earth.md``; the comments below name them.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from itertools import compress
from typing import Any

import numpy as np

from fight_envs.core.errors import ConfigError, DealError, IllegalActionError
from fight_envs.core.records import safe_repr
from fight_envs.core.seeding import copy_rng
from fight_envs.games.fifth_earth.cards import (
    DEFAULT_CARDS,
    NUM_CARDS,
    NUM_CHARACTERS,
    NUM_DESTINATIONS,
    NUM_POWER_CARDS,
    NUM_STAGES,
    FifthEarthCards,
    card_id,
    character_of,
)

MIN_PLAYERS = 2
MAX_PLAYERS = 6
RUN_BASE = NUM_CARDS
RUN_LENGTHS = (2, 3, 4)
DESTINATION_BASE = RUN_BASE + NUM_CHARACTERS * len(RUN_LENGTHS)
CHALLENGE_BASE = DESTINATION_BASE + NUM_DESTINATIONS
NUM_ACTIONS = CHALLENGE_BASE + MAX_PLAYERS - 1
FORMATS = ("knockout", "royale")
WON_CARDS = ("spoils", "hand", "rest")
OUT_OF_CARDS = ("hand", "hand_and_rest")
TIES = ("first", "rolloff")
BETWEEN_ROUNDS = ("keep", "redeal")
CAP_RULES = ("cards", "fights")
ASK = ("all", "choices")
RULES = ("standard", "classic")
PRESETS: dict[str, dict[str, Any]] = {
    # Today's reading (v0's defaults), kept as an option and pinned by the scenario tests.
    "classic": {"num_destinations": 1, "characters": None, "won_cards": "hand", "out_of_cards": "hand",
                "between_rounds": "keep", "cap": "cards", "ask": "all"},
    # The design of seeds/fifth_earth.md section 8: skill over the luck of the deal (measured there).
    "standard": {"num_destinations": 25, "characters": "2n+2", "won_cards": "rest", "out_of_cards": "hand",
                 "between_rounds": "redeal", "cap": "fights", "ask": "choices"},
}
"""What each ``rules`` preset sets; an option given explicitly overrides its preset."""

PHASE_DESTINATION = 0
PHASE_CHALLENGE = 1
PHASE_LAY = 2
PHASE_OVER = 3
PHASE_NAMES = ("choose destination", "challenge", "lay", "over")

NOBODY = -1

DECISION_KINDS = ("choose_destination", "challenge", "lay_first", "lay_answer", "none")
"""What a seat is asked now (``FifthEarthGame.decision_kind``): choose the destination, choose whom to
challenge, lay first in a fight (blind), lay after others have laid (seeing their counts), or
nothing (not its turn, or the game is over)."""
DETERMINIZE_TRIES = 64
"""Joint draws a determinization tries before placing a face-down run first (see ``determinize``)."""


STAGE_BITS = np.array([1, 2, 4, 8], dtype=np.int64)
RUN_OK = np.array([[all(p >> s & 1 for s in range(length)) for length in RUN_LENGTHS] for p in range(16)], dtype=bool)
"""RUN_OK[held stages as 4 bits, k]: a run of length RUN_LENGTHS[k] (stages 1..length) can be laid."""
_CHARACTER_WORDS = struct.Struct(f"<{NUM_CHARACTERS}I").unpack
"""A hand row's 100 bytes (int8 0/1) as one little-endian 32-bit word per character: its four stage bytes."""
_RUN_BYTES = {sum(((p >> s) & 1) << (8 * s) for s in range(NUM_STAGES)): bytes(RUN_OK[p].astype(np.int8)) for p in range(16)}
"""A character's word (``_CHARACTER_WORDS``) -> its three run-mask bytes (lengths 2, 3, 4); the mask
is built from bytes, cheaper than numpy operations on a 25 x 4 grid."""
_RUN_BYTES_OF = _RUN_BYTES.__getitem__
_CHARACTERS = range(NUM_CHARACTERS)
_CHARACTER_CARDS = [tuple(card_id(c, st) for st in range(1, NUM_STAGES + 1)) for c in _CHARACTERS]
"""Each character's four card ids, stage 1 first."""
_NO_CARDS = bytes(NUM_STAGES)
_MASK_TAIL = bytes(NUM_ACTIONS - DESTINATION_BASE)
"""The mask's destination and challenge bytes in the lay phase (none legal)."""


class _DrawCount(int):
    """A ``size`` for ``Generator.integers``: an int whose ``prod`` is itself.

    ``Generator.integers(..., size=k)`` first tests ``np.prod(size) == 0``, and ``np.prod`` of a
    plain int goes through numpy's generic reduction (about 2.5 us of the 7 us that four dice
    cost). ``np.prod`` hands an object with a ``prod`` method to it, so this int answers at once.
    The draw itself is numpy's, unchanged: the same faces and the same generator state
    (``tests/fifth_earth/test_fifth_earth_speed_shortcuts.py``, ``test_fifth_earth_speed_invariance.py``).
    """

    __slots__ = ()

    def prod(self, *args: Any, **kwargs: Any) -> int:
        return int(self)


_DRAW_COUNTS = [_DrawCount(k) for k in range(2 * MAX_PLAYERS + 1)]
"""``_DrawCount(k)`` for the dice counts a fight or a roll can ask (two per player; a larger count is passed as it is)."""


_DIE_SIDES = 6
_DIE_REJECT = (0xFFFFFFFF - (_DIE_SIDES - 1)) % _DIE_SIDES
"""numpy's Lemire threshold for 6 values, ``(UINT32_MAX - rng) % rng_excl`` with ``rng = 5`` (it is 4)."""


def _die_faces(next_uint32: Any, state: Any, count: int) -> list[int]:
    """``count`` faces 1..6, exactly as ``Generator.integers(1, 7, size=count)`` draws them.

    numpy draws a bounded int64 whose range fits 32 bits by Lemire's method on 32-bit words
    (``random_bounded_uint64_fill`` -> ``buffered_bounded_lemire_uint32`` in its distributions.c):
    ``m = next_uint32() * 6``; while ``m``'s low 32 bits are below the threshold (4), draw again; the
    face is ``1 + (m >> 32)``. ``next_uint32`` and ``state`` are the bit generator's own C function and
    state (its ``ctypes`` interface), so the generator keeps its state itself (PCG64's buffered half
    word included) and is left exactly as numpy leaves it: no state is kept here. About a third
    of the cost of the ``integers`` call for four dice (its Python-level argument handling).
    """
    out = []
    for _ in range(count):
        m = next_uint32(state) * _DIE_SIDES
        while m & 0xFFFFFFFF < _DIE_REJECT:  # (probability 4 / 2**32)
            m = next_uint32(state) * _DIE_SIDES
        out.append(1 + (m >> 32))
    return out


def run_action(character: int, length: int) -> int:
    """Action id laying stages 1..length of ``character`` (length 1 is the single stage-1 card)."""
    if length == 1:
        return card_id(character, 1)
    return RUN_BASE + character * len(RUN_LENGTHS) + length - 2


def lay_action(cards: list[int]) -> int:
    """The LAY action id that puts down ``cards`` (one card, or stages 1..k of one character)."""
    if len(cards) == 1:
        return int(cards[0])
    return run_action(character_of(cards[0]), len(cards))


def action_cards(action: int) -> list[int]:
    """The character cards a LAY action puts down (empty for other actions)."""
    if 0 <= action < RUN_BASE:
        return [action]
    if RUN_BASE <= action < DESTINATION_BASE:
        character, k = divmod(action - RUN_BASE, len(RUN_LENGTHS))
        return [card_id(character, s) for s in range(1, RUN_LENGTHS[k] + 1)]
    return []


def describe_action(action: int, cards: FifthEarthCards = DEFAULT_CARDS) -> str:
    """Words for an action id, for errors, logs and renderings."""
    if 0 <= action < DESTINATION_BASE:
        laid = action_cards(action)
        if len(laid) == 1:
            return f"lay {cards.card_name(laid[0])}"
        return f"lay {cards.character_names[character_of(laid[0])]} stages 1-{len(laid)}"
    if DESTINATION_BASE <= action < CHALLENGE_BASE:
        return f"choose destination {cards.destination_names[action - DESTINATION_BASE]}"
    if CHALLENGE_BASE <= action < NUM_ACTIONS:
        return f"challenge the player {action - CHALLENGE_BASE + 1} seat(s) after me"
    return f"action {action!r}"


@dataclass(frozen=True)
class FifthEarthConfig:
    """Options of one game (validated here so that every user of the engine gets the same errors)."""

    num_players: int = 2
    num_destinations: int | None = None
    format: str = "knockout"
    won_cards: str | None = None
    max_fights: int = 40
    out_of_cards: str | None = None
    ties: str = "first"
    rules: str = "standard"
    """The preset the options left as None take their values from (``PRESETS``)."""
    characters: int | None = None
    """Characters in play per destination, drawn at random (public) and dealt from: 2..25; the
    preset's ``"2n+2"`` is two per player plus two (6 at 2 players, 14 at 6)."""
    between_rounds: str | None = None
    """``"keep"``: the survivors of a knockout round keep their cards; ``"redeal"``: everyone still
    in is dealt eight afresh from the characters in play (the bye stops being a handicap)."""
    cap: str | None = None
    """Who wins a battle stopped by ``max_fights``: ``"cards"`` most cards held, ``"fights"`` most fights won."""
    ask: str | None = None
    """``"all"``: every decision is asked; ``"choices"``: decisions with one legal action, and the
    destination choice (no effect in play), are taken without asking."""

    def __post_init__(self) -> None:
        n = self.num_players
        if isinstance(n, bool) or not isinstance(n, int) or not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise ConfigError(f"num_players must be an integer in {MIN_PLAYERS}..{MAX_PLAYERS}, got {n!r}")
        if self.rules not in RULES:
            raise ConfigError(f"rules must be one of {RULES}, got {self.rules!r}")
        for key, value in PRESETS[self.rules].items():
            if key == "won_cards" and value == "rest" and self.format == "royale":
                # In a royale the winner of a fight takes every other lay: a first-use pile would keep
                # each winner cycling its cards and battles would run to the cap (seeds/fifth_earth.md).
                value = "spoils"
            if getattr(self, key) is None:
                if isinstance(value, str) and value.startswith("2n+"):
                    value = min(2 * n + int(value[3:]), NUM_CHARACTERS)
                object.__setattr__(self, key, value)
        c = self.characters
        if c is None:
            object.__setattr__(self, "characters", NUM_CHARACTERS)
            c = NUM_CHARACTERS
        if isinstance(c, bool) or not isinstance(c, int) or not 2 <= c <= NUM_CHARACTERS:
            raise ConfigError(f"characters must be an integer in 2..{NUM_CHARACTERS}, got {c!r}")
        if c * NUM_STAGES < 8 * n:
            raise ConfigError(f"characters={c} hold {c * NUM_STAGES} cards, fewer than the {8 * n} dealt to "
                              f"{n} players; give at least {2 * n}")
        for key, allowed in (("between_rounds", BETWEEN_ROUNDS), ("cap", CAP_RULES), ("ask", ASK)):
            if getattr(self, key) not in allowed:
                raise ConfigError(f"{key} must be one of {allowed}, got {getattr(self, key)!r}")
        d = self.num_destinations
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= NUM_DESTINATIONS:
            raise ConfigError(f"num_destinations must be an integer in 1..{NUM_DESTINATIONS}, got {d!r}")
        if self.format not in FORMATS:
            raise ConfigError(f"format must be one of {FORMATS}, got {self.format!r}")
        if self.won_cards not in WON_CARDS:
            raise ConfigError(f"won_cards must be one of {WON_CARDS}, got {self.won_cards!r}")
        if self.out_of_cards not in OUT_OF_CARDS:
            raise ConfigError(f"out_of_cards must be one of {OUT_OF_CARDS}, got {self.out_of_cards!r}")
        if self.ties not in TIES:
            raise ConfigError(f"ties must be one of {TIES}, got {self.ties!r}")
        m = self.max_fights
        if isinstance(m, bool) or not isinstance(m, int) or not 1 <= m <= 1000:
            raise ConfigError(f"max_fights must be an integer in 1..1000, got {m!r}")

    def max_decisions(self) -> int:
        """An upper bound on the decisions of one game (every battle is capped at ``max_fights``)."""
        n = self.num_players
        if self.format == "royale":
            per_destination = 1 + n * self.max_fights
        else:  # n - 1 battles, each opened by one challenge, two lays per fight
            per_destination = 1 + (n - 1) * (1 + 2 * self.max_fights)
        return self.num_destinations * per_destination


@dataclass(frozen=True)
class DestinationDeal:
    """A fixed deal for one destination: every player's eight cards, optionally the power deck."""

    hands: tuple[tuple[int, ...], ...]
    power_deck: tuple[int, ...] | None = None
    characters: tuple[int, ...] | None = None
    """The characters in play (None: those of the hands, topped up at random to the config's count)."""

    def to_json(self, cards: FifthEarthCards = DEFAULT_CARDS) -> dict[str, Any]:
        out: dict[str, Any] = {"hands": [[cards.card_name(c) for c in h] for h in self.hands]}
        if self.power_deck is not None:
            out["power_deck"] = [cards.power_names[p] for p in self.power_deck]
        if self.characters is not None:
            out["characters"] = [cards.character_names[c] for c in self.characters]
        return out


def parse_deal(data: Any, num_players: int, cards: FifthEarthCards = DEFAULT_CARDS,
               where: str = "deal") -> DestinationDeal:
    """Validate ``{"hands": [[cards] x players], "power_deck": [power cards, top first]}``."""
    if not isinstance(data, dict) or set(data) - {"hands", "power_deck", "characters"} or "hands" not in data:
        raise DealError(f"{where} must be an object with 'hands' (and optionally 'power_deck', 'characters'), "
                        f"got {safe_repr(data)}")
    hands = data["hands"]
    if not isinstance(hands, (list, tuple)) or len(hands) != num_players:
        raise DealError(f"{where}.hands must hold one hand per player ({num_players})")
    parsed: list[tuple[int, ...]] = []
    seen: set[int] = set()
    for s, hand in enumerate(hands):
        if not isinstance(hand, (list, tuple)) or len(hand) != cards.hand_size:
            raise DealError(f"{where}.hands[{s}] must hold {cards.hand_size} character cards")
        ids = []
        for c in hand:
            try:
                cid = cards.parse_card(c, f"{where}.hands[{s}]")
            except ValueError as exc:
                raise DealError(str(exc)) from None
            if cid in seen:
                raise DealError(f"{where}: card {cards.card_name(cid)} is dealt twice (the deck holds one of each)")
            seen.add(cid)
            ids.append(cid)
        parsed.append(tuple(ids))
    power = data.get("power_deck")
    pdeck: tuple[int, ...] | None = None
    if power is not None:
        if not isinstance(power, (list, tuple)):
            raise DealError(f"{where}.power_deck must be a list of the {NUM_POWER_CARDS} power cards, top first")
        try:
            pdeck = tuple(cards.parse_power_card(p, f"{where}.power_deck") for p in power)
        except ValueError as exc:
            raise DealError(str(exc)) from None
        if sorted(pdeck) != list(range(NUM_POWER_CARDS)):
            raise DealError(f"{where}.power_deck must list each of the {NUM_POWER_CARDS} power cards exactly once")
    chars = data.get("characters")
    ctuple: tuple[int, ...] | None = None
    if chars is not None:
        lowered = [c.lower() for c in cards.character_names]
        if not isinstance(chars, (list, tuple)) or not all(isinstance(c, str) and c.lower() in lowered for c in chars):
            raise DealError(f"{where}.characters must be a list of character names, got {safe_repr(chars)}")
        ctuple = tuple(sorted({lowered.index(c.lower()) for c in chars}))
        outside = sorted({character_of(c) for h in parsed for c in h} - set(ctuple))
        if outside:
            raise DealError(f"{where}.hands hold characters not in {where}.characters: "
                            f"{[cards.character_names[c] for c in outside]}")
    return DestinationDeal(tuple(parsed), pdeck, ctuple)


@dataclass
class FightResult:
    """What one fight revealed: who laid what, the dice, power cards, totals and the winner."""

    fight: int
    laid: dict[int, list[int]]
    dice: dict[int, tuple[int, int]]
    power: dict[int, list[int]]
    totals: dict[int, int]
    rolloff: list[dict[int, int]]
    winner: int


@dataclass
class Battle:
    """A battle in progress: its participants (seat order of laying in fight 1) and its fights."""

    players: list[int]
    fight: int = 1
    first: int = 0
    """Index into ``players`` of who lays first in the current fight."""
    lay_order: list[int] = field(default_factory=list)
    laid: dict[int, list[int]] = field(default_factory=dict)
    wins: dict[int, int] = field(default_factory=dict)
    """Fights won so far in this battle, per player (public; ``cap="fights"`` reads it)."""


class FifthEarthGame:
    """The whole state of one game; ``apply_action`` advances it to the next decision."""

    def __init__(self, config: FifthEarthConfig | None = None, cards: FifthEarthCards = DEFAULT_CARDS) -> None:
        self.config = config or FifthEarthConfig()
        self.cards = cards
        self._power_list = cards.card_power.tolist()
        self._modifier_list = cards.power_modifiers.tolist()
        self.num_players = self.config.num_players
        self.version = 0
        """Bumped by every change of state: caches (masks here, observations in the env) key on it."""
        self.table_version = 0
        """Bumped by every change of state except a lay that leaves others still to lay in the fight
        (which changes only the layer's hand, the count laid and whose turn it is): the env keys its
        cache of the seat-independent part of the observation on it."""
        self.fight_step_version = -1
        """The ``table_version`` of the last bump that was a plain fight step: a fight resolved with
        nobody out, the battle going on to its next fight and nothing else changed (no pick-up at
        the next fight's start). The env's ``observe.PublicView`` updates its public part in place
        across such a step (only the fighters' rows and a few table numbers change); after any
        other bump it rebuilds it."""
        self._mask_cache: tuple[int, int, np.ndarray] | None = None
        self._sizes_cache: tuple[int, list[int]] | None = None

    # ------------------------------------------------------------------ setup
    def new_game(self, rng: np.random.Generator, deals: list[DestinationDeal] | None = None,
                 dice: list[int] | None = None) -> None:
        """Start a game. ``deals[i]`` fixes destination i's deal; ``dice`` fixes the first die faces."""
        n = self.num_players
        # Everything is checked before anything changes: a refused deal or die leaves the game as it was.
        fixed = list(deals or [])
        if len(fixed) > self.config.num_destinations:
            raise DealError(f"{len(fixed)} deals given for {self.config.num_destinations} destination(s)")
        for i, d in enumerate(fixed):
            if len(d.hands) != n:
                raise DealError(f"deals[{i}] has {len(d.hands)} hands for {n} players")
            chars = {character_of(c) for h in d.hands for c in h} | set(d.characters or ())
            if d.characters is not None and len(chars) != self.config.characters:
                raise DealError(f"deals[{i}].characters names {len(chars)} characters; this game plays "
                                f"{self.config.characters}")
            if len(chars) > self.config.characters:
                raise DealError(f"deals[{i}] holds cards of {len(chars)} characters; this game plays "
                                f"{self.config.characters} (option characters)")
        for f in dice or []:
            if isinstance(f, bool) or not isinstance(f, (int, np.integer)) or not 1 <= int(f) <= 6:
                raise DealError(f"reset option 'dice' must be die faces 1..6, got {safe_repr(f)}")
        self.version += 1
        self.table_version += 1
        self.rng = rng
        self.fixed_deals = fixed
        self.fixed_dice = [int(f) for f in dice or []]
        self.fixed_dice_given = list(self.fixed_dice)
        self.dice_log: list[int] = []
        self.log: list[tuple[int, int, bool]] = []
        """Every decision taken, in order: (seat, action, asked); ``ask="choices"`` takes some unasked."""
        self._events: list[str | FightResult] = []
        self.deals_used: list[DestinationDeal] = []
        self.deal_count = 0
        """Destinations dealt so far (``deals_used`` is the record; a determinization leaves it empty)."""
        self.destinations_won = np.zeros(n, dtype=np.int64)
        self.claimed: list[tuple[int, int]] = []
        """(destination index, seat) of every destination claimed, in order."""
        self.remaining_destinations = list(range(NUM_DESTINATIONS))
        self.destination = NOBODY
        self.hands = np.zeros((n, NUM_CARDS), dtype=np.int8)
        self.rest_since = np.full((n, NUM_CARDS), NOBODY, dtype=np.int64)
        """Fight number at which each card in a rest pile was laid (NOBODY: not in the rest pile)."""
        self.last_used = np.full((n, NUM_CHARACTERS), -10**6, dtype=np.int64)
        self.undealt = np.zeros(NUM_CARDS, dtype=np.int8)
        self.in_play = np.ones(NUM_CARDS, dtype=np.int8)
        """Cards of the characters in play this destination (public)."""
        self.spoils = np.zeros((n, NUM_CARDS), dtype=np.int8)
        """Cards won from opponents in the current battle, set aside until the battle is won (gap 4)."""
        self.retired = np.zeros(NUM_CARDS, dtype=np.int8)
        """Cards of players knocked out of the current destination (out of play until the next deal)."""
        self.revealed = np.zeros(NUM_CARDS, dtype=np.int8)
        """Cards turned face up in a fight since this destination's deal: public from then on, so
        everybody knows which player holds each of them (gap 21)."""
        self.power_deck: list[int] = []
        self.power_discard: list[int] = []
        self.alive = np.zeros(n, dtype=bool)
        self.seeds: list[int] = []
        self.bye = NOBODY
        self.unpaired: list[int] = []
        self.advancing: list[int] = []
        self.knockout_round = 0
        self.battle: Battle | None = None
        self.last_fight: FightResult | None = None
        self.phase = PHASE_DESTINATION
        self.to_act = NOBODY
        self._start_destination()
        self._settle()

    def roll(self) -> tuple[int, int]:
        """Roll the pair of dice: fixed faces first, then the game's generator."""
        faces = self._faces(2)
        return faces[0], faces[1]

    def _faces(self, count: int) -> list[int]:
        """``count`` die faces: fixed faces first, then the generator (one draw of many is the same
        stream as many draws of one)."""
        out: list[int] = []
        fixed = self.fixed_dice
        while fixed and len(out) < count:
            out.append(fixed.pop(0))
        if len(out) < count:
            k = count - len(out)
            rng = self.rng
            if type(rng) is np.random.Generator:  # numpy's draw through the bit generator's C interface
                c = rng.bit_generator.ctypes  # (numpy keeps it per bit generator)
                out += _die_faces(c.next_uint32, c.state, k)
            else:  # anything else that draws like a Generator
                out += rng.integers(1, 7, size=_DRAW_COUNTS[k] if k < len(_DRAW_COUNTS) else k).tolist()
        self.dice_log += out
        return out

    def roll_order(self, players: list[int], what: str, places: int | None = None) -> list[int]:
        """``players`` from the highest dice total down; tied players re-roll among themselves.

        Only ties within the first ``places`` positions are rolled again (None: all of them); the
        order roll needs only its highest player, the seeding roll needs every position.
        """
        places = len(players) if places is None else places
        # Depth first, left to right, without recursion (fixed dice of all ties must not overflow the stack).
        order: list[int] = []
        stack: list[tuple[bool, list[int], str]] = [(True, list(players), what)]
        while stack:
            roll, group, label = stack.pop()
            if not roll:
                order += group
                continue
            faces = self._faces(2 * len(group))
            totals = {p: faces[2 * i] + faces[2 * i + 1] for i, p in enumerate(group)}
            self._events.append(f"{label} roll: " + ", ".join(f"P{p}={t}" for p, t in totals.items()))
            position = len(order)
            items = []
            for t in sorted(set(totals.values()), reverse=True):
                level = [p for p in group if totals[p] == t]
                items.append((len(level) > 1 and position < places, level, label + " re-roll"))
                position += len(level)
            stack += reversed(items)
        return order

    def _start_destination(self) -> None:
        n = self.num_players
        # Getting started, repeated for every destination (gap 1): the order roll picks who chooses.
        chooser = self.roll_order(list(range(n)), "order", places=1)[0]
        self.phase, self.to_act = PHASE_DESTINATION, chooser

    def _deal(self) -> None:
        n, k = self.num_players, self.cards.hand_size
        index = self.deal_count
        self.deal_count += 1
        self.hands[:] = 0
        self.rest_since[:] = NOBODY
        self.spoils[:] = 0
        self.retired[:] = 0
        self.revealed[:] = 0
        want = self.config.characters
        if index < len(self.fixed_deals):
            deal = self.fixed_deals[index]
            power = deal.power_deck
            chars = deal.characters
            if chars is None:
                held = sorted({character_of(c) for h in deal.hands for c in h})
                others = [c for c in range(NUM_CHARACTERS) if c not in held]
                extra = self.rng.permutation(others)[:max(want - len(held), 0)] if want < NUM_CHARACTERS else others
                chars = tuple(sorted(held + [int(c) for c in extra]))
        else:
            # (``tolist``: the same ints as ``int()`` of each element, without a call per card)
            if want < NUM_CHARACTERS:
                chars = tuple(sorted(self.rng.permutation(NUM_CHARACTERS)[:want].tolist()))
                cards_in = np.array([c for ch in chars for c in _CHARACTER_CARDS[ch]])
                order = cards_in[self.rng.permutation(cards_in.size)].tolist()
            else:
                chars = tuple(range(NUM_CHARACTERS))
                order = self.rng.permutation(NUM_CARDS).tolist()
            deal = DestinationDeal(tuple(tuple(order[s * k:(s + 1) * k]) for s in range(n)))
            power = None
        if power is None:
            power = tuple(self.rng.permutation(NUM_POWER_CARDS).tolist())
        deal = DestinationDeal(deal.hands, power, None if want >= NUM_CHARACTERS and deal.characters is None else chars)
        self.deals_used.append(deal)
        self.in_play[:] = 0
        self.in_play[[c for ch in chars for c in _CHARACTER_CARDS[ch]]] = 1
        self.undealt[:] = self.in_play
        for s, hand in enumerate(deal.hands):
            self.hands[s, list(hand)] = 1
            self.undealt[list(hand)] = 0
        # The power deck is shuffled afresh for every destination (gap 1).
        self.power_deck = list(power)
        self.power_discard = []
        self.alive[:] = True
        self.knockout_round = 0

    # ------------------------------------------------------------------ queries
    def current_player(self) -> int:
        return self.to_act

    def is_terminal(self) -> bool:
        return self.phase == PHASE_OVER

    # ------------------------------------------------------------------ search vocabulary
    def horizon_marker(self, horizon: str) -> int:
        """Destinations claimed so far: a rollout begun now stops when the next one is claimed."""
        if horizon != "destination":
            raise ValueError(f"horizon={horizon!r}: Fifth-Earth rollouts stop at 'destination' (or play the game)")
        return len(self.claimed)

    def horizon_value(self, horizon: str, marker: int) -> np.ndarray | None:
        """Per-seat credit of the destination after ``marker`` claims (1 to its claimant), or None while
        it is still being fought. At 2 players every destination is dealt afresh, so its claim is all a
        decision in it can change; with more players the tally also steers later challenges."""
        if len(self.claimed) <= marker:
            return None
        credit = np.zeros(self.num_players)
        credit[self.claimed[marker][1]] = 1.0
        return credit

    def hidden_lays(self, viewer: int) -> list[int]:
        """Seats other than ``viewer`` whose lay in the fight under way lies face down, in lay order
        (a search's belief model re-draws them: ``before_lay``, ``redo_lay``)."""
        b = self.battle
        if b is None or self.phase != PHASE_LAY:
            return []
        return [s for s in b.lay_order if s != viewer and s in b.laid]

    def before_lay(self, seat: int) -> FifthEarthGame:
        """A copy at the moment ``seat`` laid in the fight under way: its lay and every later one back
        in the layers' hands, ``seat`` to lay. Only a determinization is ever wound back (a search
        asking what a model would have laid from the hand it drew)."""
        b = self.battle
        if b is None or seat not in b.laid:
            raise ValueError(f"seat {seat} has no lay in the fight under way")
        g = self.clone()
        gb = g.battle
        for s in gb.lay_order[gb.lay_order.index(seat):]:
            if s in gb.laid:
                g.hands[s, gb.laid.pop(s)] = 1
        g.to_act = seat
        g._mask_cache = g._sizes_cache = None
        g.version += 1
        return g

    def redo_lay(self, seat: int, action: int) -> bool:
        """Replace ``seat``'s face-down lay by the LAY ``action`` from the same cards (its hand plus that
        lay), if it lays as many cards and is legal there; False (nothing changed) otherwise."""
        b = self.battle
        if b is None or seat not in b.laid:
            raise ValueError(f"seat {seat} has no lay in the fight under way")
        old, new = b.laid[seat], action_cards(int(action))
        if len(new) != len(old):
            return False
        hand = self.hands[seat].copy()
        hand[old] = 1
        if new not in self._lays_of_count(seat, np.flatnonzero(hand), len(old), b.fight):
            return False
        hand[new] = 0
        self.hands[seat] = hand
        b.laid[seat] = list(new)
        for i in range(len(self.log) - 1, -1, -1):  # the record of the determinization shows its own lay
            if self.log[i][0] == seat:
                self.log[i] = (seat, lay_action(new), self.log[i][2])
                break
        self._mask_cache = self._sizes_cache = None
        self.version += 1
        return True

    def decision_kind(self, seat: int) -> str:
        """What ``seat`` is asked now: one of ``DECISION_KINDS`` ("none" when it is not its turn)."""
        if seat != self.to_act or self.phase == PHASE_OVER:
            return "none"
        if self.phase == PHASE_DESTINATION:
            return "choose_destination"
        if self.phase == PHASE_CHALLENGE:
            return "challenge"
        b = self.battle
        return "lay_first" if b is None or not b.laid else "lay_answer"

    def clone(self) -> FifthEarthGame:
        """A fully independent copy (its generator included); card data and config are shared (immutable)."""
        g = FifthEarthGame.__new__(FifthEarthGame)
        d = g.__dict__
        for k, v in self.__dict__.items():
            if isinstance(v, np.ndarray):
                d[k] = v.copy()
            elif isinstance(v, list):
                d[k] = list(v)  # of ints, tuples, strings or frozen deals: copying the list suffices
            else:
                d[k] = v  # config, cards, ints, the last FightResult (never changed once made), the mask cache
        b = self.battle
        if b is not None:
            g.battle = Battle(list(b.players), b.fight, b.first, list(b.lay_order),
                              {p: list(c) for p, c in b.laid.items()}, dict(b.wins))
        g.rng = copy_rng(self.rng)
        return g

    def determinize(self, seat: int, rng: np.random.Generator) -> FifthEarthGame:
        """A game equal to this one in everything ``seat`` observed, every hidden part drawn from ``rng``.

        Public (kept): ``seat``'s own cards, every revealed card and where it went (a table that
        remembers knows: gap 21), hand, rest-pile and spoils sizes, the count each player laid in
        the fight under way, the resting characters, the power discard pile, the dice rolled,
        scores, seeds and whose turn. Hidden (redrawn): the never-revealed cards (``unseen``: in
        play, not revealed, not mine), spread over the other players' hands, the knocked-out
        players' retired cards and the undealt cards; the face-down cards laid in the fight under
        way; the power deck's order (its contents are the cards not in the discard pile); the
        engine's generator (seeded from ``rng``) and any fixed deals or dice given for the future.

        The prior is uniform: every other player's unknown cards are a uniform draw from the unseen
        cards, its revealed cards known to be in its hand stay there, and each face-down lay is a
        uniform choice among the lays of the count it laid that are legal from the hand so drawn
        (a draw from which no such lay exists is rejected and drawn again). After
        ``DETERMINIZE_TRIES`` rejections a face-down run is placed first (a uniform choice among
        the runs of that length it could hold, whose character is not resting) and the rest drawn
        around it. Reads nothing else of the hidden state: two games that differ only in what
        ``seat`` cannot see give identical results for the same ``rng``.
        """
        g = self.clone()
        g.rng = np.random.default_rng(int(rng.integers(2**63)))
        g.fixed_deals, g.fixed_dice, g.fixed_dice_given, g.deals_used = [], [], [], []
        g._mask_cache = g._sizes_cache = None  # hands redrawn at the same version
        if self.deal_count == 0:
            return g
        b = self.battle
        laid_count = {} if b is None else {p: len(c) for p, c in b.laid.items()}
        mine = self.hands[seat].astype(bool) | (self.rest_since[seat] != NOBODY) | self.spoils[seat].astype(bool)
        if seat in laid_count:
            mine[b.laid[seat]] = True
        revealed = self.revealed.astype(bool)
        # What each other player holds to lay from (its hand, plus what it has laid face down now).
        holders: list[int] = []
        known: dict[int, np.ndarray] = {}
        unknown: dict[int, int] = {}
        for s in range(self.num_players):
            if s == seat or not self.alive[s]:
                continue
            pre = self.hands[s].astype(bool)
            if s in laid_count:
                pre = pre.copy()
                pre[b.laid[s]] = True
            known[s] = np.flatnonzero(pre & revealed)
            unknown[s] = int(pre.sum()) - known[s].size
            holders.append(s)
        retired_known = self.retired.astype(bool) & revealed
        retired_unknown = int(self.retired.sum()) - int(retired_known.sum())
        unseen = np.flatnonzero(self.in_play.astype(bool) & ~revealed & ~mine)
        fight = b.fight if b is not None else 1
        layers = [s for s in holders if s in laid_count]

        def draw(forced: dict[int, list[int]], lay_forced: bool = False
                 ) -> tuple[dict[int, np.ndarray], np.ndarray, dict[int, list[int]]] | None:
            pool = np.setdiff1d(unseen, [c for cs in forced.values() for c in cs], assume_unique=True)
            pool = rng.permutation(pool)
            hands: dict[int, np.ndarray] = {}
            i = 0
            for s in holders:
                extra = np.array(forced.get(s, []), dtype=np.int64)
                k = unknown[s] - extra.size
                hands[s] = np.concatenate([known[s], extra, pool[i:i + k]]).astype(np.int64)
                i += k
            rest = pool[i:]
            lays: dict[int, list[int]] = {}
            for s in layers:
                options = self._lays_of_count(s, hands[s], laid_count[s], fight)
                if lay_forced and s in forced_run:
                    options = [forced_run[s]]
                if not options:
                    return None
                lays[s] = options[int(rng.integers(len(options)))]
            return hands, rest, lays

        forced_run: dict[int, list[int]] = {}
        result = None
        for _ in range(DETERMINIZE_TRIES):
            result = draw({})
            if result is not None:
                break
        if result is None:
            forced: dict[int, list[int]] = {}
            taken: set[int] = set()
            for s in layers:
                k = laid_count[s]
                if k < 2:
                    continue
                held = set(unseen.tolist()) - taken | set(known[s].tolist())
                rested = fight >= self.last_used[s] + self.cards.rest_fights
                runs = [[card_id(c, st) for st in range(1, k + 1)] for c in range(NUM_CHARACTERS)]
                fits = [r for r in runs if all(x in held for x in r) and rested[character_of(r[0])]]
                fits = fits or [r for r in runs if all(x in held for x in r)]
                run = fits[int(rng.integers(len(fits)))]
                forced_run[s] = run
                forced[s] = [x for x in run if x not in set(known[s].tolist())]
                taken |= set(forced[s])
            for _ in range(DETERMINIZE_TRIES):
                result = draw(forced)
                if result is not None:
                    break
            if result is None:  # a run of a resting character (possible only when all it holds rests)
                result = draw(forced, lay_forced=True)
        assert result is not None
        hands, rest, lays = result
        for s in holders:
            g.hands[s] = 0
            g.hands[s, hands[s]] = 1
        g.retired[:] = 0
        g.retired[retired_known] = 1
        g.retired[rest[:retired_unknown]] = 1
        g.undealt[:] = 0
        g.undealt[rest[retired_unknown:]] = 1
        if b is not None:
            gb = g.battle
            for s, cards in lays.items():
                g.hands[s, cards] = 0
                gb.laid[s] = list(cards)
            # The lays in progress are the last actions: the record of the determinization shows its own.
            if gb.laid:
                tail = g.log[len(g.log) - len(gb.laid):]
                g.log = g.log[:len(g.log) - len(gb.laid)] + [(p, lay_action(gb.laid[p]), asked) for p, _, asked in tail]
        g.power_deck = [int(x) for x in rng.permutation(np.setdiff1d(np.arange(NUM_POWER_CARDS), self.power_discard))]
        g.version = self.version
        return g

    def _lays_of_count(self, seat: int, hand: np.ndarray, count: int, fight: int) -> list[list[int]]:
        """The legal lays of ``count`` cards from ``hand`` (card ids) for ``seat`` in ``fight``."""
        grid = np.zeros(NUM_CARDS, dtype=bool)
        grid[hand] = True
        grid = grid.reshape(NUM_CHARACTERS, NUM_STAGES)
        held = grid.any(axis=1)
        usable = held & (fight >= self.last_used[seat] + self.cards.rest_fights)
        if not usable.any():
            usable = held
        if count == 1:
            return [[int(c)] for c in hand if usable[character_of(int(c))]]
        prefix = np.cumprod(grid, axis=1).sum(axis=1)
        return [[card_id(int(c), st) for st in range(1, count + 1)] for c in np.flatnonzero(usable & (prefix >= count))]

    def usable_characters(self, seat: int) -> np.ndarray:
        """bool[25]: characters ``seat`` may lay now (the reuse restriction, and its exception)."""
        b = self.battle
        fight = b.fight if b is not None else 1
        held = self.hands[seat].reshape(NUM_CHARACTERS, NUM_STAGES).any(axis=1)
        rested = fight >= self.last_used[seat] + self.cards.rest_fights
        usable = held & rested
        # "unless that is the only option left": when every held character is resting, all may be laid.
        return usable if usable.any() else held

    def legal_actions(self, seat: int) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.legal_action_mask(seat))]

    def legal_action_mask(self, seat: int) -> np.ndarray:
        """int8[NUM_ACTIONS]: 1 for each legal action of ``seat`` now (all zeros if it is not its turn)."""
        return self._current_mask(seat).copy()

    def _current_mask(self, seat: int) -> np.ndarray:
        """``legal_action_mask`` without the copy, for the engine's own reads (never written to)."""
        cached = self._mask_cache
        if cached is not None and cached[0] == self.version and cached[1] == seat:
            return cached[2]
        mask = self._compute_mask(seat)
        self._mask_cache = (self.version, seat, mask)
        return mask

    def _compute_mask(self, seat: int) -> np.ndarray:
        """The mask of ``seat`` now (read-only in the lay phase: the engine's own, copied for callers)."""
        if seat != self.to_act or self.phase == PHASE_OVER:
            return np.zeros(NUM_ACTIONS, dtype=np.int8)
        if self.phase == PHASE_LAY:
            # Built as one bytes object: the card bytes are the hand's own bytes, each character's
            # three run bytes come from _RUN_BYTES (a run starts at stage 1 with no stage missing; a
            # character not held has word 0, no runs), then the tail of zeros. A resting character's
            # word and card bytes are zeroed (joins and lookups: a bytearray slice write costs more).
            hand = self.hands[seat].tobytes()
            words = _CHARACTER_WORDS(hand)
            b = self.battle
            # A character may be laid from fight last_used + rest_fights on ...
            limit = (b.fight if b is not None else 1) - self.cards.rest_fights
            last = self.last_used[seat].tolist()
            resting = [c for c in compress(_CHARACTERS, words) if last[c] > limit]
            # ... "unless that is the only option left": when every held character rests, all may be laid.
            if resting and len(resting) < NUM_CHARACTERS - words.count(0):
                words = list(words)
                parts = []
                start = 0
                for c in resting:
                    words[c] = 0
                    parts += (hand[start:4 * c], _NO_CARDS)
                    start = 4 * c + 4
                parts.append(hand[start:])
                hand = b"".join(parts)
            return np.frombuffer(hand + b"".join(map(_RUN_BYTES_OF, words)) + _MASK_TAIL, dtype=np.int8)
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if self.phase == PHASE_DESTINATION:
            mask[[DESTINATION_BASE + d for d in self.remaining_destinations]] = 1
        else:
            for opp in self.unpaired:
                if opp != seat:
                    mask[CHALLENGE_BASE + (opp - seat) % self.num_players - 1] = 1
        return mask

    def opponent_count_laid(self) -> dict[int, int]:
        """Face-down cards laid so far in the current fight, per seat (public: the count only)."""
        return {} if self.battle is None else {s: len(c) for s, c in self.battle.laid.items()}

    def winners(self) -> list[int]:
        best = int(self.destinations_won.max())
        return [s for s in range(self.num_players) if self.destinations_won[s] == best]

    def returns(self) -> np.ndarray:
        """+1 sole most destinations, 0 to each of several tied for most, -1 to the others."""
        out = np.full(self.num_players, -1.0)
        if not self.is_terminal():
            return np.zeros(self.num_players)
        w = self.winners()
        out[w] = 1.0 if len(w) == 1 else 0.0
        return out

    def hand_sizes(self) -> list[int]:
        """Cards in each seat's hand (``bytes.count`` on the 0/1 rows: cheaper than a numpy sum over
        a few rows; kept for the version, since the observation and the infos both read them)."""
        return list(self._hand_sizes_now())

    def _hand_sizes_now(self) -> list[int]:
        """``hand_sizes`` without the copy, for the engine's, the encoder's and the env's own reads
        (never written to)."""
        cached = self._sizes_cache
        if cached is None or cached[0] != self.version:
            data, width = self.hands.tobytes(), NUM_CARDS
            cached = self._sizes_cache = (self.version, [data.count(1, s * width, (s + 1) * width)
                                                         for s in range(self.num_players)])
        return cached[1]

    def cards_held(self, seat: int) -> int:
        """The cards that count for running out: the hand, plus the rest pile under ``out_of_cards="hand_and_rest"``."""
        held = np.count_nonzero(self.hands[seat])  # hands are 0/1: the count is the sum
        if self.config.out_of_cards == "hand_and_rest":
            held += np.count_nonzero(self.rest_since[seat] != NOBODY)
        return int(held)

    def cards_owned(self, seat: int) -> int:
        """Every card ``seat`` holds in the destination: hand, rest pile and spoils (the fight cap, gap 8)."""
        return int(np.count_nonzero(self.hands[seat]) + np.count_nonzero(self.rest_since[seat] != NOBODY)
                   + np.count_nonzero(self.spoils[seat]))

    # ------------------------------------------------------------------ actions
    def apply_action(self, seat: int, action: Any) -> None:
        """Apply one decision; raises IllegalActionError (changing nothing) if it is not legal.

        ``action`` is an int, a numpy integer, or a 0-d numpy integer array."""
        if type(action) is int:  # the common case first: a plain int is an int and not a bool
            is_int = True
        else:
            if isinstance(action, np.ndarray) and action.ndim == 0 and np.issubdtype(action.dtype, np.integer):
                action = action.item()
            is_int = isinstance(action, (int, np.integer)) and not isinstance(action, bool)
        mask = self._current_mask(seat) if 0 <= seat < self.num_players else np.zeros(NUM_ACTIONS, np.int8)
        if not is_int or not 0 <= int(action) < NUM_ACTIONS or not mask[int(action)]:
            legal = [describe_action(a, self.cards) + f" ({a})" for a in np.flatnonzero(mask)]
            who = "nobody (the game is over)" if self.phase == PHASE_OVER else f"seat {self.to_act}"
            raise IllegalActionError(
                f"illegal action {action!r} ({describe_action(action, self.cards) if is_int else 'not an int'}) "
                f"by seat {seat} in phase '{PHASE_NAMES[self.phase]}': it is {who}'s turn; "
                f"legal for seat {seat}: {legal if legal else 'none'}"
            )
        self._apply(seat, int(action), True)
        self._settle()

    @property
    def events(self) -> list[str]:
        """The game narrated, one line per event (rolls, choices, fights, pick-ups, claims)."""
        return [e if isinstance(e, str) else self._fight_text(e) for e in self._events]

    def _fight_text(self, f: FightResult) -> str:
        names = self.cards.power_names
        return f"fight {f.fight}: " + ", ".join(
            f"P{p} {'+'.join(self.cards.card_name(c) for c in f.laid[p])} dice {f.dice[p]} "
            f"{'power ' + str([names[x] for x in f.power[p]]) + ' ' if f.power[p] else ''}= {f.totals[p]}"
            for p in f.laid) + f"; P{f.winner} wins"

    @property
    def actions(self) -> list[tuple[int, int]]:
        """The decisions asked, in order (what a record replays): (seat, action)."""
        return [(s, a) for s, a, asked in self.log if asked]

    def _settle(self) -> None:
        """Under ``ask="choices"``, take every decision that is no choice: one legal action, or the
        destination (no effect in play: the first one left is taken)."""
        if self.config.ask == "all":
            return
        while self.phase != PHASE_OVER:
            if self.phase == PHASE_DESTINATION:
                action = DESTINATION_BASE + min(self.remaining_destinations)
            else:
                # the mask's bytes (0/1): counted and searched cheaper than by numpy calls
                data = self._current_mask(self.to_act).tobytes()
                if data.count(1) != 1:
                    return
                action = data.index(1)
            self._apply(self.to_act, action, False)

    def _apply(self, seat: int, action: int, asked: bool) -> None:
        self.log.append((seat, action, asked))
        self.version += 1
        if self.phase != PHASE_LAY:
            self.table_version += 1  # a lay bumps it only when it completes the fight (``_lay``)
        if self.phase == PHASE_DESTINATION:
            self.destination = action - DESTINATION_BASE
            self.remaining_destinations.remove(self.destination)
            self._events.append(f"P{seat} chooses {self.cards.destination_names[self.destination]}")
            self._deal()
            self._start_round(list(range(self.num_players)))
        elif self.phase == PHASE_CHALLENGE:
            opp = (seat + action - CHALLENGE_BASE + 1) % self.num_players
            self.unpaired.remove(seat)
            self.unpaired.remove(opp)
            self._events.append(f"P{seat} challenges P{opp}")
            # The challenged player lays first (the rulebook's example: C lays, then A evaluates).
            self._start_battle([opp, seat])
        else:
            self._lay(seat, action_cards(action))

    def _start_round(self, players: list[int]) -> None:
        if self.config.format == "royale":
            self.seeds = self.roll_order(players, "seeding")
            self.bye, self.unpaired, self.advancing = NOBODY, [], []
            self.knockout_round += 1
            # Battle royale: everyone in one battle, Player A laying first (gap 9).
            self._start_battle(list(self.seeds))
            return
        if len(players) == 1:
            self._claim(players[0])
            return
        if self.knockout_round > 0 and self.config.between_rounds == "redeal":
            self._redeal(players)
        self.knockout_round += 1
        self.seeds = self.roll_order(players, f"round {self.knockout_round} seeding")
        if len(self.seeds) % 2:
            self.bye, self.unpaired = self.seeds[0], list(self.seeds[1:])
            self.advancing = [self.bye]
            self._events.append(f"P{self.bye} has a bye")
        else:
            self.bye, self.unpaired, self.advancing = NOBODY, list(self.seeds), []
        self._next_challenge()

    def _redeal(self, players: list[int]) -> None:
        """Between knockout rounds (``between_rounds="redeal"``): every card of the characters in play
        is gathered and shuffled, and each player still in is dealt eight afresh (a new deck: nothing
        revealed so far says where a card is now)."""
        k = self.cards.hand_size
        self.hands[:] = 0
        self.rest_since[:] = NOBODY
        self.spoils[:] = 0
        self.retired[:] = 0
        self.revealed[:] = 0
        cards_in = np.flatnonzero(self.in_play)
        order = cards_in[self.rng.permutation(cards_in.size)]
        hands = [() for _ in range(self.num_players)]
        for i, p in enumerate(players):
            hands[p] = tuple(int(c) for c in order[i * k:(i + 1) * k])
            self.hands[p, list(hands[p])] = 1
        self.undealt[:] = self.in_play
        self.undealt[self.hands.any(axis=0)] = 0
        self.deals_used.append(DestinationDeal(tuple(hands), None, None))
        self._events.append(f"redeal: P{', P'.join(str(p) for p in players)} are dealt {k} cards each")

    def _next_challenge(self) -> None:
        if not self.unpaired:
            self._start_round([s for s in self.seeds if s in self.advancing])
            return
        # The highest seed not yet battled picks from the others not yet battled.
        self.battle = None
        self.phase, self.to_act = PHASE_CHALLENGE, self.unpaired[0]

    def _start_battle(self, players: list[int]) -> None:
        for p in players:
            self.last_used[p] = -10**6
        self.battle = Battle(players=list(players))
        self._start_fight()

    def _start_fight(self) -> None:
        b = self.battle
        assert b is not None
        if self.config.out_of_cards == "hand_and_rest":
            for p in b.players:
                # A player whose hand is empty but whose rest pile is not takes the pile back: "the
                # only option left" (gap 5, under the option only).
                if not np.count_nonzero(self.hands[p]):
                    self._pick_up(p, everything=True)
        b.lay_order = b.players[b.first:] + b.players[:b.first]  # from the first layer round the battle
        b.laid = {}
        self.phase, self.to_act = PHASE_LAY, b.lay_order[0]

    def _pick_up(self, seat: int, everything: bool) -> None:
        b = self.battle
        since = self.rest_since[seat]
        if everything or b is None:
            ready = since != NOBODY
        else:
            ready_by = b.fight - self.cards.rest_fights
            if ready_by < 1:  # cards rest from fight 1 on: none can be ready yet
                return
            # 1 <= since <= ready_by in one comparison: viewed unsigned, NOBODY (-1) is the largest value
            ready = since.view(np.uint64) <= ready_by
        count = np.count_nonzero(ready)
        if count:
            self.hands[seat][ready] = 1
            since[ready] = NOBODY
            self._events.append(f"P{seat} picks up {count} card(s) from the rest pile")

    def _lay(self, seat: int, laid: list[int]) -> None:
        b = self.battle
        assert b is not None
        hand = self.hands[seat]
        for c in laid:  # a few cards: item writes are cheaper than a fancy index
            hand[c] = 0
        b.laid[seat] = laid
        pos = b.lay_order.index(seat)
        if pos + 1 < len(b.lay_order):
            self.to_act = b.lay_order[pos + 1]
            return
        self.table_version += 1
        self._resolve_fight()

    def _resolve_fight(self) -> None:
        b = self.battle
        assert b is not None
        power, mods = self._power_list, self._modifier_list
        dice, drawn, totals = {}, {}, {}
        # All the dice at once unless a double could empty the power deck between two rolls (a
        # reshuffle draws from the generator): the same faces either way.
        faces = self._faces(2 * len(b.lay_order)) if len(self.power_deck) >= len(b.lay_order) else None
        laid = b.laid
        for i, p in enumerate(b.lay_order):
            d = dice[p] = (faces[2 * i], faces[2 * i + 1]) if faces is not None else self.roll()
            total = sum([power[c] for c in laid[p]])
            if d[0] == d[1]:
                # A double draws a power card; an empty deck is refilled by shuffling the discards (gap 6).
                if not self.power_deck:
                    self.power_deck = [int(x) for x in self.rng.permutation(self.power_discard)]
                    self.power_discard = []
                card = self.power_deck.pop(0)
                drawn[p] = [card]
                total += mods[card]
            else:
                drawn[p] = []
            totals[p] = total
        best = max(totals.values())
        rolloff: list[dict[int, int]] = []
        if self.config.ties == "first":
            # Equal totals go to the tied player who laid first (gap 3): it committed blind, so the
            # answer must beat it, not match it.
            tied = [next(p for p in b.lay_order if totals[p] == best)]
        else:
            tied = [p for p in b.lay_order if totals[p] == best]
        while len(tied) > 1:
            # Option ties="rolloff": the tied players roll the dice off, no power cards (gap 3).
            r = {p: sum(self.roll()) for p in tied}
            rolloff.append(r)
            top = max(r.values())
            tied = [p for p in tied if r[p] == top]
        winner = tied[0]
        b.wins[winner] = b.wins.get(winner, 0) + 1
        revealed = self.revealed
        for p in b.lay_order:
            for c in b.laid[p]:  # a few cards: item writes are cheaper than a fancy index
                revealed[c] = 1
            self.power_discard += drawn[p]
            self.last_used[p, b.laid[p][0] // NUM_STAGES] = b.fight  # a lay is of one character (character_of)
        # b.laid itself: the engine never changes a lay's list, and the next fight starts a new dict
        self.last_fight = FightResult(b.fight, b.laid, dice, drawn, totals, rolloff, winner)
        self._events.append(self.last_fight)  # worded only when ``events`` is read
        # The winner's own cards go to its rest pile; the losers' cards are won (gap 4): into the
        # winner's hand (default), so a card won is a card to use, or set aside as spoils until the
        # battle is won (option).
        won_cards, fight = self.config.won_cards, b.fight
        rest_row = self.rest_since[winner]
        for p in b.lay_order:
            if p == winner or won_cards == "rest":
                # Won cards (won_cards="rest") join the winner's first-use pile, as if it had used them in this fight.
                row, value = rest_row, fight
            elif won_cards == "hand":
                row, value = self.hands[winner], 1
            else:
                row, value = self.spoils[winner], 1
            for c in b.laid[p]:
                row[c] = value
        # Only a win lets a player pick up its rest pile, and only cards laid rest_fights ago or more.
        self._pick_up(winner, everything=False)
        b.laid = {}
        # Out of cards: nothing left to lay (gap 5). A rest pile cannot be laid until a win picks
        # it up. Under won_cards="hand" the winner has just received the losers' cards, so only a
        # loser can be out; under "spoils" winning with many cards can empty a hand, and if
        # everyone is out the fight's winner is the one left standing.
        if self.config.out_of_cards == "hand":  # cards_held, inlined for the default: a hand of zero bytes
            data, width = self.hands.tobytes(), NUM_CARDS
            out = [p for p in b.players if data.count(0, p * width, (p + 1) * width) == width]
        else:
            out = [p for p in b.players if self.cards_held(p) == 0]
        if len(out) == len(b.players):
            out.remove(winner)
        for p in out:
            self._events.append(f"P{p} is out of cards and loses the battle")
            self._knock_out(p)
        if out:
            b.players = [p for p in b.players if p not in out]
        if len(b.players) == 1:
            self._end_battle(b.players[0])
            return
        if b.fight >= self.config.max_fights:
            # Fight cap (gap 8): the player holding the most cards wins; equal counts roll off.
            # Every card a player owns counts here, whatever out_of_cards says (gap 8).
            # cap="fights": most fights won in the battle, then most cards; cap="cards": most cards.
            held = {p: (b.wins.get(p, 0) if self.config.cap == "fights" else 0, self.cards_owned(p)) for p in b.players}
            top = max(held.values())
            lead = [p for p in b.players if held[p] == top]
            w = lead[0] if len(lead) == 1 else self.roll_order(lead, "fight-cap roll-off", places=1)[0]
            what = "won the most fights" if self.config.cap == "fights" else "holds the most cards"
            self._events.append(f"fight cap: P{w} {what} and wins the battle")
            for p in b.players:
                if p != w:
                    self._knock_out(p)
            self._end_battle(w)
            return
        # Alternate (rotate, with more than two players) who lays first.
        # The next to lay first is the next player after this fight's first layer still in the battle.
        b.fight += 1
        for p in b.lay_order[1:]:
            if p in b.players:
                b.first = b.players.index(p)
                break
        self._start_fight()
        if not out and self.config.out_of_cards != "hand_and_rest":  # (that option may pick up in _start_fight)
            self.fight_step_version = self.table_version

    def _knock_out(self, seat: int) -> None:
        self.alive[seat] = False
        held = self.hands[seat].astype(bool) | (self.rest_since[seat] != NOBODY) | self.spoils[seat].astype(bool)
        self.retired[held] = 1
        self.hands[seat] = 0
        self.spoils[seat] = 0
        self.rest_since[seat] = NOBODY

    def _end_battle(self, winner: int) -> None:
        # A battle won: the winner picks up its whole rest pile and its spoils for the next round (gap 5).
        self._pick_up(winner, everything=True)
        self.hands[winner] |= self.spoils[winner]
        self.spoils[winner] = 0
        self._events.append(f"P{winner} wins the battle")
        self.battle = None
        if self.config.format == "royale":
            self._claim(winner)
            return
        self.advancing.append(winner)
        self._next_challenge()

    def _claim(self, seat: int) -> None:
        self.destinations_won[seat] += 1
        self.claimed.append((self.destination, seat))
        self._events.append(f"P{seat} claims {self.cards.destination_names[self.destination]}")
        self.battle = None
        if len(self.claimed) >= self.config.num_destinations:
            self.phase, self.to_act = PHASE_OVER, NOBODY
            return
        self._start_destination()
