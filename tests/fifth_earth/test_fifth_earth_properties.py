"""Property tests: card conservation, masks equal to the legal set, every game ends, no leaks.

Games are played with random legal actions from hypothesis-drawn seeds over every player count
and both formats.
"""

from __future__ import annotations

import copy

import numpy as np
from fifth_earth_helpers import conservation_problems
from hypothesis import given, settings
from hypothesis import strategies as st

from fight_envs.core.errors import IllegalActionError
from fight_envs.games.fifth_earth.observe import encode
from fight_envs.games.fifth_earth.rules import (
    DESTINATION_BASE,
    NUM_ACTIONS,
    PHASE_LAY,
    FifthEarthConfig,
    FifthEarthGame,
    action_cards,
    character_of,
)

CONFIGS = st.builds(
    FifthEarthConfig,
    num_players=st.integers(2, 6),
    num_destinations=st.integers(1, 2),
    format=st.sampled_from(["knockout", "royale"]),
    won_cards=st.sampled_from(["spoils", "hand", "rest"]),
    max_fights=st.sampled_from([3, 40]),
    out_of_cards=st.sampled_from(["hand", "hand_and_rest"]),
    ties=st.sampled_from(["first", "rolloff"]),
    rules=st.sampled_from(["standard", "classic"]),
    characters=st.sampled_from([None, 12, 25]),
    between_rounds=st.sampled_from(["keep", "redeal"]),
    cap=st.sampled_from(["cards", "fights"]),
    ask=st.sampled_from(["all", "choices"]),
)


