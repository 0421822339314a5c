"""Fight Klub rules engine: the turn (Setup, three fights, Cooldown) as a sequence of decisions.

Owns the game state and the flow of a game, with no RL imports. The flow is written as one
generator (``_game``) that yields a :class:`Decision` whenever a player must choose, and is
resumed with the chosen action; so the code reads in the order of the rulebook's turn, and
every nested choice (paying a generic cost, choosing a discard in the middle of a skirmish)
is just another ``yield``. A decision with exactly one legal action is taken without asking
(``seeds/fight_klub.md``, interpretation 23). Because a generator cannot be copied, a game is
cloned by replaying its actions (:meth:`FightKlubGame.clone`).

Actions (``NUM_ACTIONS`` = 32) are listed in ``seeds/fight_klub.md`` section 8. Card effects are
data (``cards.Effect``) interpreted by :meth:`FightKlubGame._resolve`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fight_envs.core.errors import ConfigError, DealError, IllegalActionError
from fight_envs.core.seeding import copy_rng
from fight_envs.games.fight_klub.cards import (
    COLORS,
    SKIRMISH_TYPES,
    CardPool,
    Cost,
    DeckList,
    Effect,
    FightCard,
    FightEnd,
    SupportCard,
)

PASS = 0
HAND0 = 1
MAX_HAND = 16
SUPPORT0 = HAND0 + MAX_HAND  # 17
MAX_SUPPORT = 8
ROTATE = SUPPORT0 + MAX_SUPPORT  # 25
COLOR0 = ROTATE + 1  # 26
OPTION0 = COLOR0 + 3  # 29
NUM_ACTIONS = OPTION0 + 3  # 32
FIGHTS_PER_TURN = 3
SETUP_ACTIONS = 2
MAX_TURNS = 20
"""Default turn limit: twice the longest game measured, 10 turns (random play; heuristic play
never passed 8), ``seeds/fight_klub.md`` section 10."""

DECISION_KINDS = (
    "order_setup", "setup", "choose_fight", "order_enhance", "enhance", "clash_text", "skirmish_order",
    "order_score", "score", "order_cooldown", "cooldown", "order_even_up", "even_up", "pay_generic", "burn",
    "discard", "destroy_own", "destroy_other", "none",
)
"""Every kind of decision the engine asks (``decision_kind``); "none" for a seat that is not to act."""
PHASE_KINDS = frozenset({"setup", "enhance", "score", "cooldown"})
HAND_KINDS = frozenset({"setup", "enhance", "score", "cooldown", "discard", "even_up"})
"""Decisions whose hand-position actions name a card of the deciding seat's own hand."""
PHASE_NAMES = ("setup", "fight", "cooldown", "over")


def action_name(action: int) -> str:
    """A readable name of an action id (for errors, logs and renderings)."""
    if action == PASS:
        return "pass"
    if HAND0 <= action < SUPPORT0:
        return f"hand[{action - HAND0}]"
    if SUPPORT0 <= action < ROTATE:
        return f"support[{action - SUPPORT0}]"
    if action == ROTATE:
        return "rotate"
    if COLOR0 <= action < OPTION0:
        return COLORS[action - COLOR0]
    if OPTION0 <= action < NUM_ACTIONS:
        return f"option[{action - OPTION0}]"
    return f"<{action}>"


@dataclass(frozen=True)
class Decision:
    """A choice a player must make: who, what kind, and the legal actions."""

    seat: int
    kind: str
    legal: tuple[int, ...]


def _decision(seat: int, kind: str, legal: tuple[int, ...]) -> Decision:
    """``Decision(seat, kind, legal)``: an equal object, kept per its three fields. The flow asks for
    one at every yield (forced moves included, more than one per decision asked) and the same few
    hundred recur; a Decision is frozen, so one object serves every game that meets it. Its fields
    are set through the dataclass's ``__init__``, not through ``d.__dict__``: in CPython, an instance
    whose ``__dict__`` was read keeps its attributes in a dict of its own, and every ``d.seat`` or
    ``d.legal`` of the rules and the env then takes a slower path."""
    key = (seat, kind, legal)
    d = _DECISIONS.get(key)
    if d is None:
        if len(_DECISIONS) > 50_000:
            _DECISIONS.clear()
        d = _DECISIONS[key] = Decision(seat, kind, legal)
    return d


_DECISIONS: dict[tuple[int, str, tuple[int, ...]], Decision] = {}


AUTO_RULES = {
    "order_setup": "The Drop takes its Setup actions first",
    "order_enhance": "the other player takes his Enhance action first (The Drop acts last)",
    "order_score": "the other player takes his Score action first (The Drop acts last)",
    "order_cooldown": "The Drop takes its Cooldown action first",
    "choose_fight": "the open fight with the fewest damage markers on its two cards first (ties: leftmost)",
    "clash_text": "the text under which The Drop wins the fight, else one under which it ties, else its own",
    "skirmish_order": "left to right",
    "pay_generic": "a token of the colour the payer holds most of (ties: blue, green, yellow)",
    "burn": "a token of the colour the burner holds most of (ties: blue, green, yellow)",
    "destroy_own": "the chooser's card longest in play (the leftmost support position)",
    "destroy_other": "the chooser's pick is the card longest in play (the leftmost support position)",
    "score": "a card whose Score effect's condition (won / lost) the fight's result meets, the first one "
             "(hand before support area), else pass",
    "cooldown": "the first card that can act (hand before support area), else pass",
    "setup": "a Condition from the hand first, then a Gear, then a Setup Instant, then a Setup action of a card in "
             "play; within each, the card worth most (``keep_value``; ties: the first), else pass",
    "discard": "the hand card worth least (``keep_value``; ties: the first in the hand)",
    "even_up": "keep every card the Hold allows (stop at once); above the Hold, discard the hand card worth least "
               "(``keep_value``; ties: the first in the hand)",
}
"""The decision kinds that can be resolved by a fixed rule instead of asked (``FightKlubConfig.auto``),
each with its rule (``seeds/fight_klub.md``, interpretation 38). The ordering, colour, destroy,
skirmish and Clash-text rules read public state only, so replays and determinizations resolve them
alike; the hand rules (``_PHASE_RULES``: score, cooldown, setup, discard, even_up) read the player's
own hand, so the card each plays or discards is kept in the script like a forced move."""
AUTO_DEFAULT: frozenset[str] = frozenset({
    "order_setup", "order_score", "order_cooldown", "choose_fight", "clash_text", "skirmish_order", "pay_generic",
    "burn", "destroy_own", "destroy_other", "score", "cooldown", "discard", "even_up",
})
"""The kinds resolved by rule by default: those that cost the heuristic under 3 points when played at
random (the ablation tool, ``seeds/fight_klub.md`` section 10), so every kind still asked matters.
``setup`` has a rule but is asked: it costs the heuristic (version 4) more than 3 points at random."""


@dataclass(frozen=True)
class FightKlubConfig:
    max_turns: int = MAX_TURNS
    """Turns before the game is truncated (the rulebook has no limit; the environment needs one)."""
    ask_moot_orders: bool = False
    """True: The Drop is asked every ordering, as the draft reads (``seeds/fight_klub.md``,
    interpretation 18). False (default): an ordering that cannot matter (``FightKlubGame.moot``) is
    resolved without asking, The Drop first."""
    auto: frozenset[str] = AUTO_DEFAULT
    """Decision kinds resolved by their rule in ``AUTO_RULES`` instead of asked (interpretation 38);
    ``frozenset()`` asks every choice the draft gives (with ``ask_moot_orders=True``: even moot ones)."""

    def __post_init__(self) -> None:
        if isinstance(self.max_turns, bool) or not isinstance(self.max_turns, int) or self.max_turns < 1:
            raise ConfigError(f"max_turns must be an integer >= 1, got {self.max_turns!r}")
        if not isinstance(self.ask_moot_orders, bool):
            raise ConfigError(f"ask_moot_orders must be True or False, got {self.ask_moot_orders!r}")
        if isinstance(self.auto, str) or not isinstance(self.auto, (frozenset, set, list, tuple)):
            raise ConfigError(f"auto must be a set of decision kinds out of {sorted(AUTO_RULES)}, got {self.auto!r}")
        unknown = sorted(str(k) for k in self.auto if k not in AUTO_RULES)
        if unknown:
            raise ConfigError(f"auto: {unknown} cannot be resolved by rule; the kinds that can are {sorted(AUTO_RULES)}")
        object.__setattr__(self, "auto", frozenset(self.auto))


@dataclass
class InPlay:
    """A Condition or Gear in a support area, with the phase step it was last used in."""

    card: SupportCard
    used_in: tuple[Any, ...] = ()
    """The (turn, phase, fight) step it was last used in: a card in play acts once per step."""


