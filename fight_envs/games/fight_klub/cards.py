"""Fight Klub card data: the schema, its validation on load, and deck-list validation.

Owns ``cards.json`` (characters, Fight cards, support cards) and ``decks.json`` (the
preconstructed deck lists). Every card is plain data; what a card *does* is a list of effects in
the small vocabulary of ``EFFECT_OPS``, interpreted by ``rules.py`` (no per-card code). A bad
file raises ``CardDataError`` naming the card and the field; a bad deck list raises ``DeckError``
naming the construction rule broken (rule ids as in ``seeds/fight_klub.md`` section 2).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from fight_envs.core.data import decode_json, read_data_text
from fight_envs.core.errors import CardDataError, FightEnvsError

COLORS = ("blue", "green", "yellow")
SKIRMISH_TYPES = ("mental", "physical", "spiritual", "fate")
AFFILIATIONS = ("hero", "villain")
RARITIES = ("common", "uncommon", "rare")
SUPPORT_TYPES = ("condition", "effect", "gear", "instant")
PHASES = ("setup", "enhance", "score", "cooldown")
MEASURES = ("energy", "hand", "support", "damage_marker", "damage_scored", "imprint")
EFFECT_OPS = ("add", "burn", "draw", "discard", "destroy", "retrieve", "boost", "nullify", "double_damage")
FIGHT_OPS = ("boost", "nullify", "double_damage")
"""Ops that act on the current fight, so only valid while one is being fought."""
SKIRMISH_OPS = ("boost", "nullify")
"""Ops that change skirmishes, so only valid before (or between) the skirmishes are resolved."""
EFFECT_CONTEXTS: dict[str, tuple[frozenset[str], bool]] = {
    # where an effect list resolves: (ops that can act there, whether "when" can be decided there)
    "setup": (frozenset(EFFECT_OPS) - frozenset(FIGHT_OPS), False),
    "cooldown": (frozenset(EFFECT_OPS) - frozenset(FIGHT_OPS), False),
    "enhance": (frozenset(EFFECT_OPS), False),  # Enhance Instants, Conditions' Enhance actions, Gear
    "result": (frozenset(EFFECT_OPS), False),  # a Result tab: mid-skirmishes, the fight is not decided
    "on_win": (frozenset(EFFECT_OPS) - frozenset(SKIRMISH_OPS), False),  # Clash text: no skirmishes
    "score": (frozenset(EFFECT_OPS) - frozenset(SKIRMISH_OPS), True),  # after the skirmishes, fight decided
}
"""Which ops and whether ``when`` can ever take effect in each place an effect list resolves.

Only the Score step sees a decided fight (``when`` won/lost); boost and nullify change skirmishes,
so they are no-ops once the skirmishes are over (Score) or when Clash text decides (``on_win``);
fight ops need a current fight (not Setup or Cooldown). Anything else would load as a silent no-op.
"""
MAX_EFFECTS = 3
"""Effects in one list (an Instant's, a Gear's, a Result tab's, an on-win's), so the observation can
encode every one of them in order (``observe.py``)."""
MAX_ACTION_EFFECTS = 2
"""Effects in one Condition action or one line of a character's gametext."""
DESTROY_KINDS = ("condition", "gear", "any")
RETRIEVE_KINDS = SUPPORT_TYPES + ("any",)
FIGHT_SIZE = 12
DRAW_SIZE = 27
COPY_LIMIT = {"common": 3, "uncommon": 3, "rare": 1}
GOLD_LIMIT = 3
DECK_RULES = ("counts", "character", "fight-size", "draw-size", "copies", "gold", "affiliation", "signature", "colours")
"""Construction rules ``validate_deck`` checks, in order. ``counts`` (every count an integer >= 1, each
card listed once) and ``colours`` (every coloured cost payable from the deck's own sources) are the
project's own: the draft's rules assume a physical deck, which cannot hold -5 copies or a card its
Energy can never pay."""


