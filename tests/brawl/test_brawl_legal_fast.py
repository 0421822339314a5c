"""``BrawlGame.legal_tuple`` and ``legal_action_mask`` (read from the hand as Python ints, masks kept
per legal set) against ``legal_action_mask_reference`` (the rules in numpy): the same legal set at
every state of random games, for every seat, at 2 to 8 fighters, both rule sets, both combo rules
and with forced moves asked (``skip_forced=False``, so one-action decisions are compared too)."""

from __future__ import annotations

import numpy as np
import pytest

from fight_envs.games.brawl.rules import BrawlConfig, BrawlGame, Phase


@pytest.mark.parametrize("rules", ["standard", "classic"])
@pytest.mark.parametrize("combo", ["single", "multi"])
@pytest.mark.parametrize("skip_forced", [True, False])
@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_the_fast_legal_set_is_the_reference_one(rules: str, combo: str, skip_forced: bool, n: int) -> None:
    rng = np.random.default_rng(1000 * n + len(combo))
    phases: set[Phase] = set()
    for seed in range(3):
        g = BrawlGame(BrawlConfig(num_players=n, rules=rules, combo=combo, skip_forced=skip_forced))
        g.new_game(np.random.default_rng(seed))
        while True:
            for seat in range(n):
                ref = g.legal_action_mask_reference(seat)
                mask = g.legal_action_mask(seat)
                assert mask.dtype == np.int8 and np.array_equal(mask, ref), (g.phase, seat)
                assert g.legal_tuple(seat) == tuple(np.flatnonzero(ref).tolist())
                assert g.legal_actions(seat) == np.flatnonzero(ref).tolist()
            if g.is_terminal():
                break
            phases.add(g.phase)
            seat = g.current_player()
            legal = g.legal_tuple(seat)
            mask = g.legal_action_mask(seat)
            mask[:] = 0  # a caller's copy: writing into it changes no later mask
            assert np.array_equal(g.legal_action_mask(seat), g.legal_action_mask_reference(seat))
            g.apply_action(seat, legal[int(rng.integers(len(legal)))])
    # the random games reached the main decision kinds
    assert {Phase.ATTACK, Phase.DEFEND} <= phases
