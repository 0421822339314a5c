"""The card pool and deck lists: schema validation on load, the pool's breadth, deck construction."""

from __future__ import annotations

import copy
import json
from importlib import resources
from pathlib import Path

import pytest

from fight_envs.core.errors import CardDataError
from fight_envs.games.fight_klub.cards import (
    DEFAULT_POOL,
    EFFECT_OPS,
    PHASES,
    SKIRMISH_TYPES,
    DeckError,
    DeckList,
    load_deck,
    load_pool,
    parse_deck,
    parse_pool,
    validate_deck,
)

RAW = json.loads(resources.files("fight_envs.games.fight_klub").joinpath("cards.json").read_text(encoding="utf-8"))
DECKS = json.loads(resources.files("fight_envs.games.fight_klub").joinpath("decks.json").read_text(encoding="utf-8"))


def test_pool_is_broad_enough() -> None:
    pool = DEFAULT_POOL
    chars = list(pool.characters.values())
    assert len(chars) >= 4 and {c.affiliation for c in chars} == {"hero", "villain"}
    assert len(pool.fight) >= 30 and len(pool.support) >= 40
    ends = [e for c in pool.fight.values() for e in c.ends]
    assert {t.type for e in ends if e.kind == "power" for t in e.tabs} == set(SKIRMISH_TYPES)
    assert any(e.kind == "clash" for e in ends)
    assert any(t.result for e in ends if e.kind == "power" for t in e.tabs)  # Result tabs
    assert any(c.rotate_cost is not None for c in pool.fight.values())
    assert any(c.gold for c in pool.fight.values()) and any(c.signature for c in pool.fight.values())
    types = [c.type for c in pool.support.values()]
    assert all(types.count(t) >= 4 for t in ("condition", "effect", "gear", "instant"))
    assert {c.phase for c in pool.support.values() if c.type == "instant"} == set(PHASES)
    used_ops = {e.op for c in pool.support.values() for e in c.effects + tuple(x for a in c.actions for x in a.effects)}
    used_ops |= {e.op for e in ends for t in e.tabs for e in t.result}
    assert used_ops == set(EFFECT_OPS)  # every verb of the vocabulary is used by some card
    assert any(e.who == "opponent" for c in pool.support.values() for e in c.effects)
    assert any(c.cost.spot != (0, 0, 0) or (c.activation and c.activation.spot != (0, 0, 0)) or
               any(a.cost.spot != (0, 0, 0) for a in c.actions) for c in pool.support.values())
    assert len(pool.decks) >= 4


def test_characters_differ() -> None:
    stats = {(c.life, c.hold, c.hand, c.energy, c.fists, c.imprint) for c in DEFAULT_POOL.characters.values()}
    assert len(stats) == len(DEFAULT_POOL.characters)
    assert len({c.life for c in DEFAULT_POOL.characters.values()}) >= 3


def test_preconstructed_decks_are_legal() -> None:
    for deck in DEFAULT_POOL.decks.values():
        validate_deck(deck, DEFAULT_POOL)
        assert len(deck.fight_ids()) == 12 and len(deck.draw_ids()) == 27
    assert len({d.character for d in DEFAULT_POOL.decks.values()}) == 6
    sides = [DEFAULT_POOL.characters[d.character].affiliation for d in DEFAULT_POOL.decks.values()]
    assert sides.count("hero") >= 3 and sides.count("villain") >= 3


def _deck(**change: object) -> DeckList:
    base = DEFAULT_POOL.decks["vega_blitz"].to_json()
    base.update(change)
    return parse_deck(base)


