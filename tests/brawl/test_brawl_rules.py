"""Golden scenarios: every rule of the Brawl document and every design choice, played by hand.

Each test deals fixed hands (``brawl_scenario``), plays the decisions a worked example names and
checks the state: who decides, the legal set, hands, draws, places. ``seeds/brawl.md`` cites
these tests rule by rule.
"""

from __future__ import annotations

import numpy as np
import pytest
from brawl_scenario import hand, legal, new_game, play, small_cards

from fight_envs.games.brawl.cards import CHAOS, CLASSIC_CARDS, DEFAULT_CARDS
from fight_envs.games.brawl.rules import BrawlConfig, BrawlGame, Phase


# ---------------------------------------------------------------- setup and turn order
@pytest.mark.parametrize("n", range(2, 9))
def test_deal_gives_one_card_over_the_standard_hand(n: int) -> None:
    game = BrawlGame(BrawlConfig(num_players=n))  # standard rules: a standard hand of 10, so 11 dealt
    game.new_game(np.random.default_rng(n))
    assert DEFAULT_CARDS.standard_hand_size == 10 and DEFAULT_CARDS.deal_size == 11
    assert game.hands.sum(axis=1).tolist() == [11] * n
    assert len(game.draw_pile) == DEFAULT_CARDS.deck_size - 11 * n
    classic = BrawlGame(BrawlConfig(num_players=n, rules="classic"))  # classic: 5, so 6 dealt
    classic.new_game(np.random.default_rng(n))
    assert CLASSIC_CARDS.standard_hand_size == 5 and classic.cards is CLASSIC_CARDS
    assert classic.hands.sum(axis=1).tolist() == [6] * n


def test_left_of_dealer_attacks_first_clockwise_with_an_elemental_attack() -> None:
    g = new_game([["FP", "J"], ["FK", "EK"], ["NK", "D"]])
    assert g.current_player() == 0 and g.phase == Phase.ATTACK and g.direction == 1
    assert legal(g) == {"FP"}  # JUMP is no attack; PASS only when no attack can be played
    play(g, 0, "FP")
    assert (g.phase, g.current_player(), g.battle.defender) == (Phase.DEFEND, 1, 1)


def test_attacker_without_an_attack_is_forced_to_draw() -> None:
    g = new_game([["J", "D"], ["FK", "EK"], ["NK", "B"]], pile_top=["WP"])
    assert legal(g) == {"PASS"}
    play(g, 0, "PASS")
    assert hand(g, 0) == ["D", "J", "WP"]
    assert (g.phase, g.current_player()) == (Phase.ATTACK, 1)


# ---------------------------------------------------------------- defending
def test_matching_attack_makes_the_aggressor_draw_and_the_next_fighter_attacks() -> None:
    g = new_game([["FP", "WP"], ["FP", "J"], ["NK", "EK"]], pile_top=["EP"])
    play(g, 0, "FP")
    assert legal(g) == {"FP", "J", "PASS"}  # taking the hit is always allowed
    play(g, 1, "FP")
    assert hand(g, 0) == ["EP", "WP"]  # the aggressor drew
    assert hand(g, 1) == ["J"]
    assert g.discard_counts[g.cards.card_of("FIRE PUNCH")] == 2
    assert (g.phase, g.current_player()) == (Phase.ATTACK, 1)


def test_only_the_same_attack_of_the_same_element_matches() -> None:
    g = new_game([["FP", "WP"], ["FK", "WK"], ["NK", "EK"]])
    play(g, 0, "FP")
    assert legal(g) == {"PASS"}  # FIRE KICK does not answer a FIRE PUNCH


def test_defender_who_cannot_play_is_forced_to_draw() -> None:
    g = new_game([["FP", "WP"], ["NK", "EK"], ["NP", "EP"]], pile_top=["J"])
    play(g, 0, "FP")
    assert legal(g) == {"PASS"}
    play(g, 1, "PASS")
    assert hand(g, 1) == ["EK", "J", "NK"]
    assert hand(g, 0) == ["WP"]
    assert (g.phase, g.current_player()) == (Phase.ATTACK, 1)