@dataclass
class Player:
    deck: DeckList
    life: int
    hold: int
    hand_size: int
    fists: tuple[int, int, int]
    imprint: tuple[int, int, int]
    energy: tuple[int, int, int]
    fight_stack: list[str] = field(default_factory=list)
    draw_deck: list[str] = field(default_factory=list)
    hand: list[str] = field(default_factory=list)
    discard: list[str] = field(default_factory=list)
    support: list[InPlay] = field(default_factory=list)
    pool: list[int] = field(default_factory=lambda: [0, 0, 0])
    damage_stack: list[tuple[str, bool]] = field(default_factory=list)
    """Scored Fight cards and whether each scored double."""
    rts: list[str] = field(default_factory=list)
    """Raise-the-stakes Fight cards waiting beside the Damage stack."""
    dealt: int = 0
    """Damage this player has scored against the opponent."""
    limbo: list[str] = field(default_factory=list)
    """A card being played: out of the hand, not yet in play or discarded (while its cost is paid)."""
    drawn: list[str] = field(default_factory=list)
    """Every card drawn from the Draw deck, in the order drawn (``drawn + draw_deck`` is the deal)."""
    hand_slots: list[int | None] = field(default_factory=list)
    """Per hand position, the index into ``drawn`` the card came from; None for a card that
    reached the hand in public (retrieved from the discard pile), which both players know."""
    played: list[str] = field(default_factory=list)
    """Support cards played from the hand, in order (public: each was shown when played)."""
    fight_unknown: int = 0
    """How many cards on top of the Fight stack were never revealed (the rest came back face up)."""


def _no_memo() -> None:
    """The encoder's fields of a new slot: None, set by ``__init__`` (a plain default would leave the
    attribute to the class until first written, outside the instance's shared layout)."""
    return None


@dataclass
class FightSlot:
    """One match-up of the turn and, while it is the current fight, what was played on it."""

    cards: list[str | None]
    end: list[int] = field(default_factory=lambda: [0, 0])
    resolved: bool = False
    winner: int | None = None
    effect_tabs: list[list[int]] = field(default_factory=lambda: [[0, 0, 0], [0, 0, 0]])
    effects_played: list[list[str]] = field(default_factory=lambda: [[], []])
    gear_used: list[list[InPlay]] = field(default_factory=lambda: [[], []])
    boosts: list[dict[str, int]] = field(default_factory=lambda: [{}, {}])
    nullified: set[int] = field(default_factory=set)
    double: list[bool] = field(default_factory=lambda: [False, False])
    skirmish_winner: list[int | None] = field(default_factory=lambda: [None, None, None])
    """Per tab position: 0/1 the winner, -1 a tie, None not resolved (or nullified)."""
    clash_text_of: int | None = None
    decided: bool = False
    """The Fight step is over: ``winner`` is final (None then means a tie)."""
    v: int = field(default=0, compare=False, repr=False)
    """Bumped at every change of the slot above (a speed aid: the observation encoder keys what it
    keeps of an open fight by it instead of copying the lists); any code that changes a slot's
    fields must bump it. It has no part in the rules."""
    # what the observation encoder (``observe.py``) keeps of this slot, as fields rather than entries
    # added to the instance's ``__dict__``: in CPython, reading an instance's ``__dict__`` turns its
    # attributes from the class's shared layout into a dict of its own, and every later ``f.cards``,
    # ``f.v`` and the like in the rules then takes a slower path (the engine ran about a fifth slower
    # beside the encoder). No part in the rules, equality or the repr, nor of ``__init__``: a slot
    # made by ``dataclasses.replace`` starts with none of them, so none goes stale on a changed copy
    obs_open: Any = field(default_factory=_no_memo, init=False, compare=False, repr=False)
    """An open fight's kept numbers and bytes, and the key they were made from (``observe._write``)."""
    obs_state: Any = field(default_factory=_no_memo, init=False, compare=False, repr=False)
    """A resolved fight's state numbers per seat (``observe._fight_state``)."""
    obs_state_bytes: Any = field(default_factory=_no_memo, init=False, compare=False, repr=False)
    """A resolved fight's state as float32 bytes per seat (``observe._write``)."""


