"""Golden scenarios for every rule of Fight Klub: each phase, each glossary verb, each gap choice.

Each test deals chosen stacks (``fk_helpers.new_game``) and checks the decisions asked and the
state after them against numbers worked out by hand from the card data (quoted in comments).
Decks: ``vega_blitz`` (Captain Vega: Life 18, Hold 2, Hand 6, Energy blue 2 green 1, two blue
fists, blue imprint 1) and ``hollow_control`` (The Hollow: Life 21, Hold 3, Hand 7, Energy
yellow 2 blue 1, two yellow fists, yellow imprint 1).
"""

from __future__ import annotations

import pytest
from fk_helpers import act, empty_hands, give, hand_action, new_game, play_until, resolve, support_action

from fight_envs.core.errors import IllegalActionError
from fight_envs.games.fight_klub.cards import Effect
from fight_envs.games.fight_klub.rules import (
    COLOR0,
    HAND0,
    MAX_HAND,
    MAX_SUPPORT,
    OPTION0,
    PASS,
    ROTATE,
    SUPPORT0,
    InPlay,
)

BLUE, GREEN, YELLOW = COLOR0, COLOR0 + 1, COLOR0 + 2


def test_first_turn_double_energy() -> None:
    g = new_game(drop=0)
    assert g.players[0].pool == [4, 2, 0]  # Vega: (2, 1, 0) at the start of the game + (2, 1, 0) for turn 1
    assert g.players[1].pool == [2, 0, 4]  # Hollow: (1, 0, 2) twice
    empty_hands(g)
    play_until(g, "order_even_up")
    before = [list(p.pool) for p in g.players]
    play_until(g, "order_setup")
    assert g.turn == 2
    assert g.players[0].pool == [before[0][0] + 2, before[0][1] + 1, before[0][2]]  # single allocation
    assert g.players[1].pool == [before[1][0] + 1, before[1][1], before[1][2] + 2]


def test_setup_actions_order_and_kinds() -> None:
    g = new_game(drop=0)
    empty_hands(g)
    give(g, 0, "h_generator", "h_adrenaline")
    give(g, 1, "v_war_room", "v_prepare", "v_slip")
    g.players[0].pool = [4, 2, 1]
    # The Drop (seat 0) is asked the order even though it will matter little (interpretation 18)
    act(g, 0, "order_setup", OPTION0 + 1)  # the opponent goes first
    d = g.pending
    assert (d.seat, d.kind) == (1, "setup")
    # Setup offers Conditions, Gear and Setup Instants, never Effects (v_slip) or Enhance cards
    assert set(d.legal) == {PASS, hand_action(g, 1, "v_war_room"), hand_action(g, 1, "v_prepare")}
    act(g, 1, "setup", hand_action(g, 1, "v_war_room"))  # generic 3 from blue 2 / yellow 4
    act(g, 1, "pay_generic", BLUE)
    act(g, 1, "pay_generic", BLUE)  # blue is gone: the last generic token is yellow without asking
    assert g.players[1].pool == [0, 0, 3]
    assert [x.card.id for x in g.players[1].support] == ["v_war_room"]
    act(g, 1, "setup", hand_action(g, 1, "v_prepare"))  # draw 2, then discard 1 (the discarder chooses)
    assert len(g.players[1].hand) == 3
    act(g, 1, "discard", HAND0)
    assert len(g.players[1].hand) == 2 and len(g.players[1].discard) == 2  # the discarded card and Prepare
    # now seat 0: a Condition, then a Setup action of a card in play
    act(g, 0, "setup", hand_action(g, 0, "h_generator"))  # costs 1 yellow
    assert g.players[0].pool == [4, 2, 0]
    act(g, 0, "setup", support_action(g, 0, "h_generator"))  # Setup: add 1 blue
    assert g.players[0].pool == [5, 2, 0]
    assert g.pending.kind == "choose_fight" and g.pending.seat == 0


def test_fight_cards_are_dealt_and_revealed() -> None:
    g = new_game(drop=1, fight0=["h_jab", "h_hook", "h_crush"], fight1=["v_focus", "v_heavy", "v_gambit"])
    empty_hands(g)
    play_until(g, "choose_fight")
    assert [f.cards for f in g.fights] == [["h_jab", "v_focus"], ["h_hook", "v_heavy"], ["h_crush", "v_gambit"]]
    assert [len(p.fight_stack) for p in g.players] == [9, 9]
    assert g.pending.seat == 1 and set(g.pending.legal) == {OPTION0, OPTION0 + 1, OPTION0 + 2}


