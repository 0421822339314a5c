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
from operator import attrgetter, itemgetter
from typing import Any

import numpy as np

from fight_envs.games.fight_klub.cards import (
    AFFILIATIONS,
    COLORS,
    DRAW_SIZE,
    EFFECT_OPS,
    MAX_ACTION_EFFECTS,
    MAX_EFFECTS,
    MEASURES,
    PHASES,
    RARITIES,
    RETRIEVE_KINDS,
    SKIRMISH_TYPES,
    SUPPORT_TYPES,
    TRIGGERS,
    CardPool,
    Character,
    Cost,
    Effect,
    FightCard,
    FightEnd,
    SupportCard,
)
from fight_envs.games.fight_klub.cards import FIGHT_SIZE as FIGHT_STACK_SIZE
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


_INV = {k: 1.0 / v for k, v in _SCALE.items()}


_LIFE, _ENERGY, _HANDS, _DECKS, _STACKS = _INV["life"], _INV["energy"], _INV["hand"], _INV["deck"], _INV["stack"]
_THIRD = 1.0 / 3.0
_DAMAGE = _SCALE["damage"]
_NO_DISCARDS = (None, [0.0, 0.0, 0.0, 0.0])
_DISCARD_KEYS = (("discard", 0), ("discard", 1))
_RTS_KEYS = (("rts", 0), ("rts", 1))
_NO_RTS = (None, 0.0)


_PLAYER_FIELDS = attrgetter("life", "dealt", "pool", "imprint", "fists", "energy", "hold", "hand_size", "hand",
                            "draw_deck", "fight_stack", "discard", "support", "damage_stack", "rts")
"""What ``_player`` reads of a player, fetched in one call (it runs twice every decision)."""


def _discards(game: FightKlubGame, seat: int, shared: dict[Any, Any], tables: _PoolTables,
              discard: list[int], rts: list[int]) -> tuple[tuple[list[int], Any], float]:
    """A seat's discards by type (/ 10, as a deck summary's counts) with the pile they came from, and
    its raise-the-stakes cards' damage: kept per seat in ``shared`` for both seats' encodings (a pile
    changes a few times a turn, a player block is written every decision)."""
    hit = shared.get(_DISCARD_KEYS[seat], _NO_DISCARDS)
    if hit[0] != discard:
        hit = shared[_DISCARD_KEYS[seat]] = (list(discard), tables.type_counts(discard))
    if not rts:
        return hit, 0 / _DAMAGE
    rhit = shared.get(_RTS_KEYS[seat], _NO_RTS)
    if rhit[0] != rts:
        fight = game.pool.fight
        rhit = shared[_RTS_KEYS[seat]] = (list(rts), sum([fight[c].damage for c in rts]) / _DAMAGE)
    return hit, rhit[1]


def _player(game: FightKlubGame, seat: int, shared: dict[Any, Any], tables: _PoolTables) -> list[float]:
    (life_, dealt, pool, imp, fists, en, hold, hand_size, hand_, draw_deck, fight_stack, discard, support, damage_stack,
     rts) = _PLAYER_FIELDS(game.players[seat])
    hit, rts_damage = _discards(game, seat, shared, tables, discard, rts)
    other_dealt = game.players[1 - seat].dealt
    # the 14 numbers of the pool, imprint, fists, Energy allocation, Hold and hand size, kept per their counts
    tkey = (pool[0], pool[1], pool[2], imp, fists, en, hold, hand_size)
    tokens = _TOKENS.get(tkey)
    if tokens is None:
        if len(_TOKENS) > 50_000:
            _TOKENS.clear()
        tokens = _TOKENS[tkey] = _token_numbers(*tkey)
    life, hand, deck, stack = _LIFE, _HANDS, _DECKS, _STACKS
    # plain Python floats, packed into the buffer as float32 by ``struct`` in one call
    out = [life_ * life, dealt * life, (life_ - other_dealt) * life, *tokens[0], len(hand_) * hand,
           len(draw_deck) * deck, len(fight_stack) * stack, len(discard) * deck,
           len(support) / MAX_SUPPORT, len(damage_stack) * stack, len(rts) * stack, rts_damage, *hit[1]]
    # every number is within +-OBS_HIGH while Life and both damages are in [0, 256) (their divisor is
    # 20; a negative int or one past 255 leaves bits above the eighth), the token counts, Hold and
    # hand size as ``_token_numbers`` checks, and the raise-the-stakes damage under 1,000 (the other
    # counts are of cards, at most a deck's); past that they are clipped here, as np.clip of the
    # float32 block would (OBS_HIGH is exact in float32)
    if (life_ | dealt | other_dealt) >> 8 or not tokens[1] or rts_damage >= 100.0:
        out = [OBS_HIGH if x > OBS_HIGH else -OBS_HIGH if x < -OBS_HIGH else x for x in out]
    return out


def _clipped(numbers: list[float]) -> list[float]:
    """``numbers`` clipped to +-OBS_HIGH, as np.clip of the float32 block would (OBS_HIGH is exact in float32)."""
    return [OBS_HIGH if x > OBS_HIGH else -OBS_HIGH if x < -OBS_HIGH else x for x in numbers]


_LIFE_BYTES: dict[tuple[int, int, int], bytes] = {}
_TOKEN_BYTES: dict[tuple[Any, ...], bytes] = {}
_PACK3 = struct.Struct("3f").pack
_PACK14 = struct.Struct("14f").pack
_PACK12 = struct.Struct("12f").pack