class FightKlubGame:
    """A two-player game of Fight Klub between two decks."""

    def __init__(self, pool: CardPool, decks: Sequence[DeckList], config: FightKlubConfig | None = None) -> None:
        if len(decks) != 2:
            raise ConfigError(f"Fight Klub is a two-player game: give exactly 2 decks, got {len(decks)}")
        self.pool = pool
        self.decks = list(decks)
        self.config = config or FightKlubConfig()
        self.players: list[Player] = []
        self.pending: Decision | None = None
        self.actions: list[tuple[int, int]] = []
        self.log: list[tuple[Any, ...]] = []
        self.version = 0
        self._play_tabs: list[_PlayTables | None] = [None, None]
        """Per seat, ``playable``'s tables (``_PlayTables``) for that seat's imprint."""
        self._playable_hint: tuple[Any, ...] | None = None
        """(phase, seat 0's ``playable``, seat 1's or None) as the moot test of a step's ordering just
        found them, for the phase action that follows (``_phase_action``), and again for the next one
        after a pass (which changes nothing); None otherwise (``_order`` clears it at every step)."""
        self.obs_bufs: dict[Any, Any] | None = None
        """The observation encoder's buffers for this game (``observe.encode``; no part in the rules).
        An attribute set here, not an entry added to ``__dict__`` later: see ``FightSlot.obs_open``."""

    # ------------------------------------------------------------------ setup
    def new_game(self, rng: np.random.Generator, drop: int | None = None,
                 orders: Sequence[dict[str, Sequence[str]] | None] | None = None) -> None:
        """Shuffle (or take ``orders[seat] = {"fight": [...], "draw": [...]}``, top first) and start."""
        self._deal(rng, drop, orders)
        self._advance(None)

    def _deal(self, rng: np.random.Generator, drop: int | None,
              orders: Sequence[dict[str, Sequence[str]] | None] | None) -> None:
        """Everything of ``new_game`` but starting the flow: stacks and decks in order, The Drop, hands."""
        self.rng = rng
        self.players = []
        self.orders_used: list[dict[str, list[str]]] = []
        for seat, deck in enumerate(self.decks):
            ch = self.pool.characters[deck.character]
            p = Player(deck=deck, life=ch.life, hold=ch.hold, hand_size=ch.hand, fists=ch.fists, imprint=ch.imprint,
                       energy=ch.energy)
            given = None if orders is None else orders[seat]
            for part, ids in zip(("fight", "draw"), _deck_ids(deck)):
                if given is not None and part in given:
                    order = list(given[part])
                    if sorted(order) != sorted(ids):
                        raise DealError(f"orders[{seat}]['{part}'] must be an ordering of the deck's {part} cards "
                                        f"{sorted(ids)}, got {sorted(order)}")
                else:
                    order = list(map(ids.__getitem__, rng.permutation(len(ids)).tolist()))
                setattr(p, "fight_stack" if part == "fight" else "draw_deck", order)
            p.fight_unknown = len(p.fight_stack)
            self.orders_used.append({"fight": list(p.fight_stack), "draw": list(p.draw_deck)})
            self.players.append(p)
        if drop is None:
            drop = int(rng.integers(2))
        if isinstance(drop, bool) or drop not in (0, 1):
            raise DealError(f"drop must be seat 0 or 1, got {drop!r}")
        self.drop = int(drop)
        self.first_drop = int(drop)
        self.turn = 1
        self.phase = "setup"
        self.fights: list[FightSlot] = []
        self.current: int | None = None
        self.winner: int | None = None
        self.game_over = False
        self.truncated = False
        self.actions = []
        self.script: list[tuple[int, int, str | None, bool]] = []
        self.moots: list[bool] = []
        """Per ordering met so far, whether it was resolved without asking (public: nobody was asked)."""
        self._moot_replay: list[bool] | None = None
        self._moot_at = 0
        self._playable_hint = None
        self.log = []
        self.pending = None
        self.version += 1
        for p in self.players:
            self._draw(p, p.hand_size)
        self._flow = self._game()

    def _run_script(self, script: Sequence[tuple[int, int, str | None, bool]],
                    fix: Any = None, moots: Sequence[bool] = ()) -> None:
        """Play ``script`` (every decision of a game, asked or forced) from the start, then stop.

        A hand action is replayed by the card it named (``cid``), at that card's position in the
        hand now; ``fix(seat, cid)`` is called when the card is not in the hand (a determinization
        puts it there). No forced move is taken after the script ends: the next decision pends.
        """
        flow = self._game()
        self._flow = flow
        self.version += 1
        self._moot_replay, self._moot_at = list(moots), 0
        try:
            decision = next(flow)
            for seat, action, cid, asked in script:
                if decision.seat != seat:
                    raise DealError(f"replay diverged: seat {decision.seat} is to act ({decision.kind}), the script has seat {seat}")
                if cid is not None:
                    p = self.players[seat]
                    if cid not in p.hand:
                        if fix is None:
                            raise DealError(f"replay diverged: {cid!r} is not in seat {seat}'s hand")
                        fix(seat, cid)
                    at = action - HAND0
                    if not (0 <= at < len(p.hand) and p.hand[at] == cid):  # the same copy where it can
                        action = HAND0 + p.hand.index(cid)
                self.script.append((seat, action, cid, asked))
                if asked:
                    self.actions.append((seat, action))
                elif len(decision.legal) > 1 and action != PASS:  # a card played by its rule, logged as _advance logs it
                    self.log.append(("auto", decision.kind, seat))
                decision = flow.send(action)
        except StopIteration:
            self.pending = None
            return
        finally:
            self._moot_replay = None
        self.pending = decision

    def clone(self) -> FightKlubGame:
        """An independent copy (its generator included): the same deal and every decision replayed."""
        g = FightKlubGame(self.pool, self.decks, self.config)
        g._deal(copy_rng(self.rng), self.first_drop, self.orders_used)
        g._run_script(self.script, moots=self.moots)
        return g

    def __deepcopy__(self, memo: dict[int, Any]) -> FightKlubGame:
        return self.clone()  # the card pool, decks and config are immutable and shared

    def __getstate__(self) -> dict[str, Any]:
        # the flow is a generator, which cannot be pickled: the deal and the decisions rebuild it
        return {"pool": self.pool, "decks": self.decks, "config": self.config, "rng": self.rng,
                "orders": self.orders_used, "drop": self.first_drop, "script": list(self.script), "moots": list(self.moots),
                "started": bool(self.players)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["pool"], state["decks"], state["config"])  # type: ignore[misc]
        if state["started"]:
            self._deal(state["rng"], state["drop"], state["orders"])
            self._run_script(state["script"], moots=state["moots"])

    def determinize(self, seat: int, rng: np.random.Generator) -> FightKlubGame:
        """A game equal to this one in everything ``seat`` observed, every hidden part drawn from ``rng``.

        Public (kept): both deck lists (deck lists are open, ``seeds/fight_klub.md`` section 11),
        every decision taken and who was asked it, every card that left a hand (played or
        discarded, so named), retrieved cards known in a hand, all table state, and ``seat``'s own
        hand and the cards it drew. Hidden (redrawn): the other seat's hand (its cards not known to
        be there), both Draw decks' orders and the other's Draw deck contents, the never-revealed
        part of both Fight stacks, and the engine's generator (seeded from ``rng``).

        The prior is uniform over the deals consistent with those cards: the other seat's unknown
        hand cards and Draw deck are a uniform shuffle of its unseen cards, each Fight stack's
        unrevealed part a uniform shuffle of its unrevealed cards. It does not condition on whether
        the other seat was asked a phase decision (being asked tells that it held something it
        could play). Built by replaying the public decisions on such a deal; where the other seat
        played a card the deal had not given it, the card is swapped in for a random unknown card
        it held since before (so the deal stays consistent), and the unknown hand is redrawn at the
        end (the game is then replayed once more on that deal). Reads nothing hidden: the result depends on ``rng`` and ``seat``'s view only.
        """
        if seat not in (0, 1):
            raise IllegalActionError(f"seat must be 0 or 1, got {seat!r}")
        if not self.players:
            raise IllegalActionError("the game has not started: call new_game first")
        other = 1 - seat
        orders = []
        for s, p in enumerate(self.players):
            fight_order = self.orders_used[s]["fight"]
            known = len(fight_order) - p.fight_unknown  # revealed, in the order dealt
            rest = _minus(p.deck.fight_ids(), fight_order[:known])
            fight = list(fight_order[:known]) + _shuffled(rest, rng)
            if s == seat:
                draw = list(p.drawn) + _shuffled(_minus(p.deck.draw_ids(), p.drawn), rng)
            else:
                draw = _shuffled(p.deck.draw_ids(), rng)
            orders.append({"fight": fight, "draw": draw})
        g = FightKlubGame(self.pool, self.decks, self.config)
        g._deal(np.random.default_rng(int(rng.integers(2**63))), self.first_drop, orders)
        public = [(s, a if cid is None else PASS, cid, asked) for s, a, cid, asked in self.script]
        g._run_script(public, fix=lambda s, cid: g._swap_into_hand(s, cid, rng), moots=self.moots)
        # the other seat's unknown hand cards and Draw deck: one uniform shuffle of its unseen cards
        p = g.players[other]
        unknown = [i for i, slot in enumerate(p.hand_slots) if slot is not None]
        slots = [p.hand_slots[i] for i in unknown]
        unseen = _shuffled([p.hand[i] for i in unknown] + p.draw_deck, rng)
        kept = [cid for cid, slot in zip(p.hand, p.hand_slots) if slot is None]
        p.hand.clear()
        p.hand_slots.clear()
        for cid in kept:
            g._insert_hand(p, cid, None)
        for cid, slot in zip(unseen[:len(unknown)], slots):
            p.drawn[slot] = cid  # type: ignore[index]
            g._insert_hand(p, cid, slot)
        p.draw_deck[:] = unseen[len(unknown):]
        g.orders_used[other]["draw"] = p.drawn + p.draw_deck
        for s in (0, 1):
            g.orders_used[s]["fight"] = orders[s]["fight"]
        # replayed once more on the deal so found: hand positions and pending choices follow its hands
        return g.clone()

    def _swap_into_hand(self, seat: int, cid: str, rng: np.random.Generator) -> None:
        """Put ``cid`` from the Draw deck into ``seat``'s hand for a random unknown card held since it was drawn."""
        p = self.players[seat]
        held = [i for i, slot in enumerate(p.hand_slots) if slot is not None]
        at = [k for k, c in enumerate(p.draw_deck) if c == cid]
        if not held or not at:
            raise DealError(f"cannot determinize: {cid!r} is neither in seat {seat}'s hand nor in its Draw deck")
        i = held[int(rng.integers(len(held)))]
        k = at[int(rng.integers(len(at)))]
        slot = p.hand_slots[i]
        p.draw_deck[k] = p.hand.pop(i)
        p.hand_slots.pop(i)
        p.drawn[slot] = cid  # type: ignore[index]
        self._insert_hand(p, cid, slot)

    # ------------------------------------------------------------------ public API
    def current_player(self) -> int:
        if self.pending is None:
            raise IllegalActionError("the game is over; nobody is to act")
        return self.pending.seat

    def decision_kind(self, seat: int) -> str:
        """What ``seat`` is asked now: one of ``DECISION_KINDS`` ("none" when it is not to act)."""
        if self.pending is None or self.pending.seat != seat:
            return "none"
        return self.pending.kind

    def legal_actions(self, seat: int) -> list[int]:
        if self.pending is None or self.pending.seat != seat:
            return []
        return list(self.pending.legal)

    def legal_action_mask(self, seat: int) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[self.legal_actions(seat)] = 1
        return mask

    def is_terminal(self) -> bool:
        return self.game_over or self.truncated

    def returns(self) -> np.ndarray:
        """+1 / -1 for the winner / loser; 0 each for a draw, a truncation or a game in progress."""
        r = np.zeros(2)
        if self.game_over and self.winner is not None:
            r[self.winner], r[1 - self.winner] = 1.0, -1.0
        return r

    def apply_action(self, seat: int, action: int) -> None:
        """Apply ``seat``'s action; raises IllegalActionError (changing nothing) if not legal.

        ``action`` is an int, a numpy integer or a 0-d numpy integer array (what Gymnasium's
        ``Discrete.sample`` and SB3's ``predict`` give)."""
        plain = type(action) is int  # the common case: no numpy checks
        if not plain and isinstance(action, np.ndarray) and action.ndim == 0 and np.issubdtype(action.dtype, np.integer):
            action = int(action)
        if self.pending is None:
            raise IllegalActionError(f"the game is over; seat {seat} cannot play {action!r}")
        if seat != self.pending.seat:
            raise IllegalActionError(f"seat {seat} is not to act: seat {self.pending.seat} must choose ({self.pending.kind})")
        if (action not in self.pending.legal) if plain else (
                isinstance(action, bool) or not isinstance(action, (int, np.integer)) or int(action) not in self.pending.legal):
            legal = ", ".join(f"{a} ({action_name(a)})" for a in self.pending.legal)
            raise IllegalActionError(f"action {action!r} is not legal for seat {seat} ({self.pending.kind}); legal: {legal}")
        action = int(action)
        self.actions.append((seat, action))
        self.script.append((seat, action, self._card_named(self.pending, action), True))
        self._advance(action)

    def _card_named(self, d: Decision, action: int) -> str | None:
        """The hand card a hand-position action names (it leaves the hand, so it is public), else None."""
        if d.kind in HAND_KINDS and HAND0 <= action < SUPPORT0:
            return self.players[d.seat].hand[action - HAND0]
        return None

    # ------------------------------------------------------------------ flow driver
    def _advance(self, action: int | None) -> None:
        """Resume the flow with ``action`` and run it to the next real decision (or the end)."""
        self.version += 1
        auto = self.config.auto
        try:
            decision = self._flow.send(action) if action is not None else next(self._flow)
            # a forced move is not a decision; nor is a phase action made by its rule (AUTO_RULES): it
            # reads the player's own hand, so it goes into the script like a forced move, and replays
            # and determinizations play the card the game played
            while len(decision.legal) == 1 or (decision.kind in _PHASE_RULES and decision.kind in auto):
                if len(decision.legal) == 1:
                    forced = decision.legal[0]
                else:
                    forced = self._phase_rule(decision)
                    # a pass by rule is not logged (it would tell that the player held a playable card), nor
                    # the hand position (hidden order): the "play" entry that follows names the card
                    if forced != PASS:
                        self.log.append(("auto", decision.kind, decision.seat))
                self.script.append((decision.seat, forced, self._card_named(decision, forced), False))
                decision = self._flow.send(forced)
        except StopIteration:
            self.pending = None
            return
        self.pending = decision

    def _phase_rule(self, d: Decision) -> int:
        """``AUTO_RULES`` for the Score, Cooldown and Setup actions, discards and evening up (the heuristic's own choices)."""
        if d.kind == "cooldown":
            return next((a for a in d.legal if a != PASS), PASS)
        p = self.players[d.seat]
        if d.kind in ("discard", "even_up"):  # keep what the Hold allows, else the card worth least; ties: the first
            if PASS in d.legal:
                return PASS
            keep, hand = _keep_values(self.pool), p.hand
            if len(d.legal) == len(hand):  # every hand position: the first of the least worth
                values = list(map(keep.__getitem__, hand))
                return HAND0 + values.index(min(values))
            return min(d.legal, key=lambda a: keep[hand[a - HAND0]])
        if d.kind == "setup":  # Conditions, Gear, Setup Instants, cards in play; the one worth most; ties: the first
            plays = [a for a in d.legal if a != PASS]
            if not plays:
                return PASS
            keep = _keep_values(self.pool)
            return min(plays, key=lambda a: self._setup_rank(p, a, keep))
        f = self.fights[self.current]  # type: ignore[index]
        if f.winner is None:
            return PASS  # a tie meets no condition
        want = "won" if f.winner == d.seat else "lost"
        for a in d.legal:
            if a == PASS:
                continue
            card = self.pool.support[p.hand[a - HAND0]] if a < SUPPORT0 else p.support[a - SUPPORT0].card
            if any(e.when == want for e in card.effects) or any(e.when == want for x in card.actions for e in x.effects):
                return a
        return PASS

    def _setup_rank(self, p: Player, a: int, keep: dict[str, float] | None = None) -> tuple[int, float]:
        """``AUTO_RULES["setup"]``'s order of a Setup action ``a`` (lowest first); ``keep``: ``_keep_values``."""
        if a >= SUPPORT0:
            return 3, -keep_value(p.support[a - SUPPORT0].card)
        cid = p.hand[a - HAND0]
        card = self.pool.support[cid]
        return _SETUP_RANK.get(card.type, 2), -(keep_value(card) if keep is None else keep[cid])

    def _ask(self, seat: int, kind: str, legal: Sequence[int]) -> Generator[Decision, int, int]:
        action = yield _decision(seat, kind, tuple(sorted(legal)))
        return action

    def moot(self, kind: str) -> bool:
        """Whether the ordering ``kind`` cannot matter: evening up (each player discards and draws his
        own cards only), or a phase step in which at most one player has anything to play."""
        if kind == "order_even_up":
            return True
        phase = kind[len("order_"):]
        return not (self.playable(0, phase) and self.playable(1, phase))  # seat 1 only asked when seat 0 can act

    def _moot_keeping(self, kind: str) -> bool:
        """``moot(kind)``, keeping the ``playable`` lists it computed in ``_playable_hint`` (nothing
        changes between this test and the first phase action of the step: a moot ordering is resolved
        at once, and The Drop's answer to an asked one changes no state)."""
        if kind == "order_even_up":
            return True
        phase = kind[len("order_"):]
        r0 = self.playable(0, phase)
        r1 = self.playable(1, phase) if r0 else None
        self._playable_hint = (phase, r0, r1)
        return not (r0 and r1)

    def skirmish_order_moot(self, f: FightSlot, ends: Sequence[FightEnd], choices: Sequence[int]) -> bool:
        """Whether the order of the skirmishes at ``choices`` cannot matter: no skirmish there is won
        now by a side whose tab has a Result. Then, in any order, the first skirmish resolved has no
        Result, so nothing a total reads changes (a total reads tabs, Effect tabs, bonuses, boosts
        and fists, never other skirmishes' winners), and by induction none has: every order gives
        the same winners and the same state."""
        for pos in choices:
            t0, t1 = self.skirmish_total(f, 0, pos), self.skirmish_total(f, 1, pos)
            if t0 != t1 and ends[int(t1 > t0)].tabs[pos].result:
                return False
        return True

    def clash_text_moot(self, f: FightSlot, ends: Sequence[FightEnd]) -> bool:
        """Whether The Drop's pick between two Clash texts cannot matter: both texts give the same
        fight winner, and the winner's text has no on-win effect (a text's effect resolves only
        when its owner wins, so the loser's never does). Only which text is shown differs."""
        winners = []
        for text in ends:
            m = [self.measure(s, text.measure, f) for s in (0, 1)]
            winners.append(None if m[0] == m[1] else int((m[1] > m[0]) == (text.wins == "higher")))
        w = winners[0]
        return winners[1] == w and (w is None or not ends[w].on_win)

    def clash_text_rule(self, f: FightSlot, ends: Sequence[FightEnd]) -> int:
        """``AUTO_RULES["clash_text"]``: 0 (The Drop's text) or 1 (the other's), whichever gives The
        Drop the best result (won, then tied, then lost); The Drop's own when both are alike."""
        best, best_score = 0, -2
        for k, owner in enumerate((self.drop, 1 - self.drop)):
            text = ends[owner]
            m = [self.measure(s, text.measure, f) for s in (0, 1)]
            w = None if m[0] == m[1] else int((m[1] > m[0]) == (text.wins == "higher"))
            score = 0 if w is None else (1 if w == self.drop else -1)
            if score > best_score:
                best, best_score = k, score
        return best

    def _is_moot(self, kind: str, test: Callable[[], bool]) -> bool:
        """Whether the decision ``kind`` is resolved without asking (``test()``: whether it cannot
        matter); a replay follows the recorded game, the draft-faithful mode asks always."""
        replaying = self._moot_replay
        if replaying is not None and self._moot_at < len(replaying):  # a replay follows the recorded game
            moot = replaying[self._moot_at]
            self._moot_at += 1
        else:
            moot = not self.config.ask_moot_orders and test()
        self.moots.append(moot)
        if moot:
            self.log.append(("moot", kind))
        return moot

    def _order(self, kind: str) -> Generator[Decision, int, int]:
        """The Drop decides who goes first: option 0 = The Drop, option 1 = the opponent."""
        self._playable_hint = None  # a step's lists are its own: only this step's moot test sets them
        if kind in self.config.auto:  # the rule of AUTO_RULES: The Drop last in Enhance and Score, else first
            first = 1 - self.drop if kind in ("order_enhance", "order_score") else self.drop
            self.log.append(("auto", kind, first))
            return first
        if self._is_moot(kind, lambda: self._moot_keeping(kind)):
            return self.drop  # the phase action that follows at once may read ``_playable_hint``
        choice = yield from self._ask(self.drop, kind, (OPTION0, OPTION0 + 1))
        return self.drop if choice == OPTION0 else 1 - self.drop

    # ------------------------------------------------------------------ the game
    def _game(self) -> Generator[Decision, int, None]:
        while True:
            if self.turn > self.config.max_turns:
                self.truncated = True
                self.phase = "over"
                return
            yield from self._setup()
            if self.game_over:
                return
            self.phase = "fight"
            yield from self._fight_phase()
            if self.game_over:
                return
            self.phase = "cooldown"
            yield from self._cooldown()
            self.drop = 1 - self.drop
            self.turn += 1
            self.log.append(("drop", self.drop))

    def _setup(self) -> Generator[Decision, int, None]:
        self.phase = "setup"
        for p in self.players:  # the First setup action: add the Energy allocation (twice on turn 1)
            times = 2 if self.turn == 1 else 1
            for c in range(3):
                p.pool[c] += times * p.energy[c]
        yield from self._gametext("setup")
        if self.game_over:
            return
        first = yield from self._order("order_setup")
        for seat in (first, 1 - first):
            for _ in range(SETUP_ACTIONS):
                yield from self._phase_action(seat, "setup")
                if self.game_over:
                    return
        # Fight cards: The Drop places first, then the opponent; all are revealed at once
        placed: list[list[str]] = [[], []]
        for seat in (self.drop, 1 - self.drop):
            p = self.players[seat]
            k = min(FIGHTS_PER_TURN, len(p.fight_stack))
            placed[seat], p.fight_stack = p.fight_stack[:k], p.fight_stack[k:]
            p.fight_unknown = max(0, p.fight_unknown - k)
        n = max(len(placed[0]), len(placed[1]))
        if n == 0:
            d0, d1 = self.players[0].dealt, self.players[1].dealt
            self._end(None if d0 == d1 else int(d1 > d0), "no Fight cards left")
            return
        self.fights = [FightSlot(cards=[placed[0][i] if i < len(placed[0]) else None,
                                        placed[1][i] if i < len(placed[1]) else None]) for i in range(n)]
        self.log.append(("reveal", [f.cards for f in self.fights]))

    def _fight_phase(self) -> Generator[Decision, int, None]:
        while any(not f.resolved for f in self.fights):
            open_fights = [i for i, f in enumerate(self.fights) if not f.resolved]
            if len(open_fights) > 1 and "choose_fight" in self.config.auto:
                fight = self.pool.fight
                pick = OPTION0 + min(open_fights, key=lambda i: (
                    sum(fight[c].damage for c in self.fights[i].cards if c is not None), i))
                self.log.append(("auto", "choose_fight", pick))
            else:
                pick = yield from self._ask(self.drop, "choose_fight", [OPTION0 + i for i in open_fights])
            self.current = pick - OPTION0
            yield from self._one_fight(self.fights[self.current])
            self.current = None
            if self.game_over:
                return

    def _one_fight(self, f: FightSlot) -> Generator[Decision, int, None]:
        # Enhance
        first = yield from self._order("order_enhance")
        for seat in (first, 1 - first):
            yield from self._phase_action(seat, "enhance")
            if self.game_over:
                return
        # Fight: Clash text or skirmishes
        winner: int | None
        if f.cards[0] is None or f.cards[1] is None:
            winner = 0 if f.cards[0] is not None else 1  # unopposed
            self.log.append(("unopposed", winner))
        else:
            ends = [self.end_of(f, s) for s in (0, 1)]
            if ends[0].kind == "clash" or ends[1].kind == "clash":
                if ends[0].kind == "clash" and ends[1].kind == "clash":
                    if "clash_text" in self.config.auto:
                        pick = OPTION0 + self.clash_text_rule(f, ends)
                        self.log.append(("auto", "clash_text", pick))
                    elif self._is_moot("clash_text", lambda: self.clash_text_moot(f, ends)):
                        pick = OPTION0  # The Drop's own text
                    else:
                        pick = yield from self._ask(self.drop, "clash_text", (OPTION0, OPTION0 + 1))
                    owner = self.drop if pick == OPTION0 else 1 - self.drop
                else:
                    owner = 0 if ends[0].kind == "clash" else 1
                f.clash_text_of = owner
                f.v += 1
                text = ends[owner]
                m = [self.measure(s, text.measure, f) for s in (0, 1)]
                winner = None if m[0] == m[1] else int((m[1] > m[0]) == (text.wins == "higher"))
                self.log.append(("clash", owner, text.measure, m, winner))
                if winner == owner and text.on_win:
                    yield from self._resolve(owner, text.on_win)
            else:
                wins = [0, 0]
                remaining = [0, 1, 2]
                while remaining:
                    choices = [pos for pos in remaining if pos not in f.nullified]
                    if not choices:
                        break
                    if len(choices) > 1 and ("skirmish_order" in self.config.auto or
                                             self._is_moot("skirmish_order", lambda: self.skirmish_order_moot(f, ends, choices))):
                        pick = OPTION0 + choices[0]  # left to right
                    else:
                        pick = yield from self._ask(self.drop, "skirmish_order", [OPTION0 + pos for pos in choices])
                    pos = pick - OPTION0
                    remaining.remove(pos)
                    totals = [self.skirmish_total(f, s, pos) for s in (0, 1)]
                    if totals[0] == totals[1]:
                        f.skirmish_winner[pos] = -1
                        f.v += 1
                        self.log.append(("skirmish", pos, totals, None))
                        continue
                    w = int(totals[1] > totals[0])
                    f.skirmish_winner[pos] = w
                    f.v += 1
                    wins[w] += 1
                    self.log.append(("skirmish", pos, totals, w))
                    result = ends[w].tabs[pos].result
                    if result:
                        yield from self._resolve(w, result)
                        if self.game_over:
                            return
                winner = None if wins[0] == wins[1] else int(wins[1] > wins[0])
        f.winner = winner
        f.decided = True
        f.v += 1
        self.log.append(("fight", self.fights.index(f), winner))
        # Score
        first = yield from self._order("order_score")
        for seat in (first, 1 - first):
            yield from self._phase_action(seat, "score")
            if self.game_over:
                return
        if f.winner is not None:  # characters' gametext on the fight's result
            yield from self._gametext("won_fight", f.winner)
            yield from self._gametext("lost_fight", 1 - f.winner)
            if self.game_over:
                return
        self._score(f)
        f.resolved = True
        f.v += 1

    def _score(self, f: FightSlot) -> None:
        for seat in (0, 1):  # played Effects are discarded; Gear returns or is destroyed
            p = self.players[seat]
            p.discard.extend(f.effects_played[seat])
            for g in f.gear_used[seat]:
                if g.card.after == "destroy" and g in p.support:
                    p.support.remove(g)
                    p.discard.append(g.card.id)
        w = f.winner
        if w is None:  # raise-the-stakes
            for seat in (0, 1):
                if f.cards[seat] is not None:
                    self.players[seat].rts.append(f.cards[seat])  # type: ignore[arg-type]
            self.log.append(("raise_the_stakes", [len(p.rts) for p in self.players]))
            return
        win, lose = self.players[w], self.players[1 - w]
        card = self.pool.fight[f.cards[w]]  # type: ignore[index]
        dmg = card.damage * (2 if f.double[w] else 1)
        win.damage_stack.append((card.id, f.double[w]))
        win.dealt += dmg
        if card.bonus_color is not None:
            win.pool[card.bonus_color] += 1
        for cid in win.rts:  # raise-the-stakes cards score without bonuses
            win.damage_stack.append((cid, False))
            win.dealt += self.pool.fight[cid].damage
        win.rts = []
        if f.cards[1 - w] is not None:
            lose.fight_stack.append(f.cards[1 - w])  # type: ignore[arg-type]
        lose.fight_stack.extend(lose.rts)
        lose.rts = []
        self.log.append(("score", w, card.id, dmg, win.dealt))
        if win.dealt >= lose.life:
            self._end(w, "damage reached Life")

    def _gametext(self, when: str, seat: int | None = None) -> Generator[Decision, int, None]:
        """Resolve the characters' gametext lines for ``when`` (The Drop's first when both act)."""
        for s in ((self.drop, 1 - self.drop) if seat is None else (seat,)):
            ch = self.pool.characters[self.players[s].deck.character]
            for t in ch.gametext:
                if t.when == when:
                    self.log.append(("gametext", s, when))
                    yield from self._resolve(s, t.effects)

    def _cooldown(self) -> Generator[Decision, int, None]:
        yield from self._gametext("cooldown")
        first = yield from self._order("order_cooldown")
        for seat in (first, 1 - first):
            yield from self._phase_action(seat, "cooldown")
            if self.game_over:
                return
        first = yield from self._order("order_even_up")
        for seat in (first, 1 - first):
            p = self.players[seat]
            while p.hand:
                legal = [HAND0 + i for i in range(len(p.hand))] + ([PASS] if len(p.hand) <= p.hold else [])
                a = yield from self._ask(seat, "even_up", legal)
                if a == PASS:
                    break
                p.discard.append(self._take_from_hand(p, a - HAND0))
            self._draw(p, p.hand_size - len(p.hand))
        self.fights = []

    def _end(self, winner: int | None, why: str) -> None:
        self.game_over = True
        self.winner = winner
        self.phase = "over"
        self.log.append(("end", winner, why))

    # ------------------------------------------------------------------ phase actions
    def _phase_action(self, seat: int, phase: str) -> Generator[Decision, int, None]:
        """One setup / enhance / score / cooldown action of ``seat``, or a pass."""
        hint = self._playable_hint
        mine = None
        if hint is not None:  # the moot test's lists, for the first phase action after it
            self._playable_hint = None
            if hint[0] == phase:
                mine = hint[1 + seat]
        if mine is None and not (phase == "score" and "score" in self.config.auto and self._score_rule_passes(seat)):
            mine = self.playable(seat, phase)
        # mine None here: a Score action that AUTO_RULES passes whatever is playable (no card in hand
        # or in play has an effect the fight's result meets), so asked as the forced pass it then is:
        # the same script entry and log, without reading what the pool can pay for
        a = yield _decision(seat, phase, _PASS_ONLY if mine is None else (PASS, *mine))  # [PASS] + playable is sorted
        p = self.players[seat]
        if a == PASS:
            # a pass changes nothing, so the lists stay true for the next phase action of this step
            # (the same seat's second Setup action, or the other seat's): kept for it (None: not
            # known, computed there). The next step's ordering (``_order``) drops them, so they never
            # outlive the step
            self._playable_hint = (phase, mine, hint[2] if hint is not None and hint[0] == phase else None) if seat == 0 \
                else (phase, hint[1] if hint is not None and hint[0] == phase else None, mine)
            return
        if a == ROTATE:
            f = self.fights[self.current]  # type: ignore[index]
            card = self.pool.fight[f.cards[seat]]  # type: ignore[index]
            yield from self._pay(seat, card.rotate_cost)  # type: ignore[arg-type]
            f.end[seat] = 1 - f.end[seat]
            f.v += 1
            self.log.append(("rotate", seat, card.id, f.end[seat]))
            return
        if HAND0 <= a < SUPPORT0:
            card = self.pool.support[self._take_from_hand(p, a - HAND0)]
            self.log.append(("play", seat, card.id))
            p.played.append(card.id)
            p.limbo.append(card.id)
            yield from self._pay(seat, card.cost)
            p.limbo.remove(card.id)
            if card.type in ("condition", "gear"):
                p.support.append(InPlay(card))
            elif card.type == "effect":
                f = self.fights[self.current]  # type: ignore[index]
                for i in range(3):
                    f.effect_tabs[seat][i] += card.tabs[i]
                f.effects_played[seat].append(card.id)
                f.v += 1
            else:
                p.limbo.append(card.id)
                yield from self._resolve(seat, card.effects)
                p.limbo.remove(card.id)
                p.discard.append(card.id)
            return
        item = p.support[a - SUPPORT0]
        item.used_in = self.step_key(phase)
        self.log.append(("use", seat, item.card.id))
        if item.card.type == "gear":
            yield from self._pay(seat, item.card.activation)  # type: ignore[arg-type]
            f = self.fights[self.current]  # type: ignore[index]
            for i in range(3):
                f.effect_tabs[seat][i] += item.card.tabs[i]
            f.gear_used[seat].append(item)
            f.v += 1
            yield from self._resolve(seat, item.card.effects)
        else:
            action = next(x for x in item.card.actions if x.phase == phase)
            yield from self._pay(seat, action.cost)
            yield from self._resolve(seat, action.effects)

    def _score_rule_passes(self, seat: int) -> bool:
        """Whether ``AUTO_RULES["score"]`` passes for ``seat`` now, whatever it can pay for: the fight is
        a tie, or no card in its hand or support area has an effect whose condition (won / lost) the
        fight's result meets (the rule plays the first legal card that has one, ``_phase_rule``)."""
        winner = self.fights[self.current].winner  # type: ignore[index]
        if winner is None:
            return True
        k = 0 if winner == seat else 1
        whens = _score_whens(self.pool)
        p = self.players[seat]
        for cid in p.hand:
            if whens[cid][k]:
                return False
        support = self.pool.support
        for item in p.support:
            card = item.card
            if (whens[card.id] if support.get(card.id) is card else _card_whens(card))[k]:  # a card not of the pool: read
                return False
        return True

    def step_key(self, phase: str) -> tuple[Any, ...]:
        """The phase step now: setup and cooldown once a turn, enhance and score once a fight."""
        return (self.turn, phase, self.current if phase in ("enhance", "score") else None)

    def playable(self, seat: int, phase: str) -> list[int]:
        """The non-pass actions ``seat`` may take as its ``phase`` action now.

        The same as ``playable_reference`` (card by card with ``can_pay``), read from tables kept per
        card pool and imprint (``_PlayTables``): which hand cards and cards in play can act in the
        phase, and which of them the pool can pay for (a cost is a few integer compares; the set
        payable is kept per pool state). This runs for both seats at most decisions."""
        p = self.players[seat]
        current = self.current
        f = self.fights[current] if current is not None else None
        tabs = self._play_tabs[seat]
        if tabs is None or tabs.pool is not self.pool or tabs.imprint != p.imprint:
            tabs = self._play_tabs[seat] = _play_tables(self.pool, tuple(p.imprint))
        if phase == "setup":
            hkey = (phase, len(p.support) < MAX_SUPPORT, False)
        elif phase == "enhance":
            # Effects need an opposed fight of two power ends (the same for every Effect in the hand)
            hkey = (phase, False, f is not None and f.cards[seat] is not None and f.cards[1 - seat] is not None
                    and self.end_of(f, 0).kind == "power" and self.end_of(f, 1).kind == "power")
        else:
            hkey = (phase, False, False)
        a, b, c = p.pool
        # each colour's count capped at the largest need of the pool's costs: every compare with a
        # need gives the same with the capped counts, and the states kept stay few
        cap = tabs.cap
        pkey = (hkey, a if a < cap else cap, b if b < cap else cap, c if c < cap else cap)
        ok = tabs.hand_ok.get(pkey)
        if ok is None:
            ok = tabs.hand_payable(pkey)
        out = [i for i, cid in enumerate(p.hand, HAND0) if cid in ok]  # (twice as fast as compress and map here)
        if p.support:
            step = (self.turn, phase, current if phase == "enhance" or phase == "score" else None)
            sneeds = tabs.support_needs.get(phase)
            if sneeds is None:
                sneeds = tabs.support_table(phase)
            total = a + b + c
            for i, item in enumerate(p.support, SUPPORT0):
                if item.used_in == step:
                    continue
                card = item.card
                hit = sneeds.get(id(card))
                if hit is not None and hit[0] is card:
                    for n in hit[1]:
                        if a >= n[0] and b >= n[1] and c >= n[2] and total >= n[3]:
                            out.append(i)
                            break
                    continue
                # a card the tables do not hold (not of this pool): as the rules read
                if card.type == "gear":
                    ok_ = phase == "enhance" and self.can_pay(seat, card.activation)  # type: ignore[arg-type]
                else:
                    ok_ = any(x.phase == phase and self.can_pay(seat, x.cost) for x in card.actions)
                if ok_:
                    out.append(i)
        if phase == "enhance" and f is not None and f.cards[seat] is not None:
            need = tabs.rotate.get(f.cards[seat], _NO_ROTATE)
            if need is _NO_ROTATE:
                need = tabs.rotate_need(f.cards[seat])  # type: ignore[arg-type]
            if need is not None and a >= need[0] and b >= need[1] and c >= need[2] and a + b + c >= need[3]:
                out.append(ROTATE)
        return out

    def playable_reference(self, seat: int, phase: str) -> list[int]:
        """``playable`` as the rules read, card by card with ``can_pay`` (the reference the tests
        compare the tabled ``playable`` with)."""
        p = self.players[seat]
        out = []
        f = self.fights[self.current] if self.current is not None else None
        support = self.pool.support
        room = phase == "setup" and len(p.support) < MAX_SUPPORT
        # Effects need an opposed fight of two power ends (the same for every Effect in the hand)
        effects_ok = phase == "enhance" and f is not None and f.cards[seat] is not None and \
            f.cards[1 - seat] is not None and self.end_of(f, 0).kind == "power" and self.end_of(f, 1).kind == "power"
        for i, cid in enumerate(p.hand):
            card = support[cid]
            if hand_card_may_play(card, phase, room, effects_ok) and self.can_pay(seat, card.cost):
                out.append(HAND0 + i)
        step = self.step_key(phase)
        for i, item in enumerate(p.support):
            if item.used_in == step:
                continue
            if item.card.type == "gear":
                ok = phase == "enhance" and self.can_pay(seat, item.card.activation)  # type: ignore[arg-type]
            else:
                ok = any(x.phase == phase and self.can_pay(seat, x.cost) for x in item.card.actions)
            if ok:
                out.append(SUPPORT0 + i)
        if phase == "enhance" and f is not None and f.cards[seat] is not None:
            card = self.pool.fight[f.cards[seat]]  # type: ignore[index]
            if card.rotate_cost is not None and self.can_pay(seat, card.rotate_cost):
                out.append(ROTATE)
        return out

    # ------------------------------------------------------------------ energy
    def spot_need(self, seat: int, cost: Cost) -> list[int]:
        """Pool tokens per colour that must stay after payment to meet ``cost``'s spotting."""
        imp = self.players[seat].imprint
        return [max(0, cost.spot[c] - imp[c]) for c in range(3)]

    def can_pay(self, seat: int, cost: Cost) -> bool:
        # spot_need and the spare tokens per colour, unrolled: this runs for every card on every decision
        p = self.players[seat]
        pool, imp, burn, spot = p.pool, p.imprint, cost.burn, cost.spot
        n0, n1, n2 = spot[0] - imp[0], spot[1] - imp[1], spot[2] - imp[2]
        s0 = pool[0] - burn[0] - (n0 if n0 > 0 else 0)
        s1 = pool[1] - burn[1] - (n1 if n1 > 0 else 0)
        s2 = pool[2] - burn[2] - (n2 if n2 > 0 else 0)
        return s0 >= 0 and s1 >= 0 and s2 >= 0 and s0 + s1 + s2 >= cost.generic

    def _pay(self, seat: int, cost: Cost) -> Generator[Decision, int, None]:
        p = self.players[seat]
        pool, burn = p.pool, cost.burn
        pool[0] -= burn[0]
        pool[1] -= burn[1]
        pool[2] -= burn[2]
        generic = cost.generic
        if not generic:
            return
        need = self.spot_need(seat, cost)
        auto = "pay_generic" in self.config.auto
        for _ in range(generic):
            colours = [COLOR0 + c for c in range(3) if pool[c] - need[c] > 0]
            if auto and len(colours) > 1:
                a = self._most_held(pool, colours)
                self.log.append(("auto", "pay_generic", seat, a))
            else:
                a = yield from self._ask(seat, "pay_generic", colours)
            pool[a - COLOR0] -= 1

    @staticmethod
    def _most_held(pool: Sequence[int], colours: Sequence[int]) -> int:
        """``AUTO_RULES`` for paying and burning: the colour (action) of which the most tokens are held; ties: the first."""
        return max(colours, key=lambda a: (pool[a - COLOR0], -a))

    # ------------------------------------------------------------------ effects
    def _resolve(self, seat: int, effects: Sequence[Effect]) -> Generator[Decision, int, None]:
        """Resolve ``effects`` for their controller ``seat`` (the vocabulary of ``cards.EFFECT_OPS``)."""
        f = self.fights[self.current] if self.current is not None else None
        for e in effects:
            # "when" effects need a decided fight whose result matches (a tie matches neither)
            if e.when is not None and (f is None or f.winner is None or (f.winner == seat) != (e.when == "won")):
                continue
            t = seat if e.who == "self" else 1 - seat
            p = self.players[t]
            self.log.append(("effect", seat, e.op, t, e.n))
            if e.op == "add":
                p.pool[e.color] += e.n
            elif e.op == "burn":
                for _ in range(e.n):
                    colours = [COLOR0 + c for c in range(3) if p.pool[c] > 0]
                    if not colours:
                        break
                    if len(colours) > 1 and "burn" in self.config.auto:
                        a = self._most_held(p.pool, colours)
                        self.log.append(("auto", "burn", t, a))
                    else:
                        a = yield from self._ask(t, "burn", colours)
                    p.pool[a - COLOR0] -= 1
            elif e.op == "draw":
                self._draw(p, e.n)
            elif e.op == "discard":
                for _ in range(e.n):
                    if not p.hand:
                        break
                    a = yield from self._ask(t, "discard", [HAND0 + i for i in range(len(p.hand))])
                    p.discard.append(self._take_from_hand(p, a - HAND0))
            elif e.op == "destroy":
                chooser = t if e.chooser == "owner" else seat
                kind = "destroy_own" if chooser == t else "destroy_other"
                for _ in range(e.n):
                    cands = [SUPPORT0 + i for i, x in enumerate(p.support) if e.kind in ("any", x.card.type)]
                    if not cands:
                        break
                    if len(cands) > 1 and kind in self.config.auto:
                        a = cands[0]  # AUTO_RULES: the card longest in play
                        self.log.append(("auto", kind, chooser, a))
                    else:
                        a = yield from self._ask(chooser, kind, cands)
                    gone = p.support.pop(a - SUPPORT0)
                    p.discard.append(gone.card.id)
            elif e.op == "retrieve":
                for i in range(len(p.discard) - 1, -1, -1):
                    cid = p.discard[i]
                    if cid in self.pool.support and e.kind in ("any", self.pool.support[cid].type):
                        if len(p.hand) < MAX_HAND:
                            p.discard.pop(i)
                            self._add_to_hand(p, cid)
                        break
            elif f is not None and e.op == "boost":
                f.boosts[t][e.type] = f.boosts[t].get(e.type, 0) + e.n
                f.v += 1
            elif f is not None and e.op == "nullify":
                f.nullified.add(e.position)
                f.v += 1
            elif f is not None and e.op == "double_damage":
                f.double[t] = True
                f.v += 1

    def _draw(self, p: Player, n: int) -> None:
        for _ in range(max(0, n)):
            if not p.draw_deck or len(p.hand) >= MAX_HAND:
                return
            cid = p.draw_deck.pop(0)
            p.drawn.append(cid)
            self._insert_hand(p, cid, len(p.drawn) - 1)

    def _add_to_hand(self, p: Player, cid: str) -> None:
        """A card reaching the hand in public (retrieved): both players know it is there."""
        self._insert_hand(p, cid, None)

    def _insert_hand(self, p: Player, cid: str, slot: int | None) -> None:
        """Hands are kept in card-pool order, so a hand position names the same card for everyone."""
        if len(p.hand_slots) != len(p.hand):  # a hand edited from outside (scenario tests): slots unknown
            p.hand_slots[:] = [None] * len(p.hand)
        order = self.support_index
        key = order[cid]
        i = len(p.hand)
        while i > 0 and order[p.hand[i - 1]] > key:
            i -= 1
        p.hand.insert(i, cid)
        p.hand_slots.insert(i, slot)

    def _take_from_hand(self, p: Player, i: int) -> str:
        if len(p.hand_slots) != len(p.hand):
            p.hand_slots[:] = [None] * len(p.hand)
        cid, slot = p.hand[i], p.hand_slots[i]
        if slot is not None and None in p.hand_slots:  # (no copy known to be in the hand: nothing to swap)
            # a copy known to be in the hand (retrieved) is the one that leaves, as the other player
            # sees it: the copies are alike, so the drawn copy stays and keeps its draw slot
            for j, (c, s) in enumerate(zip(p.hand, p.hand_slots)):
                if j != i and c == cid and s is None:
                    p.hand_slots[j] = slot
                    break
        p.hand_slots.pop(i)
        return p.hand.pop(i)

    @property
    def support_index(self) -> dict[str, int]:
        """Each support card's position in the pool's order (the hands' sort key; kept per pool, not per game)."""
        idx = getattr(self, "_support_index", None)
        if idx is None:
            idx = self._support_index = _support_order(self.pool)
        return idx

    # ------------------------------------------------------------------ fight arithmetic
    def end_of(self, f: FightSlot, seat: int) -> FightEnd:
        """The end of ``seat``'s card in fight ``f`` now in use (rotatable cards have two)."""
        card = self.pool.fight[f.cards[seat]]  # type: ignore[index]
        return card.ends[f.end[seat]]

    def skirmish_total(self, f: FightSlot, seat: int, pos: int) -> int:
        """Tab value + Effect/Gear tabs + Condition bonuses + boosts + centre fist bonus."""
        end = self.end_of(f, seat)
        tab = end.tabs[pos]
        p = self.players[seat]
        total = tab.value + f.effect_tabs[seat][pos]
        for item in p.support:
            if item.card.bonus:
                total += dict(item.card.bonus).get(tab.type, 0)
        ch_bonus = self.pool.characters[p.deck.character].bonus
        if ch_bonus:
            total += dict(ch_bonus).get(tab.type, 0)
        total += f.boosts[seat].get(tab.type, 0) + f.boosts[seat].get("all", 0)
        if pos == 1:
            total += p.fists[end.center_color]
        return total

    def skirmish_totals(self, f: FightSlot, seat: int) -> list[int]:
        """``skirmish_total`` at the three tab positions (left, centre, right), in one pass (the
        observation reads it at most decisions: the bonuses in play are summed by skirmish type
        once per combination, ``_bonus_sums``)."""
        end = self.pool.fight[f.cards[seat]].ends[f.end[seat]]  # type: ignore[index]
        p = self.players[seat]
        tabs = end.tabs
        if len(tabs) != 3:
            return []  # a Clash end has no skirmishes (a Power end has exactly three tabs: cards.py)
        boosts = f.boosts[seat]
        extra = boosts.get("all", 0)
        bget = boosts.get
        key = tuple([item.card.bonus for item in p.support if item.card.bonus])
        ch_bonus = self.pool.characters[p.deck.character].bonus
        if ch_bonus:
            key += (ch_bonus,)
        sums = _BONUS_SUMS.get(key)
        if sums is None:
            sums = _bonus_sums(key)
        sget = sums.get
        et = f.effect_tabs[seat]
        t0, t1, t2 = tabs
        y0, y1, y2 = t0.type, t1.type, t2.type
        return [t0.value + et[0] + extra + bget(y0, 0) + sget(y0, 0),
                t1.value + et[1] + extra + bget(y1, 0) + sget(y1, 0) + p.fists[end.center_color],
                t2.value + et[2] + extra + bget(y2, 0) + sget(y2, 0)]

    def measure(self, seat: int, measure: str, f: FightSlot) -> int:
        p = self.players[seat]
        if measure == "energy":
            return sum(p.pool)
        if measure == "hand":
            return len(p.hand)
        if measure == "support":
            return len(p.support)
        if measure == "damage_marker":
            return self.pool.fight[f.cards[seat]].damage  # type: ignore[index]
        if measure == "damage_scored":
            return p.dealt
        return sum(p.imprint)

    def fight_card(self, cid: str | None) -> FightCard | None:
        return None if cid is None else self.pool.fight[cid]

    # ------------------------------------------------------------------ summaries
    def card_counts(self, seat: int) -> dict[str, int]:
        """How many of ``seat``'s 39 non-character cards sit in each place (for conservation checks)."""
        p = self.players[seat]
        in_fights = sum(1 for f in self.fights if not f.resolved and f.cards[seat] is not None)
        effects_out = sum(len(f.effects_played[seat]) for f in self.fights if not f.resolved)
        return {"fight_stack": len(p.fight_stack), "draw_deck": len(p.draw_deck), "hand": len(p.hand),
                "discard": len(p.discard), "support": len(p.support), "damage_stack": len(p.damage_stack),
                "rts": len(p.rts), "fights": in_fights, "effects": effects_out, "limbo": len(p.limbo)}


