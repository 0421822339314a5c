"""Egocentric observation encoder for Fight Klub: the table from one seat, cards by attributes.

Every card is encoded by what it *is* (type, phase, costs, tabs, effect verbs...), never by its
identity, so a policy can play cards it has never seen. "me" is the observing seat, "opp" the
other. Nothing hidden enters: the opponent's hand is a count, stacks and decks are counts.

Layout (``OBS_SIZE`` = 3094 floats, ``OBS_SLICES`` maps each block to its slice):

| block | size | content |
| --- | --- | --- |
| ``global`` | 28 | turn / max_turns, turn 1 flag, phase one-hot (setup, fight, cooldown, over), pending decision kind one-hot (18, ``rules.DECISION_KINDS``), I am the one deciding, I hold The Drop, fights resolved this turn / 3, skirmishes of the current fight resolved / 3 |
| ``me`` / ``opp`` | 29 each | Life, damage dealt, Life left (Life minus damage taken), pool (3), imprint (3), fists (3), Energy allocation (3), Hold, Hand, cards in hand, Draw deck, Fight stack, discard, support cards, Damage stack cards, raise-the-stakes cards and their damage, discards by type (4) |
| ``hand`` | 16 x 50 | my hand in hand-position order (position i = action ``1 + i``): support-card features, zeros past the end |
| ``support_me`` / ``support_opp`` | 8 x 51 | support areas by position (position j = action ``17 + j``): support-card features + used this turn |
| ``fights`` | 3 x 464 | per fight position: my card (215), opp card (215), fight state (34) |

Support-card features (50): type one-hot (condition, effect, gear, instant); phases it acts in
(multi-hot: setup, enhance, score, cooldown); play cost (blue, green, yellow, generic, spot x3)
/ 3; tabs (3) / 3; activation or action cost (7) / 3; Gear destroyed after use; Condition bonus
per skirmish type (4) / 3; effect verbs (9 ops x self/opponent: summed ``n`` / 3); ``when``
won / lost.

Fight-card features (215): present, damage / 5, gold, signature, bonus colour (3), rotatable,
rotation cost (7) / 3, the end in use (100) and the other end (100). An end (100): power, clash,
per tab (type one-hot 4, value / 5, Result verbs 18), centre colour (3), Clash measure one-hot
(6), wins higher / lower, Clash on-win verbs (18).

Fight state (34): present, resolved, current, winner (me, opp, tie), per tab position the
skirmish outcome (me, opp, tie: 9), totals now (me 3, opp 3) / 10, nullified (3), double damage
(me, opp), Clash text in use is mine / opp's, Effect+Gear tabs played (me 3, opp 3) / 3.
Counts are scaled by the divisors in ``_SCALE``; all values are clipped to +-``OBS_HIGH``.
"""

from __future__ import annotations

import numpy as np

