"""Golden scenarios for every rule of the Fifth-Earth rulebook and every design choice of the classic reading.

Each test deals fixed hands and fixes the dice, then plays the rule out on the engine under
``rules="classic"`` (the helpers' default; the standard rules' levers are pinned in
``test_fifth_earth_standard.py``). Powers come from ``scenario_cards.json``, the v1 card data frozen
for these scenarios (Greytok 1/3/6/10, Ashvane 7/8/9/10, Hollowjaw 2/4/5/8, ...), not from the
packaged ``cards.json``, so a rule stays pinned whatever the packaged powers become (the names
are the same, so power cards are named from ``DEFAULT_CARDS``).
"""

from __future__ import annotations

import numpy as np
import pytest
from fifth_earth_helpers import ND, SCENARIO_CARDS, challenge, char, choose, cid, lay_run, run, start

from fight_envs.core.errors import IllegalActionError
from fight_envs.games.fifth_earth.cards import DEFAULT_CARDS
from fight_envs.games.fifth_earth.rules import (
    CHALLENGE_BASE,
    DESTINATION_BASE,
    NOBODY,
    PHASE_CHALLENGE,
    PHASE_DESTINATION,
    PHASE_LAY,
    PHASE_OVER,
    FifthEarthConfig,
    FifthEarthGame,
    action_cards,
)

P0_HAND = ["Greytok 1", "Greytok 2", "Greytok 3", "Ashvane 1", "Brimmeld 2", "Corrowyn 1", "Dunspear 4", "Emberlisk 3"]
P1_HAND = ["Hollowjaw 1", "Fenwraith 1", "Gallowmere 2", "Ironbark 1", "Jadeclaw 2", "Kestrelin 3", "Lumenor 4",
           "Greytok 4"]
# order roll P0 11 / P1 3, then seeding roll P0 10 / P1 3: P0 chooses the destination and is Player A.
OPENING = [6, 5, *ND, 6, 4, 2, 1]


def opened(dice: list[int], **cfg: object) -> FifthEarthGame:
    game = start([P0_HAND, P1_HAND], OPENING + dice, **cfg)
    choose(game, 0)
    challenge(game, 0, 1)
    return game


def greytok_lays(game: FifthEarthGame, seat: int) -> set[str]:
    out = set()
    for a in game.legal_actions(seat):
        cards = action_cards(a)
        if cards and cards[0] // 4 == char("Greytok"):
            out.add("+".join(str(c % 4 + 1) for c in cards))
    return out


# ---------------------------------------------------------------- getting started
def test_order_roll_highest_chooses_destination_then_eight_cards_are_dealt() -> None:
    game = start([P0_HAND, P1_HAND], [1, 2, 6, 6])
    assert game.phase == PHASE_DESTINATION and game.current_player() == 1
    assert game.legal_actions(1) == [DESTINATION_BASE + d for d in range(25)]
    assert not game.legal_action_mask(0).any()
    assert not game.hands.any(), "the cards are dealt after the destination is chosen"
    choose(game, 1, 7)
    assert game.destination == 7 and DESTINATION_BASE + 7 not in game.remaining_destinations
    assert game.hands.sum(axis=1).tolist() == [8, 8]
    assert game.hands[0, [cid(c) for c in P0_HAND]].all()


def test_tied_rolls_are_rolled_again_among_the_tied() -> None:
    # order roll: P0 7, P1 7, P2 3 -> P0 and P1 re-roll: P0 4, P1 9 -> P1 chooses.
    game = start([P0_HAND, P1_HAND, run("Mirehound", 4) + run("Zephyrane", 4)], [3, 4, 5, 2, 1, 2, 2, 2, 4, 5])
    assert game.current_player() == 1
    assert game.dice_log == [3, 4, 5, 2, 1, 2, 2, 2, 4, 5]