def play(config: FifthEarthConfig, seed: int, each_step=None) -> FifthEarthGame:
    game = FifthEarthGame(config)
    game.new_game(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    steps = 0
    while not game.is_terminal():
        seat = game.current_player()
        legal = game.legal_actions(seat)
        if each_step is not None:
            each_step(game, seat, legal, rng)
        game.apply_action(seat, legal[int(rng.integers(len(legal)))])
        steps += 1
        assert steps <= config.max_decisions(), "the game outlived its bound"
    return game


@settings(max_examples=25, deadline=None)
@given(config=CONFIGS, seed=st.integers(0, 2**31))
def test_cards_are_conserved_and_every_game_ends(config: FifthEarthConfig, seed: int) -> None:
    def check(game: FifthEarthGame, seat: int, legal: list[int], rng: np.random.Generator) -> None:
        assert not conservation_problems(game), conservation_problems(game)

    game = play(config, seed, check)
    assert not conservation_problems(game)
    assert int(game.destinations_won.sum()) == config.num_destinations
    assert sorted(game.returns().tolist()).count(1.0) <= 1


@settings(max_examples=15, deadline=None)
@given(config=CONFIGS, seed=st.integers(0, 2**31))
def test_mask_is_exactly_the_legal_set(config: FifthEarthConfig, seed: int) -> None:
    def check(game: FifthEarthGame, seat: int, legal: list[int], rng: np.random.Generator) -> None:
        for other in range(game.num_players):
            if other != seat:
                assert not game.legal_action_mask(other).any(), "only the acting seat has legal actions"
        mask = game.legal_action_mask(seat)
        assert mask.sum() >= 1 and list(np.flatnonzero(mask)) == legal
        # a few actions of each kind: masked ones apply, unmasked ones raise and change nothing
        for action in rng.choice(NUM_ACTIONS, size=6, replace=False):
            trial = copy.deepcopy(game)
            if mask[action]:
                trial.apply_action(seat, int(action))
            else:
                before = (trial.version, trial.hands.copy(), list(trial.dice_log))
                try:
                    trial.apply_action(seat, int(action))
                except IllegalActionError:
                    pass
                else:
                    raise AssertionError(f"unmasked action {action} was accepted")
                assert (trial.version, list(trial.dice_log)) == (before[0], before[2])
                assert np.array_equal(trial.hands, before[1])

    play(config, seed, check)


@settings(max_examples=15, deadline=None)
@given(config=CONFIGS, seed=st.integers(0, 2**31))
def test_observation_hides_what_a_seat_cannot_see(config: FifthEarthConfig, seed: int) -> None:
    """Changing an opponent's hand, its face-down cards, or the power deck's order changes nothing I see."""

    def check(game: FifthEarthGame, seat: int, legal: list[int], rng: np.random.Generator) -> None:
        n = game.num_players
        me = int(rng.integers(n))
        mine = encode(game, me)
        # Only the cards never revealed are hidden: a revealed card's place is public (gap 21).
        others = [s for s in range(n) if s != me and (game.hands[s] & (1 - game.revealed)).any()]
        undealt = np.flatnonzero(game.undealt)
        if others and undealt.size:
            s = others[int(rng.integers(len(others)))]
            v = copy.deepcopy(game)
            h = int(np.flatnonzero(v.hands[s] & (1 - v.revealed))[0])
            u = int(undealt[0])
            v.hands[s, h], v.hands[s, u] = 0, 1
            v.undealt[h], v.undealt[u] = 1, 0
            assert np.array_equal(encode(v, me), mine), "an opponent's hand leaked"
        if len(game.power_deck) > 1:
            v = copy.deepcopy(game)
            v.power_deck = v.power_deck[::-1]
            assert np.array_equal(encode(v, me), mine), "the power deck's order leaked"
        b = game.battle
        if game.phase == PHASE_LAY and b is not None and undealt.size:
            for s, laid in b.laid.items():
                # A revealed card's place is public, so only a never-revealed one may be swapped for
                # an undealt card (a revealed one laid again: the test below).
                if s != me and len(laid) == 1 and not game.revealed[laid[0]]:
                    v = copy.deepcopy(game)
                    u = int(undealt[0])
                    v.undealt[laid[0]], v.undealt[u] = 1, 0
                    v.battle.laid[s] = [u]
                    assert np.array_equal(encode(v, me), mine), "a face-down card leaked"

    play(config, seed, check)


@settings(max_examples=20, deadline=None)
@given(num_players=st.integers(2, 6), out_of_cards=st.sampled_from(["hand", "hand_and_rest"]),
       ties=st.sampled_from(["first", "rolloff"]), seed=st.integers(0, 2**31))
def test_laying_a_revealed_card_face_down_changes_nothing_others_see(
        num_players: int, out_of_cards: str, ties: str, seed: int) -> None:
    """A lay holding a card the table has seen, swapped for another lay of as many cards from the
    same hand, leaves every other seat's observation bit for bit the same until the reveal."""
    config = FifthEarthConfig(num_players=num_players, out_of_cards=out_of_cards, ties=ties, rules="classic")

    def check(game: FifthEarthGame, seat: int, legal: list[int], rng: np.random.Generator) -> None:
        b = game.battle
        if game.phase != PHASE_LAY or b is None:
            return
        for s, laid in b.laid.items():
            if not game.revealed[laid].any():
                continue
            before = game.hands[s].copy()
            before[laid] = 1  # the hand the lay was chosen from
            pick = copy.deepcopy(game)
            pick.hands[s] = before
            usable = pick.usable_characters(s)
            others = [cards for cards in (action_cards(a) for a in range(DESTINATION_BASE))
                      if len(cards) == len(laid) and sorted(cards) != sorted(laid)
                      and before[cards].all() and usable[character_of(cards[0])]]
            if not others:
                continue
            alt = others[int(rng.integers(len(others)))]
            v = copy.deepcopy(game)
            v.hands[s] = before
            v.hands[s, alt] = 0
            v.battle.laid[s] = list(alt)
            for me in range(game.num_players):
                if me != s:
                    assert np.array_equal(encode(v, me), encode(game, me)), (
                        f"seat {me} can tell P{s} laid {laid} rather than {alt}")

    play(config, seed, check)


@settings(max_examples=15, deadline=None)
@given(num_players=st.integers(2, 6), format=st.sampled_from(["knockout", "royale"]), seed=st.integers(0, 2**31))
def test_by_default_a_fight_won_never_empties_the_winners_hand(num_players: int, format: str, seed: int) -> None:
    """Gap 5: under won_cards="hand" the winner receives the losers' cards, so only a loser runs out."""
    config = FifthEarthConfig(num_players=num_players, format=format, rules="classic")
    assert config.won_cards == "hand"
    seen: list[object] = [None]

    def check(game: FifthEarthGame, seat: int, legal: list[int], rng: np.random.Generator) -> None:
        f = game.last_fight
        if f is not None and f is not seen[-1]:
            seen.append(f)
            if f.fight >= game.config.max_fights:
                return  # the fight cap ended the battle, maybe in favour of a player holding more cards
            losers_laid = sum(len(c) for p, c in f.laid.items() if p != f.winner)
            assert losers_laid >= 1 and game.hands[f.winner].sum() >= losers_laid, "a win emptied a hand"

    play(config, seed, check)
    assert len(seen) > 1, "no fight was checked"