def _player_bytes(game: FightKlubGame, seat: int, shared: dict[Any, Any], tables: _PoolTables) -> bytes:
    """``_player``'s 29 numbers as float32 bytes, in three parts: Life and the damages, and the
    tokens, Hold and hand size, each kept per its key (a player's block changes most decisions, but
    these parts take few values, so they are mostly found, not computed); the pile counts packed
    directly. ``_player`` is the reference (``encode_fresh`` uses it)."""
    (life_, dealt, pool, imp, fists, en, hold, hand_size, hand_, draw_deck, fight_stack, discard, support, damage_stack,
     rts) = _PLAYER_FIELDS(game.players[seat])
    lkey = (life_, dealt, game.players[1 - seat].dealt)
    a = _LIFE_BYTES.get(lkey)
    if a is None:
        if len(_LIFE_BYTES) > _CACHE_LIMIT:
            _LIFE_BYTES.clear()
        life = _LIFE
        a = _LIFE_BYTES[lkey] = _PACK3(*_clipped([life_ * life, dealt * life, (life_ - lkey[2]) * life]))
    tkey = (pool[0], pool[1], pool[2], imp, fists, en, hold, hand_size)
    b = _TOKEN_BYTES.get(tkey)
    if b is None:
        if len(_TOKEN_BYTES) > _CACHE_LIMIT:
            _TOKEN_BYTES.clear()
        numbers, in_range = _token_numbers(*tkey)
        b = _TOKEN_BYTES[tkey] = _PACK14(*(numbers if in_range else _clipped(numbers)))
    # ``_discards``, read inline (this runs twice every decision)
    counts = shared.get(_DISCARD_KEYS[seat], _NO_DISCARDS)
    if counts[0] != discard:
        counts = shared[_DISCARD_KEYS[seat]] = (list(discard), tables.type_counts(discard))
    counts = counts[1]
    if rts:
        rhit = shared.get(_RTS_KEYS[seat], _NO_RTS)
        if rhit[0] != rts:
            fight = game.pool.fight
            rhit = shared[_RTS_KEYS[seat]] = (list(rts), sum([fight[c].damage for c in rts]) / _DAMAGE)
        rts_damage = rhit[1]
    else:
        rts_damage = 0 / _DAMAGE
    # the pile counts and discards by type, packed directly (they change most decisions and take
    # too many combinations to keep); only the raise-the-stakes damage can pass OBS_HIGH (the
    # other counts are of cards, at most a deck's)
    hand, deck, stack = _HANDS, _DECKS, _STACKS
    c = _PACK12(len(hand_) * hand, len(draw_deck) * deck, len(fight_stack) * stack, len(discard) * deck,
                len(support) / MAX_SUPPORT, len(damage_stack) * stack, len(rts) * stack,
                OBS_HIGH if rts_damage > OBS_HIGH else rts_damage, counts[0], counts[1], counts[2], counts[3])
    return a + b + c


_TOKENS: dict[tuple[Any, ...], tuple[list[float], bool]] = {}
"""``_token_numbers`` per its arguments."""


def _token_numbers(pool0: int, pool1: int, pool2: int, imp: tuple[int, int, int], fists: tuple[int, int, int],
                   en: tuple[int, int, int], hold: int, hand_size: int) -> tuple[list[float], bool]:
    """A player's pool / 5, imprint, fists and Energy allocation / 3, Hold and hand size / 8 (14
    numbers), and whether every count is in [0, 300), so that no number passes OBS_HIGH."""
    energy, third, hand = _ENERGY, _THIRD, _HANDS
    numbers = [pool0 * energy, pool1 * energy, pool2 * energy, imp[0] * third, imp[1] * third, imp[2] * third,
               fists[0] * third, fists[1] * third, fists[2] * third, en[0] * third, en[1] * third, en[2] * third,
               hold * hand, hand_size * hand]
    return numbers, all(0 <= n < 300 for n in (pool0, pool1, pool2, *imp, *fists, *en, hold, hand_size))


def _totals(game: FightKlubGame, f: FightSlot, seat: int) -> tuple[list[int], list[int]] | None:
    """Both sides' skirmish totals (``seat``'s first) in an opposed fight of two power ends, else None."""
    c0, c1 = f.cards
    if c0 is None or c1 is None:
        return None
    fight, (e0, e1) = game.pool.fight, f.end  # ``game.end_of`` of both seats, read inline (it runs most decisions)
    if fight[c0].ends[e0].kind == "power" and fight[c1].ends[e1].kind == "power":
        return game.skirmish_totals(f, seat), game.skirmish_totals(f, 1 - seat)
    return None


_UNKNOWN: Any = object()


def _mirror() -> tuple[int, ...]:
    """The fight state's entries as the other seat reads them: mine and the opponent's swapped."""
    order = list(range(FIGHT_STATE_SIZE))
    pairs = [(3, 4), (6, 7), (9, 10), (12, 13), (15, 18), (16, 19), (17, 20), (24, 25), (26, 27), (28, 31), (29, 32),
             (30, 33)]
    for a, b in pairs:
        order[a], order[b] = b, a
    return tuple(order)


_MIRROR = _mirror()
_MIRRORED = itemgetter(*_MIRROR)
"""A fight state's numbers in ``_MIRROR``'s order, as a tuple (one C call)."""


def _fight_state(game: FightKlubGame, f: FightSlot, idx: int, seat: int, totals: Any = _UNKNOWN) -> list[float]:
    """The 34 numbers of a fight's state (a resolved fight's are kept: nothing of it changes any more).
    ``totals``: ``_totals(game, f, seat)`` where the caller has it."""
    resolved = f.resolved
    if resolved:
        cache = f.obs_state
        if cache is None:
            cache = f.obs_state = {}
        if seat in cache:
            return cache[seat]
        if 1 - seat in cache and game.current != idx:  # the other seat's numbers, mine and his swapped
            v = cache[seat] = list(_MIRRORED(cache[1 - seat]))
            return v
    v = [0.0] * FIGHT_STATE_SIZE
    v[0] = 1.0
    if resolved:
        v[1] = 1.0
    if game.current == idx:
        v[2] = 1.0
    other = 1 - seat
    if f.decided:
        v[3 if f.winner == seat else 4 if f.winner == other else 5] = 1.0
    w0, w1, w2 = f.skirmish_winner
    if w0 is not None:
        v[6 + (0 if w0 == seat else 1 if w0 == other else 2)] = 1.0
    if w1 is not None:
        v[9 + (0 if w1 == seat else 1 if w1 == other else 2)] = 1.0
    if w2 is not None:
        v[12 + (0 if w2 == seat else 1 if w2 == other else 2)] = 1.0
    if totals is _UNKNOWN:
        totals = _totals(game, f, seat)
    if totals is not None:
        (a0, a1, a2), (b0, b1, b2) = totals
        v[15], v[16], v[17] = a0 / 10.0, a1 / 10.0, a2 / 10.0
        v[18], v[19], v[20] = b0 / 10.0, b1 / 10.0, b2 / 10.0
    for pos in f.nullified:
        v[21 + pos] = 1.0
    double = f.double
    if double[seat]:
        v[24] = 1.0
    if double[other]:
        v[25] = 1.0
    if f.clash_text_of is not None:
        v[26 if f.clash_text_of == seat else 27] = 1.0
    (a0, a1, a2), (b0, b1, b2) = f.effect_tabs[seat], f.effect_tabs[other]
    v[28], v[29], v[30] = a0 / 3.0, a1 / 3.0, a2 / 3.0
    v[31], v[32], v[33] = b0 / 3.0, b1 / 3.0, b2 / 3.0
    if resolved:
        cache[seat] = v
    return v


