"""Elo by maximum likelihood: recovery of known ratings, anchoring, bootstrap errors; round robins."""

from __future__ import annotations

import numpy as np
import pytest

from fight_envs.agents.base import RandomAgent
from fight_envs.agents.fight5 import GreedyAgent, HeuristicAgent
from fight_envs.agents.ratings import expected_score, fit_bradley_terry, elo_ratings
from fight_envs.agents.tournament import pairwise_from_game, round_robin
from fight_envs import fight5_v0


def _synthetic(true_elo, num_games, seed):
    rng = np.random.default_rng(seed)
    k = len(true_elo)
    i = rng.integers(k, size=num_games)
    j = (i + rng.integers(1, k, size=num_games)) % k
    p = 1.0 / (1.0 + 10 ** ((true_elo[j] - true_elo[i]) / 400.0))
    return i, j, (rng.random(num_games) < p).astype(np.float64)


def test_fit_recovers_known_ratings_and_ordering():
    true_elo = np.array([1000.0, 1250.0, 1500.0, 1100.0, 1320.0])
    labels = ["random-v1", "b", "c", "d", "e"]
    i, j, s = _synthetic(true_elo, 20000, seed=0)
    table = elo_ratings(labels, i, j, s, bootstrap=50, seed=1)
    assert table.order() == list(np.argsort(-true_elo))
    assert table.rating[0] == 1000.0 and table.anchor == "random-v1"
    np.testing.assert_allclose(table.rating, true_elo, atol=35)
    assert table.se[0] == 0.0 and np.all(table.se[1:] > 0) and np.all(table.se[1:] < 25)
    # The errors are honest: the truth lies within 3 s.e. of every estimate.
    assert np.all(np.abs(table.rating - true_elo)[1:] < 3 * table.se[1:] + 1e-9)
    assert table.games.sum() == 2 * 20000
    text = table.format()
    assert text.index(" c ") < text.index(" e ") < text.index(" b ")


def test_draws_count_half_and_the_mle_matches_the_observed_rate():
    # 70 wins, 20 losses, 10 draws: the fitted expected score equals the observed 0.75.
    score = np.array([1.0] * 70 + [0.0] * 20 + [0.5] * 10)
    theta = fit_bradley_terry(2, np.zeros(100, int), np.ones(100, int), score, prior_draws=0.0)
    elo = theta * 400 / np.log(10)
    assert expected_score(elo[0], elo[1]) == pytest.approx(0.75)


def test_perfect_records_stay_finite_and_anchor_falls_back_to_the_mean():
    i = np.zeros(50, int)
    j = np.ones(50, int)
    table = elo_ratings(["a", "b"], i, j, np.ones(50), anchor="random", bootstrap=20)
    assert table.anchor is None
    assert np.isfinite(table.rating).all() and table.rating[0] > table.rating[1] + 400
    assert table.rating.mean() == pytest.approx(1000.0)


def test_rating_errors():
    with pytest.raises(ValueError, match="no chain of games links"):
        fit_bradley_terry(3, np.array([0]), np.array([1]), np.array([1.0]))
    with pytest.raises(ValueError, match="two different agents"):
        fit_bradley_terry(2, np.array([0]), np.array([0]), np.array([1.0]))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        fit_bradley_terry(2, np.array([0]), np.array([1]), np.array([2.0]))


def test_pairwise_comparisons_of_one_game():
    returns = np.array([-1.0, 1.0, -1.0])
    scores = np.array([80.0, 120.0, 80.0])
    assert pairwise_from_game(returns, scores) == [(0, 1, 0.0), (0, 2, 0.5), (1, 2, 1.0)]
    returns = np.array([-1.0, -1.0, 1.0])
    scores = np.array([90.0, 60.0, 150.0])
    assert pairwise_from_game(returns, scores)[0] == (0, 1, 1.0)  # a loss ranked by score


def test_two_player_round_robin_plays_every_pair_and_rates():
    env_fn = lambda: fight5_v0.raw_env(num_players=2)  # noqa: E731
    agents = [RandomAgent(), GreedyAgent(), HeuristicAgent()]
    result = round_robin(env_fn, agents, num_deals=8, seed=3, bootstrap=30)
    assert [m.members for m in result.matches] == [(0, 1), (0, 2), (1, 2)]
    assert len(result.comparisons["i"]) == 3 * 8 * 2
    assert result.ratings.rating[0] == 1000.0
    assert result.ratings.order()[0] == 2  # the heuristic tops even a short tournament
    score, games = result.head_to_head()
    np.testing.assert_allclose(score + score.T, np.where(games > 0, 1.0, np.nan))
    assert "head to head" in result.table() and "heuristic-v1" in result.table()
    again = round_robin(env_fn, [RandomAgent(), GreedyAgent(), HeuristicAgent()], num_deals=8, seed=3, bootstrap=30)
    np.testing.assert_array_equal(again.ratings.rating, result.ratings.rating)
    np.testing.assert_array_equal(again.ratings.se, result.ratings.se)


def test_multiplayer_round_robin_plays_every_group():
    env_fn = lambda: fight5_v0.raw_env(num_players=3)  # noqa: E731
    agents = [RandomAgent(), GreedyAgent(), RandomAgent(seed=1), GreedyAgent(seed=1)]
    result = round_robin(env_fn, agents, num_deals=2, seed=0, bootstrap=10)
    assert [m.members for m in result.matches] == [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)]
    # Every game of three gives three comparisons.
    assert len(result.comparisons["i"]) == 4 * 2 * 3 * 3
    with pytest.raises(ValueError, match="at least 3 agents"):
        round_robin(env_fn, agents[:2], num_deals=1)


def test_without_bootstrap_errors_are_unknown_but_ratings_fit():
    i, j, s = _synthetic(np.array([1000.0, 1200.0]), 500, seed=2)
    table = elo_ratings(["random", "x"], i, j, s, bootstrap=0)
    assert table.bootstrap == 0 and np.isnan(table.se).all()
    assert table.rating[1] > table.rating[0] == 1000.0
