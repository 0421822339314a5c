"""``fight_envs.core.seeding``: generators made from a seed, and exact copies of them."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from fight_envs.core.seeding import copy_rng, make_rng


@pytest.mark.parametrize("warmup", ["none", "float", "uint32", "bounded"])
def test_copy_rng_draws_what_deepcopy_draws_and_is_independent(warmup: str) -> None:
    rng, _ = make_rng(7)
    if warmup == "float":
        rng.random(3)
    elif warmup == "uint32":
        rng.integers(0, 2**32, size=3, dtype=np.uint32)  # leaves a buffered 32-bit half in the state
    elif warmup == "bounded":
        rng.integers(0, 5, size=5)
    mine, reference = copy_rng(rng), copy.deepcopy(rng)
    assert mine is not rng and mine.bit_generator is not rng.bit_generator
    for draw in (lambda g: g.integers(0, 2**32, size=3, dtype=np.uint32), lambda g: g.random(4),
                 lambda g: g.permutation(10), lambda g: g.integers(0, 7, size=6)):
        np.testing.assert_array_equal(draw(mine), draw(reference))
    before = rng.bit_generator.state
    mine.random(100)  # drawing from the copy leaves the original untouched
    assert rng.bit_generator.state == before