def test_jump_then_an_attack_of_the_matching_element_turns_on_the_aggressor() -> None:
    g = new_game([["FP", "WP"], ["J", "FK"], ["NK", "EK"]], pile_top=["EP"])
    play(g, 0, "FP")
    play(g, 1, "J")
    assert (g.phase, g.current_player()) == (Phase.JUMP_FOLLOW, 1)
    assert legal(g) == {"FK", "PASS"}
    play(g, 1, "FK")
    assert (g.phase, g.current_player(), g.battle.attacker, g.battle.defender) == (Phase.DEFEND, 0, 1, 0)
    assert g.cards.names[g.battle.attack_card] == "FIRE KICK"


def test_no_defensive_card_answers_a_jump() -> None:
    g = new_game([["FP", "WP", "EP"], ["J", "D", "B"], ["NK", "EK", "NP"]])
    play(g, 0, "FP")
    play(g, 1, "J")
    assert legal(g) == {"PASS"}  # DODGE and BLOCK in hand, but not on a JUMP; no FIRE attack
    play(g, 1, "PASS")  # no attack of the element: the hand is over, nobody draws
    assert g.hands.sum(axis=1).tolist() == [2, 2, 3]
    assert (g.phase, g.current_player()) == (Phase.ATTACK, 1)


def test_dodge_passes_the_attack_back_to_the_aggressor_in_the_same_element() -> None:
    g = new_game([["FP", "FK", "WP"], ["D", "FK", "EP"], ["NK", "EK", "NP"]], pile_top=["EK"])
    play(g, 0, "FP")
    play(g, 1, "D")
    assert (g.phase, g.current_player()) == (Phase.DODGE_BACK, 0)
    assert legal(g) == {"FK", "PASS"}  # WATER PUNCH is not the led element
    play(g, 0, "FK")
    assert (g.phase, g.current_player(), g.battle.defender) == (Phase.DEFEND, 1, 1)
    play(g, 1, "FK")  # matched: the aggressor draws
    assert hand(g, 0) == ["EK", "WP"]


def test_dodge_falls_back_to_the_dodger_when_the_aggressor_cannot_play() -> None:
    g = new_game([["FP", "WP", "EP"], ["D", "FK", "EP"], ["NK", "EK", "NP"]], pile_top=["J"])
    play(g, 0, "FP")
    play(g, 1, "D")
    assert legal(g) == {"PASS"}
    play(g, 0, "PASS")
    assert (g.phase, g.current_player()) == (Phase.DODGE_AGAIN, 1)
    assert legal(g) == {"FK", "PASS"}
    play(g, 1, "FK")
    assert (g.phase, g.current_player(), g.battle.attacker) == (Phase.DEFEND, 0, 1)
    play(g, 0, "PASS")
    assert hand(g, 0) == ["EP", "J", "WP"]
    assert (g.phase, g.current_player()) == (Phase.ATTACK, 1)  # next after the battle's opener


def test_dodge_nobody_able_ends_the_hand() -> None:
    g = new_game([["FP", "WP", "EP"], ["D", "WK", "EP"], ["NK", "EK", "NP"]])
    play(g, 0, "FP")
    play(g, 1, "D")
    play(g, 0, "PASS")
    assert legal(g) == {"PASS"}
    play(g, 1, "PASS")
    assert g.hands.sum(axis=1).tolist() == [2, 2, 3]  # nobody drew
    assert (g.phase, g.current_player()) == (Phase.ATTACK, 1)


def test_counter_attacks_the_aggressor_with_any_element() -> None:
    g = new_game([["FP", "WP", "EP"], ["C", "NK", "J"], ["NK", "EK", "NP"]])
    play(g, 0, "FP")
    play(g, 1, "C")
    assert (g.phase, g.current_player()) == (Phase.COUNTER_FOLLOW, 1)
    assert legal(g) == {"NK", "PASS"}
    play(g, 1, "NK")
    assert (g.phase, g.current_player(), g.battle.attacker, g.battle.defender) == (Phase.DEFEND, 0, 1, 0)


