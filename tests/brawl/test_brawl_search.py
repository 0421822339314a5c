"""The search vocabulary of the Brawl engine (``fight_envs.core.information``): clone,
determinize, decision kinds, and the env's ``decision_kind`` / ``information_set``.

The no-leak tests build two games that differ only in what a seat cannot see and check that
their determinizations are identical; the counting test checks that an unseen card lands in a
hidden place with the exact hypergeometric probability.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from brawl_scenario import new_game, play

from fight_envs import brawl_v0
from fight_envs.core.information import InformationSet, SearchableGame
from fight_envs.games.brawl.cards import CHAOS, NUM_CARD_TYPES
from fight_envs.games.brawl.observe import encode
from fight_envs.games.brawl.rules import DECISION_KINDS, BrawlConfig, BrawlGame, Phase


def _random_position(n: int, seed: int, steps: int, **config: object) -> BrawlGame:
    game = BrawlGame(BrawlConfig(num_players=n, **config))
    game.new_game(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 100)
    while not game.is_over() and game.steps < steps:
        seat = game.current_player()
        game.apply_action(seat, int(rng.choice(game.legal_actions(seat))))
    return game


def _state(g: BrawlGame) -> tuple:
    """Everything a game holds that matters for its future, as comparable values."""
    b = g.battle
    return (g.hands.tolist(), list(g.draw_pile), list(g.discard), list(g.table), g.known.tolist(),
            g.chaos_played.tolist(), g.active.tolist(), g.place.tolist(), g.direction, int(g.phase), g.actor,
            list(g.window), g.resume, g.showdown, g.steps, g.chaos_spent, g.reshuffles,
            (b.opener, b.attacker, b.defender, b.attack_card, b.element, b.dodger, b.attacks),
            list(g.actions), str(g.rng.bit_generator.state))


def _play_out(g: BrawlGame, seed: int) -> list[tuple[int, int]]:
    rng = np.random.default_rng(seed)
    while not g.is_over():
        seat = g.current_player()
        g.apply_action(seat, int(rng.choice(g.legal_actions(seat))))
    return list(g.actions)


def _hide_differently(g: BrawlGame, seat: int, rng: np.random.Generator) -> BrawlGame:
    """A game differing from ``g`` only in what ``seat`` cannot see: another fighter's hidden card
    swapped with a draw-pile card, the draw pile reordered, another generator state."""
    v = g.clone()
    others = [s for s in range(g.num_players) if s != seat]
    for owner in others:
        hidden = v.hands[owner] - v.public_hand(owner)
        held = [c for c in np.flatnonzero(hidden > 0) if any(p != c for p in v.draw_pile)]
        if held:
            c = int(held[0])
            i = next(k for k, p in enumerate(v.draw_pile) if p != c)
            v.hands[owner, c] -= 1
            v.hands[owner, v.draw_pile[i]] += 1
            v.draw_pile[i] = c
            break
    rng.shuffle(v.draw_pile)
    v.rng = np.random.default_rng(int(rng.integers(2**32)))
    return v


def test_the_engine_implements_the_vocabulary() -> None:
    assert isinstance(BrawlGame(), SearchableGame)
    assert len(set(DECISION_KINDS)) == len(DECISION_KINDS)
    assert all(k.replace("_", "").isalpha() and k == k.lower() for k in DECISION_KINDS)


@pytest.mark.parametrize("n, seed, steps", [(2, 1, 9), (3, 2, 30), (5, 3, 60), (8, 4, 150)])
def test_clone_is_independent_and_continues_identically(n: int, seed: int, steps: int) -> None:
    g = _random_position(n, seed, steps)
    c = g.clone()
    assert _state(c) == _state(g)
    assert _play_out(c, 7) == _play_out(g.clone(), 7)  # same future, its generator included
    before = _state(g)
    _play_out(c, 8)
    assert _state(g) == before  # playing the clone left the original alone


@pytest.mark.parametrize("rules", ["standard", "classic"])
@pytest.mark.parametrize("n, seed, steps", [(2, 5, 7), (3, 6, 25), (4, 7, 40), (6, 8, 80), (8, 9, 200)])
def test_determinize_reads_only_what_the_seat_observed(rules: str, n: int, seed: int, steps: int) -> None:
    g = _random_position(n, seed, steps, rules=rules)
    if g.is_over():
        pytest.skip("the game ended before the cut")
    rng = np.random.default_rng(seed)
    for seat in range(n):
        v = _hide_differently(g, seat, rng)
        assert np.array_equal(encode(g, seat), encode(v, seat))  # the seat cannot tell them apart
        d1 = g.determinize(seat, np.random.default_rng(42))
        d2 = v.determinize(seat, np.random.default_rng(42))
        assert _state(d1) == _state(d2), f"seat {seat}: the determinization depends on hidden cards"
        # equal to the true game in everything visible to the seat
        assert np.array_equal(encode(d1, seat), encode(g, seat))
        assert np.array_equal(d1.legal_action_mask(seat), g.legal_action_mask(seat))
        assert d1.hands.sum(axis=1).tolist() == g.hands.sum(axis=1).tolist()
        assert len(d1.draw_pile) == len(g.draw_pile)
        for s in range(n):
            assert (d1.hands[s] >= g.public_hand(s)).all()  # known cards stay where they are known
        total = d1.hands.sum(axis=0) + d1.discard_counts + np.bincount(
            np.array(d1.draw_pile + d1.table, dtype=np.int64), minlength=NUM_CARD_TYPES)
        total[CHAOS] += d1.chaos_spent
        assert np.array_equal(total, g.cards.deck)  # a consistent deck
        assert str(d1.rng.bit_generator.state) != str(g.rng.bit_generator.state)
        _play_out(d1, 3)  # a determinization is a full, playable game


def test_known_cards_stay_in_their_hand_and_open_showdown_hands_are_copied() -> None:
    # a blocked attack goes back to its aggressor: known to be in that hand from then on
    g = new_game([["FP", "J", "WK"], ["B", "NK", "EK"], ["D", "NP", "EP"]], rules="standard")
    play(g, 0, "FP")
    while g.current_player() != 1:
        play(g, g.current_player(), "PASS")  # reaction windows of the standard rules
    play(g, 1, "B")
    assert g.known[0].tolist()[g.cards.card_of("FIRE PUNCH")] == 1
    for s in (1, 2):
        for k in range(20):
            d = g.determinize(s, np.random.default_rng(k))
            assert d.hands[0, g.cards.card_of("FIRE PUNCH")] >= 1
    # two fighters, open showdown: the opponent's hand is copied, only the draw pile is sampled
    g2 = _random_position(2, 11, 5)
    d = g2.determinize(0, np.random.default_rng(1))
    assert np.array_equal(d.hands, g2.hands)


def test_holders_windows_resample_who_is_still_to_be_asked() -> None:
    g = new_game([["FP", "J"], ["FK", "X"], ["X", "D"], ["X", "NP"]], chaos_windows=True)
    play(g, 0, "FP")  # windows for the holders 2 and 3 (1 decides next)
    assert g.phase == Phase.WINDOW and g.current_player() == 2 and g.window == [3]
    assert g.known[2, CHAOS] == 1  # being asked showed it
    seen = set()
    for k in range(200):
        d = g.determinize(1, np.random.default_rng(k))
        assert d.window == ([3] if d.hands[3, CHAOS] else [])
        seen.add(tuple(d.window))
    assert seen == {(3,), ()}  # seat 3's CHAOS is not known to seat 1


def test_unseen_cards_fall_where_the_exact_counting_distribution_says() -> None:
    """Seat 0's view of a 4-fighter position: for each card type, how many copies land in seat
    1's hidden cards follows the hypergeometric law over the unseen pool (chi-square, 5 sigma)."""
    g = _random_position(4, 21, 12, rules="classic")
    seat, owner = 0, 1
    unseen = g.unseen_counts(seat)
    pool = int(unseen.sum())
    slots = int(g.hands[owner].sum() - g.public_hand(owner).sum())
    assert slots >= 3 and pool > slots
    samples = 4000
    counts = np.zeros((samples, NUM_CARD_TYPES), dtype=np.int64)
    rng = np.random.default_rng(5)
    for i in range(samples):
        counts[i] = g.determinize(seat, rng).hands[owner] - g.public_hand(owner)
    for c in np.flatnonzero(unseen):
        k_max = min(int(unseen[c]), slots)
        expected = np.array([math.comb(int(unseen[c]), k) * math.comb(pool - int(unseen[c]), slots - k)
                             for k in range(k_max + 1)], dtype=np.float64) / math.comb(pool, slots)
        observed = np.bincount(counts[:, c], minlength=k_max + 1)[:k_max + 1]
        keep = expected * samples >= 5
        chi2 = float((((observed - expected * samples) ** 2) / (expected * samples))[keep].sum())
        dof = max(int(keep.sum()) - 1, 1)
        assert chi2 < dof + 5 * math.sqrt(2 * dof), f"card {c}: chi2 {chi2:.1f} with {dof} dof"
        assert counts[:, c].max() <= unseen[c]