# ---------------------------------------------------------------- challenges and the knockout
def test_even_count_player_a_challenges_anyone() -> None:
    hands = [run("Ashvane", 4) + run("Mirehound", 4), run("Greytok", 4) + run("Lumenor", 4),
             run("Zephyrane", 4) + run("Thornvyre", 4), run("Hollowjaw", 4) + run("Dunspear", 4)]
    # order: P0 11; seeding: P2 12, P0 10, P3 7, P1 3 -> A = P2, B = P0, C = P3, D = P1
    game = start(hands, [6, 5, *ND, *ND, *ND, 6, 4, 1, 2, 6, 6, 3, 4])
    choose(game, 0)
    assert game.seeds == [2, 0, 3, 1] and game.bye == NOBODY
    assert game.phase == PHASE_CHALLENGE and game.current_player() == 2
    assert game.legal_actions(2) == [CHALLENGE_BASE + k for k in range(3)]  # P3, P0, P1 (1, 2, 3 seats after P2)
    challenge(game, 2, 1)  # A picks D
    assert game.battle is not None and game.battle.players == [1, 2]
    # D (challenged) lays first and loses twice with its runs: out of cards.
    game.apply_action(1, lay_run("Greytok", 4))
    assert game.current_player() == 2 and not game.legal_action_mask(0).any() and not game.legal_action_mask(3).any()


def test_odd_count_player_a_has_a_bye_and_b_chooses() -> None:
    hands = [run("Ashvane", 4) + run("Mirehound", 4), run("Greytok", 4) + run("Lumenor", 4),
             run("Zephyrane", 4) + run("Thornvyre", 4)]
    # order: P0 11; seeding: P0 9, P1 3, P2 11 -> A = P2 (bye), B = P0, C = P1.
    dice = [6, 5, *ND, *ND, 5, 4, *ND, 6, 5]
    dice += [*ND, *ND] * 2  # two fights of battle 1, no doubles
    dice += [*ND, 6, 5]  # round 2 seeding (P2 first, in seed order): P2 3, P0 11 -> A = P0
    dice += [*ND, *ND] * 2  # two fights of the final
    game = start(hands, dice)
    choose(game, 0)
    assert game.seeds == [2, 0, 1] and game.bye == 2
    assert game.current_player() == 0 and game.legal_actions(0) == [CHALLENGE_BASE + 0]  # only P1 (P2 has the bye)
    challenge(game, 0, 1)
    for seat, action in [(1, lay_run("Greytok", 4)), (0, lay_run("Ashvane", 4)),
                         (0, lay_run("Mirehound", 4)), (1, lay_run("Lumenor", 4))]:
        assert not game.legal_action_mask(2).any(), "the player with the bye never acts"
        game.apply_action(seat, action)
    assert not game.alive[1] and game.knockout_round == 2
    assert game.seeds == [0, 2] and game.bye == NOBODY  # seeds re-rolled for the second round
    assert game.hands[0].sum() == 16, "the battle winner takes its spoils and rest pile into the next round"
    challenge(game, 0, 2)
    # Ashvane was used in battle 1; the rest restriction starts afresh in each battle.
    game.apply_action(2, lay_run("Zephyrane", 4))
    assert lay_run("Ashvane", 4) in game.legal_actions(0)
    game.apply_action(0, lay_run("Ashvane", 4))
    game.apply_action(0, lay_run("Mirehound", 4))
    game.apply_action(2, lay_run("Thornvyre", 4))
    assert game.phase == PHASE_OVER and game.claimed == [(0, 0)]
    assert game.destinations_won.tolist() == [1, 0, 0]
    assert game.returns().tolist() == [1.0, -1.0, -1.0]


def test_after_a_battle_the_next_highest_seed_picks_from_those_not_yet_battled() -> None:
    hands = [run("Ashvane", 4) + run("Mirehound", 4), run("Greytok", 4) + run("Lumenor", 4),
             run("Zephyrane", 4) + run("Thornvyre", 4), run("Hollowjaw", 4) + run("Dunspear", 4)]
    # seeding: P0 12, P1 10, P2 3, P3 7 -> A = P0, B = P1, C = P3, D = P2
    dice = [6, 5, *ND, *ND, *ND, 6, 6, 6, 4, *ND, 3, 4] + [*ND] * 4
    game = start(hands, dice)
    choose(game, 0)
    challenge(game, 0, 3)
    game.apply_action(3, lay_run("Hollowjaw", 4))
    game.apply_action(0, lay_run("Ashvane", 4))
    game.apply_action(0, lay_run("Mirehound", 4))
    game.apply_action(3, lay_run("Dunspear", 4))
    assert not game.alive[3]
    assert game.phase == PHASE_CHALLENGE and game.current_player() == 1
    assert game.legal_actions(1) == [CHALLENGE_BASE + 0]  # only P2 is left unbattled