def _broken(rule: str) -> DeckList:
    vega = DEFAULT_POOL.decks["vega_blitz"].to_json()
    fight, draw = dict(vega["fight"]), dict(vega["draw"])
    if rule == "character":
        return _deck(character="h_jab")
    if rule == "fight-size":
        fight["h_jab"] -= 1
        return _deck(fight=fight)
    if rule == "draw-size":
        draw["h_jab"] = 1  # a Fight card in the Draw deck
        return _deck(draw=draw)
    if rule == "copies":
        draw["h_surge"] += 1  # 4 commons
        draw["h_brace"] -= 1
        return _deck(draw=draw)
    if rule == "gold":
        # vega_blitz already holds 3 gold-icon cards (h_finisher, h_underdog and one uncommon h_rally);
        # a second h_rally is within the copy limit (3 of an uncommon) but makes 4 gold-icon cards
        assert (fight["h_finisher"], fight["h_underdog"], fight["h_rally"]) == (1, 1, 1)
        fight["h_rally"] += 1
        fight["h_jab"] -= 1
        return _deck(fight=fight)
    if rule == "affiliation":
        draw["h_surge"] -= 1
        draw["v_surge"] = 1
        return _deck(draw=draw)
    if rule == "signature":
        del fight["h_sig1"]
        fight["h_sig2"] = 1  # Iron Sage's signature card in Captain Vega's deck
        return _deck(fight=fight)
    raise AssertionError(rule)


@pytest.mark.parametrize("rule", [
    pytest.param("character", id="character"),
    pytest.param("fight-size", id="fight-size"),
    pytest.param("draw-size", id="draw-size"),
    pytest.param("copies", id="copies"),
    pytest.param("gold", id="gold"),
    pytest.param("affiliation", id="affiliation"),
    pytest.param("signature", id="signature"),
])
def test_every_construction_rule_is_enforced(rule: str) -> None:
    deck = _broken(rule)
    pool = DEFAULT_POOL
    if rule == "gold":
        validate_deck(DEFAULT_POOL.decks["vega_blitz"], pool)  # exactly 3 gold-icon cards is legal
        assert pool.fight["h_rally"].rarity == "uncommon" and pool.fight["h_rally"].gold
    with pytest.raises(DeckError) as info:
        validate_deck(deck, pool)
    assert info.value.rule == rule
    assert f"deck rule '{rule}' broken" in str(info.value)


def test_deck_lists_load_from_files_and_dicts(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(DECKS[0]), encoding="utf-8")
    assert load_deck(str(path), DEFAULT_POOL) == DEFAULT_POOL.decks[DECKS[0]["name"]]
    assert load_deck(DECKS[1], DEFAULT_POOL).name == DECKS[1]["name"]
    with pytest.raises(CardDataError, match="unknown deck"):
        load_deck("no_such_deck", DEFAULT_POOL)
    bad = dict(DECKS[0], fight={**DECKS[0]["fight"], "h_jab": 0})
    with pytest.raises(CardDataError, match="positive integer"):
        load_deck(bad, DEFAULT_POOL)


@pytest.mark.parametrize("path, value, message", [
    pytest.param(("characters", 0, "life"), 0, "field 'life' must be in 1..99", id="life"),
    pytest.param(("characters", 0, "energy"), {"red": 1}, "unknown colour", id="colour"),
    pytest.param(("fight_cards", 0, "ends"), [], "field 'ends' must hold 1 end", id="ends"),
    pytest.param(("fight_cards", 0, "damage"), "2", "field 'damage' must be an integer", id="damage"),
    pytest.param(("fight_cards", 0, "ends", 0, "tabs", 0, "type"), "speed", "allowed: mental, physical, spiritual, fate", id="tab-type"),
    pytest.param(("support_cards", 0, "type"), "spell", "field 'type' is 'spell'", id="support-type"),
    pytest.param(("support_cards", 5, "tabs"), [1, 2], "field 'tabs' must be 3 integers", id="effect-tabs"),
    pytest.param(("support_cards", 14, "effects", 0, "op"), "explode", "field 'op' is 'explode'", id="op"),
    pytest.param(("support_cards", 14, "effects", 0, "color"), "blue", "op 'draw' takes no field(s) ['color']", id="op-field"),
    pytest.param(("fight_cards", 14, "bonus_color"), None, "needs a 'bonus_color'", id="signature-bonus"),
])
def test_bad_card_data_names_the_field(path: tuple, value: object, message: str) -> None:
    raw = copy.deepcopy(RAW)
    node = raw
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(CardDataError) as info:
        parse_pool(raw)
    assert message in str(info.value)