_S = {name: (sl.start, sl.stop) for name, sl in OBS_SLICES.items()}
_HEAD = _S["hand"][0]  # global, me, opp: the numbers of the table, built as one list
_KIND0 = 2 + len(_PHASE_INDEX)
_NK = len(DECISION_KINDS)
_RESOLVED_AT, _SKIRMISHES_AT = _KIND0 + _NK + 2, _KIND0 + _NK + 3
_CHAR_BLOCKS = (_S["character_me"], _S["character_opp"])
_DECK_BLOCKS = (_S["deck_me"], _S["deck_opp"])
_STACK_BLOCKS = (_S["stack_me"], _S["stack_opp"])
_PLAYS0, _PLAYS1 = _S["plays_opp"]


class _Buffer:
    """One seat's observation buffer in one game, what each block was last written from (``keys``),
    and two memoryviews of it (floats, bytes): a block is written through them, by ``struct`` or a
    copy of bytes kept per card, at a fraction of the cost of a numpy call per block."""

    __slots__ = (
        "area_keys",
        "fight_keys",
        "fresh",
        "hand_key",
        "head_bytes",
        "keys",
        "mv",
        "mvf",
        "obs",
        "pile_seen",
        "pile_views",
        "piles",
        "pool",
        "shared",
        "state_keys",
        "tables",
    )

    def __init__(self, pool: CardPool, shared: dict[Any, Any], fresh: bool = False) -> None:
        self.fresh = fresh  # encode_fresh: every block from scratch, no kept totals either
        self.obs = obs = np.zeros(OBS_SIZE, dtype=np.float32)
        self.mvf = memoryview(obs)  # format "f": item and slice assignment of floats / float32 arrays
        self.mv = self.mvf.cast("B")  # bytes: slice assignment of kept float32 bytes
        self.keys: dict[Any, Any] = {}
        self.shared = shared  # what both seats' encodings of one game read alike (kept by seat)
        self.pool = pool
        self.tables = _pool_tables(pool)
        # the keys of the blocks met most often, in plain attributes and lists (faster to reach)
        self.hand_key: list[str] | None = None
        self.head_bytes: list[Any] = [None]  # the global bytes last written
        self.area_keys: list[Any] = [None, None]
        self.fight_keys: list[Any] = [None] * FIGHTS_PER_TURN  # None: the columns are zeros (as np.zeros made them)
        self.state_keys: list[Any] = [None] * FIGHTS_PER_TURN
        # each player's piles and their exact sums (``_PileSum``: Draw deck, hand cards in slots,
        # Fight stack, plays), shared by both seats' buffers of a game: a change is summed once;
        # each buffer keeps the versions of the sums it last wrote (deck, unseen, stacks, plays)
        piles = shared.get("piles")
        if piles is None:
            t = self.tables
            sp = t.support_pile
            piles = shared["piles"] = tuple(
                (_PileSum(sp), _UnseenSum(sp) if t.unseen_fits else _PileSum(sp), _PileSum(t.fight_pile),
                 _PileSum(sp))
                for _ in range(2))
        self.piles = piles
        self.pile_seen: list[Any] = [None] * 5
        self.pile_views = tuple(obs[a:b] for a, b in (*_DECK_BLOCKS, *_STACK_BLOCKS, (_PLAYS0, _PLAYS1)))


def encode(game: FightKlubGame, seat: int, copy: bool = True) -> np.ndarray:
    """The observation vector of ``seat`` (float32, ``OBS_SIZE``): a new array each call
    (``copy=False``: the game's own buffer, valid until the next encoding of that seat).

    Each game keeps one buffer per seat and rewrites only the blocks whose inputs changed since
    that seat's last encoding (a hand, a support area, a fight's cards, a pile). Blocks are written
    through memoryviews of the buffer (``struct`` packs numbers as float32, a card's features are
    copied as kept float32 bytes), not through numpy calls. The table numbers are float32 bytes:
    the global block kept per its one-hots and counts, each player's block packed at every call
    from parts kept per key (``_player_bytes``). What both seats read alike is
    kept once per game: each open fight's state on its slot, keyed by the slot's version
    ``FightSlot.v`` (which the engine bumps at every change of a slot), whether it is current and
    the bonuses in play, computed for seat 0 and mirrored for seat 1 (``_MIRROR``); a resolved
    fight's state per seat; the discard piles' type counts; each player's piles' summed features,
    updated card by card, exactly (``_PileSum``; a player's unseen cards, his Draw deck and hidden hand, as one
    sum that a draw leaves as it is, ``_UnseenSum``). The result is the same as encoding from scratch (``encode_fresh``, which computes the
    player blocks with ``_player``, the totals and the open fights afresh);
    ``tests/fight_klub/test_fight_klub_observe_identity.py`` and
    ``benchmarks/check_identical_fight_klub.py`` check it.
    """
    bufs = game.obs_bufs
    if bufs is None:
        bufs = game.obs_bufs = {}
    buf = bufs.get(seat)
    if buf is None or buf.pool is not game.pool:
        shared = bufs.get("shared")
        if shared is None or shared[0] is not game.pool:
            shared = bufs["shared"] = (game.pool, {})
        buf = bufs[seat] = _Buffer(game.pool, shared[1])
    _write(game, seat, buf)
    return buf.obs.copy() if copy else buf.obs


