"""Egocentric observation encoder for Fight Klub: the table from one seat, cards by attributes.

Every card is encoded by what it *is* (type, phase, costs, tabs, every effect with every
argument...), never by its identity, so a policy can play cards it has never seen. The encoding
is lossless for gameplay: two cards that play differently encode differently (only id, name and
which character a signature card names are left out; the deck builder checks the last).
"me" is the observing seat, "opp" the other. Nothing hidden enters: the opponent's hand is a
count, stacks and decks are counts, and remaining cards are summed by attributes (deck lists are
open, ``seeds/fight_klub.md`` section 11, so the other's unseen cards are public as a multiset).

Layout (``OBS_SIZE`` = 20274 floats, ``OBS_SLICES`` maps each block to its slice):

| block | size | content |
| --- | --- | --- |
| ``global`` | 29 | turn / max_turns, turn 1 flag, phase one-hot (setup, fight, cooldown, over), pending decision kind one-hot (19, ``rules.DECISION_KINDS``), I am the one deciding, I hold The Drop, fights resolved this turn / 3, skirmishes of the current fight resolved / 3 |
| ``me`` / ``opp`` | 29 | each: Life, damage dealt, Life left (Life minus damage taken), pool (3), imprint (3), fists (3), Energy allocation (3), Hold, Hand, cards in hand, Draw deck, Fight stack, discard, support cards, Damage stack cards, raise-the-stakes cards and their damage, discards by type (4) |
| ``hand`` | 16 x 417 | my hand in hand-position order (position i = action ``1 + i``): support-card features, zeros past the end |
| ``support_me`` / ``support_opp`` | 8 x 418 | each: support areas by position (position j = action ``17 + j``): support-card features + used this turn |
| ``fights`` | 3 x 1914 | per fight position: my card (940), opp card (940), fight state (34) |
| ``character_me`` / ``character_opp`` | 244 | each: the character's gametext (below) |
| ``deck_me`` / ``deck_opp`` | 55 | each: my Draw deck / the other's unseen support cards (hand and Draw deck): count, counts by type (4), summed base support features (50), all / 27 |
| ``stack_me`` / ``stack_opp`` | 216 | each: the cards in the Fight stack: count, summed base Fight-card features (215) of their first end, all / 12 |
| ``plays_opp`` | 55 | the support cards the other has played this game: count, counts by type (4), summed base features (50), all / 10 |

An **effect slot** (30) is one effect with all its arguments: op one-hot (9, ``cards.EFFECT_OPS``),
n / 3 (signed), targets the opponent, colour (3, ``add``), kind (5: condition, effect, gear,
instant, any; ``destroy`` and ``retrieve``), the player chooses (``destroy``), boost type (5:
mental, physical, spiritual, fate, all), nullified position (3: left, centre, right), ``when``
won / lost. An effect list is ``cards.MAX_EFFECTS`` = 3 slots in order (a Condition action's or a
gametext line's ``cards.MAX_ACTION_EFFECTS`` = 2); the loader rejects longer lists.

Support-card features (417). Base (50, kept for simple readers such as the heuristic): type one-hot
(condition, effect, gear, instant); phases it acts in (multi-hot: setup, enhance, score,
cooldown); play cost (blue, green, yellow, generic, spot x3) / 3; tabs (3) / 3; activation or
summed action cost (7) / 3; Gear destroyed after use; Condition bonus per skirmish type (4) / 3;
effect verbs (9 ops x self/opponent: summed ``n`` / 3); ``when`` won / lost. Lossless part (367):
rarity (3), affiliation (2), the card's own effect list (3 slots: an Instant's, a Gear's), then per
phase (setup, enhance, score, cooldown) the Condition action there: present, cost (7) / 3, effects
(2 slots).

Fight-card features (940). Base (215): present, damage / 5, gold, signature, bonus colour (3),
rotatable, rotation cost (7) / 3, the end in use (100) and the other end (100). An end (100):
power, clash, per tab (type one-hot 4, value / 5, Result verbs 18), centre colour (3), Clash
measure one-hot (6), wins higher / lower, Clash on-win verbs (18). Lossless part (725): rarity
(3), affiliation (2), then for the end in use and the other end (360 each): each tab's Result
effects (3 slots per tab) and the Clash on-win effects (3 slots).

Character gametext (244): static bonus per skirmish type (4) / 3, then per trigger (setup,
won_fight, lost_fight, cooldown) its effects (2 slots).

Fight state (34): present, resolved, current, winner (me, opp, tie), per tab position the
skirmish outcome (me, opp, tie: 9), totals now (me 3, opp 3) / 10, nullified (3), double damage
(me, opp), Clash text in use is mine / opp's, Effect+Gear tabs played (me 3, opp 3) / 3.
Counts are scaled by the divisors in ``_SCALE``; all values are clipped to +-``OBS_HIGH``.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from fight_envs.games.fight_klub.cards import FIGHT_SIZE as FIGHT_STACK_SIZE
from fight_envs.games.fight_klub.cards import (
    AFFILIATIONS,
    COLORS,
    EFFECT_OPS,
    MAX_ACTION_EFFECTS,
    MAX_EFFECTS,
    RARITIES,
    RETRIEVE_KINDS,
    TRIGGERS,
    DRAW_SIZE,
    CardPool,
    Character,
    MEASURES,
    PHASES,
    SKIRMISH_TYPES,
    SUPPORT_TYPES,
    Cost,
    Effect,
    FightCard,
    FightEnd,
    SupportCard,
)
from fight_envs.games.fight_klub.rules import (
    DECISION_KINDS,
    FIGHTS_PER_TURN,
    MAX_HAND,
    MAX_SUPPORT,
    FightKlubGame,
    FightSlot,
)

OBS_HIGH = 100.0
GLOBAL_SIZE = 4 + len(PHASES) + len(DECISION_KINDS) + 2
PLAYER_SIZE = 29
EFFECT_SLOT = len(EFFECT_OPS) + 2 + len(COLORS) + len(RETRIEVE_KINDS) + 1 + len(SKIRMISH_TYPES) + 1 + 3 + 2  # 30
ORIGIN_SIZE = len(RARITIES) + len(AFFILIATIONS)  # 5
SUPPORT_BASE = 50
SUPPORT_EXT = ORIGIN_SIZE + MAX_EFFECTS * EFFECT_SLOT + len(PHASES) * (1 + 7 + MAX_ACTION_EFFECTS * EFFECT_SLOT)  # 367
SUPPORT_SIZE = SUPPORT_BASE + SUPPORT_EXT  # 417
END_SIZE = 100
END_EXT = 3 * MAX_EFFECTS * EFFECT_SLOT + MAX_EFFECTS * EFFECT_SLOT  # 360
FIGHT_CARD_BASE = 215
FIGHT_CARD_SIZE = FIGHT_CARD_BASE + ORIGIN_SIZE + 2 * END_EXT  # 940
FIGHT_STATE_SIZE = 34
CHARACTER_SIZE = len(SKIRMISH_TYPES) + len(TRIGGERS) * MAX_ACTION_EFFECTS * EFFECT_SLOT  # 244
STACK_SIZE = 1 + FIGHT_CARD_BASE  # 216
DECK_SIZE = 1 + len(SUPPORT_TYPES) + SUPPORT_BASE  # 55
FIGHT_SIZE = 2 * FIGHT_CARD_SIZE + FIGHT_STATE_SIZE
_PHASE_INDEX = {p: i for i, p in enumerate(("setup", "fight", "cooldown", "over"))}
_KIND_INDEX = {k: i for i, k in enumerate(DECISION_KINDS)}
_SUPPORT_TYPE_INDEX = {t: i for i, t in enumerate(SUPPORT_TYPES)}
_SCALE = {"life": 20.0, "energy": 5.0, "hand": 8.0, "deck": 27.0, "stack": 12.0, "damage": 10.0}


def _layout() -> dict[str, slice]:
    blocks = [("global", GLOBAL_SIZE), ("me", PLAYER_SIZE), ("opp", PLAYER_SIZE), ("hand", MAX_HAND * SUPPORT_SIZE),
              ("support_me", MAX_SUPPORT * (SUPPORT_SIZE + 1)), ("support_opp", MAX_SUPPORT * (SUPPORT_SIZE + 1)),
              ("fights", FIGHTS_PER_TURN * FIGHT_SIZE), ("character_me", CHARACTER_SIZE),
              ("character_opp", CHARACTER_SIZE), ("deck_me", DECK_SIZE), ("stack_me", STACK_SIZE),
              ("deck_opp", DECK_SIZE), ("stack_opp", STACK_SIZE), ("plays_opp", DECK_SIZE)]
    out, at = {}, 0
    for name, size in blocks:
        out[name] = slice(at, at + size)
        at += size
    return out


OBS_SLICES = _layout()
OBS_SIZE = OBS_SLICES["plays_opp"].stop


def effect_verbs(effects: tuple[Effect, ...]) -> np.ndarray:
    """18 numbers: per op of ``EFFECT_OPS``, the summed ``n`` / 3 for self, then for the opponent."""
    v = np.zeros(2 * len(EFFECT_OPS), dtype=np.float32)
    for e in effects:
        v[EFFECT_OPS.index(e.op) + (len(EFFECT_OPS) if e.who == "opponent" else 0)] += e.n / 3.0
    return v


_KIND_SLOT = {k: i for i, k in enumerate(RETRIEVE_KINDS)}  # condition, effect, gear, instant, any
_TYPE_SLOT = {t: i for i, t in enumerate(SKIRMISH_TYPES + ("all",))}


def effect_slot(e: Effect) -> np.ndarray:
    """One effect with every argument (30): op one-hot (9), n / 3 (signed), opponent, colour (3, add),
    kind (5: condition, effect, gear, instant, any; destroy and retrieve), chooser is the player
    (destroy), boost type (5: mental, physical, spiritual, fate, all), nullified position (3), when
    won / lost. Arguments an op does not take stay 0, so equal effects give equal slots."""
    v = np.zeros(EFFECT_SLOT, dtype=np.float32)
    v[EFFECT_OPS.index(e.op)] = 1
    at = len(EFFECT_OPS)
    v[at] = e.n / 3.0
    v[at + 1] = float(e.who == "opponent")
    at += 2
    if e.op == "add":
        v[at + e.color] = 1
    at += len(COLORS)
    if e.op in ("destroy", "retrieve"):
        v[at + _KIND_SLOT[e.kind]] = 1
    at += len(RETRIEVE_KINDS)
    v[at] = float(e.op == "destroy" and e.chooser == "self")
    at += 1
    if e.op == "boost":
        v[at + _TYPE_SLOT[e.type]] = 1
    at += len(SKIRMISH_TYPES) + 1
    if e.op == "nullify":
        v[at + e.position] = 1
    at += 3
    if e.when is not None:
        v[at + (0 if e.when == "won" else 1)] = 1
    return v


def effect_list(effects: tuple[Effect, ...], slots: int) -> np.ndarray:
    """``slots`` effect slots, the effects in order (the card loader caps a list at ``slots``)."""
    v = np.zeros(slots * EFFECT_SLOT, dtype=np.float32)
    for i, e in enumerate(effects[:slots]):
        v[i * EFFECT_SLOT:(i + 1) * EFFECT_SLOT] = effect_slot(e)
    return v


def origin_features(rarity: str, affiliation: str) -> np.ndarray:
    v = np.zeros(ORIGIN_SIZE, dtype=np.float32)
    v[RARITIES.index(rarity)] = 1
    v[len(RARITIES) + AFFILIATIONS.index(affiliation)] = 1
    return v


def cost_features(cost: Cost | None) -> np.ndarray:
    if cost is None:
        return np.zeros(7, dtype=np.float32)
    return np.array([*cost.burn, cost.generic, *cost.spot], dtype=np.float32) / 3.0


def support_features(card: SupportCard) -> np.ndarray:
    v = np.zeros(SUPPORT_SIZE, dtype=np.float32)
    v[SUPPORT_TYPES.index(card.type)] = 1
    if card.type == "instant":
        v[4 + PHASES.index(card.phase)] = 1  # type: ignore[arg-type]
    elif card.type in ("effect", "gear"):
        v[4 + PHASES.index("enhance")] = 1
    for a in card.actions:
        v[4 + PHASES.index(a.phase)] = 1
    if card.type == "condition" and card.bonus:
        v[4 + PHASES.index("enhance")] = 1  # a bonus acts in every fight
    v[8:15] = cost_features(card.cost)
    v[15:18] = np.array(card.tabs, dtype=np.float32) / 3.0
    if card.activation is not None:
        v[18:25] = cost_features(card.activation)
    elif card.actions:
        v[18:25] = sum(cost_features(a.cost) for a in card.actions)
    v[25] = float(card.type == "gear" and card.after == "destroy")
    for t, n in card.bonus:
        v[26 + SKIRMISH_TYPES.index(t)] = n / 3.0
    effects = card.effects + tuple(e for a in card.actions for e in a.effects)
    v[30:48] = effect_verbs(effects)
    v[48] = float(any(e.when == "won" for e in effects))
    v[49] = float(any(e.when == "lost" for e in effects))
    # lossless part: origin, the card's own effect list in order, each phase action with its cost
    at = SUPPORT_BASE
    v[at:at + ORIGIN_SIZE] = origin_features(card.rarity, card.affiliation)
    at += ORIGIN_SIZE
    v[at:at + MAX_EFFECTS * EFFECT_SLOT] = effect_list(card.effects, MAX_EFFECTS)
    at += MAX_EFFECTS * EFFECT_SLOT
    width = 1 + 7 + MAX_ACTION_EFFECTS * EFFECT_SLOT
    for a in card.actions:
        base = at + PHASES.index(a.phase) * width
        v[base] = 1
        v[base + 1:base + 8] = cost_features(a.cost)
        v[base + 8:base + width] = effect_list(a.effects, MAX_ACTION_EFFECTS)
    return v


def end_features(end: FightEnd) -> np.ndarray:
    v = np.zeros(END_SIZE, dtype=np.float32)
    v[0 if end.kind == "power" else 1] = 1
    if end.kind == "power":
        for i, tab in enumerate(end.tabs):
            base = 2 + 23 * i
            v[base + SKIRMISH_TYPES.index(tab.type)] = 1
            v[base + 4] = tab.value / 5.0
            v[base + 5: base + 23] = effect_verbs(tab.result)
        v[71 + end.center_color] = 1
    else:
        v[74 + MEASURES.index(end.measure)] = 1
        v[80 if end.wins == "higher" else 81] = 1
        v[82:100] = effect_verbs(end.on_win)
    return v


def fight_card_features(card: FightCard | None, end: int) -> np.ndarray:
    v = np.zeros(FIGHT_CARD_SIZE, dtype=np.float32)
    if card is None:
        return v
    v[0] = 1
    v[1] = card.damage / 5.0
    v[2] = float(card.gold)
    v[3] = float(card.signature is not None)
    if card.bonus_color is not None:
        v[4 + card.bonus_color] = 1
    v[7] = float(card.rotate_cost is not None)
    v[8:15] = cost_features(card.rotate_cost)
    v[15:115] = end_features(card.ends[end])
    if len(card.ends) == 2:
        v[115:215] = end_features(card.ends[1 - end])
    at = FIGHT_CARD_BASE
    v[at:at + ORIGIN_SIZE] = origin_features(card.rarity, card.affiliation)
    at += ORIGIN_SIZE
    for k, e in enumerate((card.ends[end], card.ends[1 - end] if len(card.ends) == 2 else None)):
        if e is not None:
            v[at + k * END_EXT:at + (k + 1) * END_EXT] = end_extension(e)
    return v


def end_extension(end: FightEnd) -> np.ndarray:
    """Lossless part of an end (360): each tab's Result effects in order, then the Clash on-win effects."""
    v = np.zeros(END_EXT, dtype=np.float32)
    w = MAX_EFFECTS * EFFECT_SLOT
    for i, tab in enumerate(end.tabs):
        v[i * w:(i + 1) * w] = effect_list(tab.result, MAX_EFFECTS)
    v[3 * w:4 * w] = effect_list(end.on_win, MAX_EFFECTS)
    return v


