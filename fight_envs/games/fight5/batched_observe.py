"""Observations of many Fight 5 games at once: ``observe.encode`` for a batch, as array writes.

This module owns how the batched engine (``batched.py``) fills its (B, 627) observation buffer.
The features, their layout, their scales and their float32 values are exactly those of
``observe.py`` (whose docstring is the feature table); the differential tests compare the two
bit for bit.

The work is split by how often each part changes:

* :class:`PublicFeatures` holds every public number of the B games as float32, by absolute
  clash id and absolute seat. It changes only when a round starts or a game ends, so the
  engine refreshes it then (:meth:`PublicFeatures.refresh`).
* :func:`write_public` copies one seat's egocentric view of those numbers into the buffer:
  clash blocks in that seat's block order, then per-seat features rotated so the seat is
  relative seat 0. Seat-indexed arrays are stored twice over (seats 0..n-1, 0..n-1), so the
  rotation is a plain slice ``[seat : seat + n]`` rather than a gather.
* Features that never change for a batch (``present``, ``sharers``, ``seat_present``,
  ``num_players``, ``target_score``, the padding) are written once, from :func:`template`.
* The acting seat's hand, placed cards and current slot are written by the engine itself
  after every placement (a few scattered entries; see ``batched.py``).

Every value equals what ``observe.py`` computes (an integer count divided in float64, clipped
at ``OBS_HIGH``, cast to float32). Counts are divided in float32 here, in one pass; that this
gives the same float32 for every count the engine can hold is checked when the module loads.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from numpy.lib.stride_tricks import as_strided

from fight_envs.games.fight5.cards import NUM_RANKS
from fight_envs.games.fight5.observe import (
    CARD_ONEHOT,
    CLASH_FEATURES,
    CLASH_SLICES,
    MAX_CLASHES,
    NONE_COLUMN,
    OBS_HIGH,
    OBS_SIZE,
    OBS_SLICES,
    clash_order,
)
from fight_envs.games.fight5.rules import MIN_PLAYERS, NO_CARD
from fight_envs.games.fight5.topology import SLOTS_PER_PLAYER, topology

# The feature table's scales (observe.py's module docstring): what each count is divided by.
POT_SCALE = 5.0
STACK_SCALE = 5.0
LAST_PLAY_SCALE = float(NUM_RANKS)
UNREVEALED_SCALE = 2.0
HAND_SCALE = 2.0
PILE_CARDS_SCALE = 25.0
PILE_POINTS_SCALE = 100.0
SCORE_SCALE = 200.0
CLASH_UNSEEN_SCALE = 7.0
TARGET_SCALE = 1000.0
ROUND_ONEHOT = OBS_SLICES["round"].stop - OBS_SLICES["round"].start

# Where the per-clash public features sit inside the float32 ``clash`` array: one-hot of the
# Clash Card, stack left, pot (the block's own columns minus present/sharers/last_plays).
_CARD_COLS = slice(0, CARD_ONEHOT)
_STACK_COL = CARD_ONEHOT
_POT_COLS = slice(CARD_ONEHOT + 1, CARD_ONEHOT + 1 + NUM_RANKS)
CLASH_PUBLIC = CARD_ONEHOT + 1 + NUM_RANKS

MAX_COUNT = 255
"""Largest card count the batched engine scales (it checks the card data against it)."""


def _check_float32_division(scale: float) -> np.float32:
    """``np.float32(scale)``, after checking that for every count 0..MAX_COUNT, dividing in
    float32 gives the float32 that observe.py gets (divide in float64, then cast).

    Both are the exact quotient rounded once or twice; for these small integers the float64
    quotient is never close enough to a float32 rounding midpoint to round differently. This
    checks it on the machine, so the batched engine can divide in float32, a single pass.
    """
    counts = np.arange(MAX_COUNT + 1)
    want = (counts / scale).astype(np.float32)
    got = counts.astype(np.float32) / np.float32(scale)
    if not np.array_equal(want, got):
        raise ImportError(f"float32 division by {scale} differs from observe.py's float64 route on this machine")
    return np.float32(scale)


F32_POT = _check_float32_division(POT_SCALE)
F32_STACK = _check_float32_division(STACK_SCALE)
F32_LAST_PLAY = _check_float32_division(LAST_PLAY_SCALE)
F32_UNREVEALED = _check_float32_division(UNREVEALED_SCALE)
F32_HAND = _check_float32_division(HAND_SCALE)
F32_PILE_CARDS = _check_float32_division(PILE_CARDS_SCALE)
F32_CLASH_UNSEEN = _check_float32_division(CLASH_UNSEEN_SCALE)
if MAX_COUNT / max(POT_SCALE, STACK_SCALE, LAST_PLAY_SCALE, UNREVEALED_SCALE, HAND_SCALE, PILE_CARDS_SCALE,
                   CLASH_UNSEEN_SCALE) >= OBS_HIGH:
    raise ImportError("a scaled count can reach OBS_HIGH; batched_observe.py would have to clip it")
# one-hot rows of the Clash Card, indexed by card % CARD_ONEHOT (NO_CARD -> the "none" column)
ONEHOT = np.eye(CARD_ONEHOT, dtype=np.float32)
ONEHOT.setflags(write=False)
if NO_CARD % CARD_ONEHOT != NONE_COLUMN:
    raise ImportError("batched_observe.py indexes one-hots by card % CARD_ONEHOT; NO_CARD must map to NONE_COLUMN")


def block_view(obs: np.ndarray) -> np.ndarray:
    """(rows, MAX_CLASHES, CLASH_FEATURES) view of the clash section of (rows, OBS_SIZE) ``obs``.

    Built with explicit strides so that it is always a view, also of a strided ``obs`` (one
    seat of a (k, n, 627) array), where ``reshape`` could silently return a copy.
    """
    section = obs[:, OBS_SLICES["clashes"]]
    row, item = section.strides
    return as_strided(section, (obs.shape[0], MAX_CLASHES, CLASH_FEATURES), (row, CLASH_FEATURES * item, item))


@cache
def template(num_players: int, target_score: int | None) -> np.ndarray:
    """The features that never change in an n-player batch; zero elsewhere.

    ``present`` and ``sharers`` of each clash block, ``seat_present``, ``num_players``,
    ``target_score``, and the "none" column of every ``my_slots`` one-hot (the state at the
    start of each seat's turn and at the end of the game).
    """
    n = num_players
    topo = topology(n)
    obs = np.zeros((1, OBS_SIZE), dtype=np.float32)
    blocks = block_view(obs)[0]
    # Sharers by block position are the same for every seat (the layout turns with the seat),
    # but they are taken from seat 0's view the way observe.py builds them, not assumed.
    order = list(clash_order(n, 0))
    blocks[: len(order), CLASH_SLICES["present"]] = 1.0
    sharers = CLASH_SLICES["sharers"].start
    blocks[: len(order), sharers : sharers + n] = topo.sharer_mask[order][:, list(range(n))]
    for seat in range(1, n):
        rel = [(seat + k) % n for k in range(n)]
        if not np.array_equal(topo.sharer_mask[list(clash_order(n, seat))][:, rel], topo.sharer_mask[order]):
            raise AssertionError("the clash layout is not the same from every seat; template() assumes it is")
    start = OBS_SLICES["seat_present"].start
    obs[0, start : start + n] = 1.0
    obs[0, OBS_SLICES["num_players"].start + n - MIN_PLAYERS] = 1.0
    target = 0.0 if target_score is None else min(target_score / TARGET_SCALE, OBS_HIGH)
    obs[0, OBS_SLICES["target_score"].start] = np.float32(target)
    my_slots = OBS_SLICES["my_slots"].start
    obs[0, my_slots + NONE_COLUMN + CARD_ONEHOT * np.arange(SLOTS_PER_PLAYER)] = 1.0
    obs.setflags(write=False)
    return obs[0]


@cache
def clash_runs(num_players: int, seat: int) -> tuple[tuple[int, int, int], ...]:
    """``seat``'s clash blocks as runs of consecutive clash ids: (first block, first clash, length).

    A seat's block order (``observe.clash_order``) is its right pair, the middle clash, then the
    other pairs clockwise; pairs hold consecutive clash ids, so it is at most four runs, and
    each run is one slice copy from arrays kept by clash id.
    """
    order = clash_order(num_players, seat)
    runs: list[list[int]] = []
    for block, clash in enumerate(order):
        if runs and clash == runs[-1][1] + runs[-1][2]:
            runs[-1][2] += 1
        else:
            runs.append([block, clash, 1])
    return tuple((b, c, k) for b, c, k in runs)


@dataclass
class PublicFeatures:
    """Every public feature of B games as float32, by absolute clash id and absolute seat.

    Seat axes are doubled (length 2n: seats 0..n-1 then 0..n-1 again) so that a seat's
    egocentric rotation is the slice ``[seat : seat + n]``.
    """

    clash: np.ndarray  # (B, C, CLASH_PUBLIC): Clash Card one-hot, stack left, pot
    last_plays: np.ndarray  # (B, C, 2n)
    unrevealed: np.ndarray  # (B, 2n, 13)
    piles: np.ndarray  # (B, 3, 2n): pile cards, pile points, score
    tail: np.ndarray  # (B, 13 + 5 + 2): clash unseen, round one-hot, bout

    @classmethod
    def empty(cls, num_envs: int, num_players: int) -> PublicFeatures:
        n, C = num_players, topology(num_players).num_clashes
        tail = NUM_RANKS + ROUND_ONEHOT + 2
        return cls(
            clash=np.zeros((num_envs, C, CLASH_PUBLIC), dtype=np.float32),
            last_plays=np.zeros((num_envs, C, 2 * n), dtype=np.float32),
            unrevealed=np.zeros((num_envs, 2 * n, NUM_RANKS), dtype=np.float32),
            piles=np.zeros((num_envs, 3, 2 * n), dtype=np.float32),
            tail=np.zeros((num_envs, tail), dtype=np.float32),
        )

    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.clash, self.last_plays, self.unrevealed, self.piles, self.tail))

    def refresh(
        self,
        *,
        clash_card: np.ndarray,
        stack_left: np.ndarray,
        pot: np.ndarray,
        last_plays: np.ndarray,
        unrevealed: np.ndarray,
        pile_cards: np.ndarray,
        pile_points: np.ndarray,
        scores: np.ndarray,
        clash_unseen: np.ndarray,
        round_index: int,
        bout: np.ndarray,
        num_bouts: int,
    ) -> None:
        """Recompute every feature from the integer state of all B games.

        ``clash_card`` (B, C) rank or NO_CARD; ``stack_left`` (B, C); ``pot`` (B, C, 13) cards in
        play by rank; ``last_plays`` (B, C, n) rank or NO_CARD; ``unrevealed`` (B, n, 13);
        ``pile_cards``, ``pile_points``, ``scores`` (B, n); ``clash_unseen`` (B, 13);
        ``round_index`` the round within the bout (the same in every game of a batch);
        ``bout`` (B,) bouts finished.
        """
        n = last_plays.shape[2]
        np.take(ONEHOT, clash_card % CARD_ONEHOT, axis=0, out=self.clash[:, :, _CARD_COLS], mode="clip")
        np.divide(stack_left, F32_STACK, out=self.clash[:, :, _STACK_COL])
        np.divide(pot, F32_POT, out=self.clash[:, :, _POT_COLS])
        # NO_CARD + 1 == 0: "no card" encodes as 0
        np.divide(last_plays + 1, F32_LAST_PLAY, out=self.last_plays[:, :, :n], casting="unsafe")
        self.last_plays[:, :, n:] = self.last_plays[:, :, :n]
        np.divide(unrevealed, F32_UNREVEALED, out=self.unrevealed[:, :n])
        self.unrevealed[:, n:] = self.unrevealed[:, :n]
        np.divide(pile_cards, F32_PILE_CARDS, out=self.piles[:, 0, :n], casting="unsafe")
        # points and scores are not bounded by MAX_COUNT: divide (and clip) as observe.py does
        self.piles[:, 1, :n] = np.minimum(pile_points / PILE_POINTS_SCALE, OBS_HIGH)
        self.piles[:, 2, :n] = np.minimum(scores / SCORE_SCALE, OBS_HIGH)
        self.piles[:, :, n:] = self.piles[:, :, :n]
        np.divide(clash_unseen, F32_CLASH_UNSEEN, out=self.tail[:, :NUM_RANKS])
        rounds = self.tail[:, NUM_RANKS : NUM_RANKS + ROUND_ONEHOT]
        rounds.fill(0.0)
        rounds[:, min(round_index, ROUND_ONEHOT - 1)] = 1.0
        bouts_col = NUM_RANKS + ROUND_ONEHOT
        self.tail[:, bouts_col] = np.minimum(np.minimum(bout, num_bouts) / float(num_bouts), OBS_HIGH)
        self.tail[:, bouts_col + 1] = bout >= num_bouts - 1


_LAST_PLAYS = CLASH_SLICES["last_plays"].start
_UNREVEALED = OBS_SLICES["unrevealed"].start
_PILE_STARTS = (OBS_SLICES["pile_cards"].start, OBS_SLICES["pile_points"].start, OBS_SLICES["score"].start)
_TAIL_STARTS = (OBS_SLICES["clash_unseen"].start, OBS_SLICES["round"].start, OBS_SLICES["bout"].start)
_TAIL_SIZES = (NUM_RANKS, ROUND_ONEHOT, 2)
# A clash block's Clash Card one-hot, stack left and pot are consecutive columns, in the order
# of PublicFeatures.clash, so one copy moves all three.
_PUBLIC_COLS = slice(CLASH_SLICES["clash_card"].start, CLASH_SLICES["clash_card"].start + CLASH_PUBLIC)
if (CLASH_SLICES["stack_left"].start, CLASH_SLICES["pot"].start, CLASH_SLICES["pot"].stop) != (
    _PUBLIC_COLS.start + _STACK_COL, _PUBLIC_COLS.start + _POT_COLS.start, _PUBLIC_COLS.stop
):
    raise ImportError("batched_observe.py copies clash_card, stack_left and pot as one run; observe.py's layout changed")


def write_public(obs: np.ndarray, pub: PublicFeatures, seat: int, blocks: np.ndarray | None = None) -> None:
    """Write ``seat``'s egocentric public features of every row of ``pub`` into ``obs`` (rows, 627).

    Leaves the static features (:func:`template`) and the private ones (hand, placed cards,
    current slot) as they are. Every part is a slice copy: no gathers, no temporaries.
    ``blocks`` is ``block_view(obs)`` when the caller keeps it (building it takes a while).
    """
    n = pub.unrevealed.shape[1] // 2
    rows = obs.shape[0]
    if blocks is None:
        blocks = block_view(obs)
    lp = slice(_LAST_PLAYS, _LAST_PLAYS + n)
    ego = slice(seat, seat + n)
    for block, clash, length in clash_runs(n, seat):
        blocks[:, block : block + length, _PUBLIC_COLS] = pub.clash[:, clash : clash + length]
        blocks[:, block : block + length, lp] = pub.last_plays[:, clash : clash + length, ego]
    obs[:, _UNREVEALED : _UNREVEALED + n * NUM_RANKS] = pub.unrevealed[:, ego].reshape(rows, n * NUM_RANKS)
    for k, start in enumerate(_PILE_STARTS):
        obs[:, start : start + n] = pub.piles[:, k, ego]
    at = 0
    for start, size in zip(_TAIL_STARTS, _TAIL_SIZES):
        obs[:, start : start + size] = pub.tail[:, at : at + size]
        at += size
