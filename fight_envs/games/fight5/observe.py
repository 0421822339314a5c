"""Egocentric observation encoder for Fight 5: what one seat may know, as a flat float32 vector.

Everything is relative to the observer: relative seat 0 is the observer, 1 the player on its
left (next clockwise), and so on. Shapes are padded to the largest game (5 players, 11 clashes)
so one network can play every player count; padding is zero and flagged by ``present`` bits.

Only public information and the observer's own private information is encoded: the observer's
hand and the cards it has placed this round; face-up clash cards, pots, last round's reveal,
point piles, scores. Hidden things (others' hands and face-down placements, the order of any
deck or stack) never enter. "What a player still has to play" is public: its deck composition
minus the cards it revealed this bout.

``encode(game, seat)`` builds one seat's vector. The envs build the same vector in two parts:
the public features (``public_values`` for all seats, then ``encode_public`` per seat), which
change only when ``game.public_version`` does (once a round), and the private ones
(``encode_private``: hand, placed cards, current slot), redone after every placement.

Layout (``OBS_LAYOUT`` lists the same slices; a test checks the total equals the space):

| slice | size | meaning |
| --- | --- | --- |
| ``clashes`` | 11 x 39 | one block per clash: the observer's five slots first, in slot order (right-a, right-b, middle, left-a, left-b), then the other pairs' clashes in clockwise order, then padding |
|   ``.present`` | 1 | 1 if this block is a real clash |
|   ``.clash_card`` | 14 | one-hot of the face-up Clash Card: ranks 2..13, star, then "none" |
|   ``.stack_left`` | 1 | face-down cards left in the stack / 5 |
|   ``.pot`` | 13 | cards left in play there from earlier ties, by rank, / 5 |
|   ``.sharers`` | 5 | relative seats that share the clash |
|   ``.last_plays`` | 5 | card each relative seat revealed there last round: (rank index + 1) / 13, 0 if none |
| ``hand`` | 13 | observer's cards in hand not yet placed, by rank, / 2 |
| ``my_slots`` | 5 x 14 | card the observer placed in each slot this round (one-hot, last column "none") |
| ``current_slot`` | 5 | one-hot of the slot the observer fills now (all zero when not acting) |
| ``unrevealed`` | 5 x 13 | per relative seat: its deck's cards not yet revealed this bout, by rank, / 2 |
| ``pile_cards`` | 5 | per relative seat: cards in its Point Pile / 25 |
| ``pile_points`` | 5 | per relative seat: its Point Pile's worth without the bonus / 100 |
| ``score`` | 5 | per relative seat: score from finished bouts / 200 |
| ``seat_present`` | 5 | 1 for relative seats that exist in this game |
| ``clash_unseen`` | 13 | Clash Deck cards not flipped this bout (in stacks or set aside), by rank, / 7 |
| ``round`` | 5 | one-hot of the round within the bout |
| ``bout`` | 2 | bouts finished / num_bouts, and 1 in the last bout |
| ``num_players`` | 4 | one-hot of 2..5 |
| ``target_score`` | 1 | target score / 1000, 0 when there is none |
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from fight_envs.games.fight5.cards import NUM_RANKS
from fight_envs.games.fight5.rules import MAX_PLAYERS, MIN_PLAYERS, NO_CARD, Fight5Game
from fight_envs.games.fight5.topology import SLOTS_PER_PLAYER, pair_clashes, topology

MAX_CLASHES = 2 * MAX_PLAYERS + 1
CARD_ONEHOT = NUM_RANKS + 1  # 13 ranks + "none"
NONE_COLUMN = NUM_RANKS

CLASH_LAYOUT: tuple[tuple[str, int], ...] = (
    ("present", 1),
    ("clash_card", CARD_ONEHOT),
    ("stack_left", 1),
    ("pot", NUM_RANKS),
    ("sharers", MAX_PLAYERS),
    ("last_plays", MAX_PLAYERS),
)
CLASH_FEATURES = sum(size for _, size in CLASH_LAYOUT)

OBS_LAYOUT: tuple[tuple[str, int], ...] = (
    ("clashes", MAX_CLASHES * CLASH_FEATURES),
    ("hand", NUM_RANKS),
    ("my_slots", SLOTS_PER_PLAYER * CARD_ONEHOT),
    ("current_slot", SLOTS_PER_PLAYER),
    ("unrevealed", MAX_PLAYERS * NUM_RANKS),
    ("pile_cards", MAX_PLAYERS),
    ("pile_points", MAX_PLAYERS),
    ("score", MAX_PLAYERS),
    ("seat_present", MAX_PLAYERS),
    ("clash_unseen", NUM_RANKS),
    ("round", 5),
    ("bout", 2),
    ("num_players", MAX_PLAYERS - MIN_PLAYERS + 1),
    ("target_score", 1),
)
OBS_SIZE = sum(size for _, size in OBS_LAYOUT)
OBS_HIGH = 100.0
"""Upper bound of the observation Box; features are clipped to it (only huge scores reach it)."""


def _slices(layout: tuple[tuple[str, int], ...]) -> dict[str, slice]:
    out, start = {}, 0
    for name, size in layout:
        out[name] = slice(start, start + size)
        start += size
    return out


OBS_SLICES = _slices(OBS_LAYOUT)
CLASH_SLICES = _slices(CLASH_LAYOUT)


@lru_cache(maxsize=None)
def clash_order(num_players: int, seat: int) -> tuple[int, ...]:
    """Clash ids in the observer's block order: its five slots, then other pairs clockwise."""
    mine = tuple(int(c) for c in topology(num_players).player_clashes[seat])
    others: list[int] = []
    for k in range(1, num_players - 1):
        others.extend(pair_clashes((seat + k) % num_players))
    return mine + tuple(others)