def test_decision_kinds_name_every_phase() -> None:
    g = new_game([["FP", "J", "FK"], ["FK", "D", "X"], ["NK", "C", "EP"]], chaos_windows=False)
    assert g.decision_kind(0) == "attack" and g.decision_kind(1) == "none"
    play(g, 0, "FP")
    assert g.decision_kind(1) == "defend"
    play(g, 1, "D")
    assert g.decision_kind(0) == "follow_up"
    play(g, 0, "FK")
    play(g, 1, "X")
    assert g.decision_kind(1) == "chaos_direction"
    w = new_game([["FP", "J"], ["FK", "X"], ["X", "D"]], chaos_windows=True)
    play(w, 0, "FP")
    assert w.decision_kind(2) == "chaos_window"
    over = _random_position(2, 1, 10_000)
    assert over.is_over() and over.decision_kind(0) == "none"


def test_env_decision_kind_and_information_set() -> None:
    env = brawl_v0.raw_env(num_players=4)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(30):
        agent = env.agent_selection
        seat = env.table.seat[agent]
        assert env.decision_kind(agent) == env.game.decision_kind(seat) != "none"
        info = env.information_set(agent)
        assert isinstance(info, InformationSet) and info.seat == seat and info.num_players == 4
        obs, mask = info.observe(info.state, seat)
        assert np.array_equal(obs, env.observe(agent)["observation"])
        assert np.array_equal(mask, env.observe(agent)["action_mask"])
        assert info.decision_kind() == env.decision_kind(agent)
        # the information set is the same for a game that differs only in hidden cards
        other = copy.deepcopy(env)
        other.table.game = other.game = _hide_differently(env.game, seat, rng)
        assert _state(other.information_set(agent).state) == _state(info.state)
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))


