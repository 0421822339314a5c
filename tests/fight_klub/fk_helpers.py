"""Scenario helpers for the Fight Klub tests: games with chosen stacks, and a scripted driver.

``new_game`` deals stacks and decks in a given order (in the draft-faithful mode that asks every
ordering and every choice, ``ask_moot_orders=True`` and ``auto=()``, unless told otherwise) (the named cards on top, the rest of the
deck after them), ``empty_hands`` puts both hands back under the Draw deck, and ``play_until``
drives the game with a fixed plain policy (pass if allowed, else option 0, else the first legal
action) until the pending decision is of a given kind.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import json
from pathlib import Path

from fight_envs.games.fight_klub.cards import CardPool, DeckList, Effect, parse_deck, parse_pool
from fight_envs.games.fight_klub.rules import HAND0, OPTION0, PASS, SUPPORT0, Decision, FightKlubConfig, FightKlubGame

SCENARIO_DIR = Path(__file__).resolve().parent / "scenario_pool"


def _scenario_pool() -> CardPool:
    """The fixed card pool the rule scenarios are written against (the first release's cards).

    The package's own pool is tuned for balance; a rule test must not change with it. The deck
    lists are taken as they are (some pay colours through tokens a test puts into the pool, which
    the ``colours`` construction rule would refuse): the engine plays any deck it is given.
    """
    cards = json.loads((SCENARIO_DIR / "cards.json").read_text(encoding="utf-8"))
    decks = json.loads((SCENARIO_DIR / "decks.json").read_text(encoding="utf-8"))
    pool = parse_pool(cards)
    return CardPool(characters=pool.characters, fight=pool.fight, support=pool.support,
                    decks={d["name"]: parse_deck(d) for d in decks}, fight_ids=pool.fight_ids, support_ids=pool.support_ids)


POOL = _scenario_pool()


def ordered(ids: list[str], top: Sequence[str]) -> list[str]:
    rest = list(ids)
    for cid in top:
        rest.remove(cid)  # ValueError if the deck lacks the card: the scenario is wrong
    return list(top) + rest


def new_game(d0: str = "vega_blitz", d1: str = "hollow_control", drop: int = 0, fight0: Sequence[str] = (),
             fight1: Sequence[str] = (), draw0: Sequence[str] = (), draw1: Sequence[str] = (), max_turns: int = 40,
             ask_moot_orders: bool = True, auto: Sequence[str] = ()) -> FightKlubGame:
    decks: list[DeckList] = [POOL.decks[d0], POOL.decks[d1]]
    orders = [{"fight": ordered(decks[0].fight_ids(), fight0), "draw": ordered(decks[0].draw_ids(), draw0)},
              {"fight": ordered(decks[1].fight_ids(), fight1), "draw": ordered(decks[1].draw_ids(), draw1)}]
    g = FightKlubGame(POOL, decks, FightKlubConfig(max_turns=max_turns, ask_moot_orders=ask_moot_orders, auto=frozenset(auto)))
    g.new_game(np.random.default_rng(0), drop=drop, orders=orders)
    return g


def empty_hands(g: FightKlubGame) -> None:
    for p in g.players:
        p.draw_deck.extend(p.hand)
        p.hand.clear()
        p.hand_slots.clear()


def give(g: FightKlubGame, seat: int, *ids: str) -> None:
    """Move the named cards from ``seat``'s Draw deck into its hand."""
    p = g.players[seat]
    for cid in ids:
        p.draw_deck.remove(cid)
        g._add_to_hand(p, cid)


def hand_action(g: FightKlubGame, seat: int, cid: str) -> int:
    return HAND0 + g.players[seat].hand.index(cid)


def support_action(g: FightKlubGame, seat: int, cid: str) -> int:
    return SUPPORT0 + [x.card.id for x in g.players[seat].support].index(cid)


def plain(d: Decision) -> int:
    if PASS in d.legal:
        return PASS
    if OPTION0 in d.legal:
        return OPTION0
    return d.legal[0]


def play_until(g: FightKlubGame, kind: str, seat: int | None = None, limit: int = 500) -> Decision:
    """Play ``plain`` actions until the pending decision is ``kind`` (of ``seat`` if given)."""
    for _ in range(limit):
        d = g.pending
        assert d is not None, f"the game ended before a {kind!r} decision"
        if d.kind == kind and (seat is None or d.seat == seat):
            return d
        g.apply_action(d.seat, plain(d))
    raise AssertionError(f"no {kind!r} decision within {limit} actions")


def act(g: FightKlubGame, seat: int, kind: str, action: int) -> None:
    """Apply ``action``, first checking that ``seat`` is asked a ``kind`` decision."""
    d = g.pending
    assert d is not None and (d.seat, d.kind) == (seat, kind), f"expected {kind!r} of seat {seat}, pending {d}"
    g.apply_action(seat, action)


def resolve(g: FightKlubGame, seat: int, effects: Sequence[Effect], answers: Sequence[int] = ()) -> list[Decision]:
    """Run the effect interpreter on ``effects`` for ``seat``; answer its questions in order."""
    gen = g._resolve(seat, effects)
    queue, asked = list(answers), []
    try:
        d = next(gen)
        while True:
            asked.append(d)
            d = gen.send(queue.pop(0) if queue else d.legal[0])
    except StopIteration:
        pass
    return asked