def _fight(g, pick: int) -> None:
    """Choose fight ``pick`` (The Drop is seat 0 in these scenarios)."""
    act(g, 0, "choose_fight", OPTION0 + pick)


def test_center_fist_bonus_by_colour() -> None:
    # h_jab: M3 P4 S3, blue centre; Vega has two blue fists -> centre 4 + 2 = 6
    # h_hook: P3 P3 F2, green centre -> no bonus; v_focus (M4 S2 M2, yellow centre) for The Hollow: 2 + 2
    g = new_game(fight0=["h_jab", "h_hook"], fight1=["v_focus", "v_heavy"])
    empty_hands(g)
    play_until(g, "choose_fight")
    f0, f1 = g.fights[0], g.fights[1]
    assert [g.skirmish_total(f0, 0, p) for p in range(3)] == [3, 6, 3]
    assert [g.skirmish_total(f1, 0, p) for p in range(3)] == [3, 3, 2]
    assert [g.skirmish_total(f0, 1, p) for p in range(3)] == [4, 4, 2]


def test_skirmishes_result_tabs_and_most_skirmishes() -> None:
    # h_spirit_lash S2 S3 P3 (blue centre, centre Result: DRAW 1) vs v_switch M2 P3 S2 (green centre)
    # totals: 2 v 2 (tie), 3 + 2 fists = 5 v 3 (Vega), 3 v 2 (Vega): Vega wins the fight 2-0
    g = new_game(fight0=["h_spirit_lash"], fight1=["v_switch"])
    empty_hands(g)
    play_until(g, "choose_fight")
    _fight(g, 0)
    act(g, 0, "order_enhance", OPTION0)
    act(g, 1, "enhance", PASS)  # The Hollow could rotate v_switch; he does not
    d = g.pending
    assert (d.kind, d.legal) == ("skirmish_order", (OPTION0, OPTION0 + 1, OPTION0 + 2))
    act(g, 0, "skirmish_order", OPTION0 + 1)  # the centre first: its Result draws 1 for Vega
    assert len(g.players[0].hand) == 1
    assert g.fights[0].skirmish_winner == [None, 0, None]
    act(g, 0, "skirmish_order", OPTION0 + 2)  # the last remaining skirmish is resolved without asking
    f = g.fights[0]
    assert f.skirmish_winner == [-1, 0, 0] and f.winner == 0 and f.decided
    assert g.pending.kind == "order_score"
    play_until(g, "choose_fight")
    assert g.players[0].dealt == 2 and g.players[0].damage_stack == [("h_spirit_lash", False)]
    assert g.players[1].fight_stack[-1] == "v_switch"  # the loser's card goes to the bottom


def test_effect_adds_tabs_and_is_forbidden_on_clash_text() -> None:
    g = new_game(fight0=["h_jab", "h_standoff"], fight1=["v_focus", "v_heavy"])
    empty_hands(g)
    give(g, 0, "h_surge", "h_brace")
    play_until(g, "choose_fight")
    _fight(g, 1)  # h_standoff (Clash: more Energy wins) vs a Power card: no Effect may be played
    act(g, 0, "order_enhance", OPTION0)
    assert g.pending.kind == "order_score"  # Vega's only Enhance option was to pass: asked of nobody
    play_until(g, "choose_fight")
    _fight(g, 0)
    act(g, 0, "order_enhance", OPTION0)
    d = g.pending
    assert hand_action(g, 0, "h_surge") in d.legal and hand_action(g, 0, "h_brace") in d.legal
    act(g, 0, "enhance", hand_action(g, 0, "h_surge"))  # blue 1; tabs +1 +2 +1
    f = g.fights[0]
    assert f.effect_tabs[0] == [1, 2, 1]
    assert [g.skirmish_total(f, 0, p) for p in range(3)] == [4, 8, 4]
    play_until(g, "choose_fight")
    assert "h_surge" in g.players[0].discard  # Effects are discarded after the fight