# ---------------------------------------------------------------- laying
def test_stage_run_examples_from_the_rulebook() -> None:
    game = opened([])
    game.apply_action(1, cid("Hollowjaw 1"))
    # "if you have Greytok Stage 1, 2 and 3 you can lay down all three stages"
    assert greytok_lays(game, 0) == {"1", "2", "3", "1+2", "1+2+3"}


@pytest.mark.parametrize("held, expected", [
    pytest.param(["Greytok 1", "Greytok 3", "Greytok 4"], {"1", "3", "4"}, id="1-3-4-no-run"),
    pytest.param(["Greytok 2", "Greytok 3", "Greytok 4"], {"2", "3", "4"}, id="2-3-4-one-card"),
    pytest.param(["Greytok 1", "Greytok 2", "Greytok 3", "Greytok 4"], {"1", "2", "3", "4", "1+2", "1+2+3", "1+2+3+4"},
                 id="all-four"),
])
def test_stage_run_needs_stage_one_and_no_gap(held: list[str], expected: set[str]) -> None:
    rest = [c for c in ["Ashvane 1", "Brimmeld 2", "Corrowyn 1", "Dunspear 4", "Emberlisk 3"]][: 8 - len(held)]
    filler = ["Jadeclaw 4", "Kestrelin 4", "Lumenor 1"][: 8 - len(held) - len(rest)]
    p1 = [c for c in P1_HAND if not c.startswith("Greytok")] + ["Mirehound 1"]
    game = start([held + rest + filler, p1], OPENING)
    choose(game, 0)
    challenge(game, 0, 1)
    game.apply_action(1, cid("Hollowjaw 1"))
    assert greytok_lays(game, 0) == expected
    with pytest.raises(IllegalActionError, match="illegal action"):
        if "1+2" not in expected:
            game.apply_action(0, lay_run("Greytok", 2))
        else:
            game.apply_action(0, lay_run("Ashvane", 2))


def test_challenged_lays_first_and_the_other_sees_only_the_count() -> None:
    from fight_envs.games.fifth_earth.observe import encode, player_slice

    game = opened([])
    assert game.phase == PHASE_LAY and game.current_player() == 1
    before = encode(game, 0)
    game.apply_action(1, cid("Hollowjaw 1"))
    obs = encode(game, 0)
    assert obs[player_slice(1, "laid_count")][0] == pytest.approx(0.25)
    assert obs[player_slice(1, "has_laid")][0] == 1 and before[player_slice(1, "has_laid")][0] == 0
    # the same count with a different card: P0 sees exactly the same
    other = opened([])
    other.apply_action(1, cid("Lumenor 4"))
    assert np.array_equal(encode(other, 0), obs)


