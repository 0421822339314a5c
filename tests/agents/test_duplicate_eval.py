"""Duplicate-format evaluation: determinism, every deal from every seat, win credit, intervals."""

from __future__ import annotations

import numpy as np
import pytest

from fight_envs.agents.arena import agent_seed
from fight_envs.agents.base import RandomAgent
from fight_envs.agents.evaluate import GamePlayed, deal_seeds, evaluate, format_table, mean_ci, versus_baseline
from fight_envs.agents.fight5 import GreedyAgent, HeuristicAgent
from fight_envs import fight5_v0


class SpyAgent(RandomAgent):
    """Random play that records the seed it gets before each game (the arena derives it from the
    game seed and the seat)."""

    def __init__(self, tag: str) -> None:
        super().__init__()
        self.tag = tag
        self.seeds: list[int | None] = []

    def seed(self, seed):
        self.seeds.append(seed)
        super().seed(seed)


class RecordingEnv(fight5_v0.raw_env):
    """The raw env, remembering the seed and first deal of every reset."""

    log: list[tuple[int, dict]] = []

    def reset(self, seed=None, options=None):
        super().reset(seed=seed, options=options)
        RecordingEnv.log.append((seed, self.game.deals_used[0].to_json()))


@pytest.mark.parametrize("num_players", [2, 3])
def test_every_deal_is_played_once_from_every_seat(num_players):
    RecordingEnv.log = []
    spies = [SpyAgent(f"a{i}") for i in range(num_players)]
    result = evaluate(lambda: RecordingEnv(num_players=num_players), spies, num_deals=4, seed=9)
    seeds = deal_seeds(9, 4)
    assert len(result.games) == 4 * num_players
    # The env was reset with each deal's seed once per rotation, and dealt the same cards each time.
    played = [s for s, _ in RecordingEnv.log]
    assert played == [s for s in seeds for _ in range(num_players)]
    for d in range(4):
        deals = [deal for s, deal in RecordingEnv.log if s == seeds[d]]
        assert all(deal == deals[0] for deal in deals)
    # Each agent sat in every seat of every deal exactly once: the seeds it received are the
    # arena's per-seat seeds of that deal, one per seat.
    for i, spy in enumerate(spies):
        assert len(spy.seeds) == 4 * num_players
        for d, s in enumerate(seeds):
            got = spy.seeds[d * num_players:(d + 1) * num_players]
            assert sorted(got) == sorted(agent_seed(s, seat) for seat in range(num_players))
    for g in result.games:
        assert sorted(g.seating) == list(range(num_players))
        assert g.seed == seeds[g.deal]
    seats_of_agent0 = {(g.deal, g.seating.index(0)) for g in result.games}
    assert seats_of_agent0 == {(d, s) for d in range(4) for s in range(num_players)}


def test_evaluation_is_identical_for_identical_seeds():
    env_fn = lambda: fight5_v0.raw_env(num_players=2)  # noqa: E731
    a = evaluate(env_fn, [GreedyAgent(), RandomAgent()], num_deals=6, seed=4)
    b = evaluate(env_fn, [GreedyAgent(), RandomAgent()], num_deals=6, seed=4)
    c = evaluate(env_fn, [GreedyAgent(), RandomAgent()], num_deals=6, seed=5)
    assert [(g.seed, g.rotation, g.scores.tolist()) for g in a.games] == [
        (g.seed, g.rotation, g.scores.tolist()) for g in b.games
    ]
    assert a.stats == b.stats
    assert [g.seed for g in a.games] != [g.seed for g in c.games]


def test_win_credit_and_margin_per_game():
    g = GamePlayed(0, 1, 0, [0, 1, 2], returns=np.array([0.0, 0.0, -1.0]), scores=np.array([90.0, 90.0, 30.0]))
    np.testing.assert_allclose(g.credit(), [0.5, 0.5, 0.0])
    np.testing.assert_allclose(g.margins(), [30.0, 30.0, -60.0])
    g = GamePlayed(0, 1, 0, [0, 1], returns=np.array([-1.0, 1.0]), scores=np.array([10.0, 50.0]))
    np.testing.assert_allclose(g.credit(), [0.0, 1.0])


