"""The search vocabulary of the Fight Klub engine: clone, determinize, decision_kind, information sets.

A determinization must equal the true game in everything the seat observed and draw everything
hidden from the given generator alone: two games that differ only in hidden cards (the other
hand, deck orders, the unrevealed Fight cards, the engine's generator) give identical
determinizations. Where an unseen card lies must follow the counting distribution.
"""

from __future__ import annotations

import copy
import pickle
from math import comb

import numpy as np
import pytest

from fight_envs import fight_klub_v0
from fight_envs.core.information import InformationSet
from fight_envs.games.fight_klub.cards import DEFAULT_POOL
from fight_envs.games.fight_klub.observe import encode
from fight_envs.games.fight_klub.rules import DECISION_KINDS, FightKlubGame

DECKS = list(DEFAULT_POOL.decks.values())


def state_of(g: FightKlubGame) -> tuple:
    """Everything a game holds that play can reach, as comparable values."""
    players = tuple((tuple(p.hand), tuple(p.draw_deck), tuple(p.fight_stack), tuple(p.discard),
                     tuple((x.card.id, x.used_in) for x in p.support), tuple(p.pool), p.dealt, tuple(p.rts),
                     tuple(p.damage_stack), tuple(p.limbo)) for p in g.players)
    fights = tuple((tuple(f.cards), tuple(f.end), f.resolved, f.winner, tuple(f.skirmish_winner)) for f in g.fights)
    pending = None if g.pending is None else (g.pending.seat, g.pending.kind, g.pending.legal)
    return (players, fights, pending, g.turn, g.phase, g.drop, g.current, g.winner, g.game_over, g.truncated,
            tuple(g.log), tuple(g.actions))


def public_of(g: FightKlubGame, seat: int) -> tuple:
    """What ``seat`` observes: its own cards, the other's public cards and counts, the table, the history."""
    me, other = g.players[seat], g.players[1 - seat]
    mine = (tuple(me.hand), tuple(me.drawn), len(me.draw_deck), len(me.fight_stack))
    theirs = (len(other.hand), len(other.draw_deck), len(other.fight_stack))
    table = tuple((tuple(p.discard), tuple(x.card.id for x in p.support), tuple(p.pool), p.dealt, tuple(p.rts),
                   tuple(p.damage_stack)) for p in g.players)
    fights = tuple((tuple(f.cards), tuple(f.end), f.resolved, f.winner) for f in g.fights)
    pending = None if g.pending is None else (g.pending.seat, g.pending.kind)
    own_legal = g.pending.legal if g.pending is not None and g.pending.seat == seat else None
    return (mine, theirs, table, fights, pending, own_legal, g.turn, g.phase, g.drop, g.current, g.winner,
            tuple(g.log))