def encode_fresh(game: FightKlubGame, seat: int) -> np.ndarray:
    """``encode`` without the per-game buffer (for checks)."""
    buf = _Buffer(game.pool, {}, fresh=True)
    _write(game, seat, buf)
    return buf.obs


_STATE_PACK = struct.Struct(f"{FIGHT_STATE_SIZE}f").pack
_ROW = 4 * SUPPORT_SIZE  # bytes of a support card's features
_HAND_B = 4 * _S["hand"][0]
_AREA_B = (4 * _S["support_me"][0], 4 * _S["support_opp"][0])
_AREA_ROW = 4 * (SUPPORT_SIZE + 1)
_AREA_FLAG = (_S["support_me"][0] + SUPPORT_SIZE, _S["support_opp"][0] + SUPPORT_SIZE)  # float index of row 0's flag
_FIGHTS_B = 4 * _S["fights"][0]
_FIGHT_B = 4 * FIGHT_SIZE
_CARD_B = 4 * FIGHT_CARD_SIZE
_STATE_B = 4 * FIGHT_STATE_SIZE
_STATE_AT = tuple(_FIGHTS_B + i * _FIGHT_B + 2 * _CARD_B for i in range(FIGHTS_PER_TURN))
_ZEROS = memoryview(bytes(4 * max(MAX_HAND * SUPPORT_SIZE, MAX_SUPPORT * (SUPPORT_SIZE + 1), FIGHTS_PER_TURN * FIGHT_SIZE)))
_GLOBAL_TEMPLATES: dict[tuple[int, int, bool, bool], list[float]] = {}
_GLOBAL_BYTES: dict[tuple[Any, ...], bytes] = {}
"""The global block's float32 bytes per its key (phase, pending kind, I decide, I hold The Drop,
turn, max_turns, fights resolved, skirmishes resolved)."""
_GLOBAL_PACK = struct.Struct(f"{GLOBAL_SIZE}f").pack
_PLAYER_PACK = struct.Struct(f"{PLAYER_SIZE}f").pack
_GLOBAL_B = 4 * GLOBAL_SIZE
_PLAYER_BYTES = 4 * PLAYER_SIZE
_ME_B, _OPP_B = 4 * _S["me"][0], 4 * _S["opp"][0]


def _global_template(phase: str, kind: int, deciding: bool, drop: bool) -> list[float]:
    """The global block's one-hots (phase, pending kind, I decide, I hold The Drop), zeros elsewhere."""
    v = [0.0] * GLOBAL_SIZE
    v[2 + _PHASE_INDEX[phase]] = 1.0
    if kind >= 0:
        v[_KIND0 + kind] = 1.0
        if deciding:
            v[_KIND0 + _NK] = 1.0
    if drop:
        v[_KIND0 + _NK + 1] = 1.0
    return v