def test_clash_text_overrides_power_card() -> None:
    # h_standoff: Clash, the player with more Energy wins. v_sig1 would win every skirmish... but
    # Clash text decides: Vega has 4+2 tokens, The Hollow 1
    g = new_game(fight0=["h_standoff"], fight1=["v_sig1"])
    empty_hands(g)
    play_until(g, "choose_fight")
    g.players[1].pool = [1, 0, 0]
    _fight(g, 0)
    play_until(g, "order_score")
    f = g.fights[0]
    assert f.clash_text_of == 0 and f.winner == 0 and f.skirmish_winner == [None, None, None]
    # equal measures tie: raise the stakes
    g2 = new_game(fight0=["h_standoff"], fight1=["v_sig1"])
    empty_hands(g2)
    play_until(g2, "choose_fight")
    g2.players[0].pool, g2.players[1].pool = [1, 1, 1], [0, 3, 0]
    _fight(g2, 0)
    play_until(g2, "choose_fight")
    assert g2.fights[0].winner is None and g2.players[0].rts == ["h_standoff"] and g2.players[1].rts == ["v_sig1"]


@pytest.mark.parametrize("pick, winner", [(0, 0), (1, 1)], ids=["drop-text", "opponent-text"])
def test_drop_chooses_between_two_clash_texts(pick: int, winner: int) -> None:
    # h_standoff (more Energy wins) vs v_patience (more cards in hand wins; on win: DRAW 1)
    g = new_game(fight0=["h_standoff"], fight1=["v_patience"])
    empty_hands(g)
    give(g, 1, "v_slip", "v_slip")  # The Hollow: 2 cards, no Energy; Vega: Energy, no cards
    play_until(g, "choose_fight")
    g.players[1].pool = [0, 0, 0]
    _fight(g, 0)
    act(g, 0, "order_enhance", OPTION0)  # Effects are illegal on Clash text: both Enhance steps are passes
    act(g, 0, "clash_text", OPTION0 + pick)  # after Enhance, The Drop picks whose Clash text is used
    f = g.fights[0]
    assert f.clash_text_of == pick and f.winner == winner
    # The Hollow's text wins for him: its on-win DRAW 1 resolves; Vega's text has none
    assert len(g.players[1].hand) == (3 if winner == 1 else 2)


def test_gear_activation_and_return() -> None:
    g = new_game(fight0=["h_jab", "h_hook"], fight1=["v_jab", "v_heavy"])
    empty_hands(g)
    play_until(g, "choose_fight")
    p = g.players[0]
    for cid in ("h_gloves", "h_bomb"):
        p.draw_deck.remove(cid)
        p.support.append(InPlay(g.pool.support[cid]))
    p.pool = [1, 0, 0]
    _fight(g, 0)
    act(g, 0, "order_enhance", OPTION0)
    assert set(g.pending.legal) == {PASS, SUPPORT0, SUPPORT0 + 1}
    act(g, 0, "enhance", support_action(g, 0, "h_gloves"))  # activation: generic 1 (the blue token)
    assert p.pool == [0, 0, 0] and g.fights[0].effect_tabs[0] == [0, 2, 0]
    play_until(g, "choose_fight")
    assert [x.card.id for x in p.support] == ["h_gloves", "h_bomb"]  # Gear returns to the support area
    _fight(g, 1)
    act(g, 0, "order_enhance", OPTION0)
    act(g, 0, "enhance", support_action(g, 0, "h_bomb"))  # free activation, destroyed after the fight
    assert g.fights[1].effect_tabs[0] == [2, 2, 2]
    play_until(g, "choose_fight")
    assert [x.card.id for x in p.support] == ["h_gloves"] and "h_bomb" in p.discard


def test_rotation_changes_the_end_used() -> None:
    # h_switch: M2 P3 S2 (green centre) / S3 F3 P2 (yellow centre); rotating costs generic 1
    g = new_game(fight0=["h_switch"], fight1=["v_focus"])
    empty_hands(g)
    play_until(g, "choose_fight")
    _fight(g, 0)
    act(g, 0, "order_enhance", OPTION0)
    assert ROTATE in g.pending.legal
    act(g, 0, "enhance", ROTATE)
    act(g, 0, "pay_generic", GREEN)
    f = g.fights[0]
    assert f.end[0] == 1 and g.players[0].pool == [4, 1, 0]
    assert [g.skirmish_total(f, 0, p) for p in range(3)] == [3, 3, 2]


