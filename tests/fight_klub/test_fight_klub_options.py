"""Moot orderings, decisions resolved by rule, character gametext in play, the env's input checks and record checks."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from fk_helpers import act, empty_hands, give, new_game, play_until

from fight_envs import fight_klub_v0
from fight_envs.core.errors import ConfigError, DealError, RecordError
from fight_envs.games.fight_klub.cards import DEFAULT_POOL, Trigger, parse_pool
from fight_envs.games.fight_klub.record import replay
from fight_envs.games.fight_klub.rules import HAND0, OPTION0, PASS, FightKlubConfig, FightKlubGame


def _kinds(ask: bool, seeds: range) -> dict[str, int]:
    counts: dict[str, int] = {}
    for seed in seeds:
        env = fight_klub_v0.raw_env(ask_moot_orders=ask, auto_decisions=[])  # moot orderings only
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while env.game.pending is not None:
            kind = env.decision_kind(env.agent_selection)
            counts[kind] = counts.get(kind, 0) + 1
            env.step(int(rng.choice(env.game.pending.legal)))
    return counts


def test_moot_orderings_are_resolved_without_asking_by_default() -> None:
    default, faithful = _kinds(False, range(8)), _kinds(True, range(8))
    assert "order_even_up" not in default and faithful["order_even_up"] > 0  # evening up never interacts
    for kind in ("order_score", "order_cooldown", "order_setup"):
        assert default.get(kind, 0) < faithful[kind]


def test_moot_follows_playable_cards() -> None:
    g = new_game(drop=0)
    empty_hands(g)
    give(g, 0, "h_prepare")
    assert g.moot("order_setup")  # only seat 0 can act
    give(g, 1, "v_prepare")
    assert not g.moot("order_setup")
    act(g, 0, "order_setup", OPTION0 + 1)  # the draft-faithful helpers ask every ordering anyway
    assert g.pending.seat == 1


def _one_character(**gametext: object) -> FightKlubGame:
    """Captain Vega against The Hollow, Vega carrying the given gametext (scenario pool)."""
    from fk_helpers import POOL

    vega = POOL.characters["captain_vega"]
    chars = dict(POOL.characters)
    chars["captain_vega"] = dataclasses.replace(vega, **gametext)
    pool = type(POOL)(characters=chars, fight=POOL.fight, support=POOL.support, decks=POOL.decks,
                      fight_ids=POOL.fight_ids, support_ids=POOL.support_ids)
    g = FightKlubGame(pool, [pool.decks["vega_blitz"], pool.decks["hollow_control"]], FightKlubConfig(ask_moot_orders=True, auto=()))
    g.new_game(np.random.default_rng(0), drop=0)
    return g


def test_character_gametext_setup_trigger_and_bonus() -> None:
    from fight_envs.games.fight_klub.cards import Effect

    plain = _one_character()
    g = _one_character(gametext=(Trigger("setup", (Effect("add", 2, color=2),)),), bonus=(("physical", 2),))
    # the setup line adds 2 yellow at the First setup action, beside the (doubled) allocation
    assert g.players[0].pool[2] == plain.players[0].pool[2] + 2
    assert ("gametext", 0, "setup") in g.log
    for game in (g, plain):
        play_until(game, "choose_fight")
        act(game, 0, "choose_fight", OPTION0)
    f, fp = g.fights[0], plain.fights[0]
    for pos in range(3):
        tab = g.end_of(f, 0).tabs[pos]
        bonus = 2 if tab.type == "physical" else 0
        assert g.skirmish_total(f, 0, pos) == plain.skirmish_total(fp, 0, pos) + bonus


def test_character_gametext_fight_triggers() -> None:
    from fight_envs.games.fight_klub.cards import Effect

    g = _one_character(gametext=(Trigger("won_fight", (Effect("draw", 1),)), Trigger("lost_fight", (Effect("add", 1, color=1),))))
    for _ in range(400):
        if g.pending is None:
            break
        d = g.pending
        g.apply_action(d.seat, PASS if PASS in d.legal else d.legal[0])
    fights = [e for e in g.log if e[0] == "fight" and e[2] is not None]
    triggered = [e for e in g.log if e[0] == "gametext"]
    assert fights and len(triggered) == len(fights)
    assert {e[2] for e in triggered} <= {"won_fight", "lost_fight"}


def test_a_refused_reset_leaves_the_previous_game_usable() -> None:
    env = fight_klub_v0.raw_env()
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(10):
        env.step(int(rng.choice(env.game.pending.legal)))
    before = (env.game, env.agent_selection, env.game.version, env.seed_used)
    for bad in ({"drop": 2}, {"drop": True}, {"orders": [{"fight": ["h_jab"]}, None]}, {"decks": ["nope", "nope"]},
                {"orders": "x"}):
        with pytest.raises((ConfigError, DealError, Exception)):
            env.reset(seed=6, options=bad)
        assert (env.game, env.agent_selection, env.game.version, env.seed_used) == before
    env.step(int(env.game.pending.legal[0]))  # still playable


def test_numpy_integer_actions_are_accepted() -> None:
    env = fight_klub_v0.env()
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    env.step(np.array(int(np.flatnonzero(mask)[0])))  # a 0-d array, as Discrete.sample and SB3 give
    mask = env.observe(env.agent_selection)["action_mask"]
    env.step(np.int64(np.flatnonzero(mask)[0]))


def test_action_mask_in_info_only_behind_the_option() -> None:
    env = fight_klub_v0.raw_env()
    env.reset(seed=1)
    assert "action_mask" not in env.infos[env.agent_selection]
    env = fight_klub_v0.raw_env(mask_in_info=True)
    env.reset(seed=1)
    assert "action_mask" in env.infos[env.agent_selection]


def test_replay_checks_finished_truncated_and_game() -> None:
    env = fight_klub_v0.raw_env()
    env.reset(seed=9)
    rng = np.random.default_rng(9)
    while env.game.pending is not None:
        env.step(int(rng.choice(env.game.pending.legal)))
    record = env.game_record()
    replay(record)
    for key, value in (("finished", False), ("truncated", True), ("game", "fight5")):
        with pytest.raises(RecordError, match=key):
            replay({**record, key: value})


def test_preconstructed_pool_loads_with_gametext() -> None:
    assert parse_pool({"characters": [], "fight_cards": [], "support_cards": []}).characters == {}
    assert all(ch.gametext for ch in DEFAULT_POOL.characters.values())


def _fight_kinds(g: FightKlubGame) -> list[str]:
    """Play the first fight with the plain policy (pass, else the first legal action) until it is
    decided; return the kinds asked on the way."""
    f, kinds = g.fights[0], []
    act(g, 0, "choose_fight", OPTION0)
    while g.pending is not None and not f.decided:
        kinds.append(g.pending.kind)
        g.apply_action(g.pending.seat, PASS if PASS in g.pending.legal else g.pending.legal[0])
    return kinds


@pytest.mark.parametrize("cards, moot", [
    (("h_jab", "v_focus"), True),  # no Result tab on either card
    (("h_jab", "v_jab"), True),  # v_jab's right tab has a Result, but Vega wins that skirmish 3-2
    (("h_spirit_lash", "v_switch"), False),  # Vega wins the centre, whose tab has a Result (DRAW 1)
], ids=["no-results", "result-on-the-losing-tab", "result-on-a-winning-tab"])
@pytest.mark.parametrize("ask", [False, True], ids=["default", "faithful"])
def test_skirmish_order_is_asked_only_when_a_winning_tab_has_a_result(cards: tuple[str, str], moot: bool,
                                                                       ask: bool) -> None:
    g = new_game(fight0=[cards[0]], fight1=[cards[1]], ask_moot_orders=ask)
    empty_hands(g)
    play_until(g, "choose_fight")
    f = g.fights[0]
    assert g.skirmish_order_moot(f, [g.end_of(f, s) for s in (0, 1)], [0, 1, 2]) == moot
    kinds = _fight_kinds(g)
    assert ("skirmish_order" in kinds) == (ask or not moot)
    assert f.skirmish_winner == {"v_focus": [1, 0, 0], "v_jab": [-1, 0, 0], "v_switch": [-1, 0, 0]}[cards[1]]
    assert f.winner == 0
    h = g.clone()  # a clone replays the same (moot or asked) decisions
    assert h.fights[0].skirmish_winner == f.skirmish_winner and h.pending.kind == g.pending.kind


@pytest.mark.parametrize("hollow_cards, moot", [(0, True), (2, False)], ids=["both-texts-tie", "texts-disagree"])
@pytest.mark.parametrize("ask", [False, True], ids=["default", "faithful"])
def test_clash_text_is_asked_only_when_the_pick_can_matter(hollow_cards: int, moot: bool, ask: bool) -> None:
    # h_standoff (more Energy wins) vs v_patience (more cards in hand wins; on win: DRAW 1)
    g = new_game(fight0=["h_standoff"], fight1=["v_patience"], ask_moot_orders=ask)
    empty_hands(g)
    give(g, 1, *["v_slip"] * hollow_cards)
    play_until(g, "choose_fight")
    g.players[0].pool, g.players[1].pool = [0, 0, 0], [0, 0, 0]  # equal Energy: Vega's text ties
    f = g.fights[0]
    assert g.clash_text_moot(f, [g.end_of(f, s) for s in (0, 1)]) == moot
    kinds = _fight_kinds(g)
    assert ("clash_text" in kinds) == (ask or not moot)
    if moot and not ask:
        assert f.clash_text_of == 0 and f.winner is None  # The Drop's text, as the canonical pick


def _asked(auto: object, seeds: range, agent: str = "random") -> dict[str, int]:
    """How often each decision kind is asked over ``seeds`` (random play, or heuristic self-play)."""
    from fight_envs.agents.fight_klub import HeuristicAgent

    counts: dict[str, int] = {}
    heuristic = HeuristicAgent(0)
    for seed in seeds:
        env = fight_klub_v0.raw_env(auto_decisions=auto)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while env.game.pending is not None:
            kind = env.decision_kind(env.agent_selection)
            counts[kind] = counts.get(kind, 0) + 1
            if agent == "random":
                action = int(rng.choice(env.game.pending.legal))
            else:
                o = env.observe(env.agent_selection)
                action = heuristic.act(o["observation"], o["action_mask"])
            env.step(action)
    return counts


def test_decisions_resolved_by_rule_are_never_asked_and_the_asking_mode_asks_them() -> None:
    from fight_envs.games.fight_klub.rules import AUTO_DEFAULT, AUTO_RULES

    every = _asked(sorted(AUTO_RULES), range(6))
    assert not set(every) & set(AUTO_RULES)
    default = _asked(None, range(6))
    assert not set(default) & AUTO_DEFAULT
    faithful = _asked([], range(6))
    # the common ones are asked within six random games when nothing is resolved by rule
    for kind in ("order_enhance", "choose_fight", "skirmish_order", "pay_generic", "burn", "order_setup"):
        assert faithful.get(kind, 0) > 0, kind
    # the same games (heuristic self-play is the same game in every mode): fewer decisions asked
    asked = [sum(_asked(auto, range(3), "heuristic").values()) for auto in ([], None, sorted(AUTO_RULES))]
    assert asked[0] > asked[1] > asked[2]
    env = fight_klub_v0.raw_env()
    assert env.config.auto == AUTO_DEFAULT and fight_klub_v0.raw_env(auto_decisions=()).config.auto == frozenset()


def test_auto_decisions_option_is_checked() -> None:
    with pytest.raises(ConfigError, match=r"auto_decisions: \['enhance'\] cannot be made by rule.*'burn'"):
        fight_klub_v0.raw_env(auto_decisions=["enhance"])
    with pytest.raises(ConfigError, match="auto_decisions"):
        fight_klub_v0.raw_env(auto_decisions=[["burn"]])  # not a kind name (unhashable, too)
    with pytest.raises(ConfigError, match=r"cannot be resolved by rule.*'burn'"):
        FightKlubConfig(auto=frozenset({"enhance"}))
    with pytest.raises(ConfigError, match="auto_decisions must be None"):
        fight_klub_v0.raw_env(auto_decisions="burn")
    with pytest.raises(ConfigError, match="auto must be a set"):
        FightKlubConfig(auto="burn")  # type: ignore[arg-type]


def test_the_rules_are_the_heuristics_own_choices() -> None:
    """Every rule of AUTO_RULES picks what the heuristic picks, so its self-play is the same game
    whichever kinds are resolved by rule (the balance measured under it holds in every mode)."""
    from fight_envs.agents.arena import play_game
    from fight_envs.agents.fight_klub import HeuristicAgent
    from fight_envs.games.fight_klub.rules import AUTO_RULES

    agents = [HeuristicAgent(0), HeuristicAgent(1)]
    asked, ruled = fight_klub_v0.env(auto_decisions=[]), fight_klub_v0.env(auto_decisions=sorted(AUTO_RULES))
    fewer = 0
    for seed in range(6):
        a, b = play_game(asked, agents, seed=seed), play_game(ruled, agents, seed=seed)
        ga, gb = asked.unwrapped.game, ruled.unwrapped.game
        assert list(a.returns) == list(b.returns) and [p.dealt for p in ga.players] == [p.dealt for p in gb.players]
        assert [p.damage_stack for p in ga.players] == [p.damage_stack for p in gb.players]
        fewer += len(ga.actions) - len(gb.actions)
    assert fewer > 0


def test_order_rules_the_drop_acts_last_in_enhance_and_score_first_otherwise() -> None:
    g = new_game(drop=1, auto=("order_setup", "order_enhance", "order_score", "order_cooldown"))
    d = g.pending
    assert (d.kind, d.seat) == ("setup", 1)  # The Drop (seat 1) sets up first, without being asked
    assert ("auto", "order_setup", 1) in g.log
    play_until(g, "choose_fight")
    act(g, 1, "choose_fight", OPTION0)
    while g.pending.kind not in ("enhance", "order_enhance"):
        g.apply_action(g.pending.seat, g.pending.legal[0])
    assert ("auto", "order_enhance", 0) in g.log  # the other player (seat 0) first: The Drop acts last
    assert g.pending.kind == "enhance" and g.pending.seat == 0


def test_choose_fight_rule_takes_the_fewest_damage_markers_first() -> None:
    # fights: h_finisher (5) vs v_focus (2), h_jab (1) vs v_jab (1), h_crush (3) vs v_heavy (3)
    g = new_game(drop=0, fight0=["h_finisher", "h_jab", "h_crush"], fight1=["v_focus", "v_jab", "v_heavy"],
                 auto=("choose_fight",))
    empty_hands(g)
    for _ in range(100):
        if g.current is not None:
            break
        g.apply_action(g.pending.seat, PASS if PASS in g.pending.legal else g.pending.legal[0])
    assert g.current == 1 and ("auto", "choose_fight", OPTION0 + 1) in g.log


def test_clash_text_rule_takes_the_text_the_drop_wins_by() -> None:
    # h_standoff (more Energy wins) vs v_patience (more cards in hand wins): Vega (The Drop) has the
    # Energy, The Hollow the cards: Vega's own text wins for Vega; with Energy equal, the other's loses
    # and Vega's ties, so Vega's is used either way; with Vega holding more cards, The Hollow's text
    # (hand) gives Vega the win and is the one used
    for vega_pool, vega_cards, hollow_cards, owner, winner in (([3, 0, 0], 0, 2, 0, 0), ([0, 0, 0], 0, 2, 0, None),
                                                               ([0, 0, 0], 2, 0, 1, 0)):
        g = new_game(fight0=["h_standoff"], fight1=["v_patience"], auto=("clash_text",))
        empty_hands(g)
        give(g, 0, *["h_slip"] * vega_cards)
        give(g, 1, *["v_slip"] * hollow_cards)
        play_until(g, "choose_fight")
        g.players[0].pool, g.players[1].pool = list(vega_pool), [0, 0, 0]
        f = g.fights[0]
        kinds = _fight_kinds(g)
        assert "clash_text" not in kinds
        assert (f.clash_text_of, f.winner) == (owner, winner), (vega_pool, vega_cards, hollow_cards)


def test_skirmish_order_rule_is_left_to_right() -> None:
    g = new_game(fight0=["h_spirit_lash"], fight1=["v_switch"], auto=("skirmish_order",))
    empty_hands(g)
    play_until(g, "choose_fight")
    kinds = _fight_kinds(g)
    assert "skirmish_order" not in kinds
    assert [e[1] for e in g.log if e[0] == "skirmish"] == [0, 1, 2]


def test_pay_and_burn_rules_take_the_colour_held_most() -> None:
    from fk_helpers import hand_action, resolve

    from fight_envs.games.fight_klub.cards import Effect

    g = new_game(drop=0, auto=("pay_generic", "burn"))
    empty_hands(g)
    give(g, 0, "h_training")  # generic 2
    g.players[0].pool = [2, 3, 1]
    act(g, 0, "order_setup", OPTION0)
    act(g, 0, "setup", hand_action(g, 0, "h_training"))
    assert g.players[0].pool == [1, 2, 1]  # green (3 held), then blue (2 of blue and green: the first)
    g.players[1].pool = [1, 1, 2]
    assert resolve(g, 0, (Effect("burn", 3, who="opponent"),)) == []
    assert g.players[1].pool == [0, 0, 1]  # yellow (2), then blue (1 each: the first), then green


def test_records_keep_the_kinds_resolved_by_rule() -> None:
    from fight_envs.games.fight_klub.rules import AUTO_RULES

    env = fight_klub_v0.raw_env(auto_decisions=sorted(AUTO_RULES))
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    while env.game.pending is not None:
        env.step(int(rng.choice(env.game.pending.legal)))
    record = env.game_record()
    assert record["config"]["auto"] == sorted(AUTO_RULES)
    game = replay(record)
    assert game.config.auto == frozenset(AUTO_RULES) and [p.dealt for p in game.players] == record["damage"]
    old = dict(record, config={"max_turns": record["config"]["max_turns"], "ask_moot_orders": False})
    with pytest.raises(RecordError):  # a record without "auto" asked every choice: these actions do not fit it
        replay(old)


@pytest.mark.parametrize("chooser, kind", [("self", "destroy_other"), ("owner", "destroy_own")])
def test_destroy_rule_takes_the_card_longest_in_play(chooser: str, kind: str) -> None:
    from fk_helpers import POOL, resolve

    from fight_envs.games.fight_klub.cards import Effect
    from fight_envs.games.fight_klub.rules import InPlay

    effect = Effect("destroy", 1, kind="any", who="opponent", chooser=chooser)
    for auto in ((kind,), ()):
        g = new_game(auto=auto)
        g.players[1].support = [InPlay(POOL.support[c]) for c in ("v_meditation", "v_amulet", "v_war_room")]
        asked = resolve(g, 0, (effect,), answers=[18])  # asked: take the middle one
        left = [x.card.id for x in g.players[1].support]
        if auto:
            assert asked == [] and left == ["v_amulet", "v_war_room"] and g.players[1].discard[-1] == "v_meditation"
        else:
            assert [d.kind for d in asked] == [kind] and left == ["v_meditation", "v_war_room"]


def test_score_and_cooldown_rules_play_what_the_result_calls_for() -> None:
    from fight_envs.games.fight_klub.rules import Decision

    # Iron Sage wins the fight (h_sig2 over v_jab, 3-0): by rule he plays Go For Broke (double damage
    # when won), never Regroup (draw 2 when lost)
    g = new_game(d0="sage_patience", drop=0, fight0=["h_sig2"], fight1=["v_jab"], auto=("score", "cooldown"))
    empty_hands(g)
    give(g, 0, "h_regroup", "h_go_for_broke")
    g.players[0].pool = [0, 0, 5]
    play_until(g, "choose_fight")
    act(g, 0, "choose_fight", OPTION0)
    for _ in range(60):
        if g.fights[0].resolved or g.pending is None:
            break
        assert g.pending.kind != "score"
        g.apply_action(g.pending.seat, PASS if PASS in g.pending.legal else g.pending.legal[0])
    assert g.fights[0].winner == 0 and any(e[:3] == ("auto", "score", 0) for e in g.log)
    assert "h_go_for_broke" in g.players[0].played and "h_regroup" not in g.players[0].played
    assert g.players[0].damage_stack[0] == ("h_sig2", True)  # scored double
    # Cooldown: the first card that can act, hand before support area; nothing to play: pass
    assert g._phase_rule(Decision(0, "cooldown", (PASS, HAND0 + 2, 18))) == HAND0 + 2
    assert g._phase_rule(Decision(0, "cooldown", (PASS, 18))) == 18


def test_cards_played_by_rule_replay_in_clones_and_determinizations() -> None:
    """Score and Cooldown plays made by rule read the player's own hand, so they are in the script:
    a clone plays them again, and a determinization (another hand for the other seat) keeps them."""
    env = fight_klub_v0.raw_env()
    for seed in range(3):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while env.game.pending is not None and not any(e[0] == "auto" and e[1] in ("score", "cooldown") for e in env.game.log):
            env.step(int(rng.choice(env.game.pending.legal)))
        g = env.game
        if g.pending is None:
            continue
        seat = next(e[2] for e in g.log if e[0] == "auto" and e[1] in ("score", "cooldown"))
        for other in (g.clone(), g.determinize(1 - seat, np.random.default_rng(seed))):
            assert other.players[seat].played == g.players[seat].played
            assert [p.dealt for p in other.players] == [p.dealt for p in g.players]
            assert other.pending == g.pending or other.pending.kind == g.pending.kind
        return
    raise AssertionError("no card was played by rule in three random games")


def test_setup_and_discard_rules_order_the_cards_by_type_and_worth() -> None:
    """Setup by rule (not the default; heuristic v4's own order): a Condition from the hand first, then a
    Gear, then a Setup Instant, then a Setup action of a card in play, each group by ``keep_value``;
    a discard by rule (the default): the hand card worth least, ties the first."""
    from fk_helpers import POOL

    from fight_envs.games.fight_klub.rules import AUTO_DEFAULT, Decision, InPlay, keep_value

    assert "setup" not in AUTO_DEFAULT and "discard" in AUTO_DEFAULT
    g = new_game(auto=("setup", "discard"))
    empty_hands(g)
    give(g, 1, "v_sabotage", "v_amulet", "v_meditation", "v_prepare")
    p = g.players[1]
    p.support = [InPlay(POOL.support["v_library"]), InPlay(POOL.support["v_generator"])]
    order = []
    hand = {cid: HAND0 + i for i, cid in enumerate(p.hand)}
    left = [*hand.values(), 17, 18]
    while left:
        a = g._phase_rule(Decision(1, "setup", (PASS, *left)))
        order.append(p.hand[a - HAND0] if a < 17 else p.support[a - 17].card.id)
        left.remove(a)
    assert order == ["v_meditation", "v_amulet", "v_prepare", "v_sabotage", "v_generator", "v_library"]
    assert g._phase_rule(Decision(1, "setup", (PASS,))) == PASS
    values = {cid: keep_value(POOL.support[cid]) for cid in p.hand}
    assert min(values, key=values.__getitem__) == "v_sabotage"
    assert g._phase_rule(Decision(1, "discard", tuple(hand.values()))) == hand["v_sabotage"]
    give(g, 1, "v_slip", "v_slip")  # worth 1.0, as Sabotage: the first in the hand of the cheapest goes
    assert keep_value(POOL.support["v_slip"]) == values["v_sabotage"]
    first = min(i for i, cid in enumerate(p.hand) if keep_value(POOL.support[cid]) == values["v_sabotage"])
    assert g._phase_rule(Decision(1, "discard", tuple(HAND0 + i for i in range(len(p.hand))))) == HAND0 + first


def test_discards_made_by_rule_replay_in_clones_and_determinizations() -> None:
    """A discard made by rule reads the discarding player's own hand, so it is in the script like a
    forced move: a clone and a determinization (by either seat) discard the same card."""
    env = fight_klub_v0.raw_env()
    for seed in range(40):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while env.game.pending is not None and not any(e[:2] == ("auto", "discard") for e in env.game.log):
            assert env.game.pending.kind != "discard"
            env.step(int(rng.choice(env.game.pending.legal)))
        g = env.game
        if g.pending is None:
            continue
        for other in (g.clone(), g.determinize(0, np.random.default_rng(seed)), g.determinize(1, np.random.default_rng(seed))):
            assert [p.discard for p in other.players] == [p.discard for p in g.players]
            assert [p.dealt for p in other.players] == [p.dealt for p in g.players]
        return
    raise AssertionError("no card was discarded by rule in 40 random games")
