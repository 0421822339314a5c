"""Fifth-Earth baselines: legal play at every count, decisions in known spots, the registry, strength."""

from __future__ import annotations

import numpy as np
import pytest
from fifth_earth_helpers import ND, cid, run, start
from fifth_earth_helpers import challenge as do_challenge
from fifth_earth_helpers import choose as do_choose

from fight_envs import fifth_earth_v0
from fight_envs.agents.arena import play_game
from fight_envs.agents.base import RandomAgent
from fight_envs.agents.fifth_earth import HeuristicAgent
from fight_envs.agents.registry import list_agents, make_agent
from fight_envs.games.fifth_earth.cards import DEFAULT_CARDS
from fight_envs.games.fifth_earth.observe import encode, player_slice
from fight_envs.games.fifth_earth.rules import FifthEarthGame

P0 = ["Greytok 1", "Ashvane 4", "Jadeclaw 1", "Hollowjaw 3", "Dunspear 2", "Lumenor 2", "Kestrelin 1", "Wyrmholt 4"]
P1 = run("Mirehound", 4) + run("Thornvyre", 4)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_heuristic_plays_only_legal_actions_to_the_end(n: int) -> None:
    env = fifth_earth_v0.raw_env(num_players=n)  # the raw env raises on any illegal action
    agents = [HeuristicAgent() if s % 2 == 0 else RandomAgent() for s in range(n)]
    result = play_game(env, agents, seed=n)
    assert env.game.is_terminal() and sorted(result.returns.tolist()).count(1.0) <= 1


STRONG = ["Lumenor 4", "Brimmeld 4", "Gallowmere 4", "Quillfang 4", "Vexmora 4", "Lumenor 3", "Brimmeld 3",
          "Gallowmere 3"]
"""Five 12s and three 8s (the packaged data): P0's best single (11) beats only the 8s."""


def opened_against(p1: list[str], seen: bool) -> FifthEarthGame:
    """P0 (P0 hand) is to answer P1's first lay; ``seen``: every card P1 holds was revealed before."""
    game = start([P0, p1], [6, 5, *ND, 6, 4, 2, 1], cards=DEFAULT_CARDS)
    do_choose(game, 0)
    do_challenge(game, 0, 1)
    if seen:  # as if earlier fights had shown them all: their places are public (gap 21)
        game.revealed[[cid(c) for c in p1]] = 1
    return game


def test_heuristic_spends_its_best_card_on_an_unknown_single_and_sacrifices_against_a_run() -> None:
    agent = HeuristicAgent()
    game = opened_against(P1, seen=False)
    game.apply_action(1, cid("Thornvyre 2"))
    # Nothing known of P1's hand: a stage-4 card (11) wins most of the time and takes a card.
    assert agent.act(encode(game, 0), game.legal_action_mask(0)) == cid("Ashvane 4")
    # Counting the cost of resting a strong card (rest_power): its single is most likely its
    # weakest card, which a 3 beats nearly as surely, so the 3 is laid and the 11s are kept.
    assert HeuristicAgent(rest_power=0.15).act(encode(game, 0), game.legal_action_mask(0)) == cid("Dunspear 2")
    other = opened_against(P1, seen=False)
    other.apply_action(1, 100 + 3 * 13 + 2)  # four cards laid: a full run, 20 at least
    assert agent.act(encode(other, 0), other.legal_action_mask(0)) == cid("Greytok 1"), \
        "no single reaches a four-card run: throw the weakest card instead of feeding it power"


def test_keep_runs_option_throws_a_card_that_keeps_a_stage_run_whole() -> None:
    """Option keep_runs (off by default): a single that breaks my stage-1-and-2 pair costs
    ``keep_runs``, so against a four-card run it throws Kestrelin 1 (2) and keeps Greytok 1-2."""
    hand = ["Greytok 1", "Greytok 2", "Ashvane 4", "Hollowjaw 3", "Dunspear 2", "Lumenor 2", "Kestrelin 1", "Wyrmholt 4"]
    game = start([hand, P1], [6, 5, *ND, 6, 4, 2, 1], cards=DEFAULT_CARDS)
    do_choose(game, 0)
    do_challenge(game, 0, 1)
    game.apply_action(1, 100 + 3 * 13 + 2)  # a full run: no lay of P0's beats it
    obs, mask = encode(game, 0), game.legal_action_mask(0)
    assert HeuristicAgent().act(obs, mask) == cid("Greytok 1"), "by default the weakest card is thrown"
    assert HeuristicAgent(keep_runs=1.0).act(obs, mask) == cid("Kestrelin 1")