def test_battle_sequence_reuse_rest_pile_ties_and_alternation() -> None:
    """Seven fights of one battle: the reuse restriction and the rest pile as the rulebook words them.

    Played with ``won_cards="spoils"`` so that the rest pile is the only way back to the hand, and
    ``ties="rolloff"`` for the roll-off option."""
    game = opened([*ND] * 6 + [*ND, *ND, 2, 3, *ND] + [*ND] * 6, won_cards="spoils", ties="rolloff")
    g = game
    # fight 1: P1 (challenged) lays first. Hollowjaw 1 (2) beats Greytok 1 (1).
    g.apply_action(1, cid("Hollowjaw 1"))
    g.apply_action(0, cid("Greytok 1"))
    assert g.last_fight.winner == 1 and g.last_fight.totals == {1: 2, 0: 1}
    assert g.spoils[1, cid("Greytok 1")] == 1, "the winner wins the opponent's cards"
    assert g.rest_since[1, cid("Hollowjaw 1")] == 1, "the winner's own cards go to its rest pile"
    # fight 2: P0 lays first now (alternation); Greytok rests until fight 5.
    assert g.current_player() == 0 and greytok_lays(g, 0) == set()
    g.apply_action(0, cid("Ashvane 1"))
    g.apply_action(1, cid("Ironbark 1"))  # 7 vs 4
    assert g.last_fight.winner == 0
    # fight 3
    assert g.current_player() == 1
    g.apply_action(1, cid("Fenwraith 1"))
    assert greytok_lays(g, 0) == set() and not g.usable_characters(0)[char("Greytok")]
    g.apply_action(0, cid("Corrowyn 1"))  # 2 vs 3
    assert g.last_fight.winner == 1
    # fight 4: equal totals (Brimmeld 2 = 6, Gallowmere 2 = 6) are rolled off (option): P0 5, P1 3.
    assert g.current_player() == 0 and greytok_lays(g, 0) == set()
    g.apply_action(0, cid("Brimmeld 2"))
    g.apply_action(1, cid("Gallowmere 2"))
    assert g.last_fight.totals == {0: 6, 1: 6} and g.last_fight.rolloff == [{0: 5, 1: 3}] and g.last_fight.winner == 0
    # fight 5: "If you use Greytok for the first fight you cannot use him again until the fifth fight."
    g.apply_action(1, cid("Jadeclaw 2"))
    assert greytok_lays(g, 0) == {"2", "3"}
    g.apply_action(0, cid("Greytok 2"))  # 7 vs 3: P1 wins fight 5
    assert g.last_fight.winner == 1
    assert g.hands[1, cid("Hollowjaw 1")] == 1, "used in fight 1, picked up by winning fight 5"
    assert g.rest_since[1, cid("Fenwraith 1")] == 3, "used in fight 3: not yet"
    # fight 6: P0 loses; Ashvane 1 (used in fight 2) is eligible but stays put until P0 wins.
    g.apply_action(0, cid("Dunspear 4"))
    g.apply_action(1, cid("Lumenor 4"))  # 7 vs 10
    assert g.last_fight.winner == 1 and g.rest_since[0, cid("Ashvane 1")] == 2
    # fight 7: P0 wins and picks up Ashvane 1 (fight 2 + 4 <= 7) but not Brimmeld 2 (fight 4 + 4 > 7).
    g.apply_action(1, cid("Kestrelin 3"))
    g.apply_action(0, cid("Emberlisk 3"))  # 6 vs 8
    assert g.last_fight.winner == 0
    assert g.hands[0, cid("Ashvane 1")] == 1 and g.rest_since[0, cid("Brimmeld 2")] == 4


def test_only_option_left_lifts_the_reuse_restriction() -> None:
    p0 = run("Greytok", 4) + run("Ashvane", 4)
    p1 = run("Hollowjaw", 4) + run("Thornvyre", 4)
    game = start([p0, p1], OPENING + [*ND] * 4, won_cards="spoils")
    choose(game, 0)
    challenge(game, 0, 1)
    game.apply_action(1, cid("Hollowjaw 1"))
    game.apply_action(0, cid("Greytok 4"))  # 10 vs 2
    game.apply_action(0, cid("Ashvane 4"))
    game.apply_action(1, cid("Thornvyre 1"))  # 10 vs 2
    # fight 3: both of P0's characters rest, so either may be laid (runs included).
    assert game.current_player() == 1
    game.apply_action(1, cid("Hollowjaw 2"))
    legal = game.legal_actions(0)
    assert cid("Greytok 1") in legal and cid("Ashvane 3") in legal and lay_run("Greytok", 3) in legal


def test_doubles_draw_power_cards_that_change_the_totals() -> None:
    deck = ["Eclipse", "Fifth Sun"] + [n for n in DEFAULT_CARDS.power_names if n not in ("Eclipse", "Fifth Sun")]
    game = start([P0_HAND, P1_HAND], OPENING + [4, 4, 3, 3], power_deck=deck)
    choose(game, 0)
    challenge(game, 0, 1)
    game.apply_action(1, cid("Gallowmere 2"))  # 6
    game.apply_action(0, lay_run("Greytok", 3))  # 10
    f = game.last_fight
    assert f.dice == {1: (4, 4), 0: (3, 3)}
    assert f.power == {1: [DEFAULT_CARDS.power_names.index("Eclipse")], 0: [DEFAULT_CARDS.power_names.index("Fifth Sun")]}
    assert f.totals == {1: 6 - 6, 0: 10 + 8} and f.winner == 0
    assert sorted(game.power_discard) == sorted(c for drawn in f.power.values() for c in drawn)
    assert len(game.power_deck) == 12


