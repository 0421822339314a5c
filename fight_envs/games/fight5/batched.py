"""A batched Fight 5 engine: B games held as numpy arrays and stepped together, exact to ``rules.py``.

This module owns the batched game state, its turn order, its reveal and scoring, its
auto-reset, and a vectorised copy of numpy's ``default_rng(seed)`` stream for dealing. It is
the same game as :class:`~fight_envs.games.fight5.rules.Fight5Game` played through the AEC env
(``fight_envs.envs.fight5``): the same deals for the same seed, the same turn order, the same
observations (``observe.encode``, bit for bit), masks and rewards. ``tests/fight5_batched``
checks that against the reference engine game by game.

Usage::

    batch = Fight5Batch(num_envs=4096, num_players=2)
    out = batch.reset(seed=0)                 # games 0..4095 play seeds 0..4095
    while training:
        actions = policy(out.obs, out.action_mask, out.seat)   # one action per game
        out = batch.step(actions)             # out.rewards (B, n), out.terminated (B,)

**Turn order.** As in the AEC env: within a round, seat 0 places its five cards (slots 0..4),
then seat 1, and so on; when the last seat has placed its fifth card the round is revealed and
resolved, and the bout or the game may end. Every bout has the same number of decisions, and a
game ends only at the end of a bout, so all B games of a batch are always at the same point of
a bout (same round, same acting seat, same slot); they differ in which bout they are in, their
deals and their play. ``out.seat`` still gives the acting seat per game, as a VecEnv needs.

**One step** takes one action per game (the card rank the acting seat places next) and returns
a :class:`BatchStep`: the observation and action mask of the seat that acts next in each game,
the rewards every seat earned by this step, and which games ended. Illegal actions raise
:class:`IllegalActionError` naming the games, their actions and the legal ones, and change
nothing in any game.

**Auto-reset and seeds.** Game slot ``b`` first plays ``seeds[b]`` (``reset(seed=s)`` with an
int gives ``seeds[b] = s + b``). When its game ends, the slot starts a new game at once with
seed ``seeds[b] + num_envs``, so slot b plays ``s + b, s + b + B, s + b + 2B, ...``: with an int
seed the batch plays every seed from ``s`` on exactly once. The step that ends a game reports
that game's rewards, ``terminated``, final scores and (``keep_final_obs``) every seat's final
observation; its ``obs`` and ``action_mask`` are already those of the new game.

**Buffers.** ``out.obs`` and ``out.action_mask`` are read-only views of the engine's own
buffers, updated in place by the next ``step``/``reset`` (most steps change a few entries, not
the whole buffer). Copy them to keep them across a step.

**Dealing.** Each game has its own generator state: :class:`BatchedPCG64` reproduces numpy's
``default_rng(seed)`` (SeedSequence, PCG64, and ``Generator.permutation``'s Fisher-Yates with
masked rejection sampling on 32-bit draws) for all games at once, so the deals match
``Fight5Game._deal`` exactly. Large batches shuffle every game at once; batches smaller than
:data:`VECTORISED_DEAL_FROM` go game by game through numpy's own ``Generator``, which is
cheaper there. All games of a batch start their bouts together, so dealing is one batched call
per bout.

**For a VecEnv.** :meth:`Fight5Batch.step` takes the actions of the acting seats (one per game)
and returns their observations, masks and seats, every seat's rewards and the ended games;
:attr:`Fight5Batch.action_mask` is the current mask (``action_masks()``). Learner and opponents
split a step by ``out.seat``; rewards earned while opponents act are in ``out.rewards``.
:meth:`reset` restarts every game (the batch moves through a bout in lockstep, so single games
are only ever restarted by the auto-reset).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from fight_envs.core.errors import ConfigError, IllegalActionError
from fight_envs.core.seeding import make_rng
from fight_envs.games.fight5.batched_observe import (
    F32_HAND,
    MAX_COUNT,
    PublicFeatures,
    block_view,
    template,
    write_public,
)
from fight_envs.games.fight5.cards import (
    DEFAULT_CARDS,
    NUM_RANKS,
    RANK_NAMES,
    RANK_VALUES,
    STAR,
    Fight5Cards,
    load_cards,
)
from fight_envs.games.fight5.observe import CARD_ONEHOT, NONE_COLUMN, OBS_SIZE, OBS_SLICES
from fight_envs.games.fight5.rules import (
    NO_CARD,
    NUM_ACTIONS,
    OUTCOME_LOSS,
    OUTCOME_SHARED_WIN,
    OUTCOME_WIN,
    Fight5Config,
)
from fight_envs.games.fight5.topology import SLOTS_PER_PLAYER, topology

REWARD_MODES = ("outcome", "score")
SCORE_REWARD_SCALE = 100.0
"""reward="score": (my bout points - mean of the others') / this, as ``envs/fight5.py`` gives it."""
MAX_SEED = 2**63
"""Seeds are below this, as ``core.seeding.make_rng`` draws them (two 32-bit words of entropy)."""

# ===================================================================================== RNG
# numpy's default_rng(seed) is Generator(PCG64(SeedSequence(seed))). The constants below are
# numpy's (numpy/random/bit_generator.pyx and numpy/random/src/pcg64); the tests compare
# this code with numpy itself, state for state and permutation for permutation.

_U32 = np.uint32
_U64 = np.uint64
_M32 = 0xFFFFFFFF
_M64 = 0xFFFFFFFFFFFFFFFF
_M128 = (1 << 128) - 1
_SS_INIT_A, _SS_MULT_A = 0x43B0D7E5, 0x931E8875
_SS_INIT_B, _SS_MULT_B = 0x8B51F9DD, 0x58F38DED
_SS_MIX_L, _SS_MIX_R = 0xCA01F9DD, 0x4973F715
_SS_XSHIFT = 16
_SS_POOL = 4
_PCG_MULT_HI, _PCG_MULT_LO = 0x2360ED051FC65DA4, 0x4385DF649FCCF645
_LITTLE_ENDIAN = sys.byteorder == "little"
VECTORISED_DEAL_FROM = 512
"""Batches of at least this many games shuffle all games at once; smaller ones game by game
through numpy. Measured on a 2-core Xeon: a vectorised bout deal costs 5-10 ms whatever the batch
size plus a few microseconds per game; a game-by-game one 15 (2 players) to 25 (5 players)
microseconds per game, so they cross near 400-500 games."""
_WORD_VALUES = 256
"""Only the low 8 bits of a 32-bit draw matter for shuffles of up to 256 cards (every mask
random_interval uses is then below 256), so the shuffle keeps draws as uint8: a quarter of the
memory to walk. The engine's card counts are capped below that (MAX_COUNT)."""
_WINDOW = np.arange(8, dtype=np.intp)
"""Redraws look this many words ahead at once (a draw is accepted with probability > 1/2)."""


def _hash_constants(init: int, mult: int, count: int) -> list[tuple[int, int]]:
    """SeedSequence's hash constant before and after each of ``count`` hash calls.

    They do not depend on the seed, so they are computed once, as plain ints.
    """
    out, h = [], init
    for _ in range(count):
        nxt = (h * mult) & _M32
        out.append((h, nxt))
        h = nxt
    return out


# mix_entropy hashes 4 entropy words then 12 pool words; generate_state hashes 8 output words.
_MIX_HASH = _hash_constants(_SS_INIT_A, _SS_MULT_A, _SS_POOL + _SS_POOL * (_SS_POOL - 1))
_OUT_HASH = _hash_constants(_SS_INIT_B, _SS_MULT_B, 2 * _SS_POOL)


def _hashmix(value: np.ndarray, consts: tuple[int, int]) -> np.ndarray:
    value = (value ^ _U32(consts[0])) * _U32(consts[1])
    return value ^ (value >> _U32(_SS_XSHIFT))


def _mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    result = x * _U32(_SS_MIX_L) - y * _U32(_SS_MIX_R)
    return result ^ (result >> _U32(_SS_XSHIFT))


def seed_sequence_state(seeds: np.ndarray) -> np.ndarray:
    """``SeedSequence(seed).generate_state(4, np.uint64)`` for every seed (uint64 array) at once.

    An int seed below 2**64 is two 32-bit entropy words; a seed below 2**32 is one, but the
    pool's next word is then hashed from 0, which is what the second word 0 gives too.
    """
    seeds = np.asarray(seeds, dtype=_U64)
    entropy = [(seeds & _U64(_M32)).astype(_U32), (seeds >> _U64(32)).astype(_U32)]
    zero = np.zeros_like(entropy[0])
    calls = iter(_MIX_HASH)
    pool = [_hashmix(entropy[i] if i < len(entropy) else zero, next(calls)) for i in range(_SS_POOL)]
    for src in range(_SS_POOL):
        for dst in range(_SS_POOL):
            if src != dst:
                pool[dst] = _mix(pool[dst], _hashmix(pool[src], next(calls)))
    words = [_hashmix(pool[i % _SS_POOL], _OUT_HASH[i]).astype(_U64) for i in range(2 * _SS_POOL)]
    return np.stack([words[2 * i] | (words[2 * i + 1] << _U64(32)) for i in range(_SS_POOL)], axis=-1)


def _mul_add(hi: np.ndarray, lo: np.ndarray, mul_hi: Any, mul_lo: Any, add_hi: Any, add_lo: Any) -> tuple[np.ndarray, np.ndarray]:
    """(hi, lo) * (mul_hi, mul_lo) + (add_hi, add_lo) modulo 2**128, on uint64 halves.

    numpy has no 128-bit integers. uint64 products wrap modulo 2**64, which gives the low half
    and the cross terms; only the high half of lo * mul_lo is built from 32-bit pieces.
    """
    m0, m1 = mul_lo & _U64(_M32), mul_lo >> _U64(32)
    l0, l1 = lo & _U64(_M32), lo >> _U64(32)
    p00, p01, p10 = l0 * m0, l0 * m1, l1 * m0
    carry = ((p00 >> _U64(32)) + (p01 & _U64(_M32)) + (p10 & _U64(_M32))) >> _U64(32)
    prod_hi = l1 * m1 + (p01 >> _U64(32)) + (p10 >> _U64(32)) + carry + hi * mul_lo + lo * mul_hi
    prod_lo = lo * mul_lo
    new_lo = prod_lo + add_lo
    new_hi = prod_hi + add_hi + (new_lo < prod_lo)  # carry out of the low half
    return new_hi, new_lo


def _output(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    """PCG64's XSL-RR output of the (already advanced) state: rotate (hi ^ lo) right by hi >> 58."""
    x = hi ^ lo
    rot = hi >> _U64(58)
    return (x >> rot) | (x << ((_U64(64) - rot) & _U64(63)))


def _deck_draw_stats(length: int) -> tuple[float, float]:
    """Mean and variance of the 32-bit draws one Fisher-Yates shuffle of ``length`` cards takes."""
    mean = var = 0.0
    for i in range(1, length):
        accept = (i + 1) / (1 << i.bit_length())
        mean += 1.0 / accept
        var += (1.0 - accept) / accept**2
    return mean, var


class BatchedPCG64:
    """numpy's ``default_rng(seed)`` for many games at once, as far as ``permutation`` uses it.

    Per game: the 128-bit PCG64 state and increment (as uint64 halves) and the 32-bit draw
    that a 64-bit output leaves over (``has_uint32``/``uinteger``, as numpy keeps it).
    ``Generator.permutation`` draws only 32-bit values (``random_interval`` with bounds below
    2**32), so each game's randomness is one stream of 32-bit words: the low then the high
    half of each 64-bit output. :meth:`shuffle` consumes those streams for all games at once.
    """

    def __init__(self, size: int, vectorised: bool | None = None) -> None:
        self.size = size
        self.vectorised = size >= VECTORISED_DEAL_FROM if vectorised is None else bool(vectorised)
        """Shuffle all games at once (True) or each game through numpy's own Generator (False)."""
        self.hi = np.zeros(size, dtype=_U64)
        self.lo = np.zeros(size, dtype=_U64)
        self.inc_hi = np.zeros(size, dtype=_U64)
        self.inc_lo = np.zeros(size, dtype=_U64)
        self.has_uint32 = np.zeros(size, dtype=bool)
        self.uinteger = np.zeros(size, dtype=_U32)
        self._ar = np.arange(size, dtype=np.intp)
        self.extensions = 0
        """How many times a shuffle needed more words than planned (benchmarks and tests read it)."""
        # Scratch reused by every shuffle (fresh multi-megabyte arrays cost page faults each time).
        self._outs = np.empty((0, size), dtype=_U64)
        self._words = np.empty((size, 0), dtype=_U32)
        # jump-ahead: after k steps the state is A[k] * state + C[k] * inc (mod 2**128)
        self._jump: tuple[np.ndarray, ...] = tuple(np.zeros(0, dtype=_U64) for _ in range(4))

    def nbytes(self) -> int:
        """Bytes of the generator states (the shuffle's scratch is counted by :meth:`scratch_nbytes`)."""
        return sum(a.nbytes for a in (self.hi, self.lo, self.inc_hi, self.inc_lo, self.has_uint32, self.uinteger))

    def scratch_nbytes(self) -> int:
        return self._outs.nbytes + self._words.nbytes

    def seed(self, rows: np.ndarray, seeds: np.ndarray) -> None:
        """Set games ``rows`` to ``np.random.default_rng(seed)``'s initial state, one seed each."""
        words = seed_sequence_state(seeds)
        # PCG64(seed_seq): state from words 0-1, stream from words 2-3 (high word first);
        # pcg_setseq_128_srandom_r: inc = stream << 1 | 1; state = 0; step; state += s; step.
        inc_hi = (words[:, 2] << _U64(1)) | (words[:, 3] >> _U64(63))
        inc_lo = (words[:, 3] << _U64(1)) | _U64(1)
        hi, lo = _mul_add(inc_hi, inc_lo, _U64(0), _U64(1), words[:, 0], words[:, 1])  # 0 * mult + inc + s
        hi, lo = _mul_add(hi, lo, _U64(_PCG_MULT_HI), _U64(_PCG_MULT_LO), inc_hi, inc_lo)
        self.hi[rows], self.lo[rows] = hi, lo
        self.inc_hi[rows], self.inc_lo[rows] = inc_hi, inc_lo
        self.has_uint32[rows] = False
        self.uinteger[rows] = 0

    def state(self, row: int) -> dict[str, Any]:
        """Game ``row``'s state in the form of ``np.random.PCG64().state`` (for checks and logs)."""
        return {
            "bit_generator": "PCG64",
            "state": {
                "state": (int(self.hi[row]) << 64) | int(self.lo[row]),
                "inc": (int(self.inc_hi[row]) << 64) | int(self.inc_lo[row]),
            },
            "has_uint32": int(self.has_uint32[row]),
            "uinteger": int(self.uinteger[row]),
        }

    def _jump_tables(self, steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(A_hi, A_lo, C_hi, C_lo) for k = 0..steps: k steps take s to A[k] * s + C[k] * inc."""
        if self._jump[0].size <= steps:
            a, c, mult = 1, 0, (_PCG_MULT_HI << 64) | _PCG_MULT_LO
            table = []
            for _ in range(steps + 1):
                table.append((a, c))
                a, c = (a * mult) & _M128, (c * mult + 1) & _M128
            self._jump = tuple(
                np.array([(v >> shift) & _M64 for v in values], dtype=_U64)
                for values in ([a for a, _ in table], [c for _, c in table])
                for shift in (64, 0)
            )
        return self._jump

    def _advance(self, rows: np.ndarray, steps: np.ndarray) -> None:
        """Move games ``rows`` forward by ``steps`` outputs each, by jump-ahead."""
        a_hi, a_lo, c_hi, c_lo = self._jump_tables(int(steps.max()) if steps.size else 0)
        hi, lo = _mul_add(self.hi[rows], self.lo[rows], a_hi[steps], a_lo[steps], _U64(0), _U64(0))
        self.hi[rows], self.lo[rows] = _mul_add(self.inc_hi[rows], self.inc_lo[rows], c_hi[steps], c_lo[steps], hi, lo)

    def _outputs(self, hi: np.ndarray, lo: np.ndarray, outs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Fill ``outs`` (steps, B) with every game's next outputs from state (hi, lo); return
        the state after the last one.

        The arithmetic is :func:`_mul_add` and :func:`_output` written with ``out=`` buffers:
        this loop is most of a bout's dealing time, and in place it runs about twice as fast.
        The tests check it against numpy's own generator.
        """
        B = self.size
        mh, ml = _U64(_PCG_MULT_HI), _U64(_PCG_MULT_LO)
        m0, m1 = ml & _U64(_M32), ml >> _U64(32)
        m32, s32, s58, s63, s64 = _U64(_M32), _U64(32), _U64(58), _U64(63), _U64(64)
        inc_hi, inc_lo = self.inc_hi, self.inc_lo
        hi, lo = hi.copy(), lo.copy()
        l0, l1, t0, t1, t2, t3 = (np.empty(B, dtype=_U64) for _ in range(6))
        for k in range(outs.shape[0]):
            out = outs[k]
            # high half of lo * ml from 32-bit pieces, plus the cross terms: into t0
            np.bitwise_and(lo, m32, out=l0)
            np.right_shift(lo, s32, out=l1)
            np.multiply(l0, m0, out=t0)
            np.right_shift(t0, s32, out=t0)  # p00 >> 32
            np.multiply(l0, m1, out=t1)  # p01
            np.multiply(l1, m0, out=t2)  # p10
            np.bitwise_and(t1, m32, out=t3)
            np.add(t0, t3, out=t0)
            np.bitwise_and(t2, m32, out=t3)
            np.add(t0, t3, out=t0)
            np.right_shift(t0, s32, out=t0)  # carry into the high half
            np.right_shift(t1, s32, out=t1)
            np.right_shift(t2, s32, out=t2)
            np.add(t0, t1, out=t0)
            np.add(t0, t2, out=t0)
            np.multiply(l1, m1, out=t1)
            np.add(t0, t1, out=t0)
            np.multiply(hi, ml, out=t1)
            np.add(t0, t1, out=t0)
            np.multiply(lo, mh, out=t1)
            np.add(t0, t1, out=t0)
            np.multiply(lo, ml, out=t1)  # low half of the product
            np.add(t1, inc_lo, out=lo)
            np.less(lo, t1, out=t3)  # carry out of the low half
            np.add(t0, t3, out=t0)
            np.add(t0, inc_hi, out=hi)
            # XSL-RR output
            np.bitwise_xor(hi, lo, out=t0)
            np.right_shift(hi, s58, out=t1)
            np.right_shift(t0, t1, out=out)
            np.subtract(s64, t1, out=t1)
            np.bitwise_and(t1, s63, out=t1)
            np.left_shift(t0, t1, out=t0)
            np.bitwise_or(out, t0, out=out)
        return hi, lo

    @staticmethod
    def _fill_words(words: np.ndarray, first: int, outs: np.ndarray) -> None:
        """Write outputs ``outs`` (steps, B) into ``words`` columns ``first ..``: each output's low
        32-bit half, then its high half, cut to their low 8 bits (the uint8 cast)."""
        steps, B = outs.shape
        halves = outs.view(_U32).reshape(steps, B, 2)  # each uint64 as its two 32-bit halves
        if not _LITTLE_ENDIAN:
            halves = halves[:, :, ::-1]
        words[:, first : first + 2 * steps].reshape(B, steps, 2)[:] = halves.transpose(1, 0, 2)

    def shuffle(self, decks: list[np.ndarray], margin_sd: float = 4.0) -> None:
        """Shuffle each deck in place, in list order, as ``rng.permutation`` does in each game.

        Each deck is a (B, length) int8 array: row b is game b's cards in their starting order.
        Small batches go through numpy itself, game by game (:meth:`_shuffle_each`); from
        ``VECTORISED_DEAL_FROM`` games on, :meth:`_shuffle_all` does every game at once.
        """
        if self.vectorised:
            self._shuffle_all(decks, margin_sd)
        else:
            self._shuffle_each(decks)

    def _shuffle_each(self, decks: list[np.ndarray]) -> None:
        """Load each game's state into one numpy PCG64, call ``permutation``, store it back."""
        bit_generator = np.random.PCG64(0)
        generator = np.random.Generator(bit_generator)
        for b in range(self.size):
            bit_generator.state = self.state(b)
            for deck in decks:
                deck[b] = generator.permutation(deck[b])
            state = bit_generator.state
            self.hi[b] = state["state"]["state"] >> 64
            self.lo[b] = state["state"]["state"] & _M64
            self.has_uint32[b] = bool(state["has_uint32"])
            self.uinteger[b] = state["uinteger"]

    def _shuffle_all(self, decks: list[np.ndarray], margin_sd: float) -> None:
        """:meth:`shuffle` for all games at once, reading numpy's algorithm off its streams.

        numpy's ``shuffle`` runs i = length-1 .. 1: j = random_interval(i), then swaps items i
        and j; random_interval masks 32-bit draws to the smallest all-ones mask >= i and draws
        again while the result exceeds i. Games draw from their own streams and use different
        numbers of words, so a per-game pointer walks each stream.

        The words (their low 8 bits: see ``_WORD_VALUES``) sit in one (B, width) array, a row
        per game (reading along a row stays in cache): column 1 holds the half-output numpy
        keeps over from earlier draws, columns 2.. this call's outputs; column 0 is unused. It holds the expected number of
        words plus ``margin_sd`` standard deviations; a game that needs more makes the array
        grow (the result is the same either way; tests lower the margin to check that).
        """
        B, ar = self.size, self._ar
        mean = var = 0.0
        for deck in decks:
            if deck.shape[1] > _WORD_VALUES:
                raise ValueError(f"decks of more than {_WORD_VALUES} cards need more than 8 bits of each draw")
            m, v = _deck_draw_stats(deck.shape[1])
            mean, var = mean + m, var + v
        # Enough outputs for nearly every game; more are made when one runs short.
        steps = max(1, int(np.ceil((mean + margin_sd * np.sqrt(var) + _WINDOW.size) / 2.0)))
        if self._outs.shape[0] != steps:
            self._outs = np.empty((steps, B), dtype=_U64)
            self._words = np.empty((B, 2 + 2 * steps), dtype=np.uint8)
        words, outs = self._words, self._outs
        end_hi, end_lo = self._outputs(self.hi, self.lo, outs)
        self._fill_words(words, 2, outs)
        words[:, 1] = self.uinteger  # the uint8 cast keeps its low 8 bits
        width = words.shape[1]
        flat = words.reshape(-1)
        start = ar * width
        ptr = start + np.where(self.has_uint32, 1, 2)  # flat position of each game's next word
        limit = start + width

        def extend() -> None:
            # a rare game needs more words than planned: 16 more outputs for every game
            nonlocal words, outs, flat, width, start, limit, end_hi, end_lo
            self.extensions += 1
            more = np.empty((16, B), dtype=_U64)
            end_hi, end_lo = self._outputs(end_hi, end_lo, more)
            outs = np.concatenate((outs, more))
            grown = np.empty((B, width + 32), dtype=np.uint8)
            grown[:, :width] = words
            self._fill_words(grown, width, more)
            ptr[:] += ar * 32  # same column, longer rows
            words, width = grown, width + 32
            flat = words.reshape(-1)
            start = ar * width
            limit = start + width

        for deck in decks:
            deck_flat = deck.reshape(-1)
            row = ar * deck.shape[1]
            for i in range(deck.shape[1] - 1, 0, -1):
                mask = np.uint8((1 << i.bit_length()) - 1)
                while (ptr >= limit).any():
                    extend()
                j = flat[ptr] & mask
                ptr += 1
                redraw = np.flatnonzero(j > i)
                while redraw.size:
                    # the games that drew too high look at their next _WINDOW words at once
                    at = ptr[redraw]
                    while (at + _WINDOW.size > limit[redraw]).any():
                        extend()
                        at = ptr[redraw]
                    again = flat[at[:, None] + _WINDOW] & mask
                    ok = again <= i
                    first = ok.argmax(axis=1)
                    rows = np.arange(redraw.size)
                    found = ok[rows, first]
                    j[redraw[found]] = again[rows[found], first[found]]
                    ptr[redraw] = at + np.where(found, first + 1, _WINDOW.size)
                    redraw = redraw[~found]
                at_j = row + j
                top = deck[:, i].copy()
                deck[:, i] = deck_flat[at_j]
                deck_flat[at_j] = top
        # Leave each game where numpy would: after the outputs it used, keeping the high half
        # of the last one when only its low half was drawn.
        used = ptr - start - 2  # words taken from this call's outputs
        self._advance(ar, (used + 1) // 2)
        self.has_uint32[:] = (used & 1) == 1
        kept = np.flatnonzero(self.has_uint32)
        self.uinteger[kept] = outs[used[kept] // 2, kept] >> _U64(32)


# ===================================================================================== sampling


def _legal_tables() -> tuple[np.ndarray, np.ndarray]:
    """For every 13-bit action mask: how many actions it allows, and which (ascending, -1 after)."""
    codes = np.arange(1 << NUM_ACTIONS)
    bits = (codes[:, None] >> np.arange(NUM_ACTIONS)) & 1
    count = bits.sum(axis=1)
    order = np.argsort(1 - bits, axis=1, kind="stable")  # allowed actions first, ascending
    table = np.where(np.arange(NUM_ACTIONS) < count[:, None], order, -1).astype(np.int8)
    count.setflags(write=False)
    table.setflags(write=False)
    return count, table


_LEGAL_COUNT, _LEGAL_TABLE = _legal_tables()


def random_legal_actions(action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``action_mask`` (B, 13); -1 for a row with none.

    Vectorised (a table lookup on the packed mask and one ``rng.random(B)`` draw), so random
    players and benchmarks do not spend more time choosing than the batched engine spends
    stepping.
    """
    mask = np.asarray(action_mask)
    if mask.ndim != 2 or mask.shape[1] != NUM_ACTIONS:
        raise ValueError(f"action_mask must have shape (B, {NUM_ACTIONS}), got {mask.shape}")
    packed = np.packbits(mask != 0, axis=1, bitorder="little")  # (B, 2): ranks 0-7, then 8-12
    code = packed[:, 0] | (packed[:, 1].astype(np.intp) << 8)
    pick = (rng.random(mask.shape[0]) * _LEGAL_COUNT[code]).astype(np.intp)
    return _LEGAL_TABLE[code, pick].astype(np.int64)


# ===================================================================================== engine


@dataclass(frozen=True)
class BatchStep:
    """What one :meth:`Fight5Batch.step` (or ``reset``) returns. B games, n seats.

    ``obs`` (B, 627) float32 and ``action_mask`` (B, 13) int8: the observation and legal ranks
    of the seat that acts next in each game (``seat``, (B,) int64), exactly as the AEC env
    gives them to that agent. Read-only views of the engine's buffers (see the module docs).
    ``rewards`` (B, n) float64: what each seat earned by this step (the AEC env's
    ``rewards``). ``terminated`` (B,) bool: the game in that slot ended with this step (and a
    new one has started there). ``final_index`` (k,): the slots whose game ended;
    ``final_scores`` (k, n): those games' scores; ``final_obs`` (k, n, 627) float32 or None:
    every seat's observation of each ended game (what ``env.observe`` gives after the end;
    the mask there is all zeros), or None when the engine has ``keep_final_obs=False``.
    """

    obs: np.ndarray
    action_mask: np.ndarray
    seat: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    final_index: np.ndarray
    final_scores: np.ndarray
    final_obs: np.ndarray | None


def _readonly(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.flags.writeable = False
    return view


_HAND = OBS_SLICES["hand"].start
_KEY_VALUES = np.concatenate(([0], RANK_VALUES))
"""Clash-Card value of a play's key (rank + 1); key 0 (no number played) never wins."""
_MY_SLOTS = OBS_SLICES["my_slots"]
_CURRENT = OBS_SLICES["current_slot"].start


class Fight5Batch:
    """``num_envs`` Fight 5 games stepped together (see the module docstring).

    Options are the env's: ``num_players`` (2..5, the same in every game), ``num_bouts``,
    ``target_score``, ``reward`` ("outcome" or "score"), ``cards`` (None, a card-data path or
    :class:`Fight5Cards`). ``keep_final_obs``: report every seat's final observation of each
    game that ends (``BatchStep.final_obs``); off saves a (k, n, 627) array per ending.
    ``vectorised_deal``: deal all games at once (True) or game by game through numpy (False);
    None picks by batch size (:data:`VECTORISED_DEAL_FROM`). Both deal exactly alike.
    """

    def __init__(
        self,
        num_envs: int,
        num_players: int = 2,
        num_bouts: int = 3,
        target_score: int | None = 200,
        reward: str = "outcome",
        cards: Fight5Cards | str | None = None,
        keep_final_obs: bool = True,
        vectorised_deal: bool | None = None,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ConfigError(f"num_envs must be an int >= 1, got {num_envs!r}")
        if reward not in REWARD_MODES:
            raise ConfigError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        self.config = Fight5Config(num_players=num_players, num_bouts=num_bouts, target_score=target_score)
        self.cards = cards if isinstance(cards, Fight5Cards) else DEFAULT_CARDS if cards is None else load_cards(cards)
        if num_players not in self.cards.clash_stacks:
            raise ConfigError(
                f"the card data has no clash-stack count for {num_players} players; "
                f"it supports {sorted(self.cards.clash_stacks)}"
            )
        if int(self.cards.clash_deck.sum() + num_players * self.cards.player_deck.sum()) > MAX_COUNT:
            raise ConfigError(f"the batched engine keeps card counts in small integers: at most {MAX_COUNT} cards in play")
        self.reward_mode = reward
        self.keep_final_obs = bool(keep_final_obs)
        B = self.num_envs = int(num_envs)
        n = self.num_players = num_players
        topo = topology(n)
        C = self.num_clashes = topo.num_clashes
        self.stack_size = self.cards.stack_size
        self.rounds_per_bout = self.cards.rounds_per_bout
        self.deck_size = int(self.cards.player_deck.sum())
        self.decisions_per_bout = self.rounds_per_bout * n * SLOTS_PER_PLAYER
        self.points_per_rank = self.cards.points_per_rank()

        # Every play of a round (as in rules.py): seat _play_seat[p] plays its slot _play_slot[p] at _play_clash[p].
        plays = [(c, s, int(topo.slot_of[c, s])) for c in range(C) for s in topo.sharers[c]]
        self._play_clash = np.array([c for c, _, _ in plays], dtype=np.intp)
        self._play_seat = np.array([s for _, s, _ in plays], dtype=np.intp)
        self._play_slot = np.array([slot for _, _, slot in plays], dtype=np.intp)
        self._ar = np.arange(B, dtype=np.intp)
        self._row0 = self._ar * OBS_SIZE  # start of each game's row in the flat observation buffer
        self._row13 = self._ar * NUM_ACTIONS  # ... and in the flat mask buffer
        # Flat-index bases for counting cards by rank with scatter-adds: within one call every
        # (game, seat) or (game, clash) appears once, so plain fancy ``+=`` counts exactly.
        self._seat_base = (self._ar[:, None] * n + np.arange(n)[None, :]) * NUM_RANKS  # (B, n)
        self._slot_clash_base = [
            (self._ar[:, None] * C + topo.player_clashes[s][None, :]) * NUM_RANKS for s in range(n)
        ]  # per seat (B, 5): its five slots' clashes
        self._seat_planes = np.arange(n, dtype=np.int8)[:, None, None]
        self._clash_sorted = np.repeat(np.arange(NUM_RANKS, dtype=np.int8), self.cards.clash_deck)
        self._deck_sorted = np.repeat(np.arange(NUM_RANKS, dtype=np.int8), self.cards.player_deck)
        # the decks being shuffled at a bout start (kept: see BatchedPCG64's scratch)
        self._deal_clash = np.empty((B, self._clash_sorted.size), dtype=np.int8)
        self._deal_decks = [np.empty((B, self.deck_size), dtype=np.int8) for _ in range(n)]

        # ---- the state of every game (per-bout arrays are reset at each bout start)
        self.rng = BatchedPCG64(B, vectorised=vectorised_deal)
        self.seeds = np.zeros(B, dtype=_U64)
        self.stacks = np.zeros((B, C, self.stack_size), dtype=np.int8)  # top card first
        self.stack_left = np.zeros((B, C), dtype=np.int16)
        self.clash_card = np.full((B, C), NO_CARD, dtype=np.int8)
        self.pot = np.zeros((B, C, NUM_RANKS), dtype=np.int16)  # cards left in play, by rank
        self.pile = np.zeros((B, n, NUM_RANKS), dtype=np.int16)  # Point Piles, by rank
        self.decks = np.zeros((B, n, self.deck_size), dtype=np.int8)  # top card first
        self.hands = np.zeros((B, n, NUM_RANKS), dtype=np.int8)
        self.committed = np.full((B, n, SLOTS_PER_PLAYER), NO_CARD, dtype=np.int8)
        self.last_plays = np.full((B, C, n), NO_CARD, dtype=np.int8)
        self.unrevealed = np.zeros((B, n, NUM_RANKS), dtype=np.int16)  # Player Deck minus cards revealed this bout
        self.clash_unseen = np.zeros((B, NUM_RANKS), dtype=np.int16)  # Clash Deck minus cards flipped this bout
        self.scores = np.zeros((B, n), dtype=np.int64)
        self.bout_points = np.zeros((B, n), dtype=np.int64)  # last finished bout's points
        self.bout = np.zeros(B, dtype=np.int64)  # bouts finished in the current game
        self.games_finished = 0
        # the point of the bout, the same in every game
        self.round = 0
        self.seat = 0
        self.slot = 0
        self.deal_next_bout = True
        self.first_seat = 0
        """The seat that places first in every round: 0, except in batches made by ``load_games``
        (placement order within a round changes nothing: the cards stay face down until the reveal)."""
        self._started = False

        # ---- observation buffers
        self._template = template(n, target_score)
        self._obs = np.empty((B, OBS_SIZE), dtype=np.float32)
        self._obs[:] = self._template
        self._obs_flat = self._obs.reshape(-1)
        self._obs_blocks = block_view(self._obs)
        self._mask = np.zeros((B, NUM_ACTIONS), dtype=np.int8)
        self._pub = PublicFeatures.empty(B, n)
        self._out_obs = _readonly(self._obs)
        self._out_mask = _readonly(self._mask)
        self._seat_arrays = [_readonly(np.full(B, s, dtype=np.int64)) for s in range(n)]
        self._no_rewards = _readonly(np.zeros((B, n), dtype=np.float64))
        self._no_terminated = _readonly(np.zeros(B, dtype=bool))
        self._no_index = _readonly(np.zeros(0, dtype=np.int64))
        self._no_scores = _readonly(np.zeros((0, n), dtype=np.int64))
        self._no_final_obs = _readonly(np.zeros((0, n, OBS_SIZE), dtype=np.float32)) if self.keep_final_obs else None

    # ----------------------------------------------------------------------------- queries
    @property
    def obs(self) -> np.ndarray:
        """(B, 627) observations of the acting seats (read-only view of the live buffer)."""
        return self._out_obs

    @property
    def action_mask(self) -> np.ndarray:
        """(B, 13) legal ranks of the acting seats (read-only view of the live buffer)."""
        return self._out_mask

    @property
    def acting_seat(self) -> np.ndarray:
        """(B,) the seat that acts next in each game."""
        return self._seat_arrays[self.seat]

    def memory_bytes(self) -> dict[str, int]:
        """Bytes this batch holds: ``state`` (the games and their generators), ``buffers``
        (observations, masks, the public-feature cache, dealing scratch and index tables), and
        ``total``. Divide by ``num_envs`` for bytes per game."""
        state = sum(
            a.nbytes
            for a in (
                self.seeds, self.stacks, self.stack_left, self.clash_card, self.pot, self.pile, self.decks,
                self.hands, self.committed, self.last_plays, self.unrevealed, self.clash_unseen, self.scores,
                self.bout_points, self.bout,
            )
        ) + self.rng.nbytes()
        buffers = (
            self._obs.nbytes + self._mask.nbytes + self._pub.nbytes() + self.rng.scratch_nbytes()
            + self._deal_clash.nbytes + sum(d.nbytes for d in self._deal_decks)
            + self._ar.nbytes + self._row0.nbytes + self._row13.nbytes + self._seat_base.nbytes + sum(b.nbytes for b in self._slot_clash_base)
        )
        return {"state": state, "buffers": buffers, "total": state + buffers}

    # ----------------------------------------------------------------------------- play
    def reset(self, seed: int | np.ndarray | list[int] | None = None) -> BatchStep:
        """Start a new game in every slot.

        ``seed``: an int s gives slot b the seed s + b; a sequence gives one seed per slot;
        None draws s from OS entropy (as ``core.seeding.make_rng``). Seeds are ints in
        0 .. 2**63 - 1. Returns the first observations (seat 0 acts everywhere).
        """
        self.seeds[:] = self._seed_array(seed)
        self.rng.seed(self._ar, self.seeds)
        self.first_seat = 0
        self.deal_next_bout = True
        self.scores.fill(0)
        self.bout_points.fill(0)
        self.bout.fill(0)
        self._start_bout()
        self._started = True
        return self._result(self._no_rewards, self._no_terminated, self._no_index, self._no_scores, self._no_final_obs)

    def _seed_array(self, seed: Any) -> np.ndarray:
        B = self.num_envs
        if seed is None:
            seed = make_rng(None)[1] % (MAX_SEED - B + 1)
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            if not 0 <= int(seed) <= MAX_SEED - B:
                raise ConfigError(f"seed must be an int in 0..{MAX_SEED - B} (slot b plays seed + b), got {seed!r}")
            return np.arange(B, dtype=_U64) + _U64(int(seed))
        try:
            arr = np.asarray(seed)
        except (TypeError, ValueError):
            arr = np.asarray([], dtype=float)
        if arr.shape != (B,) or arr.dtype.kind not in "iu":
            raise ConfigError(
                f"seed must be None, an int, or {B} ints (one per game); got {type(seed).__name__} "
                f"with shape {arr.shape} and dtype {arr.dtype}"
            )
        if arr.size and (arr.min() < 0 or int(arr.max()) >= MAX_SEED):
            raise ConfigError(f"seeds must be ints in 0..{MAX_SEED - 1}, got values from {arr.min()} to {arr.max()}")
        return arr.astype(_U64)

    def step(self, actions: np.ndarray | list[int]) -> BatchStep:
        """Each game's acting seat places a card of rank ``actions[b]`` in its next slot.

        Raises IllegalActionError, changing nothing, if any game's action is not a rank that its
        acting seat holds (the message names the games, their actions and the legal ranks).
        """
        if not self._started:
            raise IllegalActionError("call reset() before step()")
        a = self._check_actions(actions)
        s, k = self.seat, self.slot
        at = self._seat_base[:, s] + a  # flat index of (game, seat, rank) in hands
        hands = self.hands.reshape(-1)
        hands[at] -= 1
        self.committed[:, s, k] = a
        if k + 1 < SLOTS_PER_PLAYER:
            # Same seat, next slot: only its hand, this slot's card and the current slot change.
            self.slot = k + 1
            left = hands[at]
            flat = self._obs_flat
            flat[self._row0 + (_HAND + a)] = left / F32_HAND
            slot_at = _MY_SLOTS.start + CARD_ONEHOT * k
            self._obs[:, slot_at + NONE_COLUMN] = 0.0
            flat[self._row0 + (slot_at + a)] = 1.0
            self._obs[:, _CURRENT + k] = 0.0
            self._obs[:, _CURRENT + k + 1] = 1.0
            self._mask.reshape(-1)[self._row13 + a] = left > 0
            return self._result(self._no_rewards, self._no_terminated, self._no_index, self._no_scores, self._no_final_obs)
        if (s + 1) % self.num_players != self.first_seat:
            self.seat, self.slot = (s + 1) % self.num_players, 0
            self._write_acting()
            return self._result(self._no_rewards, self._no_terminated, self._no_index, self._no_scores, self._no_final_obs)
        self._reveal()
        self.round += 1
        if self.round < self.rounds_per_bout:
            self._start_round()
            return self._result(self._no_rewards, self._no_terminated, self._no_index, self._no_scores, self._no_final_obs)
        return self._end_bout()

    def load_games(self, games: list[Any], first_seat: int, seeds: np.ndarray | list[int],
                   deal_next_bout: bool = True) -> BatchStep:
        """Continue ``games`` (``rules.Fight5Game``, one per slot) in this batch: game b in slot b.

        For search rollouts from determinizations (``Fight5Game.determinize``). All games must be
        in play at the same round, with ``first_seat`` the only seat that has placed cards this
        round (any number, fewer than five) and the others none; ``first_seat`` then acts first and
        the other seats follow in seat order (within a round the order changes nothing). Slot b's
        later bouts are dealt from ``seeds[b]``, exactly as a ``Fight5Game`` whose generator is a
        fresh ``default_rng(seeds[b])`` deals them; on game end a slot auto-resets as usual.
        Returns the observation of ``first_seat`` in every game. ``deal_next_bout=False``: the batch
        stops at the end of the current bout (its rewards and scores are reported, nothing is dealt;
        stepping further raises) for rollouts that look no further.
        """
        B, n, C = self.num_envs, self.num_players, self.num_clashes
        if len(games) != B:
            raise ConfigError(f"load_games needs {B} games (one per slot), got {len(games)}")
        if not 0 <= first_seat < n:
            raise ConfigError(f"first_seat must be a seat in 0..{n - 1}, got {first_seat!r}")
        g0 = games[0]
        placed = g0.num_committed[first_seat]
        for g in games:
            if g.num_players != n or g.config != self.config or g.game_over:
                raise ConfigError("load_games needs games in play with this batch's config")
            if g.round != g0.round or g.num_committed[first_seat] != placed or any(
                    k for s, k in enumerate(g.num_committed) if s != first_seat) or placed >= SLOTS_PER_PLAYER:
                raise ConfigError(
                    f"load_games needs every game at round {g0.round} with only seat {first_seat} having placed "
                    f"(the same number of cards, fewer than {SLOTS_PER_PLAYER})")
        self.seeds[:] = self._seed_array(np.asarray(seeds))
        self.rng.seed(self._ar, self.seeds)
        drawn = (g0.round + 1) * self.cards.hand_size
        # each distinct game is read once, then copied to its rows (search loads each game once per action)
        first: dict[int, int] = {}
        rows = np.array([first.setdefault(id(g), len(first)) for g in games], dtype=np.intp)
        uniq = list({id(g): g for g in games}.values())
        U = len(uniq)
        decks = np.zeros((U, n, self.deck_size), dtype=np.int8)
        stacks = np.zeros((U, C, self.stack_size), dtype=np.int8)
        left = np.zeros((U, C), dtype=np.int16)
        for u, g in enumerate(uniq):
            for s in range(n):
                rest = g.decks[s][::-1]  # top first
                decks[u, s, drawn: drawn + len(rest)] = rest
            for c, stack in enumerate(g.clash_stacks):
                stacks[u, c, self.stack_size - len(stack):] = stack[::-1]
                left[u, c] = len(stack)
        self.decks[:] = decks[rows]
        self.stacks[:] = stacks[rows]
        self.stack_left[:] = left[rows]
        self.clash_card[:] = np.array([g.clash_card for g in uniq])[rows]
        self.pot[:] = np.array([g.pot.sum(axis=1) for g in uniq])[rows]
        self.pile[:] = np.array([g.point_pile.sum(axis=1) for g in uniq])[rows]
        self.hands[:] = np.array([g.hands for g in uniq])[rows]
        self.committed[:] = np.array([g.committed for g in uniq])[rows]
        self.last_plays[:] = np.array([g.last_plays for g in uniq])[rows]
        self.unrevealed[:] = (self.cards.player_deck - np.array([g.revealed for g in uniq]))[rows]
        self.clash_unseen[:] = (self.cards.clash_deck - np.array([g.clash_seen for g in uniq]))[rows]
        self.scores[:] = np.array([g.scores for g in uniq])[rows]
        self.bout_points[:] = np.array(
            [g.bout_points[-1] if g.bout_points else np.zeros(n, dtype=np.int64) for g in uniq])[rows]
        self.bout[:] = np.array([g.bout for g in uniq])[rows]
        self.deal_next_bout = bool(deal_next_bout)
        self.round = g0.round
        self.first_seat = int(first_seat)
        self.seat, self.slot = int(first_seat), 0
        self._refresh_public(self._pub, slice(None))
        self._write_acting()
        for k in range(placed):  # the cards first_seat placed already, as step() writes them
            a = self.committed[:, first_seat, k].astype(np.intp)
            slot_at = _MY_SLOTS.start + CARD_ONEHOT * k
            self._obs[:, slot_at + NONE_COLUMN] = 0.0
            self._obs_flat[self._row0 + (slot_at + a)] = 1.0
        if placed:
            self._obs[:, _CURRENT] = 0.0
            self._obs[:, _CURRENT + placed] = 1.0
        self.slot = placed
        self._started = True
        return self._result(self._no_rewards, self._no_terminated, self._no_index, self._no_scores, self._no_final_obs)

    def _check_actions(self, actions: Any) -> np.ndarray:
        B = self.num_envs
        a = np.asarray(actions)
        if a.shape != (B,) or a.dtype.kind not in "iu":
            raise IllegalActionError(
                f"actions must be {B} integer card ranks (one per game), got dtype {a.dtype} and shape {a.shape}"
            )
        a = a.astype(np.intp, copy=False)
        out_of_range = (a < 0) | (a >= NUM_ACTIONS)
        if out_of_range.any():
            bad = out_of_range
        else:
            bad = self.hands.reshape(-1)[self._seat_base[:, self.seat] + a] == 0
        if bad.any():
            games = np.flatnonzero(bad)
            shown = []
            for g in games[:8].tolist():
                legal = ", ".join(RANK_NAMES[r] for r in np.flatnonzero(self.hands[g, self.seat]).tolist())
                act = int(a[g])
                name = f"{act} ({RANK_NAMES[act]})" if 0 <= act < NUM_ACTIONS else str(act)
                shown.append(f"game {g}: action {name}, legal cards: {legal}")
            more = f"; and {games.size - 8} more games" if games.size > 8 else ""
            raise IllegalActionError(
                f"illegal actions in {games.size} of {B} games for seat {self.seat} at slot {self.slot} "
                f"(an action is the rank 0..12 of a card in hand; nothing was changed): " + "; ".join(shown) + more
            )
        return a

    # ----------------------------------------------------------------------------- internals
    def _result(self, rewards: np.ndarray, terminated: np.ndarray, index: np.ndarray, scores: np.ndarray,
                final_obs: np.ndarray | None) -> BatchStep:
        return BatchStep(self._out_obs, self._out_mask, self._seat_arrays[self.seat], rewards, terminated, index,
                         scores, final_obs)

    def _write_acting(self) -> None:
        """Rewrite the whole observation for the seat that starts placing (its slot 0)."""
        s = self.seat
        write_public(self._obs, self._pub, s, self._obs_blocks)
        hand = self.hands[:, s]
        np.divide(hand, F32_HAND, out=self._obs[:, _HAND : _HAND + NUM_RANKS])
        self._obs[:, _MY_SLOTS] = self._template[_MY_SLOTS]  # nothing placed yet: every slot "none"
        self._obs[:, _CURRENT : _CURRENT + SLOTS_PER_PLAYER] = 0.0
        self._obs[:, _CURRENT] = 1.0
        np.greater(hand, 0, out=self._mask.view(bool))

    def _refresh_public(self, pub: PublicFeatures, rows: Any) -> None:
        pile = self.pile[rows]
        pub.refresh(
            clash_card=self.clash_card[rows],
            stack_left=self.stack_left[rows],
            pot=self.pot[rows],
            last_plays=self.last_plays[rows],
            unrevealed=self.unrevealed[rows],
            pile_cards=pile.sum(axis=2),
            pile_points=pile @ self.points_per_rank,
            scores=self.scores[rows],
            clash_unseen=self.clash_unseen[rows],
            round_index=self.round,
            bout=self.bout[rows],
            num_bouts=self.config.num_bouts,
        )

    def _start_bout(self) -> None:
        """Setup: every game shuffles its decks from its own generator, then round 0 starts."""
        B, C = self.num_envs, self.num_clashes
        self._deal_clash[:] = self._clash_sorted
        for deck in self._deal_decks:
            deck[:] = self._deck_sorted
        self.rng.shuffle([self._deal_clash, *self._deal_decks])  # the order of Fight5Game._deal
        self.stacks[:] = self._deal_clash[:, : C * self.stack_size].reshape(B, C, self.stack_size)
        for s, deck in enumerate(self._deal_decks):
            self.decks[:, s] = deck
        self.stack_left.fill(self.stack_size)
        self.clash_card.fill(NO_CARD)
        self.pot.fill(0)
        self.pile.fill(0)
        self.hands.fill(0)
        self.committed.fill(NO_CARD)
        self.last_plays.fill(NO_CARD)
        self.unrevealed[:] = self.cards.player_deck
        self.clash_unseen[:] = self.cards.clash_deck
        self.round = 0
        self._start_round()

    def _start_round(self) -> None:
        """Steps 1-2: everyone draws five; flip a Clash Card wherever none is face up."""
        r = self.round
        hands = self.hands.reshape(-1)
        for k in range(r * SLOTS_PER_PLAYER, (r + 1) * SLOTS_PER_PLAYER):
            hands[self._seat_base + self.decks[:, :, k]] += 1
        flip = (self.clash_card == NO_CARD) & (self.stack_left > 0)
        unseen = self.clash_unseen.reshape(-1)
        for c in range(self.num_clashes):  # one clash at a time: a game may flip two of a rank
            rows = np.flatnonzero(flip[:, c])
            if rows.size:
                ranks = self.stacks[rows, c, self.stack_size - self.stack_left[rows, c]]
                self.clash_card[rows, c] = ranks
                self.stack_left[rows, c] -= 1
                unseen[rows * NUM_RANKS + ranks] -= 1
        self.committed.fill(NO_CARD)
        self.seat, self.slot = self.first_seat, 0
        self._refresh_public(self._pub, slice(None))
        self._write_acting()

    def _reveal(self) -> None:
        """Steps 4-5: reveal every card, resolve every clash (as ``rules.clash_winner``)."""
        C = self.num_clashes
        lp = self.last_plays
        lp.fill(NO_CARD)
        lp[:, self._play_clash, self._play_seat] = self.committed[:, self._play_seat, self._play_slot]
        pot = self.pot.reshape(-1)
        for s in range(self.num_players):  # played cards join whatever is left in play there
            pot[self._slot_clash_base[s] + self.committed[:, s]] += 1
        unrevealed = self.unrevealed.reshape(-1)
        for k in range(SLOTS_PER_PLAYER):
            unrevealed[self._seat_base + self.committed[:, :, k]] -= 1
        # A sole Star wins; two or more Stars tie; else a unique highest card at least the
        # Clash Card's value wins (a Star Clash Card counts 0). Worked seat plane by seat plane,
        # (n, B, C): numpy reduces across planes far faster than along a short last axis.
        plays = np.ascontiguousarray(lp.transpose(2, 0, 1))  # non-sharers hold NO_CARD
        star = plays == STAR
        stars = star.sum(axis=0, dtype=np.int8)
        key = np.where(star, np.int8(0), plays + np.int8(1))  # a number's rank + 1; 0 for a star or no card
        best = key.max(axis=0)
        at_best = key == best
        sole_best = at_best.sum(axis=0, dtype=np.int8) == 1
        # the seat of the only star / the only best card, where there is exactly one
        star_seat = (star * self._seat_planes).sum(axis=0, dtype=np.int8)
        best_seat = (at_best * self._seat_planes).sum(axis=0, dtype=np.int8)
        beats = _KEY_VALUES[best] >= RANK_VALUES[self.clash_card]  # NO_CARD indexes the last value, a Star's 0
        winner = np.where(stars == 1, star_seat, np.where((stars == 0) & sole_best & beats, best_seat, NO_CARD))
        for c in range(C):
            w = winner[:, c]
            rows = np.flatnonzero(w >= 0)
            if rows.size == 0:
                continue
            seats = w[rows]
            self.pile[rows, seats] += self.pot[rows, c]
            self.pile[rows, seats, self.clash_card[rows, c]] += 1
        won = winner >= 0
        self.pot[won] = 0
        self.clash_card[won] = NO_CARD

    def _end_bout(self) -> BatchStep:
        """Scoring; then each game either starts its next bout or ends and restarts."""
        n = self.num_players
        points = self.pile @ self.points_per_rank
        sizes = self.pile.sum(axis=2)
        most = sizes.max(axis=1, keepdims=True)
        points = points + np.where((sizes == most) & (most > 0), self.cards.most_cards_bonus, 0)
        self.scores += points
        self.bout_points[:] = points
        self.bout += 1
        done = self.bout >= self.config.num_bouts
        if self.config.target_score is not None:
            done |= self.scores.max(axis=1) >= self.config.target_score
        if self.reward_mode == "score":
            pts = points.astype(np.float64)
            others_mean = (pts.sum(axis=1, keepdims=True) - pts) / (n - 1)
            rewards = (pts - others_mean) / SCORE_REWARD_SCALE
        else:
            rewards = np.zeros((self.num_envs, n), dtype=np.float64)
        index = np.flatnonzero(done)
        final_scores = self.scores[index]
        final_obs = None
        if index.size:
            if self.reward_mode == "outcome":
                scores = final_scores
                top = scores == scores.max(axis=1, keepdims=True)
                sole = (top.sum(axis=1) == 1)[:, None]
                rewards[index] = np.where(top, np.where(sole, OUTCOME_WIN, OUTCOME_SHARED_WIN), OUTCOME_LOSS)
            if self.keep_final_obs:
                final_obs = self._final_observations(index)
            self.games_finished += int(index.size)
            # auto-reset: the slot's next seed, a fresh generator, a fresh score sheet
            self.seeds[index] += _U64(self.num_envs)
            self.rng.seed(index, self.seeds[index])
            self.scores[index] = 0
            self.bout_points[index] = 0
            self.bout[index] = 0
        elif self.keep_final_obs:
            final_obs = self._no_final_obs
        if self.deal_next_bout:
            self._start_bout()
        else:
            self._started = False  # a load_games batch told to stop here
        terminated = _readonly(done)
        return self._result(_readonly(rewards), terminated, _readonly(index), _readonly(final_scores), final_obs)

    def _final_observations(self, index: np.ndarray) -> np.ndarray:
        """Every seat's observation of the ended games ``index``, as ``encode`` gives it then."""
        pub = PublicFeatures.empty(index.size, self.num_players)
        self._refresh_public(pub, index)  # self.round == rounds_per_bout here, as in the finished game
        out = np.empty((index.size, self.num_players, OBS_SIZE), dtype=np.float32)
        out[:] = self._template  # hand empty, every slot "none", no current slot
        for s in range(self.num_players):
            view = out[:, s]
            write_public(view, pub, s)
        return _readonly(out)