# The public features are built in two steps. ``public_values`` computes every public number of
# the game once, for all seats at the same time, as one float64 vector laid out by absolute seat
# and clash id. Each seat's observation is then that seat's static template plus a single gather
# from the vector into the seat's egocentric positions. Every value is computed exactly as the
# feature table says (an integer count divided in float64, then cast to float32 on assignment),
# so the vector is bit for bit what a feature-by-feature encoder writes.


@dataclass(frozen=True)
class _ValueLayout:
    """Where each public quantity sits in the ``public_values`` vector of an n-player game."""

    num_clashes: int
    clash_card: int  # C x 14 one-hots, by clash id
    pot: int  # C x 13 cards in play, by clash id
    last_plays: int  # C x n: card + 1 (0 = none), by clash id and absolute seat
    unrevealed: int  # n x 13, by absolute seat
    pile_cards: int  # n
    pile_points: int  # n
    score: int  # n
    clash_unseen: int  # 13
    stack_left: int  # C, by clash id
    round: int  # 5, one-hot
    bout: int  # 2: bouts finished (capped), 1 in the last bout
    target_score: int  # 1
    size: int


@lru_cache(maxsize=None)
def _value_layout(num_players: int) -> _ValueLayout:
    n, C = num_players, topology(num_players).num_clashes
    sizes = (
        ("clash_card", C * CARD_ONEHOT),
        ("pot", C * NUM_RANKS),
        ("last_plays", C * n),
        ("unrevealed", n * NUM_RANKS),
        ("pile_cards", n),
        ("pile_points", n),
        ("score", n),
        ("clash_unseen", NUM_RANKS),
        ("stack_left", C),
        ("round", 5),
        ("bout", 2),
        ("target_score", 1),
    )
    at, start = {}, 0
    for name, size in sizes:
        at[name] = start
        start += size
    return _ValueLayout(num_clashes=C, size=start, **at)