class DeckError(FightEnvsError):
    """A deck list that breaks a construction rule; ``rule`` is the rule id broken."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"deck rule '{rule}' broken: {message}")
        self.rule = rule


@dataclass(frozen=True)
class Cost:
    """Energy to burn (per colour, plus generic) and Energy to spot (imprint counts)."""

    burn: tuple[int, int, int] = (0, 0, 0)
    generic: int = 0
    spot: tuple[int, int, int] = (0, 0, 0)

    @property
    def total(self) -> int:
        return sum(self.burn) + self.generic


@dataclass(frozen=True)
class Effect:
    """One verb of the vocabulary with its arguments (unused ones keep their defaults)."""

    op: str
    n: int = 1
    who: str = "self"
    color: int = 0
    kind: str = "any"
    chooser: str = "owner"
    type: str = "all"
    position: int = 0
    when: str | None = None


@dataclass(frozen=True)
class Tab:
    type: str
    value: int
    result: tuple[Effect, ...] = ()


@dataclass(frozen=True)
class FightEnd:
    """One end of a Fight card: a Power end (three tabs) or a Clash end (a Clash rule)."""

    kind: str  # "power" | "clash"
    tabs: tuple[Tab, ...] = ()
    center_color: int = 0
    measure: str = ""
    wins: str = "higher"
    on_win: tuple[Effect, ...] = ()


TRIGGERS = ("setup", "won_fight", "lost_fight", "cooldown")
"""When a character's gametext acts: at its First setup action, when it wins or loses a fight (after
the Score actions, before scoring), at the start of the Cooldown phase."""
_TRIGGER_CONTEXT = {"setup": "setup", "won_fight": "on_win", "lost_fight": "on_win", "cooldown": "cooldown"}


@dataclass(frozen=True)
class Trigger:
    """A line of a character's gametext: at ``when``, resolve ``effects`` for the character's player."""

    when: str
    effects: tuple[Effect, ...]


@dataclass(frozen=True)
class Character:
    id: str
    name: str
    affiliation: str
    life: int
    hold: int
    hand: int
    energy: tuple[int, int, int]
    fists: tuple[int, int, int]
    imprint: tuple[int, int, int]
    bonus: tuple[tuple[str, int], ...] = ()
    """Gametext: static skirmish bonuses by the player's own tab type (as a Condition's)."""
    gametext: tuple[Trigger, ...] = ()
    """Gametext: triggered effects (``TRIGGERS``)."""


@dataclass(frozen=True)
class FightCard:
    id: str
    name: str
    affiliation: str
    rarity: str
    gold: bool
    signature: str | None
    damage: int
    ends: tuple[FightEnd, ...]
    rotate_cost: Cost | None
    bonus_color: int | None


@dataclass(frozen=True)
class PhaseAction:
    """A Condition's reusable action in one phase step: pay ``cost``, resolve ``effects``."""

    phase: str
    cost: Cost
    effects: tuple[Effect, ...]


@dataclass(frozen=True)
class SupportCard:
    id: str
    name: str
    affiliation: str
    rarity: str
    signature: str | None
    type: str
    cost: Cost
    phase: str | None = None  # Instants: the phase keyword
    effects: tuple[Effect, ...] = ()  # Instants: on play; Gear: on activation
    tabs: tuple[int, int, int] = (0, 0, 0)  # Effects and Gear: tab modifiers
    activation: Cost | None = None  # Gear
    after: str = "return"  # Gear: "return" to the support area or "destroy" after the fight
    bonus: tuple[tuple[str, int], ...] = ()  # Conditions: static skirmish bonuses by type
    actions: tuple[PhaseAction, ...] = ()  # Conditions: phase actions


@dataclass(frozen=True)
class DeckList:
    """A deck as counts by card id: the character, the Fight stack and the Draw deck."""

    name: str
    character: str
    fight: tuple[tuple[str, int], ...]
    draw: tuple[tuple[str, int], ...]

    def fight_ids(self) -> list[str]:
        return [cid for cid, n in self.fight for _ in range(n)]

    def draw_ids(self) -> list[str]:
        return [cid for cid, n in self.draw for _ in range(n)]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "character": self.character, "fight": dict(self.fight), "draw": dict(self.draw)}


@dataclass(frozen=True)
class CardPool:
    characters: dict[str, Character]
    fight: dict[str, FightCard]
    support: dict[str, SupportCard]
    decks: dict[str, DeckList] = field(default_factory=dict)
    fight_ids: tuple[str, ...] = ()
    support_ids: tuple[str, ...] = ()