def test_heuristic_reads_the_revealed_cards_in_the_opponents_hand() -> None:
    agent = HeuristicAgent()
    blind = opened_against(STRONG, seen=False)
    blind.apply_action(1, cid("Lumenor 3"))
    assert agent.act(encode(blind, 0), blind.legal_action_mask(0)) == cid("Ashvane 4")
    known = opened_against(STRONG, seen=True)
    known.apply_action(1, cid("Lumenor 3"))
    obs = encode(known, 0)
    assert obs[player_slice(1, "known_hand")].sum() == 8, "the eight revealed cards, the face-down one among them"
    # Five of its eight cards are 12s: laid at random, an 11 loses too often, so the weakest card
    # is thrown; a sensible first layer throws its weakest card (an 8), which the 11 beats.
    uniform = HeuristicAgent(weak_prior=0.0, strong_prior=0.0, read_style=False)
    assert uniform.act(obs, known.legal_action_mask(0)) == cid("Greytok 1")
    assert agent.act(obs, known.legal_action_mask(0)) == cid("Ashvane 4")


def _last_lay(obs: np.ndarray, stage: int, won: bool) -> np.ndarray:
    """``obs`` with the opponent's (seat offset 1) last fight rewritten: one card of ``stage``, ``won`` or lost."""
    out = obs.copy()
    stages = player_slice(1, "last_stages")
    out[stages] = 0
    out[stages.start + stage - 1] = 1
    out[player_slice(1, "last_won")] = float(won)
    return out


def test_heuristic_reads_the_opponents_style_from_its_last_lay() -> None:
    agent = HeuristicAgent()
    known = opened_against(STRONG, seen=True)
    known.apply_action(1, cid("Lumenor 3"))
    obs, mask = encode(known, 0), known.legal_action_mask(0)
    # Nothing read (fight 1): its single is most likely its weakest, an 8, which the 11 beats.
    assert agent.act(obs, mask) == cid("Ashvane 4")
    # It lost its last fight with a stage-4 single: a bidder, whose single is likely a 12 now.
    assert agent.act(_last_lay(obs, 4, won=False), mask) == cid("Greytok 1")
    # A fight it won, or an agent told not to read styles, says nothing.
    assert agent.act(_last_lay(obs, 4, won=True), mask) == cid("Ashvane 4")
    assert HeuristicAgent(read_style=False).act(_last_lay(obs, 4, won=False), mask) == cid("Ashvane 4")
    # Laying first against a thrower (it lost its last fight with a stage-2 single) the weakest
    # single is laid: a thrower beats only what it surely beats.
    hand = ["Greytok 1", "Lumenor 4", "Brimmeld 4", "Gallowmere 4", "Quillfang 4", "Vexmora 4", "Lumenor 3",
            "Brimmeld 3"]
    first = start([P1, hand], [6, 5, *ND, 6, 4, 2, 1], cards=DEFAULT_CARDS)
    do_choose(first, 0)
    do_challenge(first, 0, 1)
    obs, mask = encode(first, 1), first.legal_action_mask(1)
    assert agent.act(obs, mask) != cid("Greytok 1")
    assert agent.act(_last_lay(obs, 2, won=False), mask) == cid("Greytok 1")
    assert agent.act(_last_lay(obs, 3, won=False), mask) != cid("Greytok 1")


def test_heuristic_counts_the_power_cards_left_in_the_deck() -> None:
    from fight_envs.games.fifth_earth.observe import OBS_SLICES

    game = opened_against(P1, seen=False)
    obs = encode(game, 0)
    points = DEFAULT_CARDS.power_modifiers.astype(float)
    values, chances = HeuristicAgent()._power_swing(obs)
    assert chances.sum() == pytest.approx(1.0)
    # No difference: neither rolls a double, or both do and draw cards of equal points.
    same = sum((points == v).mean() ** 2 for v in set(points))
    assert chances[values == 0][0] == pytest.approx((5 / 6) ** 2 + same / 36)
    assert (values * chances).sum() == pytest.approx(0.0)  # the same deck for both
    # With every boost discarded, only setbacks are left: my swing can only go down if I draw.
    obs[OBS_SLICES["power"].start + 1 + np.flatnonzero(points > 0)] = 1
    values, chances = HeuristicAgent()._power_swing(obs)
    assert chances[values < 0].sum() == pytest.approx(chances[values > 0].sum())
    assert max(values) == -min(points) and min(values) == min(points)
    assert HeuristicAgent(power_cards=False)._power_swing(obs)[0].tolist() == [0.0]