def _search_choices(spec: str, seed: int = 3, decisions: int = 12) -> list[tuple[int, int]]:
    """(search's action, first_legal's action) at the search seat's decisions with a choice."""
    from fight_envs.agents.registry import make_agent

    env = brawl_v0.env(num_players=2)
    env.reset(seed=seed)
    search = make_agent(spec, game="brawl", seed=0)
    other = make_agent("heuristic", game="brawl", seed=1)
    out: list[tuple[int, int]] = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc or len(out) >= decisions:
            break
        mask = obs["action_mask"]
        if agent == "player_0":
            action = search.act_with_information(obs["observation"], mask, env.unwrapped.information_set(agent))
            if mask.sum() > 1:
                out.append((action, int(np.flatnonzero(mask)[0])))
        else:
            action = other.act(obs["observation"], mask)
        env.step(action)
    env.close()
    return out


def test_search_keep_plays_the_rollout_policys_action_unless_another_is_clearly_better() -> None:
    # keep=z: the rollout policy's own action (first_legal here: the lowest legal action) is played
    # unless another beats it by more than z paired standard errors; a huge z always keeps it
    kept = _search_choices("search:sims=6,rollout=first_legal,keep=1e9")
    assert kept and all(a == policy for a, policy in kept)
    free = _search_choices("search:sims=6,rollout=first_legal")
    assert any(a != policy for a, policy in free)  # without keep the noisy best mean often differs
    from fight_envs.agents.search import parse_search_options

    assert parse_search_options("sims=8,keep=2") == {"sims": 8, "keep": 2.0}
    with pytest.raises(ValueError, match="keep"):
        parse_search_options("keep=lots")