from fight_envs.games.fight_klub.cards import (
    COLORS,
    EFFECT_OPS,
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
SUPPORT_SIZE = 50
END_SIZE = 100
FIGHT_CARD_SIZE = 215
FIGHT_STATE_SIZE = 34
FIGHT_SIZE = 2 * FIGHT_CARD_SIZE + FIGHT_STATE_SIZE
_PHASE_INDEX = {p: i for i, p in enumerate(("setup", "fight", "cooldown", "over"))}
_KIND_INDEX = {k: i for i, k in enumerate(DECISION_KINDS)}
_SUPPORT_TYPE_INDEX = {t: i for i, t in enumerate(SUPPORT_TYPES)}
_SCALE = {"life": 20.0, "energy": 5.0, "hand": 8.0, "deck": 27.0, "stack": 12.0, "damage": 10.0}


def _layout() -> dict[str, slice]:
    blocks = [("global", GLOBAL_SIZE), ("me", PLAYER_SIZE), ("opp", PLAYER_SIZE), ("hand", MAX_HAND * SUPPORT_SIZE),
              ("support_me", MAX_SUPPORT * (SUPPORT_SIZE + 1)), ("support_opp", MAX_SUPPORT * (SUPPORT_SIZE + 1)),
              ("fights", FIGHTS_PER_TURN * FIGHT_SIZE)]
    out, at = {}, 0
    for name, size in blocks:
        out[name] = slice(at, at + size)
        at += size
    return out


OBS_SLICES = _layout()
OBS_SIZE = OBS_SLICES["fights"].stop


def effect_verbs(effects: tuple[Effect, ...]) -> np.ndarray:
    """18 numbers: per op of ``EFFECT_OPS``, the summed ``n`` / 3 for self, then for the opponent."""
    v = np.zeros(2 * len(EFFECT_OPS), dtype=np.float32)
    for e in effects:
        v[EFFECT_OPS.index(e.op) + (len(EFFECT_OPS) if e.who == "opponent" else 0)] += e.n / 3.0
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


def _player(game: FightKlubGame, seat: int) -> list[float]:
    p, o = game.players[seat], game.players[1 - seat]
    s = _SCALE
    disc = [0, 0, 0, 0]
    support = game.pool.support
    for cid in p.discard:
        card = support.get(cid)
        if card is not None:
            disc[_SUPPORT_TYPE_INDEX[card.type]] += 1
    rts_damage = sum(game.pool.fight[c].damage for c in p.rts)
    # plain Python floats: one numpy conversion at the end is far cheaper than many small arrays
    return [
        p.life / s["life"], p.dealt / s["life"], (p.life - o.dealt) / s["life"],
        *(x / s["energy"] for x in p.pool), *(x / 3.0 for x in p.imprint), *(x / 3.0 for x in p.fists),
        *(x / 3.0 for x in p.energy), p.hold / s["hand"], p.hand_size / s["hand"], len(p.hand) / s["hand"],
        len(p.draw_deck) / s["deck"], len(p.fight_stack) / s["stack"], len(p.discard) / s["deck"],
        len(p.support) / MAX_SUPPORT, len(p.damage_stack) / s["stack"], len(p.rts) / s["stack"],
        rts_damage / s["damage"], *(n / 10.0 for n in disc),
    ]


def _fight_state(game: FightKlubGame, f: FightSlot, idx: int, seat: int) -> np.ndarray:
    v = np.zeros(FIGHT_STATE_SIZE, dtype=np.float32)
    v[0] = 1
    v[1] = float(f.resolved)
    v[2] = float(game.current == idx)
    if f.decided:
        v[3 if f.winner == seat else 4 if f.winner == 1 - seat else 5] = 1
    for pos, w in enumerate(f.skirmish_winner):
        if w is not None:
            v[6 + 3 * pos + (0 if w == seat else 1 if w == 1 - seat else 2)] = 1
    both_power = f.cards[0] is not None and f.cards[1] is not None and all(
        game.end_of(f, s).kind == "power" for s in (0, 1))
    if both_power:
        for k, s in enumerate((seat, 1 - seat)):
            for pos in range(3):
                v[15 + 3 * k + pos] = game.skirmish_total(f, s, pos) / 10.0
    for pos in f.nullified:
        v[21 + pos] = 1
    v[24], v[25] = float(f.double[seat]), float(f.double[1 - seat])
    if f.clash_text_of is not None:
        v[26 if f.clash_text_of == seat else 27] = 1
    v[28:31] = np.array(f.effect_tabs[seat], dtype=np.float32) / 3.0
    v[31:34] = np.array(f.effect_tabs[1 - seat], dtype=np.float32) / 3.0
    return v


def encode(game: FightKlubGame, seat: int) -> np.ndarray:
    """The observation vector of ``seat`` (float32, ``OBS_SIZE``)."""
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    g = obs[OBS_SLICES["global"]]
    g[0] = game.turn / game.config.max_turns
    g[1] = float(game.turn == 1)
    g[2 + _PHASE_INDEX[game.phase]] = 1
    base = 2 + len(_PHASE_INDEX)
    if game.pending is not None:
        g[base + _KIND_INDEX[game.pending.kind]] = 1
        g[base + len(DECISION_KINDS)] = float(game.pending.seat == seat)
    g[base + len(DECISION_KINDS) + 1] = float(game.drop == seat)
    g[base + len(DECISION_KINDS) + 2] = sum(f.resolved for f in game.fights) / FIGHTS_PER_TURN
    if game.current is not None:
        g[base + len(DECISION_KINDS) + 3] = sum(w is not None for w in game.fights[game.current].skirmish_winner) / 3.0
    obs[OBS_SLICES["me"]] = _player(game, seat)
    obs[OBS_SLICES["opp"]] = _player(game, 1 - seat)
    hand = obs[OBS_SLICES["hand"]].reshape(MAX_HAND, SUPPORT_SIZE)
    for i, cid in enumerate(game.players[seat].hand):
        hand[i] = _support_vec(game.pool.support[cid])
    for name, s in (("support_me", seat), ("support_opp", 1 - seat)):
        area = obs[OBS_SLICES[name]].reshape(MAX_SUPPORT, SUPPORT_SIZE + 1)
        for j, item in enumerate(game.players[s].support):
            area[j, :SUPPORT_SIZE] = _support_vec(item.card)
            area[j, SUPPORT_SIZE] = float(bool(item.used_in) and item.used_in[0] == game.turn)
    fights = obs[OBS_SLICES["fights"]].reshape(FIGHTS_PER_TURN, FIGHT_SIZE)
    for i, f in enumerate(game.fights):
        for k, s in enumerate((seat, 1 - seat)):
            cid = f.cards[s]
            fights[i, k * FIGHT_CARD_SIZE:(k + 1) * FIGHT_CARD_SIZE] = _fight_vec(game.fight_card(cid), f.end[s])
        fights[i, 2 * FIGHT_CARD_SIZE:] = _fight_state(game, f, i, seat)
    np.clip(obs, -OBS_HIGH, OBS_HIGH, out=obs)
    return obs


def observe_state(game: FightKlubGame, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """``seat``'s (observation vector, int8 action mask) of ``game``, exactly as the env shows them."""
    return encode(game, seat), game.legal_action_mask(seat)


__all__ = ["COLORS", "OBS_HIGH", "OBS_SIZE", "OBS_SLICES", "encode", "fight_card_features", "observe_state", "support_features"]
