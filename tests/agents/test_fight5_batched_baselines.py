"""Batched Fight 5 baselines act exactly as their per-row code: ``GreedyAgent.act_batch`` against
``GreedyAgent.act``, and ``HeuristicAgent.act_group`` / ``act_batch`` / ``round_gains`` against
``HeuristicAgent.act`` / ``clash_values``, on observations from seeded games at 2-5 players."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from fight_envs.agents.base import Agent, RandomAgent
from fight_envs.agents.fight5 import Fight5View, GreedyAgent, HeuristicAgent
from fight_envs import fight5_v0
from fight_envs.games.fight5.cards import RANK_VALUES, STAR
from fight_envs.games.fight5.rules import NO_CARD

PLAYER_COUNTS = [2, 3, 4, 5]


def _decisions(num_players: int, games: int, seed: int, kinds: tuple[type[Agent], ...]):
    """Observations, masks and (game, seat) of every decision of seeded games played by ``kinds``
    (seat s of game g plays ``kinds[(g + s) % len(kinds)]``)."""
    env = fight5_v0.raw_env(num_players=num_players)
    obs, masks, owners = [], [], []
    for g in range(games):
        agents = [kinds[(g + s) % len(kinds)](seed=seed + 10 * g + s) for s in range(num_players)]
        for agent in agents:
            agent.reset()
        env.reset(seed=seed + g)
        for name in env.agent_iter():
            o, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = env.possible_agents.index(name)
            obs.append(o["observation"])
            masks.append(o["action_mask"])
            owners.append((g, seat))
            env.step(agents[seat].act(o["observation"], o["action_mask"]))
    return np.array(obs), np.array(masks), owners


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_greedy_batch_matches_act_on_every_row(num_players):
    obs, masks, _ = _decisions(num_players, games=-(-1000 // (75 * num_players)), seed=1000 * num_players, kinds=(RandomAgent,))
    assert len(obs) >= 1000
    greedy = GreedyAgent()
    expected = np.array([greedy.act(o, m) for o, m in zip(obs, masks)])
    got = greedy.act_batch(obs, masks)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, expected)
    # every branch of the rule occurs: the smallest card reaching the Clash Card (often one of
    # several reaching), a Star because no number reaches, and the smallest number otherwise
    needed = []
    for o in obs:
        view = Fight5View.decode(o)
        cc = view.clash_card[view.slot]
        needed.append(int(RANK_VALUES[cc]) if cc != NO_CARD else 0)
    reaching = masks[:, :STAR].astype(bool) & (RANK_VALUES[None, :STAR] >= np.array(needed)[:, None])
    assert (reaching.sum(axis=1) >= 2).any()
    assert ((~reaching.any(axis=1)) & (expected == STAR)).any()
    if num_players <= 3:  # rarer with more players' decks in play; checked where it is common
        assert ((~reaching.any(axis=1)) & (expected != STAR)).any()


def test_greedy_batch_rejects_what_act_rejects():
    obs, masks, _ = _decisions(2, games=1, seed=5, kinds=(RandomAgent,))
    bad = masks[:4].copy()
    bad[2] = 0
    with pytest.raises(ValueError, match="no legal action"):
        GreedyAgent().act_batch(obs[:4], bad)
    with pytest.raises(ValueError, match="num_players"):
        GreedyAgent().act_batch(np.zeros_like(obs[:4]), masks[:4])
    with pytest.raises(ValueError, match="shape"):
        GreedyAgent().act_batch(obs[:4, :10], masks[:4])


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_heuristic_round_gains_are_clash_values_bit_for_bit(num_players):
    obs, _, _ = _decisions(num_players, games=2, seed=77 + num_players, kinds=(HeuristicAgent, RandomAgent))
    heuristic = HeuristicAgent()
    hand = np.array([Fight5View.decode(o).hand for o in obs])
    gains = heuristic.round_gains(obs, hand > 0)
    for i in range(0, len(obs), 3):
        view = Fight5View.decode(obs[i])
        cards = view.hand_cards()
        for k in range(5):
            expected = heuristic.clash_values(view, k, cards)
            assert np.array_equal(gains[i, k, cards], expected), (i, k, cards, gains[i, k, cards] - expected)


def _lockstep(owners, obs, masks, make):
    """Every (game, seat)'s decisions, one agent each, one ``act_group`` call per step across all."""
    sequences = defaultdict(list)
    for i, owner in enumerate(owners):
        sequences[owner].append(i)
    agents = {owner: make() for owner in sequences}
    for agent in agents.values():
        agent.reset()
    got = np.full(len(obs), -1)
    for step in range(max(len(rows) for rows in sequences.values())):
        live = [owner for owner, rows in sequences.items() if len(rows) > step]
        rows = [sequences[owner][step] for owner in live]
        got[rows] = HeuristicAgent.act_group([agents[owner] for owner in live], obs[rows], masks[rows])
    return got, sequences


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
@pytest.mark.parametrize("players", ["heuristic", "random"])
def test_heuristic_group_matches_per_game_act(num_players, players):
    # heuristic play follows the plans (the planned-ahead path); random play breaks them (re-planning)
    kinds = (HeuristicAgent,) if players == "heuristic" else (RandomAgent,)
    obs, masks, owners = _decisions(num_players, games=3, seed=500 + num_players, kinds=kinds)
    for make in (HeuristicAgent, lambda: HeuristicAgent(card_bonus=1.0, opponent_weight=0.3)):
        got, sequences = _lockstep(owners, obs, masks, make)
        expected = np.full(len(obs), -1)
        for rows in sequences.values():
            agent = make()
            agent.reset()
            expected[rows] = [agent.act(obs[i], masks[i]) for i in rows]
        np.testing.assert_array_equal(got, expected)


