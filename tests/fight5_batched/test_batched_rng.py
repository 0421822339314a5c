"""The batched engine's generator is numpy's ``default_rng(seed)``, game by game.

``BatchedPCG64`` re-implements SeedSequence, PCG64 and ``Generator.permutation`` in vectorised
numpy so that a bout's shuffles run for all games at once. These tests hold it to numpy itself:
seeding state for state, and permutation for permutation over several bouts (which also
carries numpy's kept-over 32-bit half-output from one bout to the next).
"""

from __future__ import annotations

import numpy as np
import pytest

from fight_envs.games.fight5.batched import VECTORISED_DEAL_FROM, BatchedPCG64, seed_sequence_state
from fight_envs.games.fight5.cards import DEFAULT_CARDS

SEEDS = [0, 1, 2, 7, 12345, 2**31 - 1, 2**32 - 1, 2**32, 2**32 + 1, 2**40 + 3, 2**62, 2**63 - 1]
CLASH_DECK = np.repeat(np.arange(13, dtype=np.int8), DEFAULT_CARDS.clash_deck)
PLAYER_DECK = np.repeat(np.arange(13, dtype=np.int8), DEFAULT_CARDS.player_deck)


def _seeds(extra: int, seed: int) -> np.ndarray:
    drawn = np.random.default_rng(seed).integers(0, 2**63, size=extra, dtype=np.uint64)
    return np.concatenate((np.array(SEEDS, dtype=np.uint64), drawn))


def test_seed_sequence_state_matches_numpy() -> None:
    seeds = _seeds(40, seed=1)
    got = seed_sequence_state(seeds)
    for i, s in enumerate(seeds.tolist()):
        assert got[i].tolist() == np.random.SeedSequence(s).generate_state(4, np.uint64).tolist(), s


def test_batch_size_picks_the_dealing_path() -> None:
    assert not BatchedPCG64(VECTORISED_DEAL_FROM - 1).vectorised and BatchedPCG64(VECTORISED_DEAL_FROM).vectorised


def test_seeded_state_matches_pcg64() -> None:
    seeds = _seeds(40, seed=2)
    rng = BatchedPCG64(seeds.size)
    rng.seed(np.arange(seeds.size), seeds)
    for i, s in enumerate(seeds.tolist()):
        want = np.random.PCG64(s).state
        got = rng.state(i)
        assert got["state"] == want["state"] and got["has_uint32"] == want["has_uint32"] == 0, s


def _check_bouts(rng: BatchedPCG64, seeds: np.ndarray, num_decks: int, bouts: int, margin_sd: float = 4.0) -> None:
    refs = [np.random.default_rng(int(s)) for s in seeds]
    B = seeds.size
    for bout in range(bouts):
        decks = [np.repeat(CLASH_DECK[None, :], B, axis=0)] + [
            np.repeat(PLAYER_DECK[None, :], B, axis=0) for _ in range(num_decks)
        ]
        rng.shuffle(decks, margin_sd=margin_sd)
        for b, ref in enumerate(refs):
            want = [ref.permutation(CLASH_DECK)] + [ref.permutation(PLAYER_DECK) for _ in range(num_decks)]
            for k, (deck, expected) in enumerate(zip(decks, want)):
                assert np.array_equal(deck[b], expected), f"seed {seeds[b]}, bout {bout}, deck {k}"
            got, exp = rng.state(b), ref.bit_generator.state
            assert got["state"] == exp["state"], f"seed {seeds[b]}, bout {bout}: generator state differs"
            assert got["has_uint32"] == exp["has_uint32"], f"seed {seeds[b]}, bout {bout}"
            if exp["has_uint32"]:  # numpy leaves a stale value behind once the half is used
                assert got["uinteger"] == exp["uinteger"], f"seed {seeds[b]}, bout {bout}"


@pytest.mark.parametrize("vectorised", [True, False], ids=["all-games-at-once", "game-by-game"])
@pytest.mark.parametrize("num_decks", [2, 5])
def test_shuffles_match_permutation_bout_after_bout(num_decks: int, vectorised: bool) -> None:
    seeds = _seeds(60, seed=3 + num_decks)
    rng = BatchedPCG64(seeds.size, vectorised=vectorised)
    rng.seed(np.arange(seeds.size), seeds)
    _check_bouts(rng, seeds, num_decks, bouts=4)
    # one shuffle leaves some games holding a kept-over half-output and others not, so the
    # bouts above started from both kinds of state
    rng = BatchedPCG64(seeds.size, vectorised=vectorised)
    rng.seed(np.arange(seeds.size), seeds)
    rng.shuffle([np.repeat(CLASH_DECK[None, :], seeds.size, axis=0)])
    assert 0 < int(rng.has_uint32.sum()) < seeds.size


def test_streams_that_run_short_are_extended_exactly() -> None:
    # no margin: many games need more words than planned, so the word array must grow
    seeds = _seeds(200, seed=9)
    rng = BatchedPCG64(seeds.size, vectorised=True)
    rng.seed(np.arange(seeds.size), seeds)
    _check_bouts(rng, seeds, num_decks=3, bouts=2, margin_sd=-2.0)
    assert rng.extensions > 0


@pytest.mark.parametrize("vectorised", [True, False], ids=["all-games-at-once", "game-by-game"])
def test_reseeding_some_games_leaves_the_others_alone(vectorised: bool) -> None:
    seeds = _seeds(10, seed=11)
    rng = BatchedPCG64(seeds.size, vectorised=vectorised)
    rng.seed(np.arange(seeds.size), seeds)
    rng.shuffle([np.repeat(PLAYER_DECK[None, :], seeds.size, axis=0)])
    before = [rng.state(b) for b in range(seeds.size)]
    rows = np.array([1, 4, 5])
    rng.seed(rows, seeds[rows] + 1000)
    for b in range(seeds.size):
        want = np.random.PCG64(int(seeds[b]) + 1000).state if b in rows else before[b]
        assert rng.state(b)["state"] == want["state"] and rng.state(b)["has_uint32"] == want["has_uint32"]