# ---------------------------------------------------------------------------- field readers
def _get(d: dict[str, Any], key: str, where: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
    if key not in d:
        if default is ...:
            raise CardDataError(f"{where}: missing field '{key}'")
        return default
    v = d[key]
    if kind is int and (isinstance(v, bool) or not isinstance(v, int)):
        raise CardDataError(f"{where}: field '{key}' must be an integer, got {v!r}")
    if not isinstance(v, kind):
        raise CardDataError(f"{where}: field '{key}' must be {kind}, got {v!r}")
    return v


def _choice(d: dict[str, Any], key: str, where: str, allowed: tuple[str, ...], default: Any = ...) -> Any:
    v = _get(d, key, where, (str, type(None)), default)
    if v is None and default is None:
        return None
    if v not in allowed:
        raise CardDataError(f"{where}: field '{key}' is {v!r}; allowed: {', '.join(allowed)}")
    return v


def _nonneg(d: dict[str, Any], key: str, where: str, default: Any = ..., low: int = 0, high: int = 99) -> int:
    v = _get(d, key, where, int, default)
    if not low <= v <= high:
        raise CardDataError(f"{where}: field '{key}' must be in {low}..{high}, got {v}")
    return v


def _colors(d: Any, where: str) -> tuple[int, int, int]:
    if not isinstance(d, dict):
        raise CardDataError(f"{where}: must be an object of colour counts, got {d!r}")
    unknown = set(d) - set(COLORS)
    if unknown:
        raise CardDataError(f"{where}: unknown colour(s) {sorted(unknown)}; allowed: {', '.join(COLORS)}")
    return tuple(_nonneg(d, c, where, 0) for c in COLORS)  # type: ignore[return-value]


def _cost(d: Any, where: str) -> Cost:
    if not isinstance(d, dict):
        raise CardDataError(f"{where}: must be an object, got {d!r}")
    unknown = set(d) - set(COLORS) - {"generic", "spot"}
    if unknown:
        raise CardDataError(f"{where}: unknown field(s) {sorted(unknown)}; allowed: blue, green, yellow, generic, spot")
    burn = tuple(_nonneg(d, c, where, 0) for c in COLORS)
    spot = _colors(d.get("spot", {}), f"{where}.spot")
    return Cost(burn=burn, generic=_nonneg(d, "generic", where, 0), spot=spot)  # type: ignore[arg-type]


def _effect(d: Any, where: str) -> Effect:
    if not isinstance(d, dict):
        raise CardDataError(f"{where}: an effect must be an object, got {d!r}")
    op = _choice(d, "op", where, EFFECT_OPS)
    allowed = {"op", "who", "when"} | {
        "add": {"n", "color"}, "burn": {"n"}, "draw": {"n"}, "discard": {"n"}, "destroy": {"n", "kind", "chooser"},
        "retrieve": {"kind"}, "boost": {"n", "type"}, "nullify": {"position"}, "double_damage": set(),
    }[op]
    unknown = set(d) - allowed
    if unknown:
        raise CardDataError(f"{where}: op '{op}' takes no field(s) {sorted(unknown)}; allowed: {', '.join(sorted(allowed))}")
    who = _choice(d, "who", where, ("self", "opponent"), "self")
    when = _choice(d, "when", where, ("won", "lost"), None)
    if op == "boost":
        n = _nonneg(d, "n", where, low=-9, high=9)
        if n == 0:
            raise CardDataError(f"{where}: field 'n' of a boost must not be 0")
    elif op in ("add", "burn", "draw", "discard", "destroy"):
        n = _nonneg(d, "n", where, low=1, high=9)
    else:
        n = 1
    color = COLORS.index(_choice(d, "color", where, COLORS)) if op == "add" else 0
    kinds = DESTROY_KINDS if op == "destroy" else RETRIEVE_KINDS
    kind = _choice(d, "kind", where, kinds, "any") if op in ("destroy", "retrieve") else "any"
    chooser = _choice(d, "chooser", where, ("owner", "self"), "owner") if op == "destroy" else "owner"
    stype = _choice(d, "type", where, SKIRMISH_TYPES + ("all",), "all") if op == "boost" else "all"
    position = _nonneg(d, "position", where, high=2) if op == "nullify" else 0
    return Effect(op=op, n=n, who=who, color=color, kind=kind, chooser=chooser, type=stype, position=position, when=when)


def _effects(d: dict[str, Any], key: str, where: str, context: str) -> tuple[Effect, ...]:
    """The effect list ``d[key]``, rejecting any op or ``when`` that can never act in ``context``."""
    raw = _get(d, key, where, list, [])
    limit = MAX_ACTION_EFFECTS if context in ("setup", "cooldown", "enhance", "score", "on_win") and where.endswith("]") \
        and (".actions[" in where or ".gametext[" in where) else MAX_EFFECTS
    if len(raw) > limit:
        raise CardDataError(f"{where}: field '{key}' holds {len(raw)} effects; at most {limit} here "
                            f"(the observation encodes each effect of a list in its own slot)")
    out = tuple(_effect(e, f"{where}.{key}[{i}]") for i, e in enumerate(raw))
    ops, when_ok = EFFECT_CONTEXTS[context]
    for i, e in enumerate(out):
        ew = f"{where}.{key}[{i}]"
        if e.op not in ops:
            raise CardDataError(f"{ew}: op {e.op!r} can never act in {_CONTEXT_NAMES[context]}; "
                                f"allowed there: {', '.join(o for o in EFFECT_OPS if o in ops)}")
        if e.when is not None and not when_ok:
            raise CardDataError(f"{ew}: field 'when' can never be met in {_CONTEXT_NAMES[context]} "
                                f"(the fight is decided only in the Score step); allowed only in Score-phase effects")
    return out


_CONTEXT_NAMES = {
    "setup": "a Setup-phase effect", "cooldown": "a Cooldown-phase effect", "enhance": "an Enhance-phase effect",
    "result": "a Result tab (the fight is not decided yet)", "on_win": "a Clash end's 'on_win' (no skirmishes)",
    "score": "a Score-phase effect (the skirmishes are over)",
}


def _end(d: Any, where: str) -> FightEnd:
    if not isinstance(d, dict):
        raise CardDataError(f"{where}: an end must be an object, got {d!r}")
    kind = _choice(d, "kind", where, ("power", "clash"))
    _known(d, where, {"kind", "tabs", "center_color"} if kind == "power" else {"kind", "measure", "wins", "on_win"})
    if kind == "power":
        tabs_raw = _get(d, "tabs", where, list)
        if len(tabs_raw) != 3:
            raise CardDataError(f"{where}: field 'tabs' must hold exactly 3 skirmish tabs, got {len(tabs_raw)}")
        tabs = []
        for i, t in enumerate(tabs_raw):
            tw = f"{where}.tabs[{i}]"
            if not isinstance(t, dict):
                raise CardDataError(f"{tw}: a tab must be an object")
            _known(t, tw, {"type", "value", "result"})
            tabs.append(Tab(type=_choice(t, "type", tw, SKIRMISH_TYPES), value=_nonneg(t, "value", tw, high=20),
                            result=_effects(t, "result", tw, "result")))
        return FightEnd(kind="power", tabs=tuple(tabs), center_color=COLORS.index(_choice(d, "center_color", where, COLORS)))
    return FightEnd(kind="clash", measure=_choice(d, "measure", where, MEASURES),
                    wins=_choice(d, "wins", where, ("higher", "lower")), on_win=_effects(d, "on_win", where, "on_win"))


_COMMON_FIELDS = frozenset({"id", "name", "affiliation", "rarity", "signature"})
_SUPPORT_FIELDS = {"instant": {"phase", "effects"}, "effect": {"tabs"}, "gear": {"tabs", "activation", "effects", "after"},
                   "condition": {"bonus", "actions"}}


def _known(d: dict[str, Any], where: str, allowed: set[str] | frozenset[str]) -> None:
    unknown = set(d) - set(allowed)
    if unknown:
        raise CardDataError(f"{where}: unknown field(s) {sorted(unknown)}; allowed: {', '.join(sorted(allowed))}")


def _common(d: dict[str, Any], where: str) -> tuple[str, str, str, str, str | None]:
    return (
        _get(d, "id", where, str),
        _get(d, "name", where, str),
        _choice(d, "affiliation", where, AFFILIATIONS),
        _choice(d, "rarity", where, RARITIES),
        _get(d, "signature", where, (str, type(None)), None),
    )


def _character(d: Any, where: str) -> Character:
    if not isinstance(d, dict):
        raise CardDataError(f"{where}: a character must be an object")
    cid = _get(d, "id", where, str)
    where = f"character {cid!r}"
    _known(d, where, {"id", "name", "affiliation", "life", "hold", "hand", "energy", "fists", "imprint", "bonus", "gametext"})
    bonus = _get(d, "bonus", where, dict, {})
    for t, v in bonus.items():
        if t not in SKIRMISH_TYPES or isinstance(v, bool) or not isinstance(v, int) or not -9 <= v <= 9:
            raise CardDataError(f"{where}.bonus: keys are skirmish types ({', '.join(SKIRMISH_TYPES)}), values integers in -9..9; got {t!r}: {v!r}")
    triggers = []
    for i, t in enumerate(_get(d, "gametext", where, list, [])):
        tw = f"{where}.gametext[{i}]"
        if not isinstance(t, dict):
            raise CardDataError(f"{tw}: a gametext line must be an object with 'when' and 'effects'")
        _known(t, tw, {"when", "effects"})
        when = _choice(t, "when", tw, TRIGGERS)
        effects = _effects(t, "effects", tw, _TRIGGER_CONTEXT[when])
        if not effects:
            raise CardDataError(f"{tw}: field 'effects' needs at least one effect")
        if any(x.when == when for x in triggers):
            raise CardDataError(f"{tw}: a second gametext line for 'when' = {when!r}; at most one per trigger (merge the effects)")
        triggers.append(Trigger(when=when, effects=effects))
    return Character(
        bonus=tuple(sorted(bonus.items())), gametext=tuple(triggers),
        id=cid, name=_get(d, "name", where, str), affiliation=_choice(d, "affiliation", where, AFFILIATIONS),
        life=_nonneg(d, "life", where, low=1), hold=_nonneg(d, "hold", where, high=16),
        hand=_nonneg(d, "hand", where, low=1, high=16), energy=_colors(_get(d, "energy", where, dict), f"{where}.energy"),
        fists=_colors(d.get("fists", {}), f"{where}.fists"), imprint=_colors(d.get("imprint", {}), f"{where}.imprint"),
    )


def _fight(d: Any, where: str) -> FightCard:
    if not isinstance(d, dict):
        raise CardDataError(f"{where}: a Fight card must be an object")
    where = f"fight card {d.get('id')!r}"
    cid, name, aff, rarity, sig = _common(d, where)
    _known(d, where, _COMMON_FIELDS | {"gold", "damage", "ends", "rotate_cost", "bonus_color"})
    ends_raw = _get(d, "ends", where, list)
    if len(ends_raw) not in (1, 2):
        raise CardDataError(f"{where}: field 'ends' must hold 1 end (or 2 for a rotatable card), got {len(ends_raw)}")
    ends = tuple(_end(e, f"{where}.ends[{i}]") for i, e in enumerate(ends_raw))
    rotate = d.get("rotate_cost")
    if (len(ends) == 2) != (rotate is not None):
        raise CardDataError(f"{where}: field 'rotate_cost' is required exactly when the card has 2 ends")
    bonus = d.get("bonus_color")
    if bonus is not None and bonus not in COLORS:
        raise CardDataError(f"{where}: field 'bonus_color' is {bonus!r}; allowed: {', '.join(COLORS)} or null")
    if sig is not None and bonus is None:
        raise CardDataError(f"{where}: a signature Fight card needs a 'bonus_color' (its 1-token scoring bonus)")
    return FightCard(
        id=cid, name=name, affiliation=aff, rarity=rarity, gold=_get(d, "gold", where, bool, False), signature=sig,
        damage=_nonneg(d, "damage", where, low=1, high=9), ends=ends,
        rotate_cost=None if rotate is None else _cost(rotate, f"{where}.rotate_cost"),
        bonus_color=None if bonus is None else COLORS.index(bonus),
    )


def _support(d: Any, where: str) -> SupportCard:
    if not isinstance(d, dict):
        raise CardDataError(f"{where}: a support card must be an object")
    where = f"support card {d.get('id')!r}"
    cid, name, aff, rarity, sig = _common(d, where)
    stype = _choice(d, "type", where, SUPPORT_TYPES)
    # an unknown field (say an "additional_cost" or a Retrieve destination) would load as a silent no-op
    _known(d, where, _COMMON_FIELDS | {"type", "cost"} | _SUPPORT_FIELDS[stype])
    kw: dict[str, Any] = {}
    if stype == "instant":
        kw["phase"] = _choice(d, "phase", where, PHASES)
        kw["effects"] = _effects(d, "effects", where, kw["phase"])
        if not kw["effects"]:
            raise CardDataError(f"{where}: an Instant needs at least one effect in 'effects'")
    elif stype == "effect":
        kw["tabs"] = _tabs(d, where)
    elif stype == "gear":
        kw["tabs"] = _tabs(d, where)
        kw["activation"] = _cost(_get(d, "activation", where, dict), f"{where}.activation")
        kw["effects"] = _effects(d, "effects", where, "enhance")  # Gear is activated in Enhance only
        kw["after"] = _choice(d, "after", where, ("return", "destroy"), "return")
    else:
        bonus = _get(d, "bonus", where, dict, {})
        for t, v in bonus.items():
            if t not in SKIRMISH_TYPES or isinstance(v, bool) or not isinstance(v, int):
                raise CardDataError(f"{where}.bonus: keys are skirmish types ({', '.join(SKIRMISH_TYPES)}), values integers; got {t!r}: {v!r}")
        kw["bonus"] = tuple(sorted(bonus.items()))
        actions = []
        for i, a in enumerate(_get(d, "actions", where, list, [])):
            aw = f"{where}.actions[{i}]"
            if not isinstance(a, dict):
                raise CardDataError(f"{aw}: an action must be an object")
            _known(a, aw, {"phase", "cost", "effects"})
            phase = _choice(a, "phase", aw, PHASES)
            actions.append(PhaseAction(phase=phase, cost=_cost(a.get("cost", {}), f"{aw}.cost"),
                                       effects=_effects(a, "effects", aw, phase)))
        phases = [a.phase for a in actions]
        if len(set(phases)) != len(phases):
            raise CardDataError(f"{where}.actions: at most one action per phase, got phases {phases}")
        kw["actions"] = tuple(actions)
        if not kw["bonus"] and not actions:
            raise CardDataError(f"{where}: a Condition needs a 'bonus' or at least one entry in 'actions'")
    return SupportCard(id=cid, name=name, affiliation=aff, rarity=rarity, signature=sig, type=stype,
                       cost=_cost(d.get("cost", {}), f"{where}.cost"), **kw)


def _tabs(d: dict[str, Any], where: str) -> tuple[int, int, int]:
    tabs = _get(d, "tabs", where, list)
    if len(tabs) != 3 or any(isinstance(v, bool) or not isinstance(v, int) or not -9 <= v <= 9 for v in tabs):
        raise CardDataError(f"{where}: field 'tabs' must be 3 integers in -9..9 (left, centre, right), got {tabs!r}")
    return tuple(tabs)  # type: ignore[return-value]


# ---------------------------------------------------------------------------- decks
def parse_deck(d: Any, where: str = "deck") -> DeckList:
    """A deck list from JSON data: ``{"name", "character", "fight": {id: n}, "draw": {id: n}}``."""
    if not isinstance(d, dict):
        raise CardDataError(f"{where}: a deck list must be an object with name, character, fight, draw")
    unknown = set(d) - {"name", "character", "fight", "draw"}
    if unknown:
        raise CardDataError(f"{where}: unknown field(s) {sorted(unknown)}; allowed: character, draw, fight, name")
    parts = {}
    for key in ("fight", "draw"):
        raw = _get(d, key, where, (dict, list))
        if isinstance(raw, list):  # a list of card ids, one entry per copy
            for i, cid in enumerate(raw):
                if not isinstance(cid, str):
                    raise CardDataError(f"{where}.{key}[{i}]: a card id (string) per copy, got {cid!r}")
            counts: dict[str, Any] = dict(Counter(raw))
        else:
            counts = raw
        for cid, n in counts.items():
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise CardDataError(f"{where}.{key}: count of {cid!r} must be a positive integer, got {n!r}")
        parts[key] = tuple(counts.items())
    return DeckList(name=_get(d, "name", where, str, where), character=_get(d, "character", where, str),
                    fight=parts["fight"], draw=parts["draw"])


def validate_deck(deck: DeckList, pool: CardPool) -> None:
    """Raise ``DeckError`` naming the first construction rule ``deck`` breaks (rules: ``DECK_RULES``)."""
    if not isinstance(deck, DeckList):
        raise DeckError("counts", f"a deck must be a DeckList (parse_deck builds one from JSON data), got {type(deck).__name__}")
    for part in ("fight", "draw"):
        entries = getattr(deck, part)
        if not isinstance(entries, tuple):
            raise DeckError("counts", f"{deck.name}: {part} must be a tuple of (card id, count) pairs, got {entries!r}")
        seen: set[str] = set()
        for entry in entries:
            if not (isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str)):
                raise DeckError("counts", f"{deck.name}: {part} entry {entry!r} must be a (card id, count) pair")
            cid, n = entry
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise DeckError("counts", f"{deck.name}: the {part} count of {cid!r} must be an integer >= 1, got {n!r}")
            if cid in seen:
                raise DeckError("counts", f"{deck.name}: {cid!r} is listed twice in the {part} part; list each card once with its count")
            seen.add(cid)
    ch = pool.characters.get(deck.character)
    if ch is None:
        kind = "a Fight card" if deck.character in pool.fight else "a support card" if deck.character in pool.support else "unknown"
        raise DeckError("character", f"{deck.name}: the character {deck.character!r} is {kind}; a deck needs exactly one Hero or Villain")
    for cid, _ in deck.fight:
        if cid not in pool.fight:
            raise DeckError("fight-size", f"{deck.name}: {cid!r} in the Fight stack is not a Fight card; only Fight cards go there")
    for cid, _ in deck.draw:
        if cid not in pool.support:
            what = "a character" if cid in pool.characters else "a Fight card" if cid in pool.fight else "an unknown card"
            raise DeckError("draw-size", f"{deck.name}: {cid!r} in the Draw deck is {what}; the Draw deck holds support cards only")
    nf, nd = sum(n for _, n in deck.fight), sum(n for _, n in deck.draw)
    if nf != FIGHT_SIZE:
        raise DeckError("fight-size", f"{deck.name}: the Fight stack has {nf} cards; it must have exactly {FIGHT_SIZE}")
    if nd != DRAW_SIZE:
        raise DeckError("draw-size", f"{deck.name}: the Draw deck has {nd} cards; it must have exactly {DRAW_SIZE}")
    counts: Counter[str] = Counter()
    for cid, n in deck.fight + deck.draw:
        counts[cid] += n
    for cid, n in counts.items():
        card: FightCard | SupportCard = pool.fight[cid] if cid in pool.fight else pool.support[cid]
        if n > COPY_LIMIT[card.rarity]:
            raise DeckError("copies", f"{deck.name}: {n} copies of {card.rarity} {cid!r}; at most {COPY_LIMIT[card.rarity]}")
    gold = sum(n for cid, n in deck.fight if pool.fight[cid].gold)
    if gold > GOLD_LIMIT:
        raise DeckError("gold", f"{deck.name}: {gold} gold-icon Fight cards; at most {GOLD_LIMIT} in a Fight stack")
    for cid in counts:
        card = pool.fight[cid] if cid in pool.fight else pool.support[cid]
        if card.affiliation != ch.affiliation:
            raise DeckError("affiliation", f"{deck.name}: {cid!r} is a {card.affiliation} card in a {ch.affiliation} deck ({ch.id})")
        if card.signature is not None and card.signature != ch.id:
            raise DeckError("signature", f"{deck.name}: {cid!r} is a signature card of {card.signature!r}, not of {ch.id!r}")
    sources = deck_sources(deck, pool)
    for cid in counts:
        for colour, what in colour_needs(cid, pool):
            if colour not in sources:
                raise DeckError("colours", f"{deck.name}: {cid!r} needs {COLORS[colour]} Energy ({what}) but nothing in the deck "
                                           f"makes {COLORS[colour]}: the character's allocation, an 'add' effect or a "
                                           f"scoring bonus; colours made: {', '.join(COLORS[c] for c in sorted(sources)) or 'none'}")