def _write(game: FightKlubGame, seat: int, buf: _Buffer) -> None:
    """Write ``seat``'s observation into ``buf.obs``. The keys in ``buf`` hold, per block, what the
    block was last written from (none: write everything): a block whose inputs compare equal is
    left as it is. Called on every decision, so each key is the cheapest exact copy of its inputs
    (lists and tuples of what the engine holds, which compare element by element in C), and each
    write goes through the buffer's memoryviews (``struct`` for lists of numbers, kept float32
    bytes for card vectors), not through numpy calls."""
    keys, tables, mv, mvf = buf.keys, buf.tables, buf.mv, buf.mvf
    players = game.players
    me, opp = players[seat], players[1 - seat]
    turn = game.turn
    game_fights = game.fights
    current = game.current
    # the table's numbers (global, me, opp) as one list: the global one-hots from a kept template
    pending = game.pending
    drop = game.drop == seat
    if pending is None:
        tkey = (game.phase, -1, False, drop)
    else:
        tkey = (game.phase, _KIND_INDEX[pending.kind], pending.seat == seat, drop)
    # the table's numbers in three parts, each as float32 bytes kept per what it is made of: the
    # global block per its key, each player's block (the same numbers as "me" in its own seat's
    # view and as "opp" in the other's) per a key of its counts and piles, kept once per game
    n_resolved = sum(map(_RESOLVED, game_fights))  # C loops: no bytecode per fight
    n_skirmishes = 3 - game_fights[current].skirmish_winner.count(None) if current is not None else 0
    gkey = (*tkey, turn, game.config.max_turns, n_resolved, n_skirmishes)
    gbytes = _GLOBAL_BYTES.get(gkey)
    if gbytes is None:
        if len(_GLOBAL_BYTES) > _CACHE_LIMIT:
            _GLOBAL_BYTES.clear()
        template = _GLOBAL_TEMPLATES.get(tkey)
        if template is None:
            template = _GLOBAL_TEMPLATES[tkey] = _global_template(*tkey)
        head = template.copy()
        head[0] = turn / game.config.max_turns
        if turn == 1:
            head[1] = 1.0
        if game_fights:
            head[_RESOLVED_AT] = n_resolved / FIGHTS_PER_TURN
        if current is not None:
            head[_SKIRMISHES_AT] = n_skirmishes / 3.0
        gbytes = _GLOBAL_BYTES[gkey] = _GLOBAL_PACK(*head)
    shared = buf.shared
    written = buf.head_bytes
    if written[0] is not gbytes:
        written[0] = gbytes
        mv[0:_GLOBAL_B] = gbytes
    # the player blocks, packed afresh at every call (the same numbers as "me" in a player's own view
    # and as "opp" in the other's): their parts that take few values are kept per key inside
    # ``_player_bytes``, and a key of the whole block (16 fields, half of them changing most decisions)
    # cost more to build and compare than the packing it would save
    if buf.fresh:
        mv[_ME_B:_ME_B + _PLAYER_BYTES] = _PLAYER_PACK(*_player(game, seat, shared, tables))
        mv[_OPP_B:_OPP_B + _PLAYER_BYTES] = _PLAYER_PACK(*_player(game, 1 - seat, shared, tables))
    else:
        mv[_ME_B:_ME_B + _PLAYER_BYTES] = _player_bytes(game, seat, shared, tables)
        mv[_OPP_B:_OPP_B + _PLAYER_BYTES] = _player_bytes(game, 1 - seat, shared, tables)
    my_hand = me.hand
    old = buf.hand_key
    if old != my_hand:  # keys of piles are list copies: a list equals a list only
        # hands stay in pool order, so a change rewrites the rows from the first card that differs
        n_new = len(my_hand)
        if old is None:
            first, n_old = 0, 0  # a new buffer: its rows are zeros already
        else:
            n_old, first = len(old), 0
            last = min(n_old, n_new)
            while first < last and old[first] == my_hand[first]:
                first += 1
        buf.hand_key = list(my_hand)
        if n_old > n_new:
            mv[_HAND_B + n_new * _ROW:_HAND_B + n_old * _ROW] = _ZEROS[:(n_old - n_new) * _ROW]
        if n_new > first:  # the rows' kept bytes joined: one copy into the block
            at = _HAND_B + first * _ROW
            mv[at:at + (n_new - first) * _ROW] = b"".join(map(tables.support_bytes.__getitem__, my_hand[first:]))
    # support areas: the cards in play (rows rewritten from the first that differs, as in a hand)
    # and the step each was last used in (its "used this turn" flag is read from that and the
    # turn); the card lists also stand for the Condition bonuses the fights' totals read
    in_play: list[Any] = [None, None]  # by seat
    area_keys = buf.area_keys
    for k, p in enumerate((me, opp)):
        items = p.support
        hit = area_keys[k]
        if not items:
            in_play[seat if k == 0 else 1 - seat] = _EMPTY
            if hit is not None and not hit[0]:
                continue  # empty before and now: nothing to write (the turn matters to no flag)
            cards: list[Any] = _EMPTY
            used: list[Any] = _EMPTY
        else:
            cards = in_play[seat if k == 0 else 1 - seat] = list(map(_CARD_OF, items))  # C loops
            used = list(map(_USED_IN, items))
            if hit is not None and hit[2] == used and hit[1] == turn and hit[0] == cards:
                continue
        area_keys[k] = (cards, turn, used)
        n_new = len(cards)
        base = _AREA_B[k]
        if hit is None or hit[0] != cards:
            if hit is None:
                first, n_old = 0, 0  # a new buffer: its rows are zeros already
            else:
                old = hit[0]
                n_old, first = len(old), 0
                last = min(n_old, n_new)
                while first < last and old[first] is cards[first]:
                    first += 1
            if n_old > n_new:
                mv[base + n_new * _AREA_ROW:base + n_old * _AREA_ROW] = _ZEROS[:(n_old - n_new) * _AREA_ROW]
            rows = tables.support_bytes
            at = base + first * _AREA_ROW
            for c in cards[first:]:
                mv[at:at + _ROW] = rows[c.id]
                at += _AREA_ROW
        at = _AREA_FLAG[k]
        for u in used:
            mvf[at] = 1.0 if u and u[0] == turn else 0.0
            at += SUPPORT_SIZE + 1
    n_fights = len(game_fights)
    fresh = buf.fresh
    fight_keys, state_keys = buf.fight_keys, buf.state_keys
    for i in range(n_fights, FIGHTS_PER_TURN):  # no fight there (none before the reveal): zeros
        if fight_keys[i] is not None:
            fight_keys[i] = state_keys[i] = None
            at = _FIGHTS_B + i * _FIGHT_B
            mv[at:at + _FIGHT_B] = _ZEROS[:_FIGHT_B]
    if not n_fights:
        bonus = None
    else:
        # what every fight's skirmish totals read beyond the fight itself: the cards in play (their
        # Condition bonuses) and fists, in seat order (the characters' bonuses are fixed for a game)
        bonus = (in_play[0], in_play[1], players[0].fists, players[1].fists)
    for i, f in enumerate(game_fights):
        at = _STATE_AT[i]  # the state columns
        old = fight_keys[i]
        if f.resolved:
            # a resolved fight's state is kept by _fight_state once written: the slot itself is its key
            if state_keys[i] is f and old[0] is f and old[1] == f.cards and old[2] == f.end:
                continue
            if old is None or old[0] is not f or old[1] != f.cards or old[2] != f.end:
                _write_cards(buf, f, i, seat)
            state_keys[i] = f
            if fresh:
                mv[at:at + _STATE_B] = _STATE_PACK(*_fight_state(game, f, i, seat))
                continue
            # its numbers never change once resolved (``_fight_state`` keeps them per seat): their
            # bytes are kept on the slot beside them, per seat
            kept = f.obs_state_bytes
            if kept is None:
                kept = f.obs_state_bytes = [None, None]
            numbers = kept[seat]
            if numbers is None:
                numbers = kept[seat] = _STATE_PACK(*_fight_state(game, f, i, seat))  # the totals only if not kept
            mv[at:at + _STATE_B] = numbers
            continue
        if fresh:
            _write_cards(buf, f, i, seat)
            mv[at:at + _STATE_B] = _STATE_PACK(*_fight_state(game, f, i, seat, _totals(game, f, seat)))
            continue
        # everything _fight_state reads of an open fight: the slot (its version ``v``, which the engine
        # bumps at every change of the slot), whether it is the current fight, and the cards in play
        # and fists (the totals' bonuses). Both seats' encodings share the entry kept on the slot
        # (``obs_open``: [that key, seat 0's numbers, each seat's bytes, seat 0's totals]): seat 1's
        # numbers are seat 0's mirrored (``_MIRROR``); each buffer knows the entry it wrote
        live = (f.v, current == i, bonus)
        entry = f.obs_open
        if entry is None or entry[0] != live:
            # the totals read the slot and the bonuses, not which fight is current: when only that
            # changed (a fight begins or ends), the entry's totals carry over
            was = None if entry is None else entry[0]
            totals = entry[4] if was is not None and was[0] == live[0] and was[2] == live[2] else _UNKNOWN
            entry = f.obs_open = [live, None, None, None, totals]
        elif state_keys[i] is entry:
            continue
        if old is None or old[0] is not f or old[1] != f.cards or old[2] != f.end:
            _write_cards(buf, f, i, seat)
        state_keys[i] = entry
        numbers = entry[2 + seat]
        if numbers is None:
            v0 = entry[1]
            if v0 is None:
                totals = entry[4]
                if totals is _UNKNOWN:
                    totals = entry[4] = _totals(game, f, 0)
                v0 = entry[1] = _fight_state(game, f, i, 0, totals)
            numbers = entry[2 + seat] = _STATE_PACK(*v0) if seat == 0 else _STATE_PACK(*_MIRRORED(v0))
        mv[at:at + _STATE_B] = numbers
    # remaining cards: my Draw deck, or the other's unseen cards (hand and Draw deck: deck lists are open)
    character = keys.get("character")
    if character is None or character[0] is not me.deck or character[1] is not opp.deck:
        keys["character"] = (me.deck, opp.deck)
        for (a, b), p in zip(_CHAR_BLOCKS, (me, opp)):
            mvf[a:b] = tables.characters[p.deck.character]
    # the piles: each block from its piles' exact sums (``_PileSum``, kept per game and player,
    # updated card by card), rewritten when a sum changed since this buffer last wrote it
    mine, theirs = buf.piles[seat], buf.piles[1 - seat]
    seen, views = buf.pile_seen, buf.pile_views
    # the other's unseen cards: his Draw deck and his hand cards in slots (the slots change with
    # the hand, so the hand and its slots are the hidden pile's key)
    odraw, hidden = theirs[0], theirs[1]
    hidden_of = hidden.owner_cards
    ohand, oslots = opp.hand, opp.hand_slots
    cards = opp.draw_deck
    if type(hidden) is _UnseenSum:  # both parts as one sum (exact tables): a draw changes nothing here
        if hidden_of is None or hidden_of[0] != ohand or hidden_of[1] != oslots or hidden.draw != cards:
            hidden.owner_cards = (list(ohand), list(oslots))
            if None in oslots or len(oslots) != len(ohand):
                hidden.update(cards, [c for c, slot in zip(ohand, oslots) if slot is not None])
            else:
                hidden.update(cards, ohand)
        if seen[1] != hidden.version:
            seen[1] = hidden.version
            _DIVIDE(hidden.sums, tables.draw_den, views[1])
    elif hidden_of is None or hidden_of[0] != ohand or hidden_of[1] != oslots:
        hidden.owner_cards = (list(ohand), list(oslots))
        if None in oslots or len(oslots) != len(ohand):
            hidden.update([c for c, slot in zip(ohand, oslots) if slot is not None])
        else:  # every hand card in a slot (none retrieved): the hand itself, without a comprehension
            hidden.update(ohand)
    if type(hidden) is not _UnseenSum:
        if odraw.ids != cards:
            odraw.update(cards)
        v = (odraw.version, hidden.version)
        if seen[1] != v:
            seen[1] = v
            odraw.scaled(tables.draw_den, hidden, out=views[1])
    # my Draw deck, both Fight stacks, the other's plays: each pile's list is compared here with the
    # one its sum was made from (``_PileSum.ids``; None before the first), so an unchanged pile, the
    # common case, costs no call
    for k, pile, cards, den in ((0, mine[0], me.draw_deck, tables.draw_den), (2, mine[2], me.fight_stack, tables.stack_den),
                                (3, theirs[2], opp.fight_stack, tables.stack_den), (4, theirs[3], opp.played, tables.plays_den)):
        if pile.ids != cards:
            pile.update(cards)
        if seen[k] != pile.version:
            seen[k] = pile.version
            pile.scaled(den, out=views[k])


