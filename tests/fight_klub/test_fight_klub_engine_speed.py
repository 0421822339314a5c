"""The engine's speed paths give exactly what the rules as written give (issue 15's speed work).

``FightKlubGame.playable`` reads tables kept per card pool and imprint (``rules._PlayTables``) and
``playable_reference`` is the card-by-card reading with ``can_pay``; the moot test hands the lists
it computed to the phase action that follows it (``_playable_hint``); Decisions are made without
the frozen dataclass's ``__init__`` (``rules._decision``); the rules' discards and Setup plays read
``keep_value`` from a table (``rules._keep_values``). Each is compared here with its reference.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest

from fight_envs.games.fight_klub import rules
from fight_envs.games.fight_klub.cards import DEFAULT_POOL
from fight_envs.games.fight_klub.rules import (
    Decision,
    FightKlubConfig,
    FightKlubGame,
    InPlay,
    cost_need,
    keep_value,
)

PHASES = ("setup", "enhance", "score", "cooldown")


def _games(config: FightKlubConfig | None, n: int, seed: int = 0):
    """Random games, yielding the game before every decision."""
    decks = list(DEFAULT_POOL.decks.values())
    rng = np.random.default_rng(seed)
    for k in range(n):
        g = FightKlubGame(DEFAULT_POOL, [decks[k % len(decks)], decks[(k * 5 + 1) % len(decks)]], config)
        g.new_game(np.random.default_rng(seed + k))
        while g.pending is not None:
            yield g
            d = g.pending
            if d is None:
                break
            g.apply_action(d.seat, d.legal[int(rng.random() * len(d.legal))])


@pytest.mark.parametrize("config", [None, FightKlubConfig(auto=frozenset()), FightKlubConfig(ask_moot_orders=True)],
                         ids=["default", "all-asked", "moot-asked"])
def test_playable_equals_reference(config: FightKlubConfig | None) -> None:
    """At every decision of random games, for both seats and every phase (whatever is pending)."""
    checked = 0
    for g in _games(config, 40):
        for seat in (0, 1):
            for phase in PHASES:
                assert g.playable(seat, phase) == g.playable_reference(seat, phase)
                checked += 1
    assert checked > 5000


def test_cost_need_is_can_pay() -> None:
    """``cost_need`` against ``can_pay`` for every cost of the pool, pools of 0..4 tokens a colour
    and every imprint met in the pool (and a larger one)."""
    pool = DEFAULT_POOL
    costs = {c.cost for c in pool.support.values()} | {c.activation for c in pool.support.values() if c.activation}
    costs |= {x.cost for c in pool.support.values() for x in c.actions}
    costs |= {c.rotate_cost for c in pool.fight.values() if c.rotate_cost}
    imprints = {ch.imprint for ch in pool.characters.values()} | {(2, 1, 3)}
    decks = list(pool.decks.values())
    g = FightKlubGame(pool, decks[:2])
    g.new_game(np.random.default_rng(0))
    p = g.players[0]
    for imp in imprints:
        p.imprint = imp
        for cost in costs:
            n0, n1, n2, n = cost_need(cost, imp)
            for a, b, c in itertools.product(range(5), repeat=3):
                p.pool[:] = [a, b, c]
                assert g.can_pay(0, cost) == (a >= n0 and b >= n1 and c >= n2 and a + b + c >= n)


def test_playable_reads_a_card_the_tables_do_not_hold() -> None:
    """A card in play that is not the pool's own object (a scenario's edited copy) is read as the
    rules read it, not from the tables; a changed imprint gets its own tables."""
    decks = list(DEFAULT_POOL.decks.values())
    g = FightKlubGame(DEFAULT_POOL, decks[:2])
    g.new_game(np.random.default_rng(3))
    war_room = DEFAULT_POOL.support["h_war_room"]  # Command Post: an Enhance action for 1 generic
    free = replace(war_room, actions=tuple(replace(x, cost=replace(x.cost, generic=0)) for x in war_room.actions))
    p = g.players[0]
    p.support[:] = [InPlay(free), InPlay(war_room)]
    p.pool[:] = [0, 0, 0]
    for phase in PHASES:
        assert g.playable(0, phase) == g.playable_reference(0, phase)
    assert rules.SUPPORT0 in g.playable_reference(0, "enhance") or g.current is None
    p.imprint = (3, 3, 3)
    for pools in ([0, 0, 0], [1, 0, 2], [4, 4, 4]):
        p.pool[:] = pools
        for phase in PHASES:
            assert g.playable(0, phase) == g.playable_reference(0, phase)


def _played(moot_hint: bool, config: FightKlubConfig | None) -> list:
    out = []
    for g in _games(config, 25, seed=50):
        if not moot_hint:
            g._moot_keeping = g.moot  # the plain test: no lists kept for the phase action
        out.append((g.pending, len(g.script), len(g.log)))
    return out


@pytest.mark.parametrize("config", [None, FightKlubConfig(auto=frozenset())], ids=["default", "all-asked"])
def test_moot_hint_changes_nothing(config: FightKlubConfig | None) -> None:
    """The phase action after a moot ordering reads the lists the moot test computed: every
    decision, script and log the same as computing them again."""
    assert _played(True, config) == _played(False, config)


def test_decision_factory_is_the_dataclass() -> None:
    a, b = rules._decision(1, "enhance", (0, 3)), Decision(1, "enhance", (0, 3))
    assert type(a) is Decision and a == b and hash(a) == hash(b) and repr(a) == repr(b) and vars(a) == vars(b)
    with pytest.raises(AttributeError):
        a.seat = 0  # type: ignore[misc]


def test_keep_values_table() -> None:
    table = rules._keep_values(DEFAULT_POOL)
    assert table == {cid: keep_value(card) for cid, card in DEFAULT_POOL.support.items()}
    assert rules._keep_values(DEFAULT_POOL) is table


def _totals_as_written(g: FightKlubGame, f, seat: int) -> list[int]:
    """The skirmish totals as the rules add them (tab, Effect/Gear tabs, every static bonus entry
    of the type, boosts, the centre fist), the reference of ``skirmish_totals``."""
    end = g.end_of(f, seat)
    p = g.players[seat]
    bonuses = [item.card.bonus for item in p.support] + [DEFAULT_POOL.characters[p.deck.character].bonus]
    out = []
    for pos, tab in enumerate(end.tabs):
        total = tab.value + f.effect_tabs[seat][pos] + f.boosts[seat].get("all", 0) + f.boosts[seat].get(tab.type, 0)
        total += sum(n for bonus in bonuses for t, n in bonus if t == tab.type)
        if pos == 1:
            total += p.fists[end.center_color]
        out.append(total)
    return out


def test_skirmish_totals_equal_the_sum_as_written() -> None:
    checked = 0
    for g in _games(None, 40, seed=7):
        for f in g.fights:
            if f.cards[0] is None or f.cards[1] is None:
                continue
            for seat in (0, 1):
                if g.end_of(f, seat).kind == "power":
                    assert g.skirmish_totals(f, seat) == _totals_as_written(g, f, seat)
                    checked += 1
    assert checked > 1000