def character_features(ch: Character) -> np.ndarray:
    """A character's gametext (244): static bonus per skirmish type / 3, then per trigger
    (setup, won_fight, lost_fight, cooldown) its effects in order. Its numbers are in ``me``/``opp``."""
    v = np.zeros(CHARACTER_SIZE, dtype=np.float32)
    for t, n in ch.bonus:
        v[SKIRMISH_TYPES.index(t)] = n / 3.0
    w = MAX_ACTION_EFFECTS * EFFECT_SLOT
    for line in ch.gametext:
        at = len(SKIRMISH_TYPES) + TRIGGERS.index(line.when) * w
        v[at:at + w] += effect_list(line.effects, MAX_ACTION_EFFECTS)
    return v


# Attribute vectors depend only on the card, so they are computed once per card object. The
# cache keeps the card alive beside its vector, so its id() can never be reused by another card.
_SUPPORT_CACHE: dict[int, tuple[SupportCard, np.ndarray]] = {}
_FIGHT_CACHE: dict[tuple[int, int], tuple[FightCard, np.ndarray]] = {}


def _support_vec(card: SupportCard) -> np.ndarray:
    hit = _SUPPORT_CACHE.get(id(card))
    if hit is None:
        hit = _SUPPORT_CACHE[id(card)] = (card, support_features(card))
    return hit[1]