@lru_cache(maxsize=None)
def _denominators(num_players: int, num_bouts: int) -> np.ndarray:
    """What each entry of the value vector is divided by (the feature table's scales)."""
    L = _value_layout(num_players)
    den = np.ones(L.size, dtype=np.float64)  # one-hots and flags are divided by 1
    den[L.pot : L.last_plays] = 5.0
    den[L.last_plays : L.unrevealed] = NUM_RANKS
    den[L.unrevealed : L.pile_cards] = 2.0
    den[L.pile_cards : L.pile_points] = 25.0
    den[L.pile_points : L.score] = 100.0
    den[L.score : L.clash_unseen] = 200.0
    den[L.clash_unseen : L.stack_left] = 7.0
    den[L.stack_left : L.round] = 5.0
    den[L.bout] = num_bouts
    den[L.target_score] = 1000.0
    den.setflags(write=False)
    return den


_ONEHOT_ROW = CARD_ONEHOT * np.arange(MAX_CLASHES)  # start of each clash's one-hot in the value vector
if NO_CARD % CARD_ONEHOT != NONE_COLUMN:  # the one-hots below index by card % CARD_ONEHOT
    raise ImportError("observe.py's one-hot trick needs NO_CARD % CARD_ONEHOT == NONE_COLUMN")


def public_values(game: Fight5Game) -> np.ndarray:
    """Every public feature value of ``game`` for all seats at once (see the comment above).

    Changes only when ``game.public_version`` does, so callers may cache it for a round.
    """
    n = game.num_players
    L = _value_layout(n)
    C = L.num_clashes
    clash_onehot = np.zeros(C * CARD_ONEHOT, dtype=np.int64)
    # NO_CARD (-1) % 14 == 13 == NONE_COLUMN: the "none" column without a separate mask
    clash_onehot[_ONEHOT_ROW[:C] + game.clash_card % CARD_ONEHOT] = 1
    bouts = game.config.num_bouts
    target = game.config.target_score
    rounds = [0] * 5
    rounds[min(game.round, 4)] = 1
    tail = [len(stack) for stack in game.clash_stacks] + rounds
    tail += [min(game.bout, bouts), 1 if game.bout >= bouts - 1 else 0, 0 if target is None else target]
    point_piles = game.point_pile.sum(axis=1)
    num = np.concatenate(
        (
            clash_onehot,
            game.pot.sum(axis=1).ravel(),
            (game.last_plays + 1).ravel(),  # NO_CARD + 1 == 0: "no card" encodes as 0
            (game.cards.player_deck - game.revealed).ravel(),
            point_piles.sum(axis=1),
            point_piles @ game.points_per_rank,
            game.scores,
            game.cards.clash_deck - game.clash_seen,
            tail,
        )
    )
    values = num / _denominators(n, bouts)
    # only huge scores reach OBS_HIGH; clipping before the float32 cast gives the same float32
    np.minimum(values, OBS_HIGH, out=values)
    return values


@dataclass(frozen=True)
class _SeatView:
    """One (num_players, seat) view, built once: its static features and where the rest go."""

    template: np.ndarray  # present, sharers, seat_present, num_players; zeros elsewhere
    positions: np.ndarray  # observation positions of the public features that change ...
    sources: np.ndarray  # ... and the public_values entry each one takes
    my_slots_at: np.ndarray  # (5,) position of each slot's one-hot column 0


