"""The policy mapping of RLlib self-play: one learner per game, opponents drawn by weight, the same
table for every agent of an episode."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import pytest

from fight_envs.train.rllib import league

AGENTS = [f"player_{k}" for k in range(12)]


def episode(eid: str, n: int) -> SimpleNamespace:
    return SimpleNamespace(id_=eid, observation_space={a: None for a in AGENTS[:n]})


@pytest.fixture(autouse=True)
def restore_weights():
    saved = league.current_weights()
    yield
    league.set_weights(saved)


@pytest.mark.parametrize("n", [2, 5, 12])
def test_one_learner_per_game_and_the_same_table_whoever_asks_first(n):
    league.set_weights({"random": 1.0, "greedy": 1.0, "self_0": 1.0})
    for k in range(50):
        ep = episode(f"ep-{k}", n)
        forward = [league.agent_to_module(a, ep) for a in AGENTS[:n]]
        backward = [league.agent_to_module(a, ep) for a in reversed(AGENTS[:n])][::-1]
        assert forward == backward
        assert forward.count(league.LEARNER) == 1
        assert set(forward) - {league.LEARNER} <= {"random", "greedy", "self_0"}


def test_agent_order_is_numeric_not_lexicographic():
    ep = episode("x", 12)
    assert league._agent_order(ep) == AGENTS  # player_10 after player_9


def test_learner_seat_is_uniform_and_opponents_follow_the_weights():
    league.set_weights({"random": 3.0, "heuristic": 1.0})
    seats, opponents = Counter(), Counter()
    for k in range(4000):
        table = [league.agent_to_module(a, episode(f"e{k}", 2)) for a in AGENTS[:2]]
        seats[table.index(league.LEARNER)] += 1
        opponents[next(m for m in table if m != league.LEARNER)] += 1
    assert abs(seats[0] / 4000 - 0.5) < 0.04
    assert abs(opponents["random"] / 4000 - 0.75) < 0.04
    assert set(opponents) == {"random", "heuristic"}


def test_zero_weights_are_refused_and_dropped():
    with pytest.raises(ValueError, match="weight 0"):
        league.set_weights({"random": 0.0})
    league.set_weights({"random": 1.0, "greedy": 0.0})
    assert league.current_weights() == {"random": 1.0}


def test_sync_sets_weights_and_drains_results():
    league._RESULTS.extend([(["random"], 1.0), (["self_1"], 0.0)])
    drained = league.sync({"greedy": 2.0})
    assert drained == [(["random"], 1.0), (["self_1"], 0.0)]
    assert league.sync({"greedy": 2.0}) == []
    assert league.current_weights() == {"greedy": 2.0}