def _fight_vec(card: FightCard | None, end: int) -> np.ndarray:
    if card is None:
        return np.zeros(FIGHT_CARD_SIZE, dtype=np.float32)
    hit = _FIGHT_CACHE.get((id(card), end))
    if hit is None:
        hit = _FIGHT_CACHE[(id(card), end)] = (card, fight_card_features(card, end))
    return hit[1]


_INV = {k: 1.0 / v for k, v in _SCALE.items()}


_LIFE, _ENERGY, _HANDS, _DECKS, _STACKS = _INV["life"], _INV["energy"], _INV["hand"], _INV["deck"], _INV["stack"]
_THIRD = 1.0 / 3.0
_DAMAGE = _SCALE["damage"]
_NO_DISCARDS = (None, [0.0, 0.0, 0.0, 0.0])
_DISCARD_KEYS = (("discard", 0), ("discard", 1))


def _player(game: FightKlubGame, seat: int, keys: dict[Any, Any]) -> list[float]:
    p, o = game.players[seat], game.players[1 - seat]
    life = _LIFE
    # discards by type: from the pool's pile sums, index 1..4 of a deck summary; kept per seat
    # with the pile they came from (a pile changes a few times a turn, this runs every decision)
    discard = p.discard
    hit = keys.get(_DISCARD_KEYS[seat], _NO_DISCARDS)
    if hit[0] != discard:
        disc = _pool_tables(game.pool).deck(discard, 10.0)[1:5].tolist() if discard else [0.0, 0.0, 0.0, 0.0]
        hit = keys[_DISCARD_KEYS[seat]] = (list(discard), disc)
    rts = p.rts
    rts_damage = sum([game.pool.fight[c].damage for c in rts]) if rts else 0
    pool, imp, fists, en = p.pool, p.imprint, p.fists, p.energy
    energy, third, hand, deck, stack = _ENERGY, _THIRD, _HANDS, _DECKS, _STACKS
    # plain Python floats: one numpy conversion at the end is far cheaper than many small arrays
    return [
        p.life * life, p.dealt * life, (p.life - o.dealt) * life,
        pool[0] * energy, pool[1] * energy, pool[2] * energy, imp[0] * third, imp[1] * third, imp[2] * third,
        fists[0] * third, fists[1] * third, fists[2] * third, en[0] * third, en[1] * third, en[2] * third,
        p.hold * hand, p.hand_size * hand, len(p.hand) * hand,
        len(p.draw_deck) * deck, len(p.fight_stack) * stack, len(discard) * deck,
        len(p.support) / MAX_SUPPORT, len(p.damage_stack) * stack, len(rts) * stack,
        rts_damage / _DAMAGE, *hit[1],
    ]