@lru_cache(maxsize=None)
def _seat_view(num_players: int, seat: int) -> _SeatView:
    n = num_players
    L = _value_layout(n)
    rel = [(seat + k) % n for k in range(n)]  # rel[k] = absolute seat at relative seat k
    order = clash_order(n, seat)
    template = np.zeros(OBS_SIZE, dtype=np.float32)
    blocks = template[OBS_SLICES["clashes"]].reshape(MAX_CLASHES, CLASH_FEATURES)
    blocks[: len(order), CLASH_SLICES["present"]] = 1.0
    sharers = CLASH_SLICES["sharers"].start
    blocks[: len(order), sharers : sharers + n] = topology(n).sharer_mask[list(order)][:, rel]
    template[OBS_SLICES["seat_present"].start : OBS_SLICES["seat_present"].start + n] = 1.0
    template[OBS_SLICES["num_players"].start + n - MIN_PLAYERS] = 1.0

    pairs: list[tuple[int, int]] = []  # (observation position, value entry)
    for k, c in enumerate(order):
        block = OBS_SLICES["clashes"].start + k * CLASH_FEATURES
        onehot, pot, last = (block + CLASH_SLICES[f].start for f in ("clash_card", "pot", "last_plays"))
        pairs += [(onehot + j, L.clash_card + c * CARD_ONEHOT + j) for j in range(CARD_ONEHOT)]
        pairs.append((block + CLASH_SLICES["stack_left"].start, L.stack_left + c))
        pairs += [(pot + r, L.pot + c * NUM_RANKS + r) for r in range(NUM_RANKS)]
        pairs += [(last + k2, L.last_plays + c * n + s) for k2, s in enumerate(rel)]
    for k, s in enumerate(rel):
        unrevealed = OBS_SLICES["unrevealed"].start + k * NUM_RANKS
        pairs += [(unrevealed + r, L.unrevealed + s * NUM_RANKS + r) for r in range(NUM_RANKS)]
        pairs.append((OBS_SLICES["pile_cards"].start + k, L.pile_cards + s))
        pairs.append((OBS_SLICES["pile_points"].start + k, L.pile_points + s))
        pairs.append((OBS_SLICES["score"].start + k, L.score + s))
    pairs += [(OBS_SLICES["clash_unseen"].start + r, L.clash_unseen + r) for r in range(NUM_RANKS)]
    pairs += [(OBS_SLICES["round"].start + j, L.round + j) for j in range(5)]
    pairs += [(OBS_SLICES["bout"].start + j, L.bout + j) for j in range(2)]
    pairs.append((OBS_SLICES["target_score"].start, L.target_score))
    positions = np.array([p for p, _ in pairs], dtype=np.int64)
    sources = np.array([v for _, v in pairs], dtype=np.int64)
    my_slots_at = OBS_SLICES["my_slots"].start + CARD_ONEHOT * np.arange(SLOTS_PER_PLAYER)
    for arr in (template, positions, sources, my_slots_at):
        arr.setflags(write=False)  # shared by every game of this size: nothing may write into them
    return _SeatView(template, positions, sources, my_slots_at)


_HAND = OBS_SLICES["hand"]
_CURRENT_SLOT = OBS_SLICES["current_slot"].start


def encode_public(game: Fight5Game, seat: int, values: np.ndarray | None = None) -> np.ndarray:
    """Every feature of ``seat``'s observation except its hand, placed cards and current slot.

    ``values`` is ``public_values(game)`` when the caller has it already. Both change only
    when ``game.public_version`` does (a round starts or the game ends), so a caller may keep
    the result for the whole round and add :func:`encode_private` to a copy.
    """
    view = _seat_view(game.num_players, seat)
    if values is None:
        values = public_values(game)
    obs = view.template.copy()
    obs[view.positions] = values[view.sources]
    return obs


def encode_private(game: Fight5Game, seat: int, obs: np.ndarray) -> None:
    """Write ``seat``'s hand, placed cards and current slot into ``obs`` from :func:`encode_public`."""
    obs[_HAND] = game.hands[seat] / 2.0
    # NO_CARD (-1) % 14 == NONE_COLUMN, as in public_values
    obs[_seat_view(game.num_players, seat).my_slots_at + game.committed[seat] % CARD_ONEHOT] = 1.0
    slot = game.num_committed[seat]
    if not game.game_over and slot < SLOTS_PER_PLAYER:
        obs[_CURRENT_SLOT + slot] = 1.0


def encode(game: Fight5Game, seat: int) -> np.ndarray:
    """The observation vector of ``seat`` (see the module docstring for the layout)."""
    obs = encode_public(game, seat)
    encode_private(game, seat, obs)
    return obs