def _minus(ids: Sequence[str], taken: Sequence[str]) -> list[str]:
    """The multiset ``ids`` less ``taken``, sorted (so it depends on the multisets only)."""
    left = Counter(ids)
    left.subtract(taken)
    return sorted(left.elements())


def _shuffled(ids: Sequence[str], rng: np.random.Generator) -> list[str]:
    """A uniform shuffle of the multiset ``ids`` (sorted first, so only the multiset matters)."""
    base = sorted(ids)
    return [base[i] for i in rng.permutation(len(base))]


def hand_card_may_play(card: Any, phase: str, room: bool, effects_ok: bool) -> bool:
    """Whether a hand card's kind may be played now, its cost aside: a Condition or Gear in setup with
    room in the support area, an Instant in its own phase, an Effect in an opposed fight of two power
    ends (``room`` and ``effects_ok`` say those two; ``playable`` and its tables both ask this)."""
    kind = card.type
    if kind == "condition" or kind == "gear":
        return room
    if kind == "instant":
        return card.phase == phase
    if kind == "effect":
        return effects_ok
    return False


def cost_need(cost: Cost, imprint: Sequence[int]) -> tuple[int, int, int, int]:
    """``cost`` for a player of ``imprint`` as (n0, n1, n2, n): ``can_pay`` holds exactly when the pool
    has at least ``n_c`` tokens of each colour ``c`` and ``n`` in all (``n_c``: the burn of ``c`` plus
    what its spotting needs beyond the imprint; ``n``: their sum plus the generic cost)."""
    n = [cost.burn[k] + max(0, cost.spot[k] - imprint[k]) for k in range(3)]
    return n[0], n[1], n[2], n[0] + n[1] + n[2] + cost.generic