def test_score_step_double_damage_and_signature_energy() -> None:
    # h_sig1 M4 P4 S3 (blue centre, +2 fists) vs v_jab M3 P4 S3: 4>3, 6>4, 3=3: Vega wins 2-0
    g = new_game(fight0=["h_sig1"], fight1=["v_jab"])
    empty_hands(g)
    give(g, 0, "h_go_for_broke")  # Instant - Score: yellow 1 + generic 1: double damage if you won
    play_until(g, "choose_fight")
    g.players[0].pool = [1, 0, 1]
    _fight(g, 0)
    play_until(g, "order_score")
    act(g, 0, "order_score", OPTION0)
    act(g, 0, "score", hand_action(g, 0, "h_go_for_broke"))  # paid with both tokens; Hollow's pass is forced
    play_until(g, "choose_fight")
    assert g.players[0].dealt == 6  # damage 3, doubled
    assert g.players[0].damage_stack == [("h_sig1", True)]
    assert g.players[0].pool == [1, 0, 0]  # both tokens paid, then the signature card's 1 blue token


def test_raise_the_stakes_carries_across_a_turn() -> None:
    g = new_game(fight0=["h_jab", "h_sig1", "h_hook", "h_spirit_lash"], fight1=["v_jab", "v_patience", "v_focus", "v_heavy"])
    empty_hands(g)
    play_until(g, "choose_fight")
    _fight(g, 0)  # h_jab (centre 6) vs v_jab: Vega wins 1-0 with two ties
    play_until(g, "choose_fight")
    _fight(g, 2)  # h_hook P3 P3 F2 vs v_focus M4 S4 M2: The Hollow wins 2-0
    play_until(g, "order_enhance")
    for p in g.players:  # equal hands for v_patience (more cards in hand wins): a tie
        p.draw_deck.extend(p.hand)
        p.hand.clear()
    play_until(g, "order_cooldown")
    assert g.players[0].rts == ["h_sig1"] and g.players[1].rts == ["v_patience"]
    assert (g.players[0].dealt, g.players[1].dealt) == (1, 2)
    play_until(g, "choose_fight", seat=1)  # turn 2: The Drop is now seat 1
    assert g.turn == 2 and g.players[0].rts == ["h_sig1"]
    blue = g.players[0].pool[0]
    act(g, 1, "choose_fight", OPTION0)  # h_spirit_lash S2 S5 P3 vs v_heavy P2 P5 M2: Vega wins 1-0
    play_until(g, "choose_fight", seat=1)
    # Vega scores h_spirit_lash (2) and the raise-the-stakes h_sig1 (3) without its Energy bonus
    assert g.players[0].dealt == 1 + 2 + 3
    assert g.players[0].damage_stack[-2:] == [("h_spirit_lash", False), ("h_sig1", False)]
    assert g.players[0].pool[0] == blue and g.players[0].rts == [] and g.players[1].rts == []
    assert g.players[1].fight_stack[-2:] == ["v_heavy", "v_patience"]


def test_cooldown_even_up_and_drop_passes() -> None:
    g = new_game(drop=0)
    empty_hands(g)
    give(g, 1, "v_drain", "v_slip", "v_slip", "v_slip", "v_surge")
    g.players[1].pool = [0, 0, 1]
    play_until(g, "order_cooldown")
    act(g, 0, "order_cooldown", OPTION0 + 1)
    act(g, 1, "cooldown", hand_action(g, 1, "v_drain"))  # Vega burns 2 of her choice
    assert g.pending.kind in ("burn", "order_even_up")
    while g.pending.kind == "burn":
        act(g, 0, "burn", g.pending.legal[0])
    act(g, 0, "order_even_up", OPTION0 + 1)  # The Hollow evens up first: hand 4, Hold 3
    assert PASS not in g.pending.legal
    act(g, 1, "even_up", HAND0)
    assert PASS in g.pending.legal  # at Hold he may stop ... or discard more
    act(g, 1, "even_up", HAND0)
    act(g, 1, "even_up", PASS)
    assert len(g.players[1].hand) == 7  # then draws up to Hand 7
    # Vega (empty hand) evens up without a decision; then The Drop changes hands: turn 2 starts
    assert len(g.players[0].hand) == 6
    assert g.drop == 1 and g.turn == 2 and (g.pending.seat, g.pending.kind) == (1, "order_setup")