@pytest.mark.parametrize(
    "drawn, expected_legal",
    [
        pytest.param("NK", {"NK", "PASS"}, id="drawn-attack-may-be-played"),
        pytest.param("J", {"PASS"}, id="drawn-defensive-card-ends-the-battle"),
        pytest.param("X", {"X", "PASS"}, id="drawn-chaos-may-be-played"),
    ],
)
def test_counter_as_the_last_card_draws_one(drawn: str, expected_legal: set[str]) -> None:
    g = new_game([["FP", "FK"], ["D", "C"], ["EK", "NP"]], pile_top=[drawn, "EP", "WK", "NP"])
    play(g, 0, "FP")
    play(g, 1, "D")
    play(g, 0, "FK")
    play(g, 1, "C")  # COUNTER as the last card
    assert hand(g, 1) == [drawn]
    assert (g.phase, g.current_player()) == (Phase.COUNTER_FOLLOW, 1)
    assert legal(g) == expected_legal


def test_counter_last_card_chaos_makes_everyone_draw_including_its_player() -> None:
    g = new_game([["FP", "FK"], ["D", "C"], ["EK", "NP"]], pile_top=["X", "EP", "WK", "NK"])
    for seat, name in ((0, "FP"), (1, "D"), (0, "FK"), (1, "C"), (1, "X")):
        play(g, seat, name)
    # clockwise from the CHAOS player's left: P2, P0; then P1, whose CHAOS was its last card
    assert hand(g, 2) == ["EK", "EP", "NP"]
    assert hand(g, 0) == ["WK"]
    assert hand(g, 1) == ["NK"]
    assert (g.phase, g.current_player()) == (Phase.CHAOS_DIRECTION, 1)
    play(g, 1, "CCW")
    assert (g.phase, g.current_player(), g.direction) == (Phase.ATTACK, 1, -1)
    play(g, 1, "NK")
    assert g.battle.defender == 0  # counter-clockwise from seat 1


def test_block_returns_the_attack_to_the_aggressors_hand() -> None:
    g = new_game([["FP", "WP"], ["B", "EK"], ["NK", "EP"]])
    play(g, 0, "FP")
    play(g, 1, "B")
    assert hand(g, 0) == ["FP", "WP"]
    assert hand(g, 1) == ["EK"]
    assert g.discard == [g.cards.card_of("BLOCK")]
    assert (g.phase, g.current_player()) == (Phase.ATTACK, 1)


def test_defensive_cards_answer_punches_and_kicks() -> None:
    for attack in ("FP", "FK"):
        g = new_game([[attack, "WP", "EP"], ["D", "C", "B"], ["NK", "EK", "NP"]])
        play(g, 0, attack)
        assert {"D", "C", "B"} <= legal(g)


# ---------------------------------------------------------------- CHAOS
def test_chaos_in_a_reaction_window_out_of_turn() -> None:
    g = new_game([["FP", "WP"], ["EK", "NK"], ["X", "J"], ["X", "NP"]], pile_top=["EP", "WK", "J"])
    play(g, 0, "FP")
    # the window runs clockwise from the player's left, skipping P1 who decides next anyway
    assert (g.phase, g.current_player()) == (Phase.WINDOW, 2)
    assert legal(g) == {"X", "PASS"}
    play(g, 2, "PASS")
    assert (g.phase, g.current_player()) == (Phase.WINDOW, 3)
    play(g, 3, "X")
    # the FIRE PUNCH on the table is abandoned; P0, P1, P2 (clockwise from P3's left) draw
    assert hand(g, 0) == ["EP", "WP"] and hand(g, 1) == ["EK", "NK", "WK"] and hand(g, 2) == ["J", "J", "X"]
    assert (g.phase, g.current_player()) == (Phase.CHAOS_DIRECTION, 3)
    assert legal(g) == {"CW", "CCW"}
    play(g, 3, "CCW")
    play(g, 3, "NP")
    assert g.battle.defender == 2 and g.battle.opener == 3


def test_window_resumes_the_battle_when_everyone_passes() -> None:
    g = new_game([["FP", "WP"], ["EK", "NK"], ["X", "J"], ["X", "NP"]])
    play(g, 0, "FP")
    play(g, 2, "PASS")
    play(g, 3, "PASS")
    assert (g.phase, g.current_player(), g.battle.defender) == (Phase.DEFEND, 1, 1)


def test_chaos_on_ones_own_decision() -> None:
    g = new_game([["X", "FP"], ["EK", "NK"], ["WK", "J"]], pile_top=["EP", "WP"])
    assert legal(g) == {"X", "FP"}
    play(g, 0, "X")
    assert hand(g, 1) == ["EK", "EP", "NK"] and hand(g, 2) == ["J", "WK", "WP"] and hand(g, 0) == ["FP"]
    play(g, 0, "CW")
    assert (g.phase, g.current_player()) == (Phase.ATTACK, 0)