def _adds(effects: tuple[Effect, ...]) -> set[int]:
    return {e.color for e in effects if e.op == "add" and e.who == "self"}


def card_sources(cid: str, pool: CardPool) -> set[int]:
    """The colours a Fight or support card can add to its owner's pool (effects, Results, scoring bonus)."""
    if cid in pool.fight:
        card = pool.fight[cid]
        out = set() if card.bonus_color is None else {card.bonus_color}
        for end in card.ends:
            out |= _adds(end.on_win)
            for tab in end.tabs:
                out |= _adds(tab.result)
        return out
    sc = pool.support[cid]
    out = _adds(sc.effects)
    for a in sc.actions:
        out |= _adds(a.effects)
    return out


def character_sources(ch: Character) -> set[int]:
    """The colours a character makes: its Energy allocation and its gametext's ``add`` effects."""
    out = {c for c in range(3) if ch.energy[c] > 0}
    for t in ch.gametext:
        out |= _adds(t.effects)
    return out


def deck_sources(deck: DeckList, pool: CardPool) -> set[int]:
    """Every colour the deck can make (its character and its cards)."""
    out = character_sources(pool.characters[deck.character])
    for cid, _ in deck.fight + deck.draw:
        out |= card_sources(cid, pool)
    return out


def colour_needs(cid: str, pool: CardPool) -> list[tuple[int, str]]:
    """(colour, which cost) for every coloured part of a card's costs: play, activation, actions, rotation.

    A spotting requirement needs the colour only where the character's imprint does not cover it
    (checked by the caller through the sources, so imprint counts as a source for spotting).
    """
    costs: list[tuple[Cost, str]] = []
    if cid in pool.fight:
        rc = pool.fight[cid].rotate_cost
        if rc is not None:
            costs.append((rc, "rotation cost"))
    else:
        sc = pool.support[cid]
        costs.append((sc.cost, "play cost"))
        if sc.activation is not None:
            costs.append((sc.activation, "activation cost"))
        costs += [(a.cost, f"{a.phase} action cost") for a in sc.actions]
    return [(c, what) for cost, what in costs for c in range(3) if cost.burn[c] > 0]