def _totals(game: FightKlubGame, f: FightSlot, seat: int) -> tuple[list[int], list[int]] | None:
    """Both sides' skirmish totals (``seat``'s first) in an opposed fight of two power ends, else None."""
    if f.cards[0] is not None and f.cards[1] is not None and game.end_of(f, 0).kind == "power" \
            and game.end_of(f, 1).kind == "power":
        return game.skirmish_totals(f, seat), game.skirmish_totals(f, 1 - seat)
    return None


_UNKNOWN: Any = object()


def _fight_state(game: FightKlubGame, f: FightSlot, idx: int, seat: int, totals: Any = _UNKNOWN) -> list[float]:
    """The 34 numbers of a fight's state (a resolved fight's are kept: nothing of it changes any more).
    ``totals``: ``_totals(game, f, seat)`` where the caller has it."""
    cache = f.__dict__.setdefault("_obs_state", {})
    if f.resolved and seat in cache:
        return cache[seat]
    v = [0.0] * FIGHT_STATE_SIZE
    v[0] = 1.0
    v[1] = float(f.resolved)
    v[2] = float(game.current == idx)
    other = 1 - seat
    if f.decided:
        v[3 if f.winner == seat else 4 if f.winner == other else 5] = 1.0
    for pos, w in enumerate(f.skirmish_winner):
        if w is not None:
            v[6 + 3 * pos + (0 if w == seat else 1 if w == other else 2)] = 1.0
    if totals is _UNKNOWN:
        totals = _totals(game, f, seat)
    if totals is not None:
        (a0, a1, a2), (b0, b1, b2) = totals
        v[15], v[16], v[17] = a0 / 10.0, a1 / 10.0, a2 / 10.0
        v[18], v[19], v[20] = b0 / 10.0, b1 / 10.0, b2 / 10.0
    for pos in f.nullified:
        v[21 + pos] = 1.0
    v[24], v[25] = float(f.double[seat]), float(f.double[other])
    if f.clash_text_of is not None:
        v[26 if f.clash_text_of == seat else 27] = 1.0
    (a0, a1, a2), (b0, b1, b2) = f.effect_tabs[seat], f.effect_tabs[other]
    v[28], v[29], v[30] = a0 / 3.0, a1 / 3.0, a2 / 3.0
    v[31], v[32], v[33] = b0 / 3.0, b1 / 3.0, b2 / 3.0
    if f.resolved:
        cache[seat] = v
    return v