def _write_cards(buf: _Buffer, f: FightSlot, i: int, seat: int) -> None:
    """Fight ``i``'s two card columns (mine first) from its cards and ends, and their key (the slot
    object and copies of its card and end lists)."""
    buf.fight_keys[i] = (f, list(f.cards), list(f.end))
    mv, tables = buf.mv, buf.tables
    at = _FIGHTS_B + i * _FIGHT_B
    for s in (seat, 1 - seat):
        cid = f.cards[s]
        mv[at:at + _CARD_B] = _ZEROS[:_CARD_B] if cid is None else tables.fight_bytes(cid, f.end[s])
        at += _CARD_B


_CARD_OF = attrgetter("card")
_RESOLVED = attrgetter("resolved")
_USED_IN = attrgetter("used_in")
_EMPTY: list[Any] = []
"""The card list of an empty support area (never changed: shared by every key that needs one)."""


_CACHE_LIMIT = 50_000
"""Entries a table kept by key (global, Life and token bytes) holds before it is emptied."""


class _PoolTables:
    """Per card pool: card vectors as matrices, so a pile's summed features are one product."""

    def __init__(self, pool: CardPool) -> None:
        self.pool = pool
        self.support_index = {cid: i for i, cid in enumerate(pool.support_ids)}
        self.fight_index = {cid: i for i, cid in enumerate(pool.fight_ids)}
        self.support_type = {cid: SUPPORT_TYPES.index(pool.support[cid].type) for cid in pool.support_ids}
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
        # each card's features as float32 bytes, copied straight into a buffer (``_write``)
        self.support_bytes = {c: support_features(pool.support[c]).tobytes() for c in pool.support_ids}
        self._fight_bytes: dict[tuple[str, int], bytes] = {}
        # the pile tables as small integers, for the piles' exact sums (``_PileSum``), and the
        # scales the sums are divided by (the blocks' scales times the tables' multipliers)
        self.support_pile = _PileTable(self.support, self.support_index)
        self.fight_pile = _PileTable(self.fight, self.fight_index)
        self.draw_den = np.float32(self.support_pile.mult * DRAW_SIZE)
        self.plays_den = np.float32(self.support_pile.mult * 10)
        self.stack_den = np.float32(self.fight_pile.mult * FIGHT_STACK_SIZE)
        self.unseen_fits = _UnseenSum.fits(self.support_pile)  # the unseen cards summed as one (``_UnseenSum``)

    def fight_bytes(self, cid: str, end: int) -> bytes:
        """``fight_card_features`` of Fight card ``cid`` with ``end`` in use, as float32 bytes (kept)."""
        hit = self._fight_bytes.get((cid, end))
        if hit is None:
            hit = self._fight_bytes[(cid, end)] = fight_card_features(self.pool.fight[cid], end).tobytes()
        return hit

    def deck(self, ids: list[str], scale: float) -> np.ndarray:
        """Count, counts by type and summed base features of support cards ``ids``, / ``scale``: the
        exact sum of the pile's rows, rounded once to float32 (``_PileSum``, which ``encode`` keeps
        per pile; this is the same sum from scratch)."""
        pile = _PileSum(self.support_pile)
        pile.update(ids)
        return pile.scaled(np.float32(self.support_pile.mult * scale)).copy()

    def stack(self, ids: list[str]) -> np.ndarray:
        """Count and summed base features of Fight cards ``ids``, / the Fight stack's size (as ``deck``)."""
        pile = _PileSum(self.fight_pile)
        pile.update(ids)
        return pile.scaled(self.stack_den).copy()

    def type_counts(self, ids: list[str]) -> list[float]:
        """Support cards ``ids`` counted by type, / 10: entries 1..4 of ``deck(ids, 10)`` (counts are
        exact in float32, so counting here and dividing in float32 gives the same numbers)."""
        kinds = list(map(self.support_type.__getitem__, ids))  # C loops: no bytecode per card
        if len(kinds) < len(_TENTHS):  # each count is below the table's end
            tenths = _TENTHS
            return [tenths[kinds.count(0)], tenths[kinds.count(1)], tenths[kinds.count(2)], tenths[kinds.count(3)]]
        counts = (kinds.count(0), kinds.count(1), kinds.count(2), kinds.count(3))
        return [_TENTHS[n] if n < len(_TENTHS) else float(np.float32(n) / np.float32(10.0)) for n in counts]


