"""The ``combo`` lever (``seeds/brawl.md`` design choice 4): ``"single"`` (the classic rule set's, and
an option of the standard one: a combo is one more attack card) and ``"multi"`` (the standard rule
set's default since issue 13: every attack may be a combo of up to ``combo_max`` cards of its
element, laid one card per decision, decision kind ``combo``, and answered card for card)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from brawl_scenario import card, hand, legal, new_game, play

from fight_envs import brawl_v0
from fight_envs.agents.brawl import HeuristicAgent
from fight_envs.core.errors import ConfigError
from fight_envs.games.brawl.observe import OBS_SLICES, encode
from fight_envs.games.brawl.record import replay
from fight_envs.games.brawl.rules import DECISION_KINDS, RULE_SETS, BrawlConfig, BrawlGame, Phase


def test_standard_rules_default_to_multi_classic_stays_single_and_bad_values_are_refused() -> None:
    assert RULE_SETS["standard"]["combo"] == "multi" and RULE_SETS["classic"]["combo"] == "single"
    assert BrawlConfig().combo == "multi" and BrawlConfig(rules="classic").combo == "single"
    assert BrawlConfig(combo="single").combo == "single"  # today's reading kept as an option
    assert BrawlConfig(rules="classic", combo="multi").combo == "multi"
    assert brawl_v0.env().unwrapped.game.config.combo == "multi"
    assert brawl_v0.env(combo="single").unwrapped.game.config.combo == "single"
    assert BrawlConfig(combo="multi").combo == "multi" and "combo" in DECISION_KINDS
    with pytest.raises(ConfigError, match="combo must be one of"):
        BrawlConfig(combo="triple")
    with pytest.raises(ConfigError, match="does not combine"):
        BrawlConfig(combo="multi", hit_draws="per_attack")
    with pytest.raises(ConfigError, match="add combo='single'"):  # standard now plays multi
        BrawlConfig(hit_draws="per_attack")
    assert BrawlConfig(hit_draws="per_attack", combo="single").hit_draws == "per_attack"
    assert BrawlConfig(rules="classic", hit_draws="per_attack").combo == "single"
    with pytest.raises(ConfigError, match="combo must be one of"):
        brawl_v0.env(combo=2)
    assert BrawlConfig(combo="multi").combo_max == 2
    for bad in (1, True, 2.0):
        with pytest.raises(ConfigError, match="combo_max must be"):
            BrawlConfig(combo="multi", combo_max=bad)


def test_a_combo_holds_at_most_combo_max_cards() -> None:
    g = new_game([["FP", "FK", "FP", "WP"], ["NP", "NK", "EK", "EP"]], chaos_windows=False, combo="multi")
    play(g, 0, "FP")
    play(g, 0, "FK")  # the second card: the default combo_max=2 completes the combo
    assert g.phase == Phase.DEFEND and g.battle.pending == [card("FP"), card("FK")] and hand(g, 0) == ["FP", "WP"]


def test_single_combo_is_one_card_per_attack() -> None:
    g = new_game([["FP", "FK", "FP", "WP"], ["FP", "NK", "EK", "EP"]], chaos_windows=False)
    play(g, 0, "FP")
    assert g.phase == Phase.DEFEND and g.current_player() == 1  # no combo decision


def test_multi_combo_is_laid_card_by_card_and_answered_card_for_card() -> None:
    g = new_game([["FP", "FK", "FP", "WP"], ["FP", "NK", "EK", "EP"]], pile_top=["WK", "NP", "NP"],
                 chaos_windows=False, combo="multi", combo_max=3)
    play(g, 0, "FP")
    assert g.phase == Phase.COMBO and g.current_player() == 0 and g.decision_kind(0) == "combo"
    assert legal(g) == {"FP", "FK", "PASS"}  # only the led element
    obs = encode(g, 1)
    assert obs[OBS_SLICES["combo"]][card("FP")] == 1 and obs[OBS_SLICES["phase"]][int(Phase.COMBO)] == 1
    play(g, 0, "FK")
    assert g.phase == Phase.COMBO and legal(g) == {"FP", "PASS"}
    play(g, 0, "FP")  # no fire card left: the combo is complete, the defender faces its first card
    assert g.phase == Phase.DEFEND and g.current_player() == 1 and g.battle.attack_card == card("FP")
    assert encode(g, 1)[OBS_SLICES["combo"]].sum() == 3
    assert legal(g) == {"FP", "PASS"}
    play(g, 1, "FP")  # answers the first card: the aggressor draws one
    assert hand(g, 0) == ["WK", "WP"] and g.battle.attack_card == card("FK") and g.current_player() == 1
    assert legal(g) == {"PASS"}
    play(g, 1, "PASS")  # takes the FIRE KICK: draws one
    assert g.battle.attack_card == card("FP") and hand(g, 1) == ["EK", "EP", "NK", "NP"]
    play(g, 1, "PASS")  # takes the last FIRE PUNCH: draws one, the battle is over
    assert hand(g, 1) == ["EK", "EP", "NK", "NP", "NP"]
    assert g.phase == Phase.ATTACK and g.current_player() == 1 and not g.table and g.battle.pending is None
    assert encode(g, 1)[OBS_SLICES["combo"]].sum() == 0


def test_multi_combo_stops_on_pass_and_a_one_card_combo_is_answered_as_before() -> None:
    g = new_game([["FP", "FK", "WP"], ["FK", "NK", "EP"]], chaos_windows=False, combo="multi")
    play(g, 0, "FP")
    play(g, 0, "PASS")  # the combo is complete at one card
    assert g.phase == Phase.DEFEND and legal(g) == {"PASS"}
    play(g, 1, "PASS")
    assert g.phase == Phase.ATTACK and g.hand_size(1) == 4 and hand(g, 0) == ["FK", "WP"]


def test_block_sends_every_unanswered_combo_card_back_and_the_table_knows() -> None:
    g = new_game([["FP", "FK", "FK", "WP"], ["FP", "B", "EK", "EP"]], pile_top=["NP"], chaos_windows=False,
                 combo="multi", combo_max=3)
    for c in ("FP", "FK", "FK"):
        play(g, 0, c)
    play(g, 1, "FP")  # the first card matched: seat 0 draws NP
    play(g, 1, "B")  # the two FIRE KICKs go back
    assert hand(g, 0) == ["FK", "FK", "NP", "WP"]
    assert g.known[0, card("FK")] == 2 and g.phase == Phase.ATTACK and g.current_player() == 1


def test_dodge_answers_the_rest_and_the_aggressor_may_combo_again_in_the_element() -> None:
    g = new_game([["FP", "FK", "FP", "FK", "WP"], ["D", "NK", "EK", "EP", "NP"]], chaos_windows=False,
                 combo="multi")
    play(g, 0, "FP")
    play(g, 0, "FK")  # two cards: the combo is complete
    play(g, 1, "D")  # one DODGE answers the whole combo: passed back
    assert g.phase == Phase.DODGE_BACK and g.current_player() == 0 and g.battle.pending == []
    play(g, 0, "FP")  # "attack or combo again in the SAME element"
    assert g.phase == Phase.COMBO and legal(g) == {"FK", "PASS"}
    play(g, 0, "FK")
    assert g.phase == Phase.DEFEND and g.current_player() == 1 and g.battle.pending == [card("FP"), card("FK")]


def test_jump_answers_the_rest_with_its_follow_up() -> None:
    g = new_game([["FP", "FK", "WP"], ["J", "FK", "EP"]], chaos_windows=False, combo="multi")
    play(g, 0, "FP")
    play(g, 0, "FK")
    play(g, 1, "J")
    assert g.phase == Phase.JUMP_FOLLOW and legal(g) == {"FK", "PASS"}
    play(g, 1, "FK")  # a one-card follow-up (no fire card left to combo with)
    assert g.phase == Phase.DEFEND and g.current_player() == 0 and g.battle.pending == [card("FK")]


def test_the_table_may_play_chaos_once_the_combo_is_laid_not_between_its_cards() -> None:
    g = new_game([["FP", "FK", "WP"], ["NK", "EK", "EP"], ["X", "WK", "NP"]], combo="multi")
    play(g, 0, "FP")
    assert g.phase == Phase.COMBO  # no window between the cards of a combo
    play(g, 0, "FK")
    assert g.phase == Phase.WINDOW and g.current_player() == 2  # the complete combo opens the window


@pytest.mark.parametrize("n", [2, 4])
def test_multi_combo_game_record_replays(n: int) -> None:
    env = brawl_v0.raw_env(num_players=n, combo="multi")
    env.reset(seed=3)
    rng = np.random.default_rng(4)
    while not env.game.is_over():
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    g = env.game
    assert any(e.phase == Phase.COMBO for e in g.events)
    record = json.loads(json.dumps(env.game_record()))
    assert record["config"]["combo"] == "multi"
    again = replay(record)
    assert again.finish_order == g.finish_order and again.actions == g.actions


def test_a_record_saved_before_the_combo_lever_replays_as_single() -> None:
    """Records without ``combo`` in their config (saved before the lever, when both rule sets played
    "single") replay as "single", not as the standard rules' default "multi"."""
    env = brawl_v0.raw_env(num_players=3, combo="single")
    env.reset(seed=8)
    rng = np.random.default_rng(2)
    while not env.game.is_over():
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    record = json.loads(json.dumps(env.game_record()))
    del record["config"]["combo"], record["config"]["combo_max"]
    again = replay(record)
    assert again.config.combo == "single" and again.actions == env.game.actions
    assert again.finish_order == env.game.finish_order