def load_deck(source: str | Path | dict[str, Any] | DeckList, pool: CardPool) -> DeckList:
    """A validated deck: a preconstructed deck's name, a deck-list JSON path, a dict or a DeckList."""
    if isinstance(source, DeckList):
        deck = source
    elif isinstance(source, dict):
        deck = parse_deck(source)
    elif isinstance(source, str) and source in pool.decks:
        deck = pool.decks[source]
    elif isinstance(source, (str, Path)) and Path(source).is_file():
        deck = parse_deck(decode_json(read_data_text(source, "deck list"), str(source)), str(source))
    else:
        raise CardDataError(f"unknown deck {source!r}; preconstructed decks: {', '.join(pool.decks)}, or a deck-list JSON path or dict")
    validate_deck(deck, pool)
    return deck


# ---------------------------------------------------------------------------- pool
def parse_pool(data: Any, decks: Any = None) -> CardPool:
    """Validate card data (and optional preconstructed deck lists) and build a ``CardPool``."""
    if not isinstance(data, dict):
        raise CardDataError("card data must be a JSON object with characters, fight_cards, support_cards")
    _known(data, "card data", {"characters", "fight_cards", "support_cards"})  # a misspelt part would load as nothing
    for key in ("characters", "fight_cards", "support_cards"):
        if not isinstance(data.get(key), list):
            raise CardDataError(f"card data: missing list field '{key}'")
    chars = [_character(d, f"characters[{i}]") for i, d in enumerate(data["characters"])]
    fights = [_fight(d, f"fight_cards[{i}]") for i, d in enumerate(data["fight_cards"])]
    supports = [_support(d, f"support_cards[{i}]") for i, d in enumerate(data["support_cards"])]
    seen: set[str] = set()
    for card in [*chars, *fights, *supports]:
        if card.id in seen:
            raise CardDataError(f"card id {card.id!r} is used twice; ids must be unique")
        seen.add(card.id)
    char_ids = {c.id for c in chars}
    for card in [*fights, *supports]:
        if card.signature is not None and card.signature not in char_ids:
            raise CardDataError(f"card {card.id!r}: field 'signature' names {card.signature!r}, which is no character")
    pool = CardPool(characters={c.id: c for c in chars}, fight={c.id: c for c in fights},
                    support={c.id: c for c in supports}, fight_ids=tuple(c.id for c in fights),
                    support_ids=tuple(c.id for c in supports))
    if decks is not None:
        if not isinstance(decks, list):
            raise CardDataError("deck data must be a JSON list of deck lists")
        parsed = {}
        for i, d in enumerate(decks):
            deck = parse_deck(d, f"decks[{i}]")
            try:
                validate_deck(deck, pool)
            except DeckError as e:
                raise CardDataError(f"preconstructed deck {deck.name!r} is illegal: {e}") from e
            parsed[deck.name] = deck
        pool = CardPool(characters=pool.characters, fight=pool.fight, support=pool.support, decks=parsed,
                        fight_ids=pool.fight_ids, support_ids=pool.support_ids)
    return pool


def load_pool(path: str | Path | None = None, decks_path: str | Path | None = None) -> CardPool:
    """Load and validate a card pool (default: the package's ``cards.json`` and ``decks.json``)."""
    def read(p: str | Path | None, name: str) -> Any:
        try:
            if p is None:
                return json.loads(resources.files("fight_envs.games.fight_klub").joinpath(name).read_text(encoding="utf-8"))
            what = "card data (option 'cards')" if name == "cards.json" else "deck lists (option 'deck_lists')"
            return decode_json(read_data_text(p, what), str(p))  # path type, size, UTF-8, depth checked
        except json.JSONDecodeError as e:
            raise CardDataError(f"{p or name}: not valid JSON ({e})") from e
        except OSError as e:
            raise CardDataError(f"cannot read card data {p!r}: {e}") from e

    return parse_pool(read(path, "cards.json"), read(decks_path, "decks.json"))


DEFAULT_POOL = load_pool()
"""The package's own card pool with its preconstructed decks."""
