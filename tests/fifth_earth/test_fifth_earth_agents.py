"""Fifth-Earth baselines: legal play at every count, decisions in known spots, the registry, strength."""

from __future__ import annotations

import numpy as np
import pytest
from fifth_earth_helpers import ND, cid, run, start
from fifth_earth_helpers import challenge as do_challenge
from fifth_earth_helpers import choose as do_choose

from agents.arena import play_game
from agents.base import RandomAgent
from agents.fifth_earth import HeuristicAgent
from agents.registry import list_agents, make_agent
from fight_envs import fifth_earth_v0
from fight_envs.games.fifth_earth.observe import encode

P0 = ["Greytok 1", "Ashvane 4", "Jadeclaw 1", "Hollowjaw 3", "Dunspear 2", "Lumenor 2", "Kestrelin 1", "Wyrmholt 4"]
P1 = run("Mirehound", 4) + run("Thornvyre", 4)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_heuristic_plays_only_legal_actions_to_the_end(n: int) -> None:
    env = fifth_earth_v0.raw_env(num_players=n)  # the raw env raises on any illegal action
    agents = [HeuristicAgent() if s % 2 == 0 else RandomAgent() for s in range(n)]
    result = play_game(env, agents, seed=n)
    assert env.game.is_terminal() and sorted(result.returns.tolist()).count(1.0) <= 1


def test_heuristic_beats_a_single_cheaply_and_sacrifices_against_a_run() -> None:
    agent = HeuristicAgent()
    game = start([P0, P1], [6, 5, *ND, 6, 4, 2, 1])
    do_choose(game, 0)
    do_challenge(game, 0, 1)
    game.apply_action(1, cid("Thornvyre 2"))  # one card: credited with 6.5 + 1.5 = 8
    action = agent.act(encode(game, 0), game.legal_action_mask(0))
    assert action == cid("Wyrmholt 4"), "the weakest single reaching 8 (Wyrmholt 4 = 9; Ashvane 4 = 10)"
    other = start([P0, P1], [6, 5, *ND, 6, 4, 2, 1])
    do_choose(other, 0)
    do_challenge(other, 0, 1)
    other.apply_action(1, 100 + 3 * 13 + 2)  # Mirehound stages 1-4 (34): four cards laid
    action = agent.act(encode(other, 0), other.legal_action_mask(0))
    assert action == cid("Greytok 1"), "nothing reaches a four-card lay: throw the weakest card"


def test_heuristic_lays_its_median_card_first_and_challenges_the_smallest_hand() -> None:
    agent = HeuristicAgent()
    game = start([P0, P1], [6, 5, *ND, 6, 4, 2, 1, *ND, *ND])
    do_choose(game, 0)
    do_challenge(game, 0, 1)
    game.apply_action(1, cid("Thornvyre 1"))
    game.apply_action(0, cid("Ashvane 4"))  # P0 wins fight 1 and lays first in fight 2
    powers = sorted(game.cards.card_power[np.flatnonzero(game.hands[0])])
    action = agent.act(encode(game, 0), game.legal_action_mask(0))
    assert game.cards.card_power[action] == powers[len(powers) // 2]
    four = start([P0, P1, run("Greytok", 4)[1:] + ["Ashvane 1", "Ashvane 2", "Ashvane 3", "Zephyrane 1", "Zephyrane 2"],
                  run("Oakshade", 4) + run("Umberfell", 4)], [6, 5, *ND, *ND, *ND, 6, 6, 6, 4, 3, 4, *ND])
    do_choose(four, 0)
    # seeding: P0 12, P1 10, P2 7, P3 3: all hands hold 8, so the first candidate (P1) is taken
    assert four.current_player() == 0
    assert agent.act(encode(four, 0), four.legal_action_mask(0)) == 200


def test_registry_lists_the_games_baselines() -> None:
    assert list_agents("fifth_earth_v0") == ["random", "heuristic"]
    assert isinstance(make_agent("heuristic", game="fifth_earth", seed=1), HeuristicAgent)


@pytest.mark.slow
def test_heuristic_is_stronger_than_random_in_two_player_duplicate_games() -> None:
    from agents.evaluate import versus_baseline

    stats = versus_baseline(lambda: fifth_earth_v0.env(num_players=2), HeuristicAgent(), RandomAgent(), 300, seed=2026)
    assert stats.win_ci[0] > 0.5, f"heuristic vs random {stats.win_rate:.3f} {stats.win_ci}"