_NO_ROTATE: Any = object()


class _PlayTables:
    """``FightKlubGame.playable``'s tables for one card pool and one imprint (a speed aid; no rule
    lives here): per phase (and whether a Condition / Gear has room, whether Effects can be played)
    the hand cards that can act and what each needs (``cost_need``); per phase the cards in play
    that can act and the needs of their actions there; per Fight card its rotation's need. The set
    of cards the pool can pay for is kept per pool state (a few hundred states occur)."""

    def __init__(self, pool: CardPool, imprint: tuple[int, int, int]) -> None:
        self.pool = pool
        self.imprint = imprint
        self.hand_needs: dict[tuple[str, bool, bool], dict[tuple[int, int, int, int], list[str]]] = {}
        """Per (phase, room for a Condition / Gear, Effects playable): the hand cards that can act, by need."""
        self.hand_ok: dict[tuple[Any, ...], frozenset[str]] = {}
        """Per (that key, capped pool): the hand cards the pool can pay for (at most 6 x (cap + 1) ** 3 entries)."""
        self.support_needs: dict[str, dict[int, tuple[SupportCard, tuple[tuple[int, int, int, int], ...]]]] = {}
        self.rotate: dict[str, tuple[int, int, int, int] | None] = {}
        costs = [c.cost for c in pool.support.values()] + [c.activation for c in pool.support.values() if c.activation]
        costs += [x.cost for c in pool.support.values() for x in c.actions]
        costs += [c.rotate_cost for c in pool.fight.values() if c.rotate_cost]
        self.cap = max([cost_need(k, imprint)[3] for k in costs] + [0])
        """The largest need of any cost (``playable`` caps each colour's count at it)."""

    def hand_payable(self, pkey: tuple[Any, ...]) -> frozenset[str]:
        """The hand cards of ``pkey``'s phase step that the (capped) pool of ``pkey`` can pay for."""
        hkey, a, b, c = pkey
        by_need = self.hand_needs.get(hkey)
        if by_need is None:
            phase, room, effects_ok = hkey
            by_need = self.hand_needs[hkey] = {}
            for cid, card in self.pool.support.items():
                if hand_card_may_play(card, phase, room, effects_ok):
                    by_need.setdefault(cost_need(card.cost, self.imprint), []).append(cid)
        out = self.hand_ok[pkey] = frozenset(
            cid for n, cids in by_need.items() if a >= n[0] and b >= n[1] and c >= n[2] and a + b + c >= n[3]
            for cid in cids)
        return out

    def support_table(self, phase: str) -> dict[int, tuple[SupportCard, tuple[tuple[int, int, int, int], ...]]]:
        """Per card of the pool (by ``id``), the needs of what it can do in ``phase`` in play (none: nothing)."""
        needs = self.support_needs[phase] = {}
        for card in self.pool.support.values():
            if card.type == "gear":
                if card.activation is None:
                    continue  # left to the rules' own reading
                costs = [card.activation] if phase == "enhance" else []
            else:
                costs = [x.cost for x in card.actions if x.phase == phase]
            needs[id(card)] = (card, tuple(cost_need(k, self.imprint) for k in costs))
        return needs

    def rotate_need(self, cid: str) -> tuple[int, int, int, int] | None:
        cost = self.pool.fight[cid].rotate_cost
        need = self.rotate[cid] = None if cost is None else cost_need(cost, self.imprint)
        return need