_PACKERS: dict[int, Any] = {}


def _floats(values: list[float]) -> np.ndarray:
    """``values`` as a float64 array, packed by ``struct`` (far fewer instructions than numpy's own
    conversion of a list); assigned into a float32 block it rounds exactly as ``np.array(values,
    dtype=np.float32)`` does (both cast each double to float)."""
    pack = _PACKERS.get(len(values))
    if pack is None:
        pack = _PACKERS[len(values)] = struct.Struct(f"{len(values)}d").pack
    return np.frombuffer(pack(*values), dtype=np.float64)


_S = {name: (sl.start, sl.stop) for name, sl in OBS_SLICES.items()}
_HAND0, _HAND1 = _S["hand"]
_FIGHTS0, _FIGHTS1 = _S["fights"]
_HEAD = _S["hand"][0]  # global, me, opp: the numbers of the table, built as one list
_AREAS = (_S["support_me"], _S["support_opp"])
_KIND0 = 2 + len(_PHASE_INDEX)
_CHAR_BLOCKS = (_S["character_me"], _S["character_opp"])
_DECK_BLOCKS = (_S["deck_me"], _S["deck_opp"])
_STACK_BLOCKS = (_S["stack_me"], _S["stack_opp"])
_PLAYS0, _PLAYS1 = _S["plays_opp"]
_NK = len(DECISION_KINDS)
_FIGHT_KEYS = tuple(("fight", i) for i in range(FIGHTS_PER_TURN))
_FSTATE_KEYS = tuple(("fstate", i) for i in range(FIGHTS_PER_TURN))
_AREA_KEYS = (("area", 0), ("area", 1))
_TOTALS_KEYS = tuple(("totals", i) for i in range(FIGHTS_PER_TURN))
_HEAD_KEYS = (("head", 0), ("head", 1), ("head", 2))
_HEAD_PARTS = (_S["global"], _S["me"], _S["opp"])


