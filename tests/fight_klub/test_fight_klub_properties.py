"""Property tests over random Fight Klub games: conservation, masks, termination, hidden information."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fight_envs.games.fight_klub.cards import DEFAULT_POOL
from fight_envs.games.fight_klub.observe import encode
from fight_envs.games.fight_klub.rules import FightKlubConfig, FightKlubGame, max_decisions_per_turn

DECKS = list(DEFAULT_POOL.decks)
CARDS_PER_DECK = 39  # 12 Fight cards + 27 Draw-deck cards (the character stays on the table)
PER_TURN = max_decisions_per_turn(DEFAULT_POOL)


def _game(seed: int, d0: int, d1: int, max_turns: int = 40) -> FightKlubGame:
    g = FightKlubGame(DEFAULT_POOL, [DEFAULT_POOL.decks[DECKS[d0]], DEFAULT_POOL.decks[DECKS[d1]]], FightKlubConfig(max_turns))
    g.new_game(np.random.default_rng(seed))
    return g


def _conserved(g: FightKlubGame) -> None:
    for seat in (0, 1):
        counts = g.card_counts(seat)
        assert sum(counts.values()) == CARDS_PER_DECK, (seat, counts)
        owned = sorted(g.decks[seat].fight_ids() + g.decks[seat].draw_ids())
        p = g.players[seat]
        where = (p.fight_stack + p.draw_deck + p.hand + p.discard + [x.card.id for x in p.support] + p.rts + p.limbo
                 + [c for c, _ in p.damage_stack] + [f.cards[seat] for f in g.fights if not f.resolved and f.cards[seat]]
                 + [c for f in g.fights if not f.resolved for c in f.effects_played[seat]])
        assert sorted(where) == owned


decks = st.integers(0, len(DECKS) - 1)


@settings(max_examples=25)
@given(seed=st.integers(0, 2**31), d0=decks, d1=decks, policy=st.integers(0, 2**31))
def test_cards_conserved_masks_exact_and_games_end(seed: int, d0: int, d1: int, policy: int) -> None:
    g = _game(seed, d0, d1)
    rng = np.random.default_rng(policy)
    per_turn: dict[int, int] = {}
    while not g.is_terminal():
        _conserved(g)
        d = g.pending
        assert d is not None and len(d.legal) >= 2  # forced moves are never asked
        mask = g.legal_action_mask(d.seat)
        assert np.array_equal(np.flatnonzero(mask), np.array(d.legal))
        assert not g.legal_action_mask(1 - d.seat).any()
        per_turn[g.turn] = per_turn.get(g.turn, 0) + 1
        g.apply_action(d.seat, int(rng.choice(d.legal)))
    _conserved(g)
    assert max(per_turn.values()) <= PER_TURN
    assert g.game_over or g.truncated
    if g.game_over and g.winner is not None:
        why = g.log[-1][2]  # ("end", winner, why)
        w, other = g.players[g.winner], g.players[1 - g.winner]
        # a win on damage reaches the other's Life; a game out of Fight cards goes to more damage
        assert (w.dealt >= other.life) if why == "damage reached Life" else (why == "no Fight cards left" and w.dealt > other.dealt)


@settings(max_examples=15)
@given(seed=st.integers(0, 2**31), turns=st.integers(1, 3))
def test_every_game_ends_or_truncates(seed: int, turns: int) -> None:
    g = _game(seed, seed % len(DECKS), (seed // len(DECKS)) % len(DECKS), max_turns=turns)
    rng = np.random.default_rng(seed)
    steps = 0
    while not g.is_terminal():
        g.apply_action(g.pending.seat, int(rng.choice(g.pending.legal)))
        steps += 1
        assert steps <= turns * PER_TURN
    assert g.turn <= turns + 1 and (g.game_over or (g.truncated and g.turn == turns + 1))


@settings(max_examples=15)
@given(seed=st.integers(0, 2**31), cut=st.integers(0, 120))
def test_observations_hide_what_a_seat_cannot_see(seed: int, cut: int) -> None:
    g = _game(seed, seed % len(DECKS), (seed // len(DECKS)) % len(DECKS))
    rng = np.random.default_rng(seed)
    for _ in range(cut):
        if g.is_terminal():
            break
        g.apply_action(g.pending.seat, int(rng.choice(g.pending.legal)))
    for seat in (0, 1):
        before = encode(g, seat)
        h = g.clone()
        opp, me = h.players[1 - seat], h.players[seat]
        # swap the opponent's unknown hand cards (not those retrieved in public) with cards of its
        # Draw deck, and shuffle every hidden order
        unknown = [i for i, slot in enumerate(opp.hand_slots) if slot is not None]
        for i, j in zip(unknown, range(len(opp.draw_deck))):
            opp.hand[i], opp.draw_deck[j] = opp.draw_deck[j], opp.hand[i]
        for part in (opp.draw_deck, opp.fight_stack, me.draw_deck, me.fight_stack):
            rng.shuffle(part)
        assert np.array_equal(encode(h, seat), before)


def test_clone_is_independent_and_equal() -> None:
    g = _game(3, 0, 1)
    rng = np.random.default_rng(0)
    for _ in range(40):
        g.apply_action(g.pending.seat, int(rng.choice(g.pending.legal)))
    h = g.clone()
    assert all(np.array_equal(encode(g, s), encode(h, s)) for s in (0, 1))
    h.apply_action(h.pending.seat, h.pending.legal[0])
    assert len(h.actions) == len(g.actions) + 1


@pytest.mark.slow
def test_many_random_games_every_deck_pair() -> None:
    """1600 random games (100 per ordered deck pair), every invariant checked at every step."""
    for k in range(1600):
        g = _game(k, k % len(DECKS), (k // len(DECKS)) % len(DECKS))
        rng = np.random.default_rng(k)
        while not g.is_terminal():
            _conserved(g)
            d = g.pending
            assert len(d.legal) >= 2
            g.apply_action(d.seat, int(rng.choice(d.legal)))
        _conserved(g)