def test_no_chaos_answers_a_chaos_before_the_direction_is_chosen() -> None:
    g = new_game([["X", "X"], ["EK", "X"], ["WK", "J"]], pile_top=["EP", "WP", "NP"])
    assert legal(g) == {"X", "PASS"}  # no attack in hand: CHAOS or the forced draw
    play(g, 0, "X")
    assert (g.phase, g.current_player()) == (Phase.CHAOS_DIRECTION, 0)  # no window opened for P1
    assert legal(g) == {"CW", "CCW"}  # not another CHAOS either
    play(g, 0, "CW")
    assert legal(g) == {"X", "PASS"}


def test_chaos_windows_can_be_turned_off() -> None:
    g = new_game([["FP", "WP"], ["X", "NK"], ["X", "J"], ["X", "NP"]], chaos_windows=False)
    play(g, 0, "FP")
    assert (g.phase, g.current_player()) == (Phase.DEFEND, 1)
    assert legal(g) == {"X", "PASS"}  # CHAOS still playable in one's own decision


def test_windows_for_everyone_hide_who_holds_a_chaos() -> None:
    g = new_game([["FP", "WP"], ["EK", "NK"], ["J", "D"], ["X", "NP"]], chaos_windows="all")
    play(g, 0, "FP")
    assert (g.phase, g.current_player()) == (Phase.WINDOW, 2)  # asked although it holds no CHAOS
    assert legal(g) == {"PASS"}
    play(g, 2, "PASS")
    assert (g.phase, g.current_player()) == (Phase.WINDOW, 3) and legal(g) == {"X", "PASS"}


def test_a_played_chaos_leaves_the_game() -> None:
    g = new_game([["X", "FP"], ["EK", "NK"], ["WK", "J"]])
    play(g, 0, "X")
    assert g.chaos_spent == 1 and g.discard_counts[CHAOS] == 0
    assert g.card_locations()["out_of_play"][CHAOS] == 1


# ---------------------------------------------------------------- MASTER, showdown, places
def test_master_and_showdown_and_finishing_order() -> None:
    g = new_game([["FP", "WP"], ["J", "FK"], ["NK", "B"]], pile_top=["EP"])
    for seat, name in ((0, "FP"), (1, "J"), (1, "FK"), (0, "PASS")):
        play(g, seat, name)
    assert g.place.tolist() == [0, 1, 0] and not g.active[1]  # P1 ran out: MASTER
    assert g.showdown  # two fighters left
    assert g.current_player() == 2  # P1 is skipped
    play(g, 2, "NK")
    assert g.battle.defender == 0
    play(g, 0, "PASS")
    play(g, 0, "WP")
    assert g.battle.defender == 2
    play(g, 2, "B")  # the attack goes back to P0; P2 is out
    assert g.is_terminal() and g.finish_order == [[1], [2], [0]]
    assert g.returns("rank").tolist() == [-1.0, 1.0, 0.0]
    assert g.returns("winner").tolist() == [-1.0, 1.0, -1.0]


def test_fighters_out_at_once_share_a_place() -> None:
    g = new_game([["FP"], ["J"], ["EK"]], cards=small_cards(0))
    play(g, 0, "FP")
    play(g, 1, "J")
    play(g, 1, "PASS")
    assert g.finish_order == [[0, 1], [2]] and g.is_terminal()
    assert g.returns("rank").tolist() == [0.5, 0.5, -1.0]
    assert g.returns("winner").tolist() == [0.0, 0.0, -1.0]


def test_two_fighters_start_in_the_showdown_and_play_to_the_end() -> None:
    g = new_game([["FP"], ["FP"]], cards=small_cards(0), pile_top=["J"])
    assert g.showdown
    play(g, 0, "FP")
    play(g, 1, "FP")  # P1 out; P0 drew the JUMP
    assert g.finish_order == [[1], [0]] and g.returns("rank").tolist() == [-1.0, 1.0]


