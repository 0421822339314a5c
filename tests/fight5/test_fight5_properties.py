"""Property tests over random seeded Fight 5 games (2-5 players), with Hypothesis.

At every step of every game: every card of every deck is in exactly one place; each agent's
mask is the legal set for the acting agent and zero for everyone else; scores, bout points and
Point Pile worth are multiples of 5 within what the dealt cards allow; observations lie in the
observation space. Separately: an observation (and a rendering) does not change when only
information hidden from its observer changes.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fight_envs import fight5_v0
from fight_envs.games.fight5.observe import encode
from fight_envs.games.fight5.render import render_text
from fight_envs.games.fight5.rules import BoutDeal, Fight5Config, Fight5Game
from fight_envs.testing import assert_cards_conserved, hidden_variants

PLAYERS = st.integers(2, 5)
SEEDS = st.integers(0, 2**32 - 1)


def deal_points(game: Fight5Game, deal: BoutDeal) -> int:
    """Points of every card in a bout's deal: what all Point Piles together could be worth."""
    cards = [r for s in deal.clash_stacks for r in s] + [r for d in deal.player_decks for r in d]
    return int(game.points_per_rank[cards].sum())


def check_random_game(num_players: int, seed: int, policy_seed: int, num_bouts: int, target: int | None,
                      reward: str) -> None:
    env = fight5_v0.raw_env(num_players=num_players, num_bouts=num_bouts, target_score=target, reward=reward)
    env.reset(seed=seed)
    game = env.unwrapped.game
    space = env.observation_space(env.possible_agents[0])
    rng = np.random.default_rng(policy_seed)
    bonus = game.cards.most_cards_bonus
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        assert_cards_conserved(game)
        for other in env.agents:
            obs = env.observe(other)
            assert space.contains(obs), f"{other}'s observation is outside the observation space"
            seat = env.unwrapped.table.seat[other]
            mask = obs["action_mask"]
            assert obs["observation"].tobytes() == encode(game, seat).tobytes(), "the env's cached view is stale"
            if other == agent and not term:
                # Legal = the ranks in hand (the acting seat always has a card for its next slot).
                assert np.flatnonzero(mask).tolist() == game.legal_actions(seat) != []
                assert np.flatnonzero(mask).tolist() == np.flatnonzero(game.hands[seat]).tolist()
            else:
                assert not mask.any(), f"{other} is not acting but has mask {mask}"
        assert (game.scores % 5 == 0).all() and (game.pile_points() % 5 == 0).all()
        assert (game.scores >= 0).all()
        current_max = deal_points(game, game.deals_used[game.bout]) if game.bout < len(game.deals_used) else 0
        assert game.pile_points().sum() <= current_max or game.is_terminal()
        for b, points in enumerate(game.bout_points):
            assert (points % 5 == 0).all() and (points >= 0).all()
            assert points.sum() <= deal_points(game, game.deals_used[b]) + bonus * num_players
            assert (points >= bonus).any() == (points.sum() > 0), "someone gets the bonus iff a card was won"
        assert (game.scores == sum(game.bout_points, np.zeros(num_players, dtype=np.int64))).all()
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    assert game.is_terminal()
    if target is None:
        assert len(game.bout_points) == num_bouts
    else:
        bouts = len(game.bout_points)
        reached = [int(np.sum(game.bout_points[:b + 1], axis=0).max()) >= target for b in range(bouts)]
        assert reached[:-1] == [False] * (bouts - 1), "the game ran past the bout that reached the target"
        assert reached[-1] or bouts == num_bouts


GAME_ARGS = dict(num_players=PLAYERS, seed=SEEDS, policy_seed=SEEDS, num_bouts=st.integers(1, 2),
                 target=st.sampled_from([None, 40, 200]), reward=st.sampled_from(["outcome", "score"]))


@settings(max_examples=15)
@given(**GAME_ARGS)
def test_random_play_invariants(num_players: int, seed: int, policy_seed: int, num_bouts: int,
                                target: int | None, reward: str) -> None:
    check_random_game(num_players, seed, policy_seed, num_bouts, target, reward)


@pytest.mark.slow
@settings(max_examples=300)
@given(**GAME_ARGS)
def test_random_play_invariants_long(num_players: int, seed: int, policy_seed: int, num_bouts: int,
                                     target: int | None, reward: str) -> None:
    check_random_game(num_players, seed, policy_seed, num_bouts, target, reward)