def test_power_deck_is_reshuffled_from_the_discards_when_empty() -> None:
    game = opened([])
    game.power_discard, game.power_deck = list(game.power_deck), []
    game.fixed_dice = [5, 5, *ND]
    game.apply_action(1, cid("Hollowjaw 1"))
    game.apply_action(0, cid("Greytok 1"))
    assert len(game.power_deck) + len(game.power_discard) == 14 and len(game.power_discard) == 1


def test_out_of_cards_loses_the_battle_and_the_winner_claims() -> None:
    p0 = run("Ashvane", 4) + run("Mirehound", 4)
    p1 = run("Greytok", 4) + run("Lumenor", 4)
    game = start([p0, p1], OPENING + [*ND] * 4)
    choose(game, 0)
    challenge(game, 0, 1)
    game.apply_action(1, lay_run("Greytok", 4))
    game.apply_action(0, lay_run("Ashvane", 4))
    assert game.phase == PHASE_LAY and game.cards_held(1) == 4
    game.apply_action(0, lay_run("Mirehound", 4))
    game.apply_action(1, lay_run("Lumenor", 4))
    assert game.is_terminal() and game.destinations_won.tolist() == [1, 0]
    assert game.returns().tolist() == [1.0, -1.0]
    assert not game.legal_action_mask(0).any() and not game.legal_action_mask(1).any()


def test_an_empty_hand_is_out_of_cards_even_with_a_rest_pile() -> None:
    """Winning with big runs empties a hand: the rest pile cannot be laid, so the winner is out."""
    p0 = run("Ashvane", 4) + run("Mirehound", 4)
    p1 = run("Greytok", 4) + run("Lumenor", 4)
    game = start([p0, p1], OPENING + [*ND] * 4, won_cards="spoils")
    choose(game, 0)
    challenge(game, 0, 1)
    game.apply_action(1, cid("Greytok 1"))
    game.apply_action(0, lay_run("Ashvane", 4))  # 34 vs 1
    game.apply_action(0, lay_run("Mirehound", 4))
    game.apply_action(1, lay_run("Lumenor", 4))  # 34 vs 20: P0 wins again, with an empty hand
    assert game.last_fight.winner == 0
    assert game.is_terminal() and game.destinations_won.tolist() == [0, 1]


def test_hand_and_rest_option_takes_back_the_rest_pile() -> None:
    p0 = run("Ashvane", 4) + run("Mirehound", 4)
    p1 = run("Greytok", 4) + run("Lumenor", 4)
    game = start([p0, p1], OPENING + [*ND] * 6, out_of_cards="hand_and_rest", won_cards="spoils")
    choose(game, 0)
    challenge(game, 0, 1)
    game.apply_action(1, lay_run("Greytok", 4))
    game.apply_action(0, lay_run("Ashvane", 4))  # P0 wins: Ashvane to the rest pile
    game.apply_action(0, lay_run("Mirehound", 4))
    game.apply_action(1, cid("Lumenor 1"))  # P0 wins again: hand empty, rest pile holds all eight
    assert game.hands[0].sum() == 8 and game.rest_since[0].max() == NOBODY, "picked up: the only option left"