_PLAY_TABLES: dict[tuple[int, tuple[int, int, int]], _PlayTables] = {}


def _play_tables(pool: CardPool, imprint: tuple[int, int, int]) -> _PlayTables:
    """The ``_PlayTables`` of ``pool`` and ``imprint`` (kept; a table of a pool no longer alive is replaced)."""
    key = (id(pool), imprint)
    tabs = _PLAY_TABLES.get(key)
    if tabs is None or tabs.pool is not pool:
        if len(_PLAY_TABLES) > 64:
            _PLAY_TABLES.clear()
        tabs = _PLAY_TABLES[key] = _PlayTables(pool, tuple(imprint))  # type: ignore[arg-type]
    return tabs


SKIRMISH_TYPE_INDEX = {t: i for i, t in enumerate(SKIRMISH_TYPES)}
_PHASE_RULES = frozenset({"score", "cooldown", "setup", "discard", "even_up"})
"""The AUTO_RULES kinds resolved in the flow driver (``_advance``), recorded in the script like forced moves."""


def keep_value(card: SupportCard) -> float:
    """How much a support card is worth keeping or playing in Setup (``AUTO_RULES`` for ``setup``,
    ``discard`` and ``even_up``; the heuristic's own measure): its tabs, 3 per point of boost (an opponent's boost
    down counts for me), 2 per card drawn, token added, damage doubled, token burnt, card discarded
    or destroyed at the opponent, 3 for a Condition (it keeps working), less half its play cost
    (burnt tokens and generic). Multiples of 0.5, so the observation's float features give the same."""
    effects = card.effects + tuple(e for a in card.actions for e in a.effects)
    value = float(sum(card.tabs))
    for e in effects:
        if e.op == "boost":
            value += 3.0 * e.n * (1 if e.who == "self" else -1)
        elif (e.who == "self" and e.op in ("draw", "add", "double_damage")) or \
                (e.who == "opponent" and e.op in ("burn", "discard", "destroy")):
            value += 2.0 * e.n
    if card.type == "condition":
        value += 3.0
    return value - 0.5 * (sum(card.cost.burn) + card.cost.generic)