def test_heuristic_values_a_match_by_the_tie_rule_it_is_told() -> None:
    elevens = [f"{name} 4" for name in ("Corrowyn", "Fenwraith", "Hollowjaw", "Kestrelin", "Mirehound", "Pyrecrest",
                                        "Ravenmoor", "Umberfell")]
    game = opened_against(elevens, seen=True)
    game.apply_action(1, cid("Mirehound 4"))  # an 11 for sure; P0's best is an 11 too
    obs, mask = encode(game, 0), game.legal_action_mask(0)
    # ties="first": a match loses to the first layer, so the weakest card is thrown.
    assert HeuristicAgent().act(obs, mask) == cid("Greytok 1")
    # ties="rolloff": a match wins half the time, worth more than a sure loss (counted without the
    # cost of resting the 11, which makes this even-money spot a close call).
    assert HeuristicAgent(ties="rolloff", rest_power=0.0).act(obs, mask) in (cid("Ashvane 4"), cid("Wyrmholt 4"))
    with pytest.raises(ValueError, match="ties must be one of"):
        HeuristicAgent(ties="coin")


def test_heuristic_challenges_the_smallest_hand() -> None:
    agent = HeuristicAgent()
    four = start([P0, P1, run("Greytok", 4)[1:] + ["Ashvane 1", "Ashvane 2", "Ashvane 3", "Zephyrane 1", "Zephyrane 2"],
                  run("Oakshade", 4) + run("Umberfell", 4)], [6, 5, *ND, *ND, *ND, 6, 6, 6, 4, 3, 4, *ND],
                 cards=DEFAULT_CARDS)
    do_choose(four, 0)
    # seeding: P0 12, P1 10, P2 7, P3 3: all hands hold 8, so the first candidate (P1) is taken
    assert four.current_player() == 0
    assert agent.act(encode(four, 0), four.legal_action_mask(0)) == 200


def test_registry_lists_the_games_baselines() -> None:
    assert list_agents("fifth_earth_v0")[:2] == ["random", "heuristic"]
    assert isinstance(make_agent("heuristic", game="fifth_earth", seed=1), HeuristicAgent)


@pytest.mark.slow
def test_heuristic_is_stronger_than_random_in_two_player_duplicate_games() -> None:
    from fight_envs.agents.evaluate import versus_baseline

    stats = versus_baseline(lambda: fifth_earth_v0.env(num_players=2), HeuristicAgent(), RandomAgent(), 300, seed=2026)
    assert stats.win_ci[0] > 0.55, f"heuristic vs random {stats.win_rate:.3f} {stats.win_ci}"


def test_one_line_baselines_are_registered_and_do_what_their_names_say() -> None:
    from fight_envs.agents.fifth_earth import LAY_POWER, CheapestBeatAgent, StrongestSingleAgent
    from fight_envs.agents.registry import list_agents, make_agent
    from fight_envs.games.fifth_earth.rules import DESTINATION_BASE

    assert {"strongest_single", "cheapest_beat"} <= set(list_agents("fifth_earth"))
    assert isinstance(make_agent("strongest_single", game="fifth_earth"), StrongestSingleAgent)
    assert isinstance(make_agent("cheapest_beat", game="fifth_earth"), CheapestBeatAgent)
    env = fifth_earth_v0.env(num_players=2)
    strongest, cheapest = StrongestSingleAgent(0), CheapestBeatAgent(0)
    for seed in range(4):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            legal = np.flatnonzero(mask)
            a = strongest.act(obs["observation"], mask)
            if legal[0] < DESTINATION_BASE:
                singles = legal[legal < 100]
                assert a < 100 and LAY_POWER[a] == LAY_POWER[singles].max()
                b = cheapest.act(obs["observation"], mask)
                assert mask[b]
            env.step(int(cheapest.act(obs["observation"], mask)))