def test_battle_royale_puts_everyone_in_one_battle() -> None:
    hands = [run("Ashvane", 4) + run("Mirehound", 4), run("Greytok", 4) + run("Lumenor", 4),
             run("Zephyrane", 4) + run("Thornvyre", 4)]
    # order P0; seeding P1 11, P0 9, P2 3 -> lay order P1, P0, P2 in fight 1
    game = start(hands, [6, 5, *ND, *ND, 5, 4, 6, 5, *ND] + [*ND] * 6, format="royale", won_cards="spoils")
    choose(game, 0)
    assert game.battle is not None and game.battle.players == [1, 0, 2]
    game.apply_action(1, lay_run("Greytok", 4))
    assert game.current_player() == 0
    game.apply_action(0, lay_run("Ashvane", 4))
    game.apply_action(2, lay_run("Zephyrane", 4))
    assert game.last_fight.winner == 0 and game.spoils[0].sum() == 8
    assert game.battle.lay_order == [0, 2, 1], "who lays first rotates"
    game.apply_action(0, lay_run("Mirehound", 4))
    game.apply_action(2, lay_run("Thornvyre", 4))
    game.apply_action(1, lay_run("Lumenor", 4))
    assert game.is_terminal() and game.destinations_won.tolist() == [1, 0, 0]


def test_fight_cap_gives_the_battle_to_the_player_holding_most_cards() -> None:
    game = opened([*ND, *ND], max_fights=1)
    game.apply_action(1, cid("Hollowjaw 1"))
    game.apply_action(0, cid("Ashvane 1"))
    assert game.is_terminal() and game.destinations_won.tolist() == [1, 0]
    assert any("fight cap" in e for e in game.events)


@pytest.mark.parametrize("out_of_cards", ["hand", "hand_and_rest"])
def test_fight_cap_counts_the_rest_pile(out_of_cards: str) -> None:
    """Gap 8: hand, rest pile and spoils all count at the cap, whatever counts for running out."""
    game = opened([*ND, *ND], max_fights=1, out_of_cards=out_of_cards)
    game.apply_action(1, cid("Hollowjaw 1"))
    before = game.hands.copy()
    game.apply_action(0, lay_run("Greytok", 3))  # 1+3+6 = 10 beats 2; Greytok 1-3 rest
    # P0 ends with 5 + 1 (won) = 6 in hand and 3 in its rest pile, P1 with 7 in hand: the hand
    # alone would give P1 the battle, the rest pile gives it to P0.
    assert before[0].sum() - 3 + 1 == 6 < before[1].sum() == 7  # P1 has laid Hollowjaw 1 already
    assert game.last_fight.winner == 0
    assert game.is_terminal() and game.destinations_won.tolist() == [1, 0]
    assert "fight cap: P0 holds the most cards and wins the battle" in game.events


def test_won_cards_go_straight_into_the_winners_hand_by_default() -> None:
    assert FifthEarthConfig(rules="classic").won_cards == "hand"
    game = opened([*ND, *ND])
    game.apply_action(1, cid("Hollowjaw 1"))
    game.apply_action(0, cid("Ashvane 1"))
    assert game.hands[0, cid("Hollowjaw 1")] == 1 and not game.spoils.any()


def test_equal_totals_go_to_the_player_who_laid_first() -> None:
    assert FifthEarthConfig().ties == "first"
    game = opened([*ND, *ND, 6, 6])
    game.apply_action(1, cid("Hollowjaw 1"))  # P1, challenged, lays first: 2
    game.apply_action(0, cid("Corrowyn 1"))  # 2: a match is not enough
    f = game.last_fight
    assert f.totals == {1: 2, 0: 2} and f.winner == 1 and f.rolloff == []
    assert game.fixed_dice == [6, 6], "no dice are rolled to break the tie"
    other = opened([*ND, *ND, 1, 2, 6, 5], ties="rolloff")
    other.apply_action(1, cid("Hollowjaw 1"))
    other.apply_action(0, cid("Corrowyn 1"))
    assert other.last_fight.rolloff == [{1: 3, 0: 11}] and other.last_fight.winner == 0


def test_revealed_cards_stay_public_wherever_they_go() -> None:
    from fight_envs.games.fifth_earth.observe import OBS_SLICES, encode, player_slice

    game = opened([*ND, *ND])
    game.apply_action(1, cid("Hollowjaw 1"))
    game.apply_action(0, cid("Ashvane 1"))  # 7 beats 2: P0 takes Hollowjaw 1 into its hand
    assert game.revealed[[cid("Hollowjaw 1"), cid("Ashvane 1")]].tolist() == [1, 1] and game.revealed.sum() == 2
    seen_by_p1 = encode(game, 1)
    known = np.flatnonzero(seen_by_p1[player_slice(1, "known_hand")])
    assert known.tolist() == [cid("Hollowjaw 1")], "P1 knows where its lost card went, and nothing else of P0's hand"
    assert seen_by_p1[OBS_SLICES["revealed"]].sum() == 2
    game.new_game(np.random.default_rng(1))
    assert not game.revealed.any(), "a new deal starts with nothing revealed"