def test_stats_use_the_deal_as_unit_and_sum_to_one():
    env_fn = lambda: fight5_v0.raw_env(num_players=3)  # noqa: E731
    result = evaluate(env_fn, [GreedyAgent(), RandomAgent(), RandomAgent()], num_deals=5, seed=2)
    per_deal = result.per_deal("credit")
    assert per_deal.shape == (5, 3)
    np.testing.assert_allclose(per_deal.sum(axis=1), 1.0)  # every game hands out exactly one win
    assert sum(s.win_rate for s in result.stats) == pytest.approx(1.0)
    for k, s in enumerate(result.stats):
        mean, lo, hi = mean_ci(per_deal[:, k])
        assert s.win_rate == pytest.approx(mean)
        assert s.win_ci == (pytest.approx(max(0.0, lo)), pytest.approx(min(1.0, hi)))
        assert s.games == 15 and s.sole_wins + s.shared_wins + s.losses == 15
    table = format_table(result)
    assert "greedy-v1" in table and "random-v1#1" in table and "15 games" in table


def test_mean_ci_methods():
    x = np.array([0.0, 1.0, 0.5, 1.0, 0.0, 0.5])
    m, lo, hi = mean_ci(x, "normal")
    assert m == pytest.approx(0.5)
    assert hi - m == pytest.approx(1.959963984540054 * x.std(ddof=1) / np.sqrt(6))
    b1 = mean_ci(x, "bootstrap", np.random.default_rng(0))
    b2 = mean_ci(x, "bootstrap", np.random.default_rng(0))
    assert b1 == b2 and b1[1] < m < b1[2]
    with pytest.raises(ValueError, match="normal, bootstrap"):
        mean_ci(x, "wald")


def test_versus_baseline_seats_the_agent_against_copies():
    env_fn = lambda: fight5_v0.raw_env(num_players=3)  # noqa: E731
    stats = versus_baseline(env_fn, HeuristicAgent(), RandomAgent(), num_deals=3, seed=0)
    assert stats.label == "heuristic-v1"
    assert stats.games == 9 and stats.deals == 3


def test_one_agent_object_in_two_seats_is_copied():
    env_fn = lambda: fight5_v0.raw_env(num_players=2)  # noqa: E731
    h = HeuristicAgent()
    result = evaluate(env_fn, [h, h], num_deals=3, seed=0)
    # A heuristic against itself in the duplicate format: the rotations mirror each other.
    assert result.stats[0].win_rate + result.stats[1].win_rate == pytest.approx(1.0)


def test_evaluate_rejects_bad_arguments():
    env_fn = lambda: fight5_v0.raw_env(num_players=3)  # noqa: E731
    with pytest.raises(ValueError, match="3 seats but 2 agents"):
        evaluate(env_fn, [RandomAgent(), RandomAgent()], num_deals=1)
    with pytest.raises(ValueError, match="num_deals"):
        evaluate(env_fn, [RandomAgent()] * 3, num_deals=0)
    with pytest.raises(ValueError, match="interval method"):
        evaluate(env_fn, [RandomAgent()] * 3, num_deals=1, ci="exact")


def _fight5_field(num_players: int) -> tuple:
    """A picklable ``build`` for ``evaluate_parallel`` (module-level, plain arguments): Fight 5's env and agents."""
    from fight_envs.agents.fight5 import GreedyAgent as Greedy, HeuristicAgent as Heuristic

    agents = [Heuristic(), Greedy(), RandomAgent()][:num_players]
    return (lambda: fight5_v0.raw_env(num_players=num_players)), agents


def test_evaluate_parallel_equals_evaluate() -> None:
    """Worker processes play the same games (every agent reseeded per game), so the result is the same
    game for game; bad arguments are refused before any worker starts."""
    import functools

    from fight_envs.agents.evaluate import evaluate_parallel

    build = functools.partial(_fight5_field, 3)
    env_fn, agents = build()
    serial = evaluate(env_fn, agents, 7, seed=11)
    done: list[int] = []
    parallel = evaluate_parallel(build, 7, seed=11, jobs=2, progress=lambda k, total: done.append(k))
    order = [(g.deal, g.rotation, g.seating) for g in serial.games]
    assert [(g.deal, g.rotation, g.seating) for g in parallel.games] == order
    assert all(np.array_equal(a.returns, b.returns) and np.array_equal(a.scores, b.scores)
               for a, b in zip(parallel.games, serial.games))
    assert parallel.stats == serial.stats and done[-1] == 21
    with pytest.raises(ValueError, match="jobs must be an int >= 1"):
        evaluate_parallel(build, 3, jobs=0)
    with pytest.raises(ValueError, match="3 seats but 2 agents"):
        evaluate_parallel(_two_agents_for_three_seats, 3, jobs=2)


def _two_agents_for_three_seats() -> tuple:
    return (lambda: fight5_v0.raw_env(num_players=3)), [RandomAgent(), RandomAgent()]