_TENTHS = (np.arange(4 * DRAW_SIZE, dtype=np.float32) / 10.0).tolist()
"""``n / 10`` in float32 (the division of a deck summary by its scale), as Python floats."""


_TABLES: dict[int, tuple[CardPool, _PoolTables]] = {}


def _integer_table(table: np.ndarray) -> tuple[np.ndarray, int, bool]:
    """``table`` as integers ``k`` with ``table == k / mult`` in float32 (the smallest ``mult`` up to
    ``_MAX_MULT``), ``mult`` and True; or ``table`` itself, 1 and False when no such ``mult`` exists
    (a pile is then summed afresh in row order at every change, never updated card by card)."""
    wide = table.astype(np.float64)
    for mult in range(1, _MAX_MULT + 1):
        k = np.round(wide * mult)
        if np.array_equal((k / mult).astype(np.float32), table) and np.abs(k).max(initial=0) < 2 ** 10:
            return k.astype(np.float32), mult, True
    return table, 1, False


_MAX_MULT = 720


def _one_change(old: list[Any], new: list[Any]) -> tuple[int, list[Any]] | None:
    """``(+1, cards)`` when ``new`` is ``old`` with ``cards`` added, ``(-1, cards)`` when they are
    removed, for the changes met in play: cards taken from the top or the end (a Draw deck and a
    Fight stack are drawn from the top, several at a time), added at either end (plays are
    appended), or one card inserted or removed anywhere (a hand). Else None (a shuffle, say). Each
    test is one list compare (in C)."""
    n, m = len(new), len(old)
    if n < m:
        longer, shorter, sign = old, new, -1
    elif n > m:
        longer, shorter, sign = new, old, 1
    else:
        return None
    k = len(longer) - len(shorter)
    if longer[k:] == shorter:
        return sign, longer[:k]
    if longer[:len(shorter)] == shorter:
        return sign, longer[len(shorter):]
    if k != 1:
        return None
    i = 0
    while longer[i] == shorter[i]:  # a difference lies before the last entry of shorter (above)
        i += 1
    if longer[i + 1:] == shorter[i:]:
        return sign, [longer[i]]
    return None


class _PileTable:
    """What a pile's sum reads of one feature table: its rows as integers ``k`` with the feature
    ``k / mult`` (``_integer_table``; ``exact`` False, ``mult`` 1 and the rows as they are when the
    features are no such multiples), their index by card, and each row as its own array (an update
    adds it without indexing)."""

    __slots__ = ("exact", "index", "mult", "row", "table", "width")

    def __init__(self, features: np.ndarray, index: dict[str, int]) -> None:
        table, self.mult, self.exact = _integer_table(features)
        self.table, self.index = table, index
        self.row = {cid: table[i] for cid, i in index.items()}
        self.width = table.shape[1]


_SMALL_CHANGE = 4
"""Cards a pile's sum adds or removes row by row; a larger change sums its rows in one call first."""