def encode(game: FightKlubGame, seat: int, copy: bool = True) -> np.ndarray:
    """The observation vector of ``seat`` (float32, ``OBS_SIZE``): a new array each call
    (``copy=False``: the game's own buffer, valid until the next encoding of that seat).

    Each game keeps one buffer per seat and rewrites only the blocks whose inputs changed since
    that seat's last encoding (a hand, a support area, a fight's cards); the small blocks are
    rebuilt every time. The result is the same as encoding from scratch (``encode_fresh``).
    """
    bufs = game.__dict__.setdefault("_obs_bufs", {})
    hit = bufs.get(seat)
    if hit is None or hit[2] is not game.pool:
        hit = bufs[seat] = (np.zeros(OBS_SIZE, dtype=np.float32), {}, game.pool)
    obs, keys = hit[0], hit[1]
    _write(game, seat, obs, keys)
    return obs.copy() if copy else obs


def encode_fresh(game: FightKlubGame, seat: int) -> np.ndarray:
    """``encode`` without the per-game buffer (for checks)."""
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    _write(game, seat, obs, {})
    return obs


def _write(game: FightKlubGame, seat: int, obs: np.ndarray, keys: dict[Any, Any]) -> None:
    """Write ``seat``'s observation into ``obs``. ``keys`` holds, per block, what the block was last
    written from (``{}``: write everything): a block whose inputs compare equal is left as it is.
    Called on every decision, so each key is the cheapest exact copy of its inputs (tuples of
    the piles, which compare element by element in C)."""
    g = [0.0] * GLOBAL_SIZE
    g[0] = game.turn / game.config.max_turns
    g[1] = float(game.turn == 1)
    g[2 + _PHASE_INDEX[game.phase]] = 1.0
    pending = game.pending
    if pending is not None:
        g[_KIND0 + _KIND_INDEX[pending.kind]] = 1.0
        g[_KIND0 + _NK] = float(pending.seat == seat)
    g[_KIND0 + _NK + 1] = float(game.drop == seat)
    game_fights = game.fights
    if game_fights:
        g[_KIND0 + _NK + 2] = sum(f.resolved for f in game_fights) / FIGHTS_PER_TURN
    current = game.current
    if current is not None:
        g[_KIND0 + _NK + 3] = sum(w is not None for w in game_fights[current].skirmish_winner) / 3.0
    # the table's numbers in three parts (global, me, opp), each written only when it changed, then
    # all clipped at once (clipping is idempotent: a part clipped before is unchanged by it)
    written = False
    for k, part in enumerate((g, _player(game, seat, keys), _player(game, 1 - seat, keys))):
        if keys.get(_HEAD_KEYS[k]) != part:
            keys[_HEAD_KEYS[k]] = part
            a, b = _HEAD_PARTS[k]
            obs[a:b] = _floats(part)
            written = True
    if written:
        h = obs[:_HEAD]
        np.minimum(h, OBS_HIGH, out=h)  # np.clip in float32, as two plain ufunc calls
        np.maximum(h, -OBS_HIGH, out=h)
    tables = _pool_tables(game.pool)
    index = tables.support_index
    players = game.players
    me, opp = players[seat], players[1 - seat]
    my_hand = me.hand
    old = keys.get("hand")
    if old != my_hand:  # keys of piles are list copies: a list equals a list only
        # hands stay in pool order, so a change rewrites the rows from the first card that differs
        n_new = len(my_hand)
        if old is None:
            first, n_old = 0, MAX_HAND
        else:
            n_old, first = len(old), 0
            last = min(n_old, n_new)
            while first < last and old[first] == my_hand[first]:
                first += 1
        keys["hand"] = list(my_hand)
        if n_old > n_new:
            obs[_HAND0 + n_new * SUPPORT_SIZE:_HAND0 + n_old * SUPPORT_SIZE] = 0.0
        if n_new > first:  # one fancy-indexed copy of the cards' vectors (kept per pool)
            obs[_HAND0 + first * SUPPORT_SIZE:_HAND0 + n_new * SUPPORT_SIZE] = \
                tables.support_vecs[[index[c] for c in my_hand[first:]]].ravel()
    turn = game.turn
    area_keys = []
    for k, (start, stop) in enumerate(_AREAS):
        items = (me, opp)[k].support
        # each card in play: its id, whether it was used this turn, and its bonus (the fights' totals read it)
        key = tuple([(x.card.id, bool(x.used_in) and x.used_in[0] == turn, x.card.bonus) for x in items]) if items else ()
        area_keys.append(key)
        if keys.get(_AREA_KEYS[k]) == key:
            continue
        keys[_AREA_KEYS[k]] = key
        obs[start:stop] = 0.0
        if items:
            area = obs[start:stop].reshape(MAX_SUPPORT, SUPPORT_SIZE + 1)
            area[:len(items), :SUPPORT_SIZE] = tables.support_vecs[[index[x.card.id] for x in items]]
            area[:len(items), SUPPORT_SIZE] = [float(used) for _, used, _ in key]
    n_fights = len(game_fights)
    fights = None
    for i in range(FIGHTS_PER_TURN):
        f = game_fights[i] if i < n_fights else None
        key = None if f is None else (f.cards[seat], f.end[seat], f.cards[1 - seat], f.end[1 - seat])
        fkey = _FIGHT_KEYS[i]
        if keys.get(fkey) != key:
            keys[fkey] = key
            if fights is None:
                fights = obs[_FIGHTS0:_FIGHTS1].reshape(FIGHTS_PER_TURN, FIGHT_SIZE)
            fights[i] = 0.0
            keys.pop(_FSTATE_KEYS[i], None)
            if f is not None:
                fight_cards = game.pool.fight
                for k, s in enumerate((seat, 1 - seat)):
                    cid = f.cards[s]
                    if cid is not None:
                        fights[i, k * FIGHT_CARD_SIZE:(k + 1) * FIGHT_CARD_SIZE] = _fight_vec(fight_cards[cid], f.end[s])
        if f is None:
            continue
        old = keys.get(_FSTATE_KEYS[i])
        if f.resolved:
            # a resolved fight's state is kept by _fight_state once written: the slot itself is its key
            if old is f:
                continue
            skey: Any = f
        else:
            # everything _fight_state reads of an open fight beyond its cards (fixed lengths, so flat):
            # the areas' keys stand for the Condition bonuses the totals read
            # the last item is what the skirmish totals read: the totals are kept while it stays equal
            tabs, boosts = f.effect_tabs, f.boosts
            tkey = (*f.end, *tabs[0], *tabs[1], tuple(boosts[0].items()) if boosts[0] else None,
                    tuple(boosts[1].items()) if boosts[1] else None, area_keys[0], area_keys[1], me.fists, opp.fists)
            skey = (current == i, f.decided, f.winner, f.clash_text_of, *f.skirmish_winner, *f.double,
                    frozenset(f.nullified) if f.nullified else None, tkey)
            if type(old) is tuple and old == skey:
                continue
        keys[_FSTATE_KEYS[i]] = skey
        if fights is None:
            fights = obs[_FIGHTS0:_FIGHTS1].reshape(FIGHTS_PER_TURN, FIGHT_SIZE)
        if f.resolved:
            fights[i, 2 * FIGHT_CARD_SIZE:] = _floats(_fight_state(game, f, i, seat))
        else:
            if type(old) is not tuple or old[-1] != tkey:
                keys[_TOTALS_KEYS[i]] = _totals(game, f, seat)
            fights[i, 2 * FIGHT_CARD_SIZE:] = _floats(_fight_state(game, f, i, seat, keys[_TOTALS_KEYS[i]]))
    # remaining cards: my Draw deck, or the other's unseen cards (hand and Draw deck: deck lists are open)
    character = keys.get("character")
    if character is None or character[0] is not me.deck or character[1] is not opp.deck:
        keys["character"] = (me.deck, opp.deck)
        for (a, b), p in zip(_CHAR_BLOCKS, (me, opp)):
            obs[a:b] = tables.characters[p.deck.character]
    if keys.get("deck_me") != me.draw_deck:
        keys["deck_me"] = list(me.draw_deck)
        a, b = _DECK_BLOCKS[0]
        obs[a:b] = tables.deck(me.draw_deck, DRAW_SIZE)
    hit = keys.get("deck_opp")
    if hit is None or hit[0] != opp.draw_deck or hit[1] != opp.hand or hit[2] != opp.hand_slots:
        keys["deck_opp"] = (list(opp.draw_deck), list(opp.hand), list(opp.hand_slots))
        unseen = opp.draw_deck + [c for c, slot in zip(opp.hand, opp.hand_slots) if slot is not None]
        a, b = _DECK_BLOCKS[1]
        obs[a:b] = tables.deck(unseen, DRAW_SIZE)
    for k, p in enumerate((me, opp)):
        kk = ("stack", k)
        if keys.get(kk) != p.fight_stack:
            keys[kk] = list(p.fight_stack)
            a, b = _STACK_BLOCKS[k]
            obs[a:b] = tables.stack(p.fight_stack)
    if keys.get("plays_opp") != opp.played:
        keys["plays_opp"] = list(opp.played)
        obs[_PLAYS0:_PLAYS1] = tables.deck(opp.played, 10)