def test_env_asks_combo_decisions_and_names_their_kind() -> None:
    env = brawl_v0.raw_env(num_players=2, combo="multi")
    env.reset(seed=5)
    kinds = set()
    for agent in env.agent_iter(400):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        kinds.add(env.decision_kind(agent))
        mask = obs["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))
    assert "combo" in kinds


def _heuristic_action(g: BrawlGame) -> int:
    s = g.current_player()
    return HeuristicAgent(0).act(encode(g, s), g.legal_action_mask(s))


def test_heuristic_adds_a_card_the_defender_cannot_match_and_stops_before_one_it_can() -> None:
    # standard rules, two fighters: the open showdown shows the defender's hand
    g = new_game([["FP", "FK", "WP"], ["FK", "NK", "EP"]], rules="standard", chaos_windows=None, combo="multi")
    play(g, 0, "FP")
    assert g.phase == Phase.COMBO and _heuristic_action(g) == 13  # FIRE KICK would be matched: stop
    h = new_game([["FP", "FK", "WP"], ["NK", "EK", "EP"]], rules="standard", chaos_windows=None, combo="multi")
    play(h, 0, "FP")
    assert _heuristic_action(h) == card("FK")  # nothing matches it: add it


def test_heuristic_matches_what_it_can_then_blocks_the_rest_of_a_combo() -> None:
    g = new_game([["FP", "FK", "FK", "WP"], ["FP", "B", "EP", "NP"]], rules="standard", chaos_windows=None,
                 combo="multi", combo_max=3)
    play(g, 0, "FP")
    assert _heuristic_action(g) == card("FK")  # the defender holds no FIRE KICK
    play(g, 0, "FK")
    play(g, 0, "FK")
    assert g.phase == Phase.DEFEND and _heuristic_action(g) == card("FP")  # match the first card
    play(g, 1, "FP")
    play(g, 0, "PASS")  # the reaction window after the defender's card
    assert g.current_player() == 1 and _heuristic_action(g) == card("B")  # the two FIRE KICKs go back