def test_generic_cost_payment_choice() -> None:
    g = new_game(drop=0)
    empty_hands(g)
    give(g, 0, "h_training", "h_training")
    g.players[0].pool = [2, 1, 0]
    act(g, 0, "order_setup", OPTION0)
    act(g, 0, "setup", hand_action(g, 0, "h_training"))  # generic 2
    assert g.pending.kind == "pay_generic" and g.pending.legal == (BLUE, GREEN)
    act(g, 0, "pay_generic", GREEN)
    assert g.players[0].pool == [1, 0, 0]  # the second token had to be blue: no question
    with pytest.raises(IllegalActionError, match="legal"):
        g.apply_action(0, hand_action(g, 0, "h_training"))  # one token left, generic 2: unaffordable
    assert g.players[0].pool == [1, 0, 0] and len(g.players[0].hand) == 1  # nothing changed


def test_spotting_uses_imprint_but_burning_never_does() -> None:
    g = new_game()
    hollow = g.players[1]
    war_room = g.pool.support["v_war_room"].actions[1].cost  # Score: burn yellow 1, spot yellow 2
    hollow.pool = [0, 0, 2]
    assert g.can_pay(1, war_room)  # burns 1 yellow; spots the other + the yellow imprint
    hollow.pool = [0, 0, 1]
    assert not g.can_pay(1, war_room)  # the burned token cannot also be spotted; imprint alone is 1
    # a penalty burn takes pool tokens only: imprint stays
    resolve(g, 0, [Effect(op="burn", n=2, who="opponent")])
    assert hollow.pool == [0, 0, 0] and hollow.imprint == (0, 0, 1)


def _glossary_cases():
    return [
        pytest.param("add", id="add"),
        pytest.param("add-opponent", id="add-opponent"),
        pytest.param("burn", id="burn"),
        pytest.param("draw", id="draw"),
        pytest.param("draw-opponent", id="draw-opponent"),
        pytest.param("discard", id="discard"),
        pytest.param("destroy", id="destroy"),
        pytest.param("destroy-your-choice", id="destroy-your-choice"),
        pytest.param("retrieve", id="retrieve"),
    ]


@pytest.mark.parametrize("verb", _glossary_cases())
def test_glossary_verbs(verb: str) -> None:
    g = new_game()
    me, opp = g.players
    empty_hands(g)
    if verb == "add":
        resolve(g, 0, [Effect(op="add", n=2, color=2)])
        assert me.pool == [4, 2, 2]
    elif verb == "add-opponent":
        resolve(g, 0, [Effect(op="add", n=1, color=1, who="opponent")])
        assert opp.pool == [2, 1, 4] and me.pool == [4, 2, 0]
    elif verb == "burn":
        asked = resolve(g, 0, [Effect(op="burn", n=3, who="opponent")], answers=[YELLOW, BLUE, YELLOW])
        assert [(d.seat, d.kind) for d in asked] == [(1, "burn"), (1, "burn"), (1, "burn")]  # the burner chooses
        assert sum(opp.pool) == 3 and opp.pool[0] == 1
    elif verb == "draw":
        top = me.draw_deck[:2]
        resolve(g, 0, [Effect(op="draw", n=2)])
        assert sorted(me.hand) == sorted(top)
    elif verb == "draw-opponent":
        resolve(g, 0, [Effect(op="draw", n=1, who="opponent")])
        assert len(opp.hand) == 1 and len(me.hand) == 0
    elif verb == "discard":
        give(g, 1, "v_slip", "v_drain")
        asked = resolve(g, 0, [Effect(op="discard", n=1, who="opponent")], answers=[HAND0 + 1])
        assert [(d.seat, d.kind) for d in asked] == [(1, "discard")]
        assert opp.hand == ["v_slip"] and opp.discard == ["v_drain"]
    elif verb in ("destroy", "destroy-your-choice"):
        for cid in ("v_meditation", "v_amulet"):
            opp.draw_deck.remove(cid)
            opp.support.append(InPlay(g.pool.support[cid]))
        chooser = "owner" if verb == "destroy" else "self"
        asked = resolve(g, 0, [Effect(op="destroy", n=1, who="opponent", kind="any", chooser=chooser)], answers=[SUPPORT0 + 1])
        seat, kind = (1, "destroy_own") if verb == "destroy" else (0, "destroy_other")
        assert [(d.seat, d.kind) for d in asked] == [(seat, kind)]
        assert [x.card.id for x in opp.support] == ["v_meditation"] and opp.discard == ["v_amulet"]
        resolve(g, 0, [Effect(op="destroy", n=1, who="opponent", kind="gear")])  # no Gear left: nothing
        assert len(opp.support) == 1
    else:
        me.discard.extend(["h_drain", "h_surge", "h_prepare", "h_brace"])
        for cid in ("h_drain", "h_surge", "h_prepare", "h_brace"):
            me.draw_deck.remove(cid)
        resolve(g, 0, [Effect(op="retrieve", kind="instant")])  # the most recent Instant: Prepare
        assert me.hand == ["h_prepare"] and me.discard == ["h_drain", "h_surge", "h_brace"]