def test_several_destinations_most_destinations_wins() -> None:
    p0 = run("Ashvane", 4) + run("Mirehound", 4)
    p1 = run("Greytok", 4) + run("Lumenor", 4)
    game = FifthEarthGame(FifthEarthConfig(num_players=2, num_destinations=2, won_cards="spoils", rules="classic"),
                          SCENARIO_CARDS)
    from fight_envs.games.fifth_earth.rules import parse_deal

    deals = [parse_deal({"hands": [p0, p1]}, 2, SCENARIO_CARDS), parse_deal({"hands": [p1, p0]}, 2, SCENARIO_CARDS)]
    dice = OPENING + [*ND] * 4 + [1, 2, 6, 5, 2, 1, 6, 4] + [*ND] * 4
    game.new_game(np.random.default_rng(0), deals, dice)
    choose(game, 0, 3)
    challenge(game, 0, 1)
    for seat, a in [(1, lay_run("Greytok", 4)), (0, lay_run("Ashvane", 4)), (0, lay_run("Mirehound", 4)),
                    (1, lay_run("Lumenor", 4))]:
        game.apply_action(seat, a)
    # second destination: the order roll is made again (P1 11) and destination 3 is gone.
    assert game.phase == PHASE_DESTINATION and game.current_player() == 1
    assert DESTINATION_BASE + 3 not in game.legal_actions(1)
    choose(game, 1, 4)
    challenge(game, 1, 0)  # seeding P1 6+... : P0 3, P1 10 -> P1 is A
    for seat, a in [(0, lay_run("Greytok", 4)), (1, lay_run("Ashvane", 4)), (1, lay_run("Mirehound", 4)),
                    (0, lay_run("Lumenor", 4))]:
        game.apply_action(seat, a)
    assert game.is_terminal() and game.claimed == [(3, 0), (4, 1)]
    assert game.returns().tolist() == [0.0, 0.0], "a tie for most destinations is a shared win"


def test_illegal_action_changes_nothing_and_names_the_legal_set() -> None:
    game = opened([])
    before = (game.hands.copy(), game.version, len(game.actions))
    with pytest.raises(IllegalActionError, match=r"legal for seat 1: \[.*'lay Hollowjaw 1 \(32\)'"):
        game.apply_action(1, cid("Greytok 1"))
    with pytest.raises(IllegalActionError, match="it is seat 1's turn"):
        game.apply_action(0, cid("Greytok 1"))
    assert np.array_equal(game.hands, before[0]) and game.version == before[1] and len(game.actions) == before[2]


def test_a_revealed_card_laid_face_down_stays_in_known_hand_until_the_reveal() -> None:
    """Laying a card that the table knows I hold must not tell the answering player which card it was."""
    from fight_envs.games.fifth_earth.observe import encode, player_slice

    seen = {}
    for card in ("Hollowjaw 1", "Corrowyn 1"):
        game = opened([*ND, *ND])
        game.apply_action(1, cid("Hollowjaw 1"))
        game.apply_action(0, cid("Ashvane 1"))  # P0 wins Hollowjaw 1 into its hand, and lays first in fight 2
        game.apply_action(0, cid(card))
        assert game.current_player() == 1
        seen[card] = encode(game, 1)
        known = np.flatnonzero(seen[card][player_slice(1, "known_hand")])
        assert known.tolist() == [cid("Hollowjaw 1")], f"after laying {card}, P1 still knows P0 holds Hollowjaw 1"
    assert np.array_equal(seen["Hollowjaw 1"], seen["Corrowyn 1"]), "which card P0 laid leaked to P1"
    game.apply_action(1, cid("Fenwraith 1"))  # the reveal: now the table knows where Hollowjaw 1 went
    assert game.last_fight.laid[0] == [cid("Corrowyn 1")]