def test_next_attacker_follows_the_battles_opener_in_the_direction_of_play() -> None:
    g = new_game([["X", "FP", "WP"], ["EK", "NK", "J"], ["WK", "J", "EP"], ["NP", "D", "B"]],
                 pile_top=["EK", "WP", "NK"])
    play(g, 0, "X")
    play(g, 0, "CCW")
    play(g, 0, "FP")
    assert g.battle.defender == 3
    play(g, 3, "B")
    assert (g.phase, g.current_player()) == (Phase.ATTACK, 3)


# ---------------------------------------------------------------- empty draw pile
def test_empty_draw_pile_is_refilled_from_the_shuffled_discard_pile() -> None:
    cards = small_cards(3, attacks_per_element={"PUNCH": 1, "KICK": 1},
                        specials={"JUMP": 2, "DODGE": 0, "COUNTER": 0, "BLOCK": 0, "CHAOS": 0})
    g = new_game([["FP", "FK", "WP", "WK"], ["NP", "NK", "EP", "EK"]], pile_top=["J", "J"], cards=cards)
    play(g, 0, "FP")
    play(g, 1, "PASS")  # draws a JUMP
    play(g, 1, "NP")
    play(g, 0, "PASS")  # draws the last JUMP: the pile is empty
    assert g.draw_pile == [] and sorted(g.cards.names[c] for c in g.discard) == ["FIRE PUNCH", "WIND PUNCH"]
    play(g, 0, "FK")
    play(g, 1, "PASS")  # the discard pile is shuffled into a new draw pile
    assert g.reshuffles == 1 and len(g.draw_pile) == 1
    assert g.discard == [g.cards.card_of("FIRE KICK")]  # the battle's card, discarded after the draw
    drawn = set(hand(g, 1)) - {"NK", "EP", "EK", "J"}
    assert drawn <= {"FP", "NP"} and g.hand_size(1) == 5


def test_draw_is_skipped_when_draw_and_discard_piles_are_both_empty() -> None:
    cards = small_cards(4, attacks_per_element={"PUNCH": 1, "KICK": 1},
                        specials={"JUMP": 2, "DODGE": 0, "COUNTER": 0, "BLOCK": 0, "CHAOS": 0})
    g = new_game([["FP", "FK", "WP", "WK", "J"], ["NP", "NK", "EP", "EK", "J"]], cards=cards)
    assert g.draw_pile == []
    play(g, 0, "FP")
    play(g, 1, "PASS")
    assert g.hand_size(1) == 5 and g.reshuffles == 0


# ---------------------------------------------------------------- limits and errors
def test_step_limit_truncates_and_unfinished_fighters_share_the_places_left() -> None:
    g = new_game([["FP"], ["J"], ["EK"]], cards=small_cards(0), max_steps=1)
    play(g, 0, "FP")
    assert g.truncated and g.is_over() and not g.is_terminal()
    assert g.returns("rank").tolist() == [0.0, 0.0, 0.0]


def test_default_step_limit_per_fighter_count_and_window_mode() -> None:
    assert [BrawlConfig(num_players=n, rules="classic").step_limit for n in (2, 8)] == [300, 1200]
    assert [BrawlConfig(num_players=n).step_limit for n in (2, 8)] == [1200, 4800]  # standard: "all" windows
    assert BrawlConfig(num_players=3, chaos_windows=False).step_limit == 450
    assert BrawlConfig(num_players=3, chaos_windows="all").step_limit == 1800
    assert BrawlConfig(num_players=3, chaos_windows="all", max_steps=17).step_limit == 17


def test_illegal_action_changes_nothing_and_names_the_legal_set() -> None:
    from fight_envs.core.errors import IllegalActionError

    g = new_game([["FP", "WP"], ["EK", "NK"], ["WK", "J"]])
    before = (g.hands.copy(), list(g.draw_pile), g.phase, g.current_player(), len(g.actions))
    with pytest.raises(IllegalActionError, match=r"action 8 is not legal for seat 0 in phase ATTACK; legal: 0 \(FIRE PUNCH\)"):
        g.apply_action(0, 8)
    with pytest.raises(IllegalActionError, match="it is seat 0's decision"):
        g.apply_action(1, 6)
    after = (g.hands, g.draw_pile, g.phase, g.current_player(), len(g.actions))
    assert np.array_equal(before[0], after[0]) and before[1:] == after[1:]