def test_scoring_reaches_life_and_wins() -> None:
    g = new_game(fight0=["h_jab"], fight1=["v_focus"])
    empty_hands(g)
    play_until(g, "choose_fight")
    g.players[0].dealt = g.players[1].life - 1  # one short of The Hollow's Life (21); h_jab deals 1
    _fight(g, 0)
    play_until(g, "order_score")
    assert g.fights[0].winner == 0
    act(g, 0, "order_score", OPTION0)
    assert g.is_terminal() and g.game_over and g.winner == 0 and g.pending is None
    assert list(g.returns()) == [1.0, -1.0]
    assert not g.fights[1].resolved  # the game ends in the middle of the turn


def test_empty_draw_deck_draws_nothing() -> None:
    g = new_game()
    p = g.players[0]
    p.discard.extend(p.draw_deck)
    p.draw_deck.clear()
    n = len(p.hand)
    resolve(g, 0, [Effect(op="draw", n=3)])
    assert len(p.hand) == n and p.draw_deck == []


def test_hand_and_support_limits() -> None:
    g = new_game()
    p = g.players[0]
    resolve(g, 0, [Effect(op="draw", n=9), Effect(op="draw", n=9)])
    assert len(p.hand) == MAX_HAND and len(p.draw_deck) == 27 - MAX_HAND
    g2 = new_game()
    empty_hands(g2)
    give(g2, 0, "h_training")
    q = g2.players[0]
    for _ in range(MAX_SUPPORT):
        q.support.append(InPlay(g2.pool.support["h_surge"]))  # stand-ins filling the area
    assert g2.playable(0, "setup") == []


def test_unopposed_fight_and_exhausted_stacks() -> None:
    g = new_game(fight0=["h_jab"])
    empty_hands(g)
    p = g.players[0]
    moved = p.fight_stack[1:]
    p.fight_stack[1:] = []
    p.discard.extend(moved)  # out of the way: this scenario's Vega has one Fight card
    play_until(g, "choose_fight")
    assert [f.cards[0] for f in g.fights] == ["h_jab", None, None]
    _fight(g, 1)
    play_until(g, "choose_fight")
    assert g.fights[1].winner == 1 and g.fights[1].skirmish_winner == [None, None, None]
    g2 = new_game()
    empty_hands(g2)
    for q in g2.players:
        q.discard.extend(q.fight_stack)
        q.fight_stack.clear()
    g2.players[1].dealt = 3
    act(g2, 0, "order_setup", OPTION0)  # turn 1 still plays its setup actions (forced passes here) ...
    assert g2.game_over and g2.winner == 1 and g2.pending is None  # ... and ends: no Fight card to place


def test_condition_actions_by_phase() -> None:
    g = new_game(fight0=["h_jab", "h_hook"], fight1=["v_jab", "v_heavy"])
    empty_hands(g)
    hollow = g.players[1]
    hollow.draw_deck.remove("v_war_room")
    hollow.support.append(InPlay(g.pool.support["v_war_room"]))  # Enhance: generic 1, +1 all; Score: yellow 1 + spot 2 yellow: double if won
    play_until(g, "choose_fight")
    assert g.playable(1, "setup") == [] and g.playable(1, "cooldown") == []
    _fight(g, 0)
    act(g, 0, "order_enhance", OPTION0 + 1)
    act(g, 1, "enhance", SUPPORT0)
    act(g, 1, "pay_generic", BLUE)
    assert g.fights[0].boosts[1] == {"all": 1}
    assert g.playable(1, "enhance") == []  # used this step
    play_until(g, "order_score")
    act(g, 0, "order_score", OPTION0)
    assert SUPPORT0 in g.pending.legal  # the Score action, a different step


