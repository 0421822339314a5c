"""Fight 5's search vocabulary: clone, determinize (no leak, exact counting distribution), decision_kind."""

from __future__ import annotations

import numpy as np
import pytest

from fight_envs.envs.fight5 import observe_state
from fight_envs.games.fight5.rules import DECISION_KINDS, NO_CARD, NUM_RANKS, Fight5Config, Fight5Game

PUBLIC = ("scores", "clash_card", "pot", "point_pile", "last_plays", "revealed", "clash_seen")


def play_to(n: int, seed: int, bout: int, round_: int, seat: int, placed: int) -> Fight5Game:
    """A game played at random until ``seat`` has placed ``placed`` cards in the given round (AEC order)."""
    g = Fight5Game(Fight5Config(num_players=n))
    g.new_game(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    while not (g.bout == bout and g.round == round_ and g.num_committed[seat] == placed):
        p = g.current_player()
        legal = g.legal_actions(p)
        g.apply_action(p, legal[rng.integers(len(legal))])
    return g


def hidden_variant(g: Fight5Game, seat: int, rng: np.random.Generator) -> Fight5Game:
    """A game equal to ``g`` in everything ``seat`` observes, different in every hidden part."""
    h = g.clone()
    n = g.num_players
    for s in range(n):
        if s == seat:
            h.decks[s] = list(rng.permutation(h.decks[s]).tolist())
            continue
        placed = h.committed[s][h.committed[s] != NO_CARD]
        pool = np.concatenate([np.repeat(np.arange(NUM_RANKS), h.hands[s]), placed, np.array(h.decks[s], dtype=np.int64)])
        pool = rng.permutation(pool)
        k = len(placed)
        h.committed[s, :k] = pool[:k]
        hand_size = int(h.hands[s].sum())
        h.hands[s] = np.bincount(pool[k:k + hand_size], minlength=NUM_RANKS)
        h.decks[s] = [int(r) for r in pool[k + hand_size:]]
    flat = rng.permutation(np.concatenate([np.array([r for st in h.clash_stacks for r in st], dtype=np.int64),
                                           np.repeat(np.arange(NUM_RANKS), h.set_aside)]))
    at = 0
    for c, stack in enumerate(h.clash_stacks):
        h.clash_stacks[c] = [int(r) for r in flat[at:at + len(stack)]]
        at += len(stack)
    h.set_aside = np.bincount(flat[at:], minlength=NUM_RANKS)
    h.rng = np.random.default_rng(999)
    h.deals_used = []
    h.fixed_deals = []
    in_round = sum(h.num_committed)
    head = h.actions[: len(h.actions) - in_round]
    h.actions = head + [(s, int(h.committed[s, i])) for s in range(n) for i in range(h.num_committed[s])]
    return h


def same_state(a: Fight5Game, b: Fight5Game) -> None:
    for name in PUBLIC + ("hands", "committed", "set_aside"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.decks == b.decks and a.clash_stacks == b.clash_stacks and a.num_committed == b.num_committed
    assert (a.bout, a.round, a.game_over, a.actions) == (b.bout, b.round, b.game_over, b.actions)
    assert a.rng.bit_generator.state == b.rng.bit_generator.state


@pytest.mark.parametrize("n,seat,placed", [(2, 0, 3), (2, 1, 0), (3, 1, 2), (5, 4, 1)])
def test_determinize_reads_nothing_hidden(n: int, seat: int, placed: int) -> None:
    g = play_to(n, 11, 1, 2, seat, placed)
    h = hidden_variant(g, seat, np.random.default_rng(5))
    assert any(not np.array_equal(g.hands[s], h.hands[s]) or g.decks[s] != h.decks[s] for s in range(n) if s != seat)
    np.testing.assert_array_equal(observe_state(g, seat)[0], observe_state(h, seat)[0])  # seat cannot tell them apart
    same_state(g.determinize(seat, np.random.default_rng(7)), h.determinize(seat, np.random.default_rng(7)))


@pytest.mark.parametrize("n,seat,placed", [(2, 1, 2), (4, 2, 4), (5, 0, 0)])
def test_determinization_equals_the_game_on_everything_visible(n: int, seat: int, placed: int) -> None:
    g = play_to(n, 3, 0, 3, seat, placed)
    d = g.determinize(seat, np.random.default_rng(1))
    obs, mask = observe_state(g, seat)
    d_obs, d_mask = observe_state(d, seat)
    np.testing.assert_array_equal(obs, d_obs)
    np.testing.assert_array_equal(mask, d_mask)
    for name in PUBLIC:
        np.testing.assert_array_equal(getattr(g, name), getattr(d, name), err_msg=name)
    assert [len(s) for s in d.clash_stacks] == [len(s) for s in g.clash_stacks]
    assert sorted(d.decks[seat]) == sorted(g.decks[seat])  # own deck: same cards, new order
    for s in range(n):
        pool = g.cards.player_deck - g.revealed[s]
        if s != seat:
            assert d.num_committed[s] == 0 and int(d.hands[s].sum()) == g.hand_size  # this round's plays go back to hand
            np.testing.assert_array_equal(d.hands[s] + np.bincount(d.decks[s], minlength=NUM_RANKS), pool)
    unseen = g.cards.clash_deck - g.clash_seen
    np.testing.assert_array_equal(np.bincount([r for st in d.clash_stacks for r in st], minlength=NUM_RANKS) + d.set_aside, unseen)
    assert d.current_player() != -1 and d.legal_actions(seat) == g.legal_actions(seat)
    assert d.deals_used == [] and d.fixed_deals == []


def test_hidden_cards_follow_the_counting_distribution() -> None:
    """Opponent's hand: hypergeometric draws from its pool; the next Clash Card: unseen counts / total."""
    from math import comb

    g = play_to(2, 21, 0, 2, 0, 1)
    pool = g.cards.player_deck - g.revealed[1]
    size = int(pool.sum())
    unseen = g.cards.clash_deck - g.clash_seen
    stack = next(c for c, st in enumerate(g.clash_stacks) if st)
    N = 3000
    rng = np.random.default_rng(0)
    copies = np.zeros((N, NUM_RANKS), dtype=np.int64)
    top = np.zeros(NUM_RANKS)
    for i in range(N):
        d = g.determinize(0, rng)
        copies[i] = d.hands[1]
        top[d.clash_stacks[stack][-1]] += 1  # the card flipped next there (stacks pop from the end)
    for r in range(NUM_RANKS):
        k = int(pool[r])
        for j in range(min(k, 5) + 1):
            p = comb(k, j) * comb(size - k, 5 - j) / comb(size, 5)
            freq = float(np.mean(copies[:, r] == j))
            assert abs(freq - p) <= 4.5 * np.sqrt(p * (1 - p) / N) + 1e-9, (r, j, freq, p)
    p_top = unseen / unseen.sum()
    assert np.all(np.abs(top / N - p_top) <= 4.5 * np.sqrt(p_top * (1 - p_top) / N) + 1e-9)


def test_clone_is_independent_and_carries_the_generator() -> None:
    g = play_to(3, 4, 0, 4, 2, 0)  # bout 0's last round: the next bout is dealt from the generator
    c = g.clone()
    rng = np.random.default_rng(0)
    while not c.is_terminal():
        p = c.current_player()
        legal = c.legal_actions(p)
        move = legal[rng.integers(len(legal))]
        c.apply_action(p, move)
        g.apply_action(p, move)
        if c.bout == 1 and c.round == 0 and sum(c.num_committed) == 0:
            break
    assert c.deals_used[-1] == g.deals_used[-1]  # same generator state -> same next deal
    before = g.hands.copy()
    p = c.current_player()
    c.apply_action(p, c.legal_actions(p)[0])
    np.testing.assert_array_equal(g.hands, before)


def test_decision_kind_is_the_slot() -> None:
    g = play_to(2, 1, 0, 0, 0, 0)
    for k in range(5):
        assert g.decision_kind(0) == DECISION_KINDS[k]
        g.apply_action(0, g.legal_actions(0)[0])
    with pytest.raises(ValueError, match="no decision"):
        g.decision_kind(0)
    assert g.decision_kind(1) == "right_a"


def test_determinize_rejects_bad_input() -> None:
    g = Fight5Game(Fight5Config(num_players=2))
    with pytest.raises(ValueError, match="new_game"):
        g.determinize(0, np.random.default_rng(0))
    g.new_game(np.random.default_rng(0))
    with pytest.raises(ValueError, match="seat"):
        g.determinize(2, np.random.default_rng(0))