_SETUP_RANK = {"condition": 0, "gear": 1}
_BONUS_SUMS: dict[tuple[Any, ...], dict[str, int]] = {}


def _bonus_sums(key: tuple[tuple[tuple[str, int], ...], ...]) -> dict[str, int]:
    """Static bonuses ``key`` (each a Condition's or a character's ``bonus``) summed per skirmish type (kept)."""
    if len(_BONUS_SUMS) > 10_000:
        _BONUS_SUMS.clear()
    sums: dict[str, int] = {}
    for bonus in key:
        for t, n in bonus:
            sums[t] = sums.get(t, 0) + n
    _BONUS_SUMS[key] = sums
    return sums


_KEEP: dict[int, tuple[CardPool, dict[str, float]]] = {}
_SUPPORT_ORDER: dict[int, tuple[CardPool, dict[str, int]]] = {}
_PASS_ONLY = (PASS,)
_WHENS: dict[int, tuple[CardPool, dict[str, tuple[bool, bool]]]] = {}


def _card_whens(card: SupportCard) -> tuple[bool, bool]:
    """Whether any effect of ``card`` (its own, or of its phase actions) is conditioned on a won fight,
    and whether any on a lost one (what ``_phase_rule`` reads for Score)."""
    effects = card.effects + tuple(e for x in card.actions for e in x.effects)
    return any(e.when == "won" for e in effects), any(e.when == "lost" for e in effects)