def test_heuristic_act_batch_is_successive_act_on_one_agent():
    obs, masks, owners = _decisions(3, games=2, seed=42, kinds=(HeuristicAgent, GreedyAgent))
    rows = [i for i, owner in enumerate(owners) if owner == (0, 1)]
    reference = HeuristicAgent()
    expected = [reference.act(obs[i], masks[i]) for i in rows]
    batched = HeuristicAgent()
    np.testing.assert_array_equal(batched.act_batch(obs[rows], masks[rows]), expected)
    assert batched._plan == reference._plan  # the same memory afterwards, too


def test_heuristic_with_non_integral_worths_takes_the_per_row_path():
    obs, masks, owners = _decisions(2, games=1, seed=9, kinds=(HeuristicAgent,))
    agent = HeuristicAgent(card_bonus=0.3)
    _, planned = agent.plan_rounds(obs)
    assert not planned.any()
    got, sequences = _lockstep(owners, obs, masks, lambda: HeuristicAgent(card_bonus=0.3))
    for rows in sequences.values():
        ref = HeuristicAgent(card_bonus=0.3)
        np.testing.assert_array_equal(got[rows], [ref.act(obs[i], masks[i]) for i in rows])


def test_heuristic_group_needs_one_agent_per_row():
    obs, masks, _ = _decisions(2, games=1, seed=3, kinds=(RandomAgent,))
    with pytest.raises(ValueError, match="one agent per row"):
        HeuristicAgent.act_group([HeuristicAgent()], obs[:3], masks[:3])
    bad = masks[:3].copy()
    bad[1] = 0
    with pytest.raises(ValueError, match="no legal action"):
        HeuristicAgent.act_group([HeuristicAgent() for _ in range(3)], obs[:3], bad)


# --------------------------------------------------------------------- many states, mixed play
MIXED = (HeuristicAgent, GreedyAgent, RandomAgent)


def test_stacked_matmul_is_the_blas_dot_bit_for_bit():
    """``round_gains`` takes the dots of one length through one stacked ``np.matmul``: numpy must run
    each item through the same BLAS dot as ``a @ b`` on the two vectors (a naive sum is not it)."""
    rng = np.random.default_rng(0)
    naive_differs = False
    for length in range(1, 13):
        a = rng.random((4000, length)) * rng.choice([1e-3, 1.0, 7.0], size=(4000, 1))
        b = rng.random((4000, length)) * 37.3
        stacked = np.matmul(a[:, None, :], b[:, :, None])[:, 0, 0]
        np.testing.assert_array_equal(stacked, [x @ y for x, y in zip(a, b)])
        naive_differs |= bool((stacked != (a * b).sum(axis=1)).any())
    assert naive_differs  # the check can tell summation orders apart


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_heuristic_round_gains_bit_for_bit_on_many_mixed_states(num_players):
    obs, _, _ = _decisions(num_players, games=6, seed=900 + num_players, kinds=MIXED)
    start = np.array([Fight5View.decode(o).slot == 0 for o in obs])
    obs = obs[start]  # round starts: where plans are made
    assert len(obs) >= 60
    heuristic = HeuristicAgent()
    hand = np.array([Fight5View.decode(o).hand for o in obs])
    gains = heuristic.round_gains(obs, hand > 0)
    for i in range(len(obs)):
        view = Fight5View.decode(obs[i])
        cards = view.hand_cards()
        for k in range(5):
            assert np.array_equal(gains[i, k, cards], heuristic.clash_values(view, k, cards)), (i, k)


def test_heuristic_group_matches_per_game_act_on_many_mixed_states():
    """Many games at every player count, seats played by heuristic, greedy and random agents; one
    heuristic per (game, seat) acts on that seat's decisions, the calls mixing rows of different
    games, player counts and slots in random groups and orders; every action equals the per-game one."""
    obs, masks, owners = [], [], []
    for n in PLAYER_COUNTS:
        o, m, w = _decisions(n, games=8, seed=4000 + n, kinds=MIXED)
        obs.append(o)
        masks.append(m)
        owners += [(n, g, s) for g, s in w]
    obs, masks = np.concatenate(obs), np.concatenate(masks)
    sequences = defaultdict(list)
    for i, owner in enumerate(owners):
        sequences[owner].append(i)
    expected = np.full(len(obs), -1)
    for rows in sequences.values():
        agent = HeuristicAgent()
        agent.reset()
        expected[rows] = [agent.act(obs[i], masks[i]) for i in rows]
    rng = np.random.default_rng(0)
    agents = {owner: HeuristicAgent() for owner in sequences}
    progress = {owner: 0 for owner in sequences}
    got = np.full(len(obs), -1)
    while any(progress[o] < len(r) for o, r in sequences.items()):
        live = [o for o, r in sequences.items() if progress[o] < len(r)]
        chosen = [live[i] for i in rng.permutation(len(live))[: rng.integers(1, len(live) + 1)]]
        rows = [sequences[o][progress[o]] for o in chosen]
        got[rows] = HeuristicAgent.act_group([agents[o] for o in chosen], obs[rows], masks[rows])
        for o in chosen:
            progress[o] += 1
    assert len(obs) > 3000
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_greedy_batch_matches_act_on_mixed_play_states(num_players):
    obs, masks, _ = _decisions(num_players, games=10, seed=7000 + num_players, kinds=MIXED)
    greedy = GreedyAgent()
    np.testing.assert_array_equal(greedy.act_batch(obs, masks), [greedy.act(o, m) for o, m in zip(obs, masks)])