class _PoolTables:
    """Per card pool: card vectors as matrices, so a pile's summed features are one product."""

    def __init__(self, pool: CardPool) -> None:
        self.support_index = {cid: i for i, cid in enumerate(pool.support_ids)}
        self.fight_index = {cid: i for i, cid in enumerate(pool.fight_ids)}
        n = len(pool.support_ids)
        self.support = np.zeros((n, DECK_SIZE), dtype=np.float32)
        for i, cid in enumerate(pool.support_ids):
            card = pool.support[cid]
            self.support[i, 0] = 1
            self.support[i, 1 + SUPPORT_TYPES.index(card.type)] = 1
            self.support[i, 1 + len(SUPPORT_TYPES):] = support_features(card)[:SUPPORT_BASE]
        self.fight = np.zeros((len(pool.fight_ids), STACK_SIZE), dtype=np.float32)
        for i, cid in enumerate(pool.fight_ids):
            self.fight[i, 0] = 1
            self.fight[i, 1:] = fight_card_features(pool.fight[cid], 0)[:FIGHT_CARD_BASE]
        self.characters = {cid: character_features(ch) for cid, ch in pool.characters.items()}
        self.support_vecs = np.stack([support_features(pool.support[c]) for c in pool.support_ids]) if n else \
            np.zeros((0, SUPPORT_SIZE), dtype=np.float32)
        self._sums: dict[tuple[Any, ...], np.ndarray] = {}

    def _sum(self, key: tuple[Any, ...], ids: list[str], index: dict[str, int], table: np.ndarray, scale: float) -> np.ndarray:
        hit = self._sums.get(key)
        if hit is None:
            if len(self._sums) > 50_000:  # piles repeat a lot within a game; the cache stays bounded
                self._sums.clear()
            if ids:
                # summed in index order, so a pile's sum does not depend on its (hidden) order; no BLAS threads
                hit = (table[sorted([index[c] for c in ids])].sum(axis=0) / scale).astype(np.float32, copy=False)
            else:
                hit = np.zeros(table.shape[1], dtype=np.float32)
            self._sums[key] = hit
        return hit

    def deck(self, ids: list[str], scale: float) -> np.ndarray:
        """Count, counts by type and summed base features of support cards ``ids``, / ``scale``."""
        return self._sum(("d", scale, *ids), ids, self.support_index, self.support, scale)

    def stack(self, ids: list[str]) -> np.ndarray:
        return self._sum(("s", *ids), ids, self.fight_index, self.fight, float(FIGHT_STACK_SIZE))


_TABLES: dict[int, tuple[CardPool, _PoolTables]] = {}


def _pool_tables(pool: CardPool) -> _PoolTables:
    hit = _TABLES.get(id(pool))
    if hit is None or hit[0] is not pool:
        hit = _TABLES[id(pool)] = (pool, _PoolTables(pool))
    return hit[1]


def observe_state(game: FightKlubGame, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """``seat``'s (observation vector, int8 action mask) of ``game``, exactly as the env shows them."""
    return encode(game, seat), game.legal_action_mask(seat)


__all__ = ["COLORS", "OBS_HIGH", "OBS_SIZE", "OBS_SLICES", "encode", "fight_card_features", "observe_state", "support_features"]