def _score_whens(pool: CardPool) -> dict[str, tuple[bool, bool]]:
    """``_card_whens`` of every support card of ``pool`` by id (kept per pool)."""
    hit = _WHENS.get(id(pool))
    if hit is None or hit[0] is not pool:
        if len(_WHENS) > 64:
            _WHENS.clear()
        hit = _WHENS[id(pool)] = (pool, {cid: _card_whens(card) for cid, card in pool.support.items()})
    return hit[1]
_DECK_IDS: dict[int, tuple[DeckList, tuple[tuple[str, ...], tuple[str, ...]]]] = {}


def _deck_ids(deck: DeckList) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``deck.fight_ids()`` and ``deck.draw_ids()`` as tuples (kept per deck object: a deck list is
    frozen, and every deal of it reads them)."""
    hit = _DECK_IDS.get(id(deck))
    if hit is None or hit[0] is not deck:
        if len(_DECK_IDS) > 256:
            _DECK_IDS.clear()
        hit = _DECK_IDS[id(deck)] = (deck, (tuple(deck.fight_ids()), tuple(deck.draw_ids())))
    return hit[1]


def _support_order(pool: CardPool) -> dict[str, int]:
    """``FightKlubGame.support_index`` of ``pool`` (kept per pool: every game used to build it at its
    first draw; nobody writes into it)."""
    hit = _SUPPORT_ORDER.get(id(pool))
    if hit is None or hit[0] is not pool:
        if len(_SUPPORT_ORDER) > 64:
            _SUPPORT_ORDER.clear()
        hit = _SUPPORT_ORDER[id(pool)] = (pool, {cid: i for i, cid in enumerate(pool.support_ids)})
    return hit[1]


def _keep_values(pool: CardPool) -> dict[str, float]:
    """``keep_value`` of every support card of ``pool`` by id (kept per pool: the rules read it at
    every discard, evening up and Setup play made by rule)."""
    hit = _KEEP.get(id(pool))
    if hit is None or hit[0] is not pool:
        if len(_KEEP) > 64:
            _KEEP.clear()
        hit = _KEEP[id(pool)] = (pool, {cid: keep_value(card) for cid, card in pool.support.items()})
    return hit[1]


def max_decisions_per_turn(pool: CardPool) -> int:
    """An upper bound on the decisions of one turn, from the card data (for the episode bound).

    Per turn: The Drop's orderings and choices (setup, 3 fights x (fight, enhance, score, clash
    text, 2 skirmish orders), cooldown, even-up), 2 x (2 setup + 3 enhance + 3 score + 1
    cooldown) phase actions each followed by at most ``per_action`` nested choices, 3 x 3
    Result tabs and 3 Clash wins each with at most ``per_effects`` choices, and evening up
    (at most ``MAX_HAND`` discards and a stop, per player).
    """
    def nested(effects: Sequence[Effect]) -> int:
        return sum(e.n for e in effects if e.op in ("burn", "discard", "destroy"))

    costs = [c.cost for c in pool.support.values()] + [c.activation for c in pool.support.values() if c.activation]
    costs += [a.cost for c in pool.support.values() for a in c.actions]
    costs += [c.rotate_cost for c in pool.fight.values() if c.rotate_cost]
    per_cost = max(c.generic for c in costs)
    per_card = [nested(c.effects) for c in pool.support.values()] + [nested(a.effects) for c in pool.support.values() for a in c.actions]
    per_action = per_cost + max(per_card)
    ends = [e for c in pool.fight.values() for e in c.ends]
    per_result = max([nested(t.result) for e in ends for t in e.tabs] + [nested(e.on_win) for e in ends] + [0])
    orderings = 1 + FIGHTS_PER_TURN * 6 + 2
    phase_actions = 2 * (SETUP_ACTIONS + 3 * FIGHTS_PER_TURN + 1)
    return orderings + phase_actions * (1 + per_action) + FIGHTS_PER_TURN * 4 * per_result + 2 * (MAX_HAND + 1)
