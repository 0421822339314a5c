"""The observation encoder: lossless card features, the layout table, and the new summary blocks."""

from __future__ import annotations

import copy
import json
import re
from importlib import resources

import numpy as np
import pytest

from fight_envs import fight_klub_v0
from fight_envs.games.fight_klub import observe
from fight_envs.games.fight_klub.cards import DEFAULT_POOL, parse_pool
from fight_envs.games.fight_klub.observe import (
    OBS_SIZE,
    OBS_SLICES,
    character_features,
    fight_card_features,
    support_features,
)

CARDS = json.loads(resources.files("fight_envs.games.fight_klub").joinpath("cards.json").read_text(encoding="utf-8"))


def _gameplay(card: dict) -> str:
    """A card's data without the fields that are no gameplay (id, name, signature target)."""
    return json.dumps({k: v for k, v in card.items() if k not in ("id", "name", "signature")}, sort_keys=True)


def _vectors(data: dict) -> dict[str, bytes]:
    pool = parse_pool(data)
    out = {cid: support_features(c).tobytes() for cid, c in pool.support.items()}
    for cid, c in pool.fight.items():
        out[cid] = b"".join(fight_card_features(c, e).tobytes() for e in range(len(c.ends)))
    return out


def test_distinct_cards_of_the_pool_give_distinct_vectors() -> None:
    vec = _vectors(CARDS)
    cards = {c["id"]: _gameplay(c) for c in CARDS["fight_cards"] + CARDS["support_cards"]}
    by_vector: dict[bytes, list[str]] = {}
    for cid, v in vec.items():
        by_vector.setdefault(v, []).append(cid)
    for ids in by_vector.values():
        assert len({cards[c] for c in ids}) == 1, f"cards {ids} differ but encode alike"
    chars = {c.id: character_features(c).tobytes() for c in DEFAULT_POOL.characters.values()}
    assert len(set(chars.values())) == len(chars)


# one generated card per verb argument: each pair differs in that argument only
_PAIRS = [
    ("boost type", {"op": "boost", "n": 2, "type": "physical"}, {"op": "boost", "n": 2, "type": "mental"}),
    ("boost all", {"op": "boost", "n": 1, "type": "all"}, {"op": "boost", "n": 1, "type": "fate"}),
    ("nullify position", {"op": "nullify", "position": 1}, {"op": "nullify", "position": 0}),
    ("add colour", {"op": "add", "n": 1, "color": "green"}, {"op": "add", "n": 1, "color": "yellow"}),
    ("destroy kind", {"op": "destroy", "n": 1, "kind": "condition"}, {"op": "destroy", "n": 1, "kind": "gear"}),
    ("destroy chooser", {"op": "destroy", "n": 1, "who": "opponent"},
     {"op": "destroy", "n": 1, "who": "opponent", "chooser": "self"}),
    ("retrieve kind", {"op": "retrieve", "kind": "instant"}, {"op": "retrieve", "kind": "any"}),
    ("who", {"op": "draw", "n": 1}, {"op": "draw", "n": 1, "who": "opponent"}),
    ("n", {"op": "burn", "n": 1, "who": "opponent"}, {"op": "burn", "n": 2, "who": "opponent"}),
]


def _instant(cid: str, effects: list, phase: str = "enhance", cost: dict | None = None) -> dict:
    return {"id": cid, "name": cid, "affiliation": "hero", "rarity": "common", "signature": None, "type": "instant",
            "cost": cost or {}, "phase": phase, "effects": effects}


@pytest.mark.parametrize("what, a, b", [pytest.param(*p, id=p[0]) for p in _PAIRS])
def test_every_verb_argument_is_encoded(what: str, a: dict, b: dict) -> None:
    data = copy.deepcopy(CARDS)
    data["support_cards"] += [_instant("gen_a", [a]), _instant("gen_b", [b])]
    vec = _vectors(data)
    assert vec["gen_a"] != vec["gen_b"], what