class _PileSum:
    """The sum of one pile's table rows, kept per game and player: after cards are added or
    removed (``_one_change``) it is updated by their rows, else summed afresh. The rows are integers
    (``_integer_table``) and their sums exact in float32 (each below 2**24 in size), so the sum is
    the same in any order and after any updates: a pile's block depends on its multiset only (its
    hidden order never shows) and equals ``encode_fresh``'s bit for bit. ``scaled`` divides it once,
    in float32 (the correctly rounded value of the exact sum / the scale). Without an integer table
    the pile is summed afresh in row order at every change."""

    __slots__ = ("ids", "out", "owner_cards", "sums", "tab", "version")

    def __init__(self, tab: _PileTable) -> None:
        self.tab = tab
        self.ids: list[Any] | None = None
        self.version = 0  # bumped at every change of the sum: a buffer compares it with the one it wrote
        self.owner_cards: Any = None  # the hidden-hand pile's key: copies of the hand and slots it was made from
        self.sums = np.zeros(tab.width, dtype=np.float32)
        self.out = np.empty(tab.width, dtype=np.float32)

    def update(self, ids: list[Any]) -> bool:
        """Sum ``ids`` (a pile's cards) from the last pile summed; False when they are the same cards in the same order."""
        old = self.ids
        if old is not None and old == ids:
            return False
        tab = self.tab
        change = _one_change(old, ids) if old is not None and tab.exact else None
        sums = self.sums
        if change is None:
            rows = sorted(map(tab.index.__getitem__, ids))  # row order: the same sum for the same multiset
            if rows:
                _REDUCE(tab.table.take(rows, 0), 0, None, sums)
            else:
                sums.fill(0.0)
        else:
            sign, cards = change
            op = _ADD if sign > 0 else _SUBTRACT
            if len(cards) <= _SMALL_CHANGE:
                row = tab.row
                for c in cards:
                    op(sums, row[c], sums)
            else:
                op(sums, _REDUCE(tab.table.take(list(map(tab.index.__getitem__, cards)), 0), 0), sums)
        self.ids = list(ids)
        self.version += 1
        return True

    def scaled(self, den: np.float32, other: _PileSum | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """The sum (plus ``other``'s) / ``den``, in float32, into ``out`` (default: an array of this
        pile's, valid until its next call)."""
        if out is None:
            out = self.out
        if other is None:
            _DIVIDE(self.sums, den, out)
        else:
            _ADD(self.sums, other.sums, out)
            _DIVIDE(out, den, out)
        return out


_ADD, _SUBTRACT, _DIVIDE, _REDUCE = np.add, np.subtract, np.divide, np.add.reduce


def _moved(old: list[Any], new: list[Any], plus: list[Any], minus: list[Any]) -> bool:
    """Put the cards ``new`` has and ``old`` lacks in ``plus``, those ``old`` has and ``new`` lacks in
    ``minus`` (as multisets), and say True; False (nothing put) for a change that costs more to match
    than to sum afresh: not one found by ``_one_change`` in a list longer than a hand."""
    if old == new:
        return True
    change = _one_change(old, new)
    if change is not None:
        (plus if change[0] > 0 else minus).extend(change[1])
        return True
    if len(old) > MAX_HAND or len(new) > MAX_HAND:
        return False
    rest = list(old)  # a hand's cards played and drawn since: matched copy by copy
    for c in new:
        if c in rest:
            rest.remove(c)
        else:
            plus.append(c)
    minus.extend(rest)
    return True


class _UnseenSum:
    """The other player's unseen support cards (his Draw deck and his hand cards in slots) as one
    exact sum, kept per game and player like a ``_PileSum`` (whose ``owner_cards`` and ``version``
    it has) but made of two parts. A draw moves cards from one part to the other and leaves the sum
    as it is, so the block is rewritten only when cards leave both parts (played, discarded) or join
    them: each part's change since the last update is found (``_moved``), the cards that moved
    between the parts cancel, and the rest are added or removed row by row (a larger or unmatched
    change is summed afresh). Only for a table of integers without a negative zero (``fits``): the
    sums are then exact and the same bits as the two parts summed apart and added, which is what
    another table gets (and ``encode_fresh``'s reading of this one, bit for bit)."""

    __slots__ = ("draw", "hidden", "owner_cards", "sums", "tab", "version")

    def __init__(self, tab: _PileTable) -> None:
        self.tab = tab
        self.draw: list[Any] | None = None  # copies of the two parts last summed
        self.hidden: list[Any] | None = None
        self.owner_cards: Any = None  # copies of the hand and slots the hidden part was taken from
        self.sums = np.zeros(tab.width, dtype=np.float32)
        self.version = 0  # bumped at every change of the sum

    @staticmethod
    def fits(tab: _PileTable) -> bool:
        table = tab.table
        return tab.exact and not bool((np.signbit(table) & (table == 0)).any())

    def update(self, draw: list[Any], hidden: list[Any]) -> None:
        """Sum the Draw deck ``draw`` and the hidden hand cards ``hidden`` from the parts last summed."""
        old_draw, old_hidden = self.draw, self.hidden
        self.draw, self.hidden = list(draw), list(hidden)
        tab, sums = self.tab, self.sums
        if old_draw is not None:
            plus: list[Any] = []
            minus: list[Any] = []
            if _moved(old_draw, draw, plus, minus) and _moved(old_hidden, hidden, plus, minus):  # type: ignore[arg-type]
                gone = []
                for c in minus:  # a card moved between the parts (drawn) leaves the sum as it is
                    if c in plus:
                        plus.remove(c)
                    else:
                        gone.append(c)
                if not plus and not gone:
                    return
                if len(plus) + len(gone) <= _SMALL_CHANGE:
                    row = tab.row
                    for c in plus:
                        _ADD(sums, row[c], sums)
                    for c in gone:
                        _SUBTRACT(sums, row[c], sums)
                    self.version += 1
                    return
        index = tab.index.__getitem__
        rows = list(map(index, draw))
        rows += map(index, hidden)
        if rows:
            _REDUCE(tab.table.take(rows, 0), 0, None, sums)
        else:
            sums.fill(0.0)
        self.version += 1
"""The ufuncs of the piles' sums, called with ``out`` (and ``axis``) by position: numpy parses a
keyword argument of a ufunc call more slowly, and these run a few times every decision."""


def _pool_tables(pool: CardPool) -> _PoolTables:
    hit = _TABLES.get(id(pool))
    if hit is None or hit[0] is not pool:
        hit = _TABLES[id(pool)] = (pool, _PoolTables(pool))
    return hit[1]


def observe_state(game: FightKlubGame, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """``seat``'s (observation vector, int8 action mask) of ``game``, exactly as the env shows them."""
    return encode(game, seat), game.legal_action_mask(seat)


__all__ = ["COLORS", "OBS_HIGH", "OBS_SIZE", "OBS_SLICES", "encode", "fight_card_features", "observe_state", "support_features"]