def test_enhance_instants_boost_and_nullify() -> None:
    # h_jab [3, 6, 3] (Vega's fists in the centre) vs v_focus [4, 4, 2] (The Hollow's), twice
    g = new_game(fight0=["h_jab", "h_jab"], fight1=["v_focus", "v_focus"])
    empty_hands(g)
    give(g, 0, "h_negate")  # Instant - Enhance, generic 2: nullify the centre skirmish
    give(g, 1, "v_adrenaline")  # Instant - Enhance, generic 1: +2 to all my skirmishes
    play_until(g, "choose_fight")
    _fight(g, 0)
    act(g, 0, "order_enhance", OPTION0 + 1)
    act(g, 1, "enhance", hand_action(g, 1, "v_adrenaline"))
    act(g, 1, "pay_generic", YELLOW)
    f = g.fights[0]
    assert f.boosts[1] == {"all": 2} and [g.skirmish_total(f, 1, p) for p in range(3)] == [6, 6, 4]
    act(g, 0, "enhance", PASS)
    play_until(g, "order_score")
    assert f.skirmish_winner == [1, -1, 1] and f.winner == 1
    play_until(g, "choose_fight")
    _fight(g, 1)
    act(g, 0, "order_enhance", OPTION0)
    act(g, 0, "enhance", hand_action(g, 0, "h_negate"))
    act(g, 0, "pay_generic", BLUE)
    act(g, 0, "pay_generic", BLUE)
    f = g.fights[1]
    assert f.nullified == {1}
    # the nullified centre is never offered: The Drop orders the two others
    assert g.pending.kind == "skirmish_order" and g.pending.legal == (OPTION0, OPTION0 + 2)
    act(g, 0, "skirmish_order", OPTION0)
    assert f.skirmish_winner == [1, None, 0] and f.winner is None  # one skirmish each: a tie
    play_until(g, "order_enhance")  # the last fight of the turn (the only one left: not asked)
    assert g.players[0].rts == ["h_jab"] and g.players[1].rts == ["v_focus"]


def test_unused_energy_carries_over() -> None:
    # Nothing in the draft empties the Energy pool: what a player leaves unspent stays for the next turn.
    g = new_game(drop=0)
    empty_hands(g)
    play_until(g, "order_even_up")
    g.players[0].pool[:] = [5, 0, 1]  # left over at the end of turn 1
    g.players[1].pool[:] = [0, 3, 0]
    play_until(g, "order_setup")
    assert g.turn == 2
    assert g.players[0].pool == [5 + 2, 0 + 1, 1]  # + Vega's allocation (2, 1, 0)
    assert g.players[1].pool == [0 + 1, 3, 0 + 2]  # + The Hollow's allocation (1, 0, 2)


def test_condition_bonus_uses_own_tab_type() -> None:
    # The two tabs of a skirmish may differ in type; a Condition's bonus (and a typed boost) reads
    # its player's own tab.
    g = new_game(fight0=["h_jab"], fight1=["v_focus"])
    empty_hands(g)
    play_until(g, "choose_fight")
    f = g.fights[0]
    mine = [t.type for t in g.end_of(f, 0).tabs]
    theirs = [t.type for t in g.end_of(f, 1).tabs]
    assert mine[1] == "physical" and theirs[1] != "physical"  # the scenario needs a mixed skirmish
    before = [g.skirmish_total(f, s, p) for s in (0, 1) for p in range(3)]
    g.players[0].support.append(InPlay(g.pool.support["h_training"]))  # Condition: +1 physical
    after = [g.skirmish_total(f, s, p) for s in (0, 1) for p in range(3)]
    expect = [int(mine[p] == "physical") for p in range(3)] + [0, 0, 0]
    assert [a - b for a, b in zip(after, before)] == expect
    f.boosts[1]["physical"] = 2  # a typed boost of the opponent: his own tabs only
    assert [g.skirmish_total(f, 1, p) for p in range(3)] == [after[3 + p] + 2 * (theirs[p] == "physical") for p in range(3)]


def test_damage_marker_measure_is_the_current_fight_card() -> None:
    # "Damage Markers on fight cards this round" has no op; the damage_marker Clash measure reads only
    # the two cards of the current fight, not all Fight cards revealed this turn.
    g = new_game(fight0=["h_jab", "h_finisher", "h_hook"], fight1=["v_focus", "v_heavy", "v_gambit"])
    empty_hands(g)
    play_until(g, "choose_fight")
    for f in g.fights:
        assert [g.measure(s, "damage_marker", f) for s in (0, 1)] == [g.pool.fight[c].damage for c in f.cards]