def test_timing_costs_order_and_when_are_encoded() -> None:
    data = copy.deepcopy(CARDS)
    draw, add = {"op": "draw", "n": 1}, {"op": "add", "n": 1, "color": "green"}
    data["support_cards"] += [
        _instant("setup_draw", [draw], phase="setup"), _instant("cool_draw", [draw], phase="cooldown"),
        _instant("blue_cost", [draw], cost={"blue": 1, "green": 2}), _instant("green_cost", [draw], cost={"blue": 2, "green": 1}),
        _instant("draw_add", [draw, add], phase="setup"), _instant("add_draw", [add, draw], phase="setup"),
        _instant("won", [{"op": "draw", "n": 1, "when": "won"}, add], phase="score"),
        _instant("won2", [draw, {"op": "add", "n": 1, "color": "green", "when": "won"}], phase="score"),
    ]
    cond = {"id": "c_setup", "name": "c", "affiliation": "hero", "rarity": "common", "signature": None, "type": "condition",
            "cost": {}, "actions": [{"phase": "setup", "cost": {"generic": 1}, "effects": [draw]},
                                    {"phase": "cooldown", "effects": [add]}]}
    cond2 = copy.deepcopy(cond)
    cond2["id"], cond2["actions"][0]["effects"], cond2["actions"][1]["effects"] = "c_swapped", [add], [draw]
    data["support_cards"] += [cond, cond2]
    vec = _vectors(data)
    for a, b in [("setup_draw", "cool_draw"), ("blue_cost", "green_cost"), ("draw_add", "add_draw"), ("won", "won2"),
                 ("c_setup", "c_swapped")]:
        assert vec[a] != vec[b], (a, b)


def test_result_tabs_and_clash_texts_are_encoded_per_tab() -> None:
    data = copy.deepcopy(CARDS)
    base = copy.deepcopy(next(c for c in data["fight_cards"] if c["id"] == "h_jab"))
    left, right = copy.deepcopy(base), copy.deepcopy(base)
    left["id"], right["id"] = "gen_left", "gen_right"
    left["ends"][0]["tabs"][0]["result"] = [{"op": "add", "n": 1, "color": "blue"}]
    right["ends"][0]["tabs"][2]["result"] = [{"op": "add", "n": 1, "color": "blue"}]
    data["fight_cards"] += [left, right]
    vec = _vectors(data)
    assert vec["gen_left"] != vec["gen_right"]


def test_layout_table_matches_the_slices() -> None:
    doc = observe.__doc__ or ""
    rows = re.findall(r"^\| ``(\w+)``(?: / ``(\w+)``)? \| ([\d x]+) ", doc, flags=re.M)
    total = 0
    for name, name2, size in rows:
        n = int(np.prod([int(x) for x in size.split(" x ")]))
        for block in (name, name2):
            if block:
                assert OBS_SLICES[block].stop - OBS_SLICES[block].start == n, block
                total += n
    assert total == OBS_SIZE and f"``OBS_SIZE`` = {OBS_SIZE}" in doc


def test_remaining_deck_and_opponent_plays_are_observed() -> None:
    env = fight_klub_v0.raw_env(decks=["vega_blitz", "hollow_control"])
    env.reset(seed=4)
    g = env.game
    obs = env.observe("player_0")["observation"]
    deck = obs[OBS_SLICES["deck_me"]]
    assert deck[0] == pytest.approx(len(g.players[0].draw_deck) / 27)
    assert obs[OBS_SLICES["stack_me"]][0] == pytest.approx(len(g.players[0].fight_stack) / 12)
    assert not obs[OBS_SLICES["plays_opp"]].any()
    rng = np.random.default_rng(0)
    while not g.players[1].played and g.pending is not None:
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    if g.pending is not None:
        assert env.observe("player_0")["observation"][OBS_SLICES["plays_opp"]][0] == pytest.approx(len(g.players[1].played) / 10)


def test_buffered_encoding_equals_encoding_from_scratch() -> None:
    from fight_envs.games.fight_klub.observe import encode, encode_fresh
    from fight_envs.games.fight_klub.rules import FightKlubGame

    decks = list(DEFAULT_POOL.decks.values())
    for seed in range(4):
        g = FightKlubGame(DEFAULT_POOL, [decks[seed], decks[5 - seed]])
        g.new_game(np.random.default_rng(seed))
        rng = np.random.default_rng(seed)
        while g.pending is not None:
            seat = int(rng.integers(2))
            np.testing.assert_array_equal(encode(g, seat), encode_fresh(g, seat))
            g.apply_action(g.pending.seat, g.pending.legal[int(rng.integers(len(g.pending.legal)))])
        for seat in (0, 1):
            np.testing.assert_array_equal(encode(g, seat), encode_fresh(g, seat))