def test_duplicate_ids_and_bad_signatures_are_rejected(tmp_path: Path) -> None:
    raw = copy.deepcopy(RAW)
    raw["support_cards"].append(copy.deepcopy(raw["support_cards"][0]))
    with pytest.raises(CardDataError, match="used twice"):
        parse_pool(raw)
    raw = copy.deepcopy(RAW)
    raw["support_cards"][0]["signature"] = "nobody"
    with pytest.raises(CardDataError, match="no character"):
        parse_pool(raw)
    (tmp_path / "c.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(CardDataError, match="not valid JSON"):
        load_pool(tmp_path / "c.json")
    bad_decks = copy.deepcopy(DECKS)
    bad_decks[0]["fight"]["h_jab"] += 1
    with pytest.raises(CardDataError, match="preconstructed deck 'vega_blitz' is illegal"):
        parse_pool(RAW, bad_decks)


def _card(raw: dict, cid: str) -> dict:
    return next(c for part in ("fight_cards", "support_cards") for c in raw[part] if c["id"] == cid)


@pytest.mark.parametrize("cid, mutate, message", [
    pytest.param("h_prepare", lambda c: c["effects"][0].update(when="won"), "field 'when' can never be met in a Setup-phase effect", id="when-setup-instant"),
    pytest.param("h_adrenaline", lambda c: c["effects"][0].update(when="lost"), "field 'when' can never be met in an Enhance-phase effect", id="when-enhance-instant"),
    pytest.param("h_spirit_lash", lambda c: c["ends"][0]["tabs"][1]["result"][0].update(when="won"), "field 'when' can never be met in a Result tab", id="when-result-tab"),
    pytest.param("h_lens", lambda c: c["effects"][0].update(when="won"), "field 'when' can never be met in an Enhance-phase effect", id="when-gear"),
    pytest.param("h_generator", lambda c: c["actions"][1]["effects"][0].update(when="lost"), "field 'when' can never be met in a Cooldown-phase effect", id="when-condition-action"),
    pytest.param("h_go_for_broke", lambda c: c["effects"].append({"op": "boost", "n": 2}), "op 'boost' can never act in a Score-phase effect", id="boost-score-instant"),
    pytest.param("h_go_for_broke", lambda c: c["effects"].append({"op": "nullify", "position": 0}), "op 'nullify' can never act in a Score-phase effect", id="nullify-score-instant"),
    pytest.param("h_war_room", lambda c: c["actions"][1]["effects"].append({"op": "boost", "n": 1}), "op 'boost' can never act in a Score-phase effect", id="boost-score-condition"),
    pytest.param("h_patience", lambda c: c["ends"][0]["on_win"].append({"op": "boost", "n": 1}), "op 'boost' can never act in a Clash end's 'on_win'", id="boost-on-win"),
    pytest.param("h_patience", lambda c: c["ends"][0]["on_win"].append({"op": "nullify", "position": 2}), "op 'nullify' can never act in a Clash end's 'on_win'", id="nullify-on-win"),
    pytest.param("h_patience", lambda c: c["ends"][0]["on_win"][0].update(when="won"), "field 'when' can never be met in a Clash end's 'on_win'", id="when-on-win"),
    pytest.param("h_drain", lambda c: c["effects"].append({"op": "double_damage"}), "op 'double_damage' can never act in a Cooldown-phase effect", id="fight-op-cooldown"),
])
def test_effects_that_can_never_fire_are_rejected(cid: str, mutate: object, message: str) -> None:
    raw = copy.deepcopy(RAW)
    card = _card(raw, cid)
    mutate(card)  # type: ignore[operator]
    with pytest.raises(CardDataError) as info:
        parse_pool(raw)
    assert f"card {cid!r}" in str(info.value) and message in str(info.value)


def test_effects_that_can_fire_still_load() -> None:
    raw = copy.deepcopy(RAW)
    _card(raw, "h_go_for_broke")["effects"].append({"op": "draw", "n": 1, "when": "lost"})  # Score: decided
    _card(raw, "h_adrenaline")["effects"].append({"op": "nullify", "position": 0})  # Enhance: before skirmishes
    _card(raw, "h_patience")["ends"][0]["on_win"].append({"op": "double_damage"})  # Clash win: scores double
    parse_pool(raw)


@pytest.mark.parametrize("cid, mutate, message", [
    # ⦾ as a cost ("the opponent pays"): a cost is only the player's own Energy, burned or spotted
    pytest.param("h_drain", lambda c: c["cost"].update(opponent={"generic": 1}), "unknown field(s) ['opponent']", id="opponent-cost"),
    # "additional cost to play" gametext: the one cost field is the whole cost
    pytest.param("h_sabotage", lambda c: c.update(additional_cost={"discard": 1}), "unknown field(s) ['additional_cost']", id="additional-cost"),
    # a coloured BURN ("⦾ BURNS 1 blue"): burn takes any tokens of the burner's choice
    pytest.param("v_drain", lambda c: c["effects"][0].update(color="blue"), "op 'burn' takes no field(s) ['color']", id="coloured-burn"),
    # Retrieve "placed according to the card": Retrieve always puts the card into hand
    pytest.param("h_library", lambda c: c["actions"][0]["effects"][0].update(to="support"), "op 'retrieve' takes no field(s) ['to']", id="retrieve-destination"),
    # a Damage Marker total over "fight cards this round": only the current fight's cards are measured
    pytest.param("h_standoff", lambda c: c["ends"][0].update(measure="damage_marker_round"), "field 'measure' is 'damage_marker_round'", id="damage-markers-this-round"),
])
def test_vocabulary_limits_are_rejected(cid: str, mutate: object, message: str) -> None:
    raw = copy.deepcopy(RAW)
    mutate(_card(raw, cid))  # type: ignore[operator]
    with pytest.raises(CardDataError) as info:
        parse_pool(raw)
    assert f"card {cid!r}" in str(info.value) and message in str(info.value)


def test_heroes_and_villains_have_their_own_cards() -> None:
    # no Villain card repeats a Hero card's game data (only the name and the card back differ), and
    # each side alone offers at least half the pool's breadth
    pool = DEFAULT_POOL

    def fight_key(c):  # type: ignore[no-untyped-def]
        return (c.rarity, c.gold, c.damage, c.ends, c.rotate_cost)

    def support_key(c):  # type: ignore[no-untyped-def]
        return (c.type, c.cost, c.phase, c.effects, c.tabs, c.activation, c.after, c.bonus, c.actions)

    for key, cards in ((fight_key, pool.fight), (support_key, pool.support)):
        hero = {key(c) for c in cards.values() if c.affiliation == "hero"}
        mirrored = [c.id for c in cards.values() if c.affiliation == "villain" and key(c) in hero]
        assert not mirrored, f"Villain cards that mirror a Hero card: {mirrored}"
    for side in ("hero", "villain"):
        assert sum(c.affiliation == side for c in pool.fight.values()) >= 15
        assert sum(c.affiliation == side for c in pool.support.values()) >= 20
        gold = [c for c in pool.fight.values() if c.affiliation == side and c.gold]
        assert any(c.rarity != "rare" for c in gold)  # a 3-copy gold card: the gold limit binds


def test_preconstructed_decks_differ() -> None:
    # four strategies, not two: any two decks share at most half their cards
    decks = list(DEFAULT_POOL.decks.values())
    for i, a in enumerate(decks):
        for b in decks[i + 1:]:
            ca = dict(a.fight + a.draw)
            cb = dict(b.fight + b.draw)
            shared = sum(min(n, cb.get(cid, 0)) for cid, n in ca.items())
            assert shared <= 20, f"{a.name} and {b.name} share {shared} of 39 cards"


_BAD_COUNTS = [pytest.param(v, id=repr(v)) for v in (-5, 0, 2.5, True, "3", None)]


@pytest.mark.parametrize("bad", _BAD_COUNTS)
@pytest.mark.parametrize("entry", ["dict", "file", "DeckList"])
def test_every_count_is_an_integer_of_one_or_more_wherever_a_deck_enters(entry: str, bad: object, tmp_path: Path) -> None:
    vega = DEFAULT_POOL.decks["vega_blitz"]
    data = vega.to_json()
    data["fight"]["h_jab"] = bad  # seat 0 once started with a 17-card Fight stack from a count of -5
    if entry == "DeckList":
        deck = DeckList(vega.name, vega.character, tuple(data["fight"].items()), vega.draw)
        with pytest.raises(DeckError) as info:
            load_deck(deck, DEFAULT_POOL)
        assert info.value.rule == "counts" and "'h_jab'" in str(info.value)
        return
    source: object = data
    if entry == "file":
        path = tmp_path / "deck.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        source = str(path)
    with pytest.raises(CardDataError, match="count of 'h_jab' must be a positive integer"):
        load_deck(source, DEFAULT_POOL)  # type: ignore[arg-type]


def test_deck_lists_as_lists_of_ids_and_repeated_entries() -> None:
    vega = DEFAULT_POOL.decks["vega_blitz"]
    data = {"name": "listed", "character": vega.character, "fight": vega.fight_ids(), "draw": vega.draw_ids()}
    deck = load_deck(data, DEFAULT_POOL)
    assert sorted(deck.fight_ids()) == sorted(vega.fight_ids()) and sorted(deck.draw_ids()) == sorted(vega.draw_ids())
    with pytest.raises(CardDataError, match=r"fight\[0\]: a card id"):
        load_deck(dict(data, fight=[3] + vega.fight_ids()[1:]), DEFAULT_POOL)
    twice = DeckList("twice", vega.character, vega.fight[:1] + vega.fight, vega.draw)
    with pytest.raises(DeckError, match="listed twice") as info:
        validate_deck(twice, DEFAULT_POOL)
    assert info.value.rule == "counts"


def test_every_coloured_cost_is_payable_from_the_decks_own_sources() -> None:
    # the old vega_blitz: Energy Well, Smoke Bomb and two Go For Broke cost yellow, which Captain
    # Vega (blue and green) and no card of the deck could ever make: drawn 342 times, played 0
    vega = DEFAULT_POOL.decks["vega_blitz"].to_json()
    draw = dict(vega["draw"])
    draw["h_surge"] -= 1
    draw["h_overreach"] -= 1
    del draw["h_harass"]
    draw.update(h_generator=1, h_bomb=1, h_go_for_broke=2)
    with pytest.raises(DeckError) as info:
        validate_deck(parse_deck(dict(vega, draw=draw)), DEFAULT_POOL)
    assert info.value.rule == "colours" and "yellow" in str(info.value)
    # a source in the deck makes the colour payable: Calculated Risk's Result adds green, and a
    # character's allocation counts too
    for deck in DEFAULT_POOL.decks.values():
        validate_deck(deck, DEFAULT_POOL)


def test_characters_have_gametext() -> None:
    for ch in DEFAULT_POOL.characters.values():
        assert ch.gametext or ch.bonus, f"{ch.id} has no gametext"
    assert len({(c.bonus, c.gametext) for c in DEFAULT_POOL.characters.values()}) == len(DEFAULT_POOL.characters)
    raw = copy.deepcopy(RAW)
    raw["characters"][0]["gametext"] = [{"when": "setup", "effects": [{"op": "boost", "n": 1}]}]
    with pytest.raises(CardDataError, match="gametext\\[0\\].effects\\[0\\]: op 'boost' can never act"):
        parse_pool(raw)
    raw["characters"][0]["gametext"] = [{"when": "dawn", "effects": [{"op": "draw"}]}]
    with pytest.raises(CardDataError, match="field 'when' is 'dawn'"):
        parse_pool(raw)


def _mechanics(side: str) -> set[tuple[str, str, bool]]:
    """(op, who, negative) of every effect on the side's cards and characters."""
    pool = DEFAULT_POOL
    out = set()
    for c in pool.support.values():
        if c.affiliation == side:
            out |= {(e.op, e.who, e.n < 0) for e in c.effects + tuple(x for a in c.actions for x in a.effects)}
    for c in pool.fight.values():
        if c.affiliation == side:
            out |= {(e.op, e.who, e.n < 0) for end in c.ends for e in end.on_win + tuple(x for t in end.tabs for x in t.result)}
    for ch in pool.characters.values():
        if ch.affiliation == side:
            out |= {(e.op, e.who, e.n < 0) for t in ch.gametext for e in t.effects}
    return out


def test_hero_and_villain_pools_differ_in_mechanics() -> None:
    hero, villain = _mechanics("hero"), _mechanics("villain")
    # Heroes fight clean: they retrieve, nullify and destroy, and never make the opponent burn or discard
    assert {("retrieve", "self", False), ("nullify", "self", False), ("destroy", "opponent", False)} <= hero - villain
    # Villains fight dirty: burn, discard and negative boosts on the opponent, none of which Heroes have
    assert {("burn", "opponent", False), ("discard", "opponent", False), ("boost", "opponent", True)} <= villain - hero