@settings(max_examples=15)
@given(num_players=PLAYERS, seed=SEEDS, policy_seed=SEEDS)
def test_parallel_masks_are_the_legal_sets(num_players: int, seed: int, policy_seed: int) -> None:
    env = fight5_v0.parallel_raw_env(num_players=num_players, num_bouts=1, mask_in_info=True)
    obs, infos = env.reset(seed=seed)
    game = env.unwrapped.game
    space = env.observation_space(env.possible_agents[0])
    rng = np.random.default_rng(policy_seed)
    while env.agents:
        for agent in env.agents:
            seat = env.table.seat[agent]
            assert space.contains(obs[agent])
            assert np.flatnonzero(obs[agent]["action_mask"]).tolist() == game.legal_actions(seat) != []
            assert (infos[agent]["action_mask"] == obs[agent]["action_mask"]).all()
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, _, _, _, infos = env.step(actions)
        assert_cards_conserved(game)
    assert all(not o["action_mask"].any() for o in obs.values())


def check_hidden_information(num_players: int, seed: int, policy_seed: int) -> int:
    """Play one bout; at random steps compare each seat's view of the game and of its hidden variants."""
    game = Fight5Game(Fight5Config(num_players=num_players, num_bouts=1, target_score=None))
    game.new_game(np.random.default_rng(seed))
    rng = np.random.default_rng(policy_seed)
    checked = 0
    while not game.is_terminal():
        if rng.random() < 0.1:
            for observer in range(num_players):
                base_obs = encode(game, observer)
                base_mask = game.legal_action_mask(observer)
                base_text = render_text(game, observer)
                for change, variant in hidden_variants(game, observer, rng).items():
                    assert_cards_conserved(variant)
                    assert encode(variant, observer).tobytes() == base_obs.tobytes(), f"seat {observer} sees {change}"
                    assert (variant.legal_action_mask(observer) == base_mask).all(), change
                    assert render_text(variant, observer) == base_text, f"seat {observer}'s rendering shows {change}"
                    checked += 1
        seat = game.current_player()
        game.apply_action(seat, int(rng.choice(game.legal_actions(seat))))
    return checked


@settings(max_examples=10)
@given(num_players=PLAYERS, seed=SEEDS, policy_seed=SEEDS)
def test_observations_ignore_hidden_information(num_players: int, seed: int, policy_seed: int) -> None:
    check_hidden_information(num_players, seed, policy_seed)


@pytest.mark.slow
@settings(max_examples=200)
@given(num_players=PLAYERS, seed=SEEDS, policy_seed=SEEDS)
def test_observations_ignore_hidden_information_long(num_players: int, seed: int, policy_seed: int) -> None:
    check_hidden_information(num_players, seed, policy_seed)


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_hidden_information_check_sees_every_kind_of_change(num_players: int) -> None:
    game = Fight5Game(Fight5Config(num_players=num_players, num_bouts=1, target_score=None))
    game.new_game(np.random.default_rng(11))
    rng = np.random.default_rng(5)
    for _ in range(num_players * 5 + 2):  # into round 2: seat 0 has filled two slots of this round
        seat = game.current_player()
        game.apply_action(seat, int(rng.choice(game.legal_actions(seat))))
    variants = hidden_variants(game, num_players - 1, rng)
    kinds = {name.rstrip("0123456789").rstrip("_") for name in variants}
    expected = {"permute_deck", "permute_stacks", "swap_hand_with_deck", "swap_slot_with_hand"}
    if num_players < 5:  # with five players every Clash Card is dealt: nothing is set aside
        expected.add("swap_stack_with_set_aside")
    assert kinds == expected
    assert check_hidden_information(num_players, 3, 4) > 0


def test_observation_changes_when_something_the_observer_may_see_changes() -> None:
    """The comparisons above can fail: changes visible to seat 0 change its observation."""
    game = Fight5Game(Fight5Config(num_players=3))
    game.new_game(np.random.default_rng(2))
    before = encode(game, 0).tobytes()
    # Hidden from seat 1, but it is seat 0's own hand.
    own_hand = hidden_variants(game, 1, np.random.default_rng(0))["swap_hand_with_deck_0"]
    assert encode(own_hand, 0).tobytes() != before
    game.point_pile[1, 3, 0] += 1  # a card in seat 1's Point Pile: public
    assert encode(game, 0).tobytes() != before