def played(seed: int, stride: int, decks: tuple[int, int] | None = None):
    """Yield a randomly played game every ``stride``-th decision (the same object, moving on)."""
    d = decks or (seed % 4, (seed // 4) % 4)
    g = FightKlubGame(DEFAULT_POOL, [DECKS[d[0]], DECKS[d[1]]])
    g.new_game(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    step = 0
    while g.pending is not None:
        if step % stride == 0:
            yield g
        legal = g.pending.legal
        g.apply_action(g.pending.seat, legal[int(rng.integers(len(legal)))])
        step += 1


def test_clone_deepcopy_and_pickle_continue_identically() -> None:
    for g in played(3, 7):
        copies = [g.clone(), copy.deepcopy(g), pickle.loads(pickle.dumps(g))]
        for c in copies:
            assert state_of(c) == state_of(g)
        if g.pending is not None:
            a = g.pending.legal[-1]
            for c in copies:
                c.apply_action(c.pending.seat, a)
            assert state_of(copies[0]) != state_of(g) or len(g.pending.legal) == 1
            assert all(state_of(c) == state_of(copies[0]) for c in copies)


def test_env_deepcopy_and_pickle_continue_identically() -> None:
    env = fight_klub_v0.env()
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    for _ in range(30):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    twins = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    for _ in range(400):
        if all(env.terminations.values()) or all(env.truncations.values()):
            break
        agent = env.agent_selection
        obs = env.observe(agent)
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        for t in twins:
            assert t.agent_selection == agent
            np.testing.assert_array_equal(t.observe(agent)["observation"], obs["observation"])
            t.step(a)
        env.step(a)
    for t in twins:
        assert t.rewards == env.rewards and t.terminations == env.terminations


def test_no_leak_determinization_reads_only_what_the_seat_observed() -> None:
    checked = 0
    for seed in range(6):
        for g in played(seed, 6):
            for seat in (0, 1):
                d = g.determinize(seat, np.random.default_rng(5))
                assert public_of(d, seat) == public_of(g, seat)
                assert state_of(d.clone()) == state_of(d)  # a determinization clones like any game
                # a game differing from g only in what seat cannot see gives the same determinization
                other = g.determinize(seat, np.random.default_rng(1000 + seed))
                assert public_of(other, seat) == public_of(g, seat)
                assert state_of(other.determinize(seat, np.random.default_rng(5))) == state_of(d)
                checked += 1
    assert checked > 100


def test_no_leak_fresh_deals_differing_in_hidden_order() -> None:
    """Two deals differing only in the other seat's Draw deck and both unrevealed Fight stacks."""
    deck0, deck1 = DECKS[0], DECKS[2]
    base = [{"fight": deck0.fight_ids(), "draw": deck0.draw_ids()}, {"fight": deck1.fight_ids(), "draw": deck1.draw_ids()}]
    alt = [{"fight": deck0.fight_ids()[::-1], "draw": deck0.draw_ids()},
           {"fight": deck1.fight_ids()[::-1], "draw": deck1.draw_ids()[::-1]}]
    results = []
    for k, orders in enumerate((base, alt)):
        g = FightKlubGame(DEFAULT_POOL, [deck0, deck1])
        g.new_game(np.random.default_rng(k), drop=0, orders=orders)
        results.append(state_of(g.determinize(0, np.random.default_rng(9))))
    assert results[0] == results[1]


def test_determinization_draws_its_generator_from_rng() -> None:
    g = next(played(1, 1))
    a, b = g.determinize(0, np.random.default_rng(1)), g.determinize(0, np.random.default_rng(2))
    assert a.rng.bit_generator.state != g.rng.bit_generator.state
    assert a.rng.bit_generator.state != b.rng.bit_generator.state


def _hypergeom(k: int, copies: int, total: int, drawn: int) -> float:
    return comb(copies, k) * comb(total - copies, drawn - k) / comb(total, drawn)


@pytest.mark.parametrize("turns", [0, 2])
def test_counting_distribution_of_unseen_cards(turns: int) -> None:
    """Copies of a card in the other's unknown hand follow the hypergeometric law over its unseen cards."""
    g = None
    for g in played(4, 1, decks=(0, 2)):
        if g.turn > turns and g.pending is not None and g.pending.seat == 0:
            break
    assert g is not None
    other = g.players[1]
    unknown = sum(slot is not None for slot in other.hand_slots)
    seen = [c for c, slot in zip(other.hand, other.hand_slots) if slot is None]
    unseen = sorted(other.hand + other.draw_deck)
    for c in seen:
        unseen.remove(c)
    card = max(set(unseen), key=unseen.count)  # the card with most unseen copies
    copies = unseen.count(card)
    n = 2000 if turns == 0 else 800
    rng = np.random.default_rng(0)
    counts = np.zeros(copies + 1)
    for _ in range(n):
        d = g.determinize(0, rng)
        held = [c for c, slot in zip(d.players[1].hand, d.players[1].hand_slots) if slot is not None]
        counts[held.count(card)] += 1
    expected = np.array([_hypergeom(k, copies, len(unseen), unknown) for k in range(copies + 1)]) * n
    keep = expected > 5
    chi2 = float((((counts - expected) ** 2)[keep] / expected[keep]).sum())
    # 99.9% point of chi-square with <= 3 degrees of freedom is 16.3
    assert chi2 < 16.3, (counts, expected)
    # my own next draw is uniform over my undrawn cards
    mine = g.players[0].draw_deck
    top = card if card in mine else mine[0]
    m = 400
    hits = sum(g.determinize(0, rng).players[0].draw_deck[0] == top for _ in range(m))
    p = mine.count(top) / len(mine)
    assert abs(hits / m - p) < 4 * np.sqrt(p * (1 - p) / m) + 1e-9


@pytest.mark.parametrize("auto", [None, []], ids=["default", "every_choice_asked"])
def test_decision_kinds_and_information_set(auto: list[str] | None) -> None:
    env = fight_klub_v0.raw_env(auto_decisions=auto)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    seen = set()
    for _ in range(200):
        if env.game.pending is None:
            break
        agent = env.agent_selection
        other = [a for a in env.possible_agents if a != agent][0]
        kind = env.decision_kind(agent)
        assert kind in DECISION_KINDS and kind != "none" and env.decision_kind(other) == "none"
        seen.add(kind)
        info = env.information_set(agent)
        assert isinstance(info, InformationSet) and info.decision_kind() == kind
        obs, mask = info.observe(info.state, info.seat)
        np.testing.assert_array_equal(obs, env.observe(agent)["observation"])
        np.testing.assert_array_equal(mask, env.observe(agent)["action_mask"])
        np.testing.assert_array_equal(encode(info.state, info.seat), obs)
        env.step(int(rng.choice(np.flatnonzero(mask))))
    # by default three kinds are asked (the rest are made by rule, rules.AUTO_DEFAULT); asking every choice, more
    assert seen == {"setup", "order_enhance", "enhance"} if auto is None else len(seen) >= 5


def test_search_agent_plays_only_legal_actions_and_its_determinizations_ask_what_the_env_asks() -> None:
    """The game-agnostic search (agents/search.py) on Fight Klub, cheap budget, a whole seeded game.

    At each decision of the game a determinization of the seat to act asks it the same
    decision kind with the same legal set as the env's mask (the mask is built from the engine,
    so a determinize/clone that changed the legal set would make search pick an illegal action).
    """
    from fight_envs.agents.arena import play_game
    from fight_envs.agents.registry import make_agent

    env = fight_klub_v0.env()  # wrapped: an illegal action would raise or be penalised
    raw = env.unwrapped
    check = np.random.default_rng(0)
    for seed in (0,):  # one full game (about 6 s of CPU): the module stays under 30 s
        agents = [make_agent("search:sims=2,rollout=play_anything", game="fight_klub"), make_agent("heuristic", game="fight_klub")]
        steps: list[bool] = []

        def on_step(name: str, obs: dict, action: int) -> None:
            steps.append(bool(obs["action_mask"][action]))
            agent = raw.agent_selection
            info = raw.information_set(agent)
            seat = raw.seat[agent]
            det = info.sample(check)
            assert np.array_equal(det.legal_action_mask(seat), obs["action_mask"])
            assert det.decision_kind(seat) == raw.decision_kind(agent)
            assert np.array_equal(info.observe(det, seat)[1], obs["action_mask"])

        result = play_game(env, agents, seed=seed, on_step=on_step)
        assert steps and all(steps)
        assert agents[0].searched > 0
        assert raw.game.is_terminal() and sorted(result.returns.tolist()) in ([-1.0, 1.0], [0.0, 0.0])
