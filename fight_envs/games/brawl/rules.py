"""Brawl rules engine: the state of one game and every rule that changes it (``seeds/brawl.md``).

The game is a sequence of *decisions*; each belongs to one fighter (``current_player()``) and is
one action of ``Discrete(NUM_ACTIONS)``: play a card of a type (0..12, see ``cards.py``),
``PASS`` (13: decline, or take the hit / draw where the rules say so), or choose the direction
of play after a CHAOS (``CLOCKWISE`` 14, ``COUNTER_CLOCKWISE`` 15). ``legal_actions(seat)`` is
exactly the set ``apply_action`` accepts; anything else raises ``IllegalActionError`` and
changes nothing.

Seats ``0..n-1`` sit clockwise; the dealer is seat ``n-1``, so seat 0 (left of the dealer)
attacks first and the first direction of play is clockwise (increasing seat index).

Two rule sets (``BrawlConfig.rules``): ``"standard"`` (the default) and ``"classic"`` (the first
release's reading, kept as it was). Each lever can also be set on its own; ``None`` takes the rule
set's value (``RULE_SETS``). The search vocabulary of ``fight_envs.core.information``
(``clone``, ``determinize``, ``decision_kind``) is implemented here; ``DECISION_KINDS`` lists the
kinds.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import numpy as np

from fight_envs.core.errors import ConfigError, DealError, IllegalActionError
from fight_envs.games.brawl.cards import (
    BLOCK,
    CHAOS,
    COUNTER,
    DEFAULT_CARDS,
    DODGE,
    JUMP,
    NUM_ATTACKS,
    NUM_CARD_TYPES,
    BrawlCards,
    cards_for,
    is_attack,
)

MIN_PLAYERS, MAX_PLAYERS = 2, 8
PASS = NUM_CARD_TYPES
CLOCKWISE = NUM_CARD_TYPES + 1
COUNTER_CLOCKWISE = NUM_CARD_TYPES + 2
NUM_ACTIONS = NUM_CARD_TYPES + 3
_DIRECTIONS = (CLOCKWISE, COUNTER_CLOCKWISE)
_CHAOS_PASS = (CHAOS, PASS)
_PASS_ONLY = (PASS,)
_CHAOS_ONLY = (CHAOS,)
_ATTACKS = tuple(range(NUM_ATTACKS))
_DEFENCES = tuple(range(JUMP, CHAOS))  # JUMP, DODGE, COUNTER, BLOCK
_MASKS: dict[tuple[int, ...], np.ndarray] = {}
"""The int8 mask of each legal set met (``legal_action_mask`` hands out copies)."""
NO_SEAT = -1
NO_CARD = -1
REWARD_MODES = ("rank", "winner")
DEFAULT_STEPS_PER_PLAYER = 150
"""Default game-length limit: this many decisions per fighter (see ``BrawlConfig.max_steps``)."""


class Phase(IntEnum):
    """What the current decision is about."""

    ATTACK = 0
    """A fighter opens a battle: any elemental attack (or CHAOS); PASS (draw) only if unable."""
    DEFEND = 1
    """The defender answers an attack: matching attack, JUMP, DODGE, COUNTER, BLOCK, CHAOS or PASS."""
    JUMP_FOLLOW = 2
    """The fighter who jumped may attack back in the attack's element, or PASS (battle over)."""
    DODGE_BACK = 3
    """After a DODGE the aggressor may attack again in the same element, or PASS."""
    DODGE_AGAIN = 4
    """The aggressor passed on the DODGE: the dodger may attack in that element, or PASS."""
    COUNTER_FOLLOW = 5
    """After a COUNTER the defender may counter-attack with any attack, or PASS (battle over)."""
    CHAOS_DIRECTION = 6
    """The fighter who played CHAOS chooses the direction of play."""
    WINDOW = 7
    """A reaction window: a fighter may play CHAOS out of turn, or PASS."""
    OVER = 8
    COMBO = 9
    """``combo="multi"``: the aggressor may add another attack of the led element to its combo, or
    PASS (the combo is complete and the defender answers it card for card)."""


NUM_PHASES = len(Phase)

DECISION_KINDS = ("attack", "defend", "follow_up", "combo", "chaos_direction", "chaos_window", "none")
"""Kinds of decision (``BrawlGame.decision_kind``): ``attack`` opens a battle; ``defend`` answers an
attack; ``follow_up`` is the attack (or PASS) after one's own JUMP or COUNTER or on either side of
a DODGE; ``combo`` (``combo="multi"`` only) adds one more attack of the led element to the attack
just played, or stops (PASS); ``chaos_direction`` picks the direction after a CHAOS; ``chaos_window`` is a reaction
window (play CHAOS out of turn or PASS); ``none``: the seat is not deciding (or the game is over)."""
_KIND_OF_PHASE = {
    Phase.ATTACK: "attack", Phase.DEFEND: "defend", Phase.JUMP_FOLLOW: "follow_up", Phase.DODGE_BACK: "follow_up",
    Phase.DODGE_AGAIN: "follow_up", Phase.COUNTER_FOLLOW: "follow_up", Phase.CHAOS_DIRECTION: "chaos_direction",
    Phase.WINDOW: "chaos_window", Phase.OVER: "none", Phase.COMBO: "combo",
}

HIT_DRAWS = ("one", "per_attack")
COMBOS = ("single", "multi")
SHOWDOWNS = ("same", "open")
RULE_SETS: dict[str, dict[str, Any]] = {
    "standard": {"chaos_windows": "all", "hit_draws": "one", "showdown": "open", "ask_noops": False,
                 "skip_forced": True, "combo": "multi"},
    "classic": {"chaos_windows": True, "hit_draws": "one", "showdown": "same", "ask_noops": True,
                "skip_forced": False, "combo": "single"},
}
"""Each rule set's levers (``seeds/brawl.md``, design choices): ``chaos_windows`` True (windows
for CHAOS holders, which shows who holds one), ``"all"`` (every other fighter is asked) or False;
``hit_draws`` "one" (taking the hit draws one card) or "per_attack" (one card per attack played in
the battle); ``showdown`` "same" (the last two play on as before) or "open" (once two fighters are
left both hands are face up); ``ask_noops`` asks the direction after a CHAOS even when only two
fighters are left (both answers then do the same); ``skip_forced`` applies a decision with a single
legal action without asking (never a reaction window: asking everyone is what hides who holds a
CHAOS); ``combo`` "single" (a combo is one more attack card: classic, and the standard rules'
default before issue 13) or "multi" (standard; every
attack may be a combo of up to ``BrawlConfig.combo_max`` cards of its element, 2 by default, laid
one card per decision and answered card for card; ``seeds/brawl.md`` design choice 4)."""


def _is_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def as_action(action: Any) -> Any:
    """A Python int for an int or a 0-d numpy integer array (what ``Discrete.sample`` and SB3 give); else as is."""
    if isinstance(action, np.ndarray) and action.ndim == 0 and np.issubdtype(action.dtype, np.integer):
        return int(action)
    if isinstance(action, np.integer):
        return int(action)
    return action


@dataclass(frozen=True)
class BrawlConfig:
    """Game options. ``max_steps`` None means the default limit of ``step_limit``; every lever left
    None takes the value of the rule set ``rules`` (``RULE_SETS``)."""

    num_players: int = 2
    chaos_windows: bool | str | None = None
    """True: reaction windows for CHAOS holders; 'all': every other fighter is asked (so being
    asked reveals nothing); False: no windows. None: the rule set's ('all' in 'standard')."""
    max_steps: int | None = None
    rules: str = "standard"
    hit_draws: str | None = None
    showdown: str | None = None
    ask_noops: bool | None = None
    skip_forced: bool | None = None
    combo: str | None = None
    """'single': a combo is one more attack card (the classic rule set); 'multi' (the standard rule
    set): every attack may be a combo of several attack cards of its element, answered card for card
    (design choice 4). None: the rule set's."""
    combo_max: int = 2
    """With ``combo="multi"``: the most cards a combo holds (2 by measurement, design choice 4)."""

    def __post_init__(self) -> None:
        n = self.num_players
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise ConfigError(f"num_players must be an int in {MIN_PLAYERS}..{MAX_PLAYERS}, got {n!r}")
        if not isinstance(self.rules, str) or self.rules not in RULE_SETS:
            raise ConfigError(f"rules must be one of {tuple(RULE_SETS)}, got {self.rules!r}")
        preset = RULE_SETS[self.rules]
        for name, value in preset.items():
            if getattr(self, name) is None:
                object.__setattr__(self, name, value)
        w = self.chaos_windows
        if not (w is True or w is False or w == "all"):  # identity: 1 and 0 are not accepted as booleans
            raise ConfigError(f"chaos_windows must be True, False or 'all', got {w!r}")
        if self.hit_draws not in HIT_DRAWS:
            raise ConfigError(f"hit_draws must be one of {HIT_DRAWS}, got {self.hit_draws!r}")
        if self.showdown not in SHOWDOWNS:
            raise ConfigError(f"showdown must be one of {SHOWDOWNS}, got {self.showdown!r}")
        if self.combo not in COMBOS:
            raise ConfigError(f"combo must be one of {COMBOS}, got {self.combo!r}")
        cm = self.combo_max
        if isinstance(cm, bool) or not isinstance(cm, (int, np.integer)) or cm < 2:
            raise ConfigError(f"combo_max must be an int >= 2, got {cm!r}")
        if self.combo == "multi" and self.hit_draws == "per_attack":
            raise ConfigError("combo='multi' (the standard rules' default) draws one card per combo card "
                              "taken; it does not combine with hit_draws='per_attack' (add combo='single')")
        for name in ("ask_noops", "skip_forced"):
            if getattr(self, name) not in (True, False) or not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name} must be True or False, got {getattr(self, name)!r}")
        m = self.max_steps
        if m is not None and (isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1):
            raise ConfigError(f"max_steps must be None or an int >= 1, got {m!r}")

    @property
    def step_limit(self) -> int:
        """``max_steps``, or by default 150 decisions per fighter (600 with ``chaos_windows="all"``,
        whose windows ask every fighter after every card: with the standard 11-card deals the
        longest of 1,000 random eight-fighter games took 2,136 decisions, so the limit is over
        twice the longest game measured; ``seeds/brawl.md`` section 7)."""
        if self.max_steps is not None:
            return int(self.max_steps)
        per_player = DEFAULT_STEPS_PER_PLAYER * (4 if self.chaos_windows == "all" else 1)
        return per_player * self.num_players

    def to_json(self) -> dict[str, Any]:
        return {"num_players": int(self.num_players), "chaos_windows": self.chaos_windows,
                "max_steps": None if self.max_steps is None else int(self.max_steps), "rules": self.rules,
                "hit_draws": self.hit_draws, "showdown": self.showdown, "ask_noops": self.ask_noops,
                "skip_forced": self.skip_forced, "combo": self.combo,
                "combo_max": int(self.combo_max)}


@dataclass(frozen=True)
class BrawlDeal:
    """A fixed deal: each fighter's dealt hand and the draw pile (top first), as card types."""

    hands: tuple[tuple[int, ...], ...]
    draw_pile: tuple[int, ...]

    def to_json(self, cards: BrawlCards) -> dict[str, Any]:
        return {"hands": [[cards.names[c] for c in h] for h in self.hands],
                "draw_pile": [cards.names[c] for c in self.draw_pile]}


def parse_deal(data: Any, num_players: int, cards: BrawlCards = DEFAULT_CARDS, where: str = "deal") -> BrawlDeal:
    """Validate a deal ``{"hands": [[names] x players], "draw_pile": [names, top first]}``.

    Every hand must hold the deal size and all cards together must be exactly the deck.
    """
    if not isinstance(data, dict) or set(data) != {"hands", "draw_pile"}:
        raise DealError(f"{where} must be an object with exactly the keys 'hands' and 'draw_pile'")
    hands_in, pile_in = data["hands"], data["draw_pile"]
    if not isinstance(hands_in, (list, tuple)) or len(hands_in) != num_players:
        raise DealError(f"{where}.hands must list {num_players} hands, one per fighter")

    def card_list(items: Any, at: str) -> tuple[int, ...]:
        if not isinstance(items, (list, tuple)):
            raise DealError(f"{at} must be a list of card names")
        try:
            return tuple(cards.card_of(c) for c in items)
        except ValueError as exc:
            raise DealError(f"{at}: {exc}") from None

    hands = tuple(card_list(h, f"{where}.hands[{i}]") for i, h in enumerate(hands_in))
    for i, h in enumerate(hands):
        if len(h) != cards.deal_size:
            raise DealError(f"{where}.hands[{i}] holds {len(h)} cards; each fighter is dealt {cards.deal_size}")
    pile = card_list(pile_in, f"{where}.draw_pile")
    total = np.bincount(np.array([c for h in hands for c in h] + list(pile), dtype=np.int64), minlength=NUM_CARD_TYPES)
    if not np.array_equal(total, cards.deck):
        diff = {cards.names[c]: int(total[c] - cards.deck[c]) for c in np.flatnonzero(total != cards.deck)}
        raise DealError(f"{where}: the hands and draw pile differ from the deck by {diff} (extra > 0, missing < 0)")
    return BrawlDeal(hands, pile)


@dataclass
class Battle:
    """The battle in progress: who opened it, who attacks whom with what."""

    opener: int = NO_SEAT
    attacker: int = NO_SEAT
    defender: int = NO_SEAT
    attack_card: int = NO_CARD
    element: int = -1
    dodger: int = NO_SEAT
    attacks: int = 0
    """Attack cards played in this battle so far (``hit_draws="per_attack"``)."""
    pending: list[int] | None = None
    """``combo="multi"``: the cards of the combo on the table not yet answered, in the order laid
    (while it is laid: every card laid so far); the defender faces the first (``attack_card``)."""

    def copy(self) -> Battle:
        return Battle(self.opener, self.attacker, self.defender, self.attack_card, self.element, self.dodger,
                      self.attacks, None if self.pending is None else list(self.pending))


@dataclass
class Event:
    """One thing that happened (for logs, rendering and the 'last action' features)."""

    seat: int
    action: int
    phase: Phase


class BrawlGame:
    """One game of Brawl. ``new_game`` deals; ``apply_action`` advances it one decision.

    Public memory (what every fighter has seen, kept here so clones and determinizations carry
    it): ``known[s, c]``, copies of card ``c`` the table knows to be in fighter ``s``'s hand (a
    blocked attack taken back, a CHAOS shown by being asked in a holders-only window; with the
    open showdown, both hands), and ``chaos_played[s]``, the CHAOS cards ``s`` has played.
    """

    def __init__(self, config: BrawlConfig | None = None, cards: BrawlCards | None = None) -> None:
        self.config = config or BrawlConfig()
        cards = cards_for(self.config.rules) if cards is None else cards
        self.cards = cards
        self.num_players = self.config.num_players
        if cards.deal_size * self.num_players > cards.deck_size:
            raise ConfigError(
                f"the deck holds {cards.deck_size} cards, too few to deal {cards.deal_size} to each of "
                f"{self.num_players} fighters"
            )
        self.rng = np.random.default_rng(0)
        self.new_game(self.rng)

    # ------------------------------------------------------------------ setup
    def new_game(self, rng: np.random.Generator, deal: BrawlDeal | None = None) -> None:
        """Start a game: shuffle and deal from ``rng`` unless ``deal`` fixes the cards."""
        n, cards = self.num_players, self.cards
        if deal is None:
            deck = np.repeat(np.arange(NUM_CARD_TYPES), cards.deck).tolist()
            rng.shuffle(deck)
            # deal one card at a time, clockwise from the fighter left of the dealer (seat 0)
            hands: list[list[int]] = [[] for _ in range(n)]
            for k in range(cards.deal_size * n):
                hands[k % n].append(int(deck[k]))
            deal_used = BrawlDeal(tuple(tuple(h) for h in hands), tuple(int(c) for c in deck[cards.deal_size * n:]))
            fixed = False
        else:
            if len(deal.hands) != n:
                raise DealError(f"the deal has {len(deal.hands)} hands for {n} fighters")
            deal_used, fixed = deal, True
        self.rng = rng
        self.fixed_deal = fixed
        self.deal = deal_used
        self.hands = np.zeros((n, NUM_CARD_TYPES), dtype=np.int64)
        for s, h in enumerate(deal_used.hands):
            for c in h:
                self.hands[s, c] += 1
        self.sizes: list[int] = [len(h) for h in deal_used.hands]
        """Cards in each hand (kept with ``hands``; the per-step paths read it instead of summing)."""
        self.draw_pile: list[int] = list(reversed(deal_used.draw_pile))  # top of the pile is the list's end
        self.discard: list[int] = []
        self.discard_counts = np.zeros(NUM_CARD_TYPES, dtype=np.int64)
        self.table: list[int] = []
        self.direction = 1
        self.active = np.ones(n, dtype=bool)
        self.place = np.zeros(n, dtype=np.int64)
        """Finishing place (1 = first), 0 while still fighting."""
        self.known = np.zeros((n, NUM_CARD_TYPES), dtype=np.int64)
        self.known_count = 0
        """``known.sum()``, kept with it."""
        self.chaos_played = np.zeros(n, dtype=np.int64)
        self.drawn = np.zeros(n, dtype=np.int64)
        """Cards each fighter has drawn since the deal (public: every draw is seen, not the card)."""
        self.declined = np.full((n, NUM_ATTACKS), -1, dtype=np.int64)
        """``declined[s, c]``: ``drawn[s]`` when ``s`` last took the hit of attack ``c`` (PASS as a defender),
        -1 if never: public memory of what a hand showed it lacked, or chose not to play, at that moment."""
        self.unable = np.full(n, -1, dtype=np.int64)
        """``drawn[s]`` when ``s`` last passed as the attacker (a hand without any attack then), -1 if never."""
        self.finish_order: list[list[int]] = []
        self.showdown = False
        self.battle = Battle()
        self.window: list[int] = []
        self.window_from = NO_SEAT
        self.resume: tuple[Phase, int] = (Phase.OVER, NO_SEAT)
        self.steps = 0
        self.truncated = False
        self.reshuffles = 0
        self.chaos_spent = 0
        self.actions: list[tuple[int, int]] = []
        """The decisions asked, in order (what a record replays)."""
        self.events: list[Event] = []
        """Every action applied, the skipped forced ones included."""
        self.version = 0
        if n == 2:
            self._enter_showdown()
        self._begin_attack(0)
        self._skip_forced()

    # ------------------------------------------------------------------ queries
    def current_player(self) -> int:
        return self.actor

    def is_terminal(self) -> bool:
        """The game ended by the rules (not by the step limit)."""
        return self.phase == Phase.OVER and not self.truncated

    def is_over(self) -> bool:
        return self.phase == Phase.OVER

    def hand_size(self, seat: int) -> int:
        return self.sizes[seat]

    def decision_kind(self, seat: int) -> str:
        """One of ``DECISION_KINDS``: what ``seat`` is asked now (``"none"`` if it is not deciding)."""
        if self.phase == Phase.OVER or seat != self.actor:
            return "none"
        return _KIND_OF_PHASE[self.phase]

    def next_active(self, seat: int, direction: int | None = None) -> int:
        """The next fighter still fighting after ``seat`` in ``direction`` (default: the play's)."""
        d = self.direction if direction is None else direction
        n = self.num_players
        for k in range(1, n + 1):
            s = (seat + d * k) % n
            if self.active[s] and s != seat:
                return s
        return NO_SEAT

    def legal_actions(self, seat: int) -> list[int]:
        return list(self.legal_tuple(seat))

    def legal_tuple(self, seat: int) -> tuple[int, ...]:
        """``seat``'s legal actions in increasing order, from the hand's counts as Python ints.

        The rules of ``legal_action_mask_reference`` (the numpy reading of the same rules, which
        ``tests/brawl/test_brawl_legal_fast.py`` compares it with over random games), read without a
        numpy call: the env, the heuristic and the forced-move skip ask for it several times a step."""
        if self.phase == Phase.OVER or seat != self.actor:
            return ()
        ph = self.phase
        if ph == Phase.CHAOS_DIRECTION:
            return _DIRECTIONS
        hand = self.hands[seat].tolist()
        chaos = hand[CHAOS] > 0  # CHAOS may be played at any decision of one's own, and in windows
        if ph == Phase.WINDOW:
            return _CHAOS_PASS if chaos else _PASS_ONLY
        if ph == Phase.ATTACK:
            attacks = [c for c in _ATTACKS if hand[c] > 0]
            # PASS (draw, turn over) only when no elemental attack can be played
            return (*attacks, *_CHAOS_ONLY[:chaos], *_PASS_ONLY[:not attacks])
        if ph == Phase.DEFEND:
            b = self.battle
            out = [b.attack_card] if hand[b.attack_card] > 0 else []
            out += [c for c in _DEFENCES if hand[c] > 0]  # JUMP, DODGE, COUNTER, BLOCK
        elif ph == Phase.COUNTER_FOLLOW:
            out = [c for c in _ATTACKS if hand[c] > 0]
        else:  # JUMP_FOLLOW, DODGE_BACK, DODGE_AGAIN, COMBO: an attack of the battle's element
            p = 2 * self.battle.element
            out = [c for c in (p, p + 1) if hand[c] > 0]
        if chaos:
            out.append(CHAOS)
        out.append(PASS)
        return tuple(out)

    def legal_action_mask(self, seat: int) -> np.ndarray:
        """``seat``'s legal actions as an int8 mask (a new array): ``legal_tuple``'s, kept per legal set."""
        legal = self.legal_tuple(seat)
        mask = _MASKS.get(legal)
        if mask is None:
            if len(_MASKS) > 4096:
                _MASKS.clear()
            mask = _MASKS[legal] = np.zeros(NUM_ACTIONS, dtype=np.int8)
            mask[list(legal)] = 1
        return mask.copy()

    def legal_action_mask_reference(self, seat: int) -> np.ndarray:
        """The legal actions as the rules say them, in numpy: the reference ``legal_tuple`` is tested against."""
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if self.phase == Phase.OVER or seat != self.actor:
            return mask
        hand = self.hands[seat]
        ph, b = self.phase, self.battle
        if ph == Phase.CHAOS_DIRECTION:
            mask[CLOCKWISE] = mask[COUNTER_CLOCKWISE] = 1
            return mask
        mask[CHAOS] = hand[CHAOS] > 0  # CHAOS may be played at any decision of one's own, and in windows
        mask[PASS] = 1
        if ph == Phase.WINDOW:
            return mask
        if ph == Phase.ATTACK:
            mask[:NUM_ATTACKS] = hand[:NUM_ATTACKS] > 0
            # PASS (draw, turn over) only when no elemental attack can be played
            mask[PASS] = not mask[:NUM_ATTACKS].any()
        elif ph == Phase.DEFEND:
            mask[b.attack_card] = hand[b.attack_card] > 0
            mask[JUMP:CHAOS] = hand[JUMP:CHAOS] > 0  # JUMP, DODGE, COUNTER, BLOCK
        elif ph == Phase.COUNTER_FOLLOW:
            mask[:NUM_ATTACKS] = hand[:NUM_ATTACKS] > 0
        else:  # JUMP_FOLLOW, DODGE_BACK, DODGE_AGAIN: an attack of the battle's element
            p = 2 * b.element
            mask[p:p + 2] = hand[p:p + 2] > 0
        return mask

    def is_legal(self, seat: int, a: int) -> bool:
        """``legal_action_mask(seat)[a]``, without building the mask (the per-step check)."""
        if seat != self.actor or self.phase == Phase.OVER or not 0 <= a < NUM_ACTIONS:
            return False
        ph = self.phase
        if ph == Phase.CHAOS_DIRECTION:
            return a == CLOCKWISE or a == COUNTER_CLOCKWISE
        hand = self.hands[seat]
        if a == CHAOS:
            return bool(hand[CHAOS] > 0)
        if ph == Phase.WINDOW:
            return a == PASS
        if ph == Phase.ATTACK:
            if a == PASS:
                return not (hand[:NUM_ATTACKS] > 0).any()
            return a < NUM_ATTACKS and bool(hand[a] > 0)
        if a == PASS:
            return True
        if ph == Phase.DEFEND:
            return (a == self.battle.attack_card or JUMP <= a <= BLOCK) and bool(hand[a] > 0)
        if a >= NUM_ATTACKS:
            return False
        if ph == Phase.COUNTER_FOLLOW:
            return bool(hand[a] > 0)
        return a >> 1 == self.battle.element and bool(hand[a] > 0)

    def public_hand(self, seat: int) -> np.ndarray:
        """What the table knows of ``seat``'s hand, per card type (all of it in an open showdown)."""
        if self.showdown and self.config.showdown == "open" and self.active[seat]:
            return self.hands[seat]
        return self.known[seat]

    # ------------------------------------------------------------------ search vocabulary
    def clone(self) -> BrawlGame:
        """A fully independent copy, its random generator included."""
        g = BrawlGame.__new__(BrawlGame)
        g.__dict__.update(self.__dict__)
        g.rng = np.random.Generator(type(self.rng.bit_generator)())
        g.rng.bit_generator.state = self.rng.bit_generator.state
        for name in ("hands", "discard_counts", "active", "place", "known", "chaos_played", "drawn", "declined", "unable"):
            setattr(g, name, getattr(self, name).copy())
        g.draw_pile, g.discard, g.table, g.window = list(self.draw_pile), list(self.discard), list(self.table), \
            list(self.window)
        g.sizes = list(self.sizes)
        g.finish_order = [list(x) for x in self.finish_order]
        g.actions, g.events = list(self.actions), list(self.events)
        g.battle = self.battle.copy()
        return g

    def unseen_counts(self, seat: int) -> np.ndarray:
        """Copies of each card type that ``seat`` cannot place: in the draw pile or in another
        fighter's hand beyond what the table knows (``known``)."""
        seen = self.hands[seat] + self.discard_counts
        if self.table:
            seen = seen + np.bincount(np.asarray(self.table, dtype=np.int64), minlength=NUM_CARD_TYPES)
        for s in range(self.num_players):
            if s != seat:
                seen = seen + self.public_hand(s)
        out = self.cards.deck - seen
        out[CHAOS] -= self.chaos_spent
        return out

    def determinize(self, seat: int, rng: np.random.Generator) -> BrawlGame:
        """A game equal to this one in everything ``seat`` observed, the hidden cards dealt from ``rng``.

        Hidden: the other fighters' cards beyond what the table knows of them (``public_hand``),
        the draw pile's make-up and order, and the generator of future reshuffles. The unseen
        cards (the deck less my hand, the discard pile, the table, the spent CHAOS cards and every
        card known to be in a hand) are shuffled uniformly and dealt into those hidden places:
        every completion that matches the public counts (hand sizes, draw pile size) is equally
        likely. Prior (documented choice): it does not condition on what play suggests but does
        not show (a fighter who took a hit may have held an answer; a forced draw showed that a
        hand had no attack at that moment). The result's ``deal`` is the sampled position (its
        ``actions`` still list the true decisions, which are public) and its generator is seeded
        from ``rng``.
        """
        g = self.clone()
        pool = np.repeat(np.arange(NUM_CARD_TYPES), np.maximum(self.unseen_counts(seat), 0)).tolist()
        rng.shuffle(pool)
        pos = 0
        for s in range(self.num_players):
            if s == seat:
                continue
            public = self.public_hand(s)
            hidden = int(self.hands[s].sum() - public.sum())
            h = public.copy()
            for c in pool[pos:pos + hidden]:
                h[c] += 1
            pos += hidden
            g.hands[s] = h
        g.draw_pile = [int(c) for c in pool[pos:pos + len(self.draw_pile)]]
        g.rng = np.random.default_rng(int(rng.integers(2**63)))
        if self.phase == Phase.WINDOW and self.config.chaos_windows is True:
            # holders-only windows: who is still to be asked depends on the (sampled) hands
            g.window = [s for s in self._window_order() if g.hands[s, CHAOS] > 0]
        g.deal = BrawlDeal(tuple(tuple(int(c) for c in np.repeat(np.arange(NUM_CARD_TYPES), g.hands[s]))
                                 for s in range(self.num_players)), tuple(reversed(g.draw_pile)))
        g.fixed_deal = True
        return g

    def _window_order(self) -> list[int]:
        """Fighters after the current one in the open window's clockwise order (holders or not)."""
        n, played_by = self.num_players, self.window_from
        seats = [(played_by + k) % n for k in range(1, n)]
        rest = seats[seats.index(self.actor) + 1:]
        return [s for s in rest if self.active[s] and s != self.resume[1]]

    # ------------------------------------------------------------------ the one entry point
    def apply_action(self, seat: int, action: Any) -> None:
        """Apply one decision; IllegalActionError (state unchanged) if not legal for ``seat``.

        ``action`` is an int (a 0-d numpy integer array is taken as its value).
        """
        if self.phase == Phase.OVER:
            raise IllegalActionError("the game is over; no action is legal")
        action = as_action(action)
        if not _is_int(action) or not self.is_legal(seat, int(action)):
            mask = self.legal_action_mask(seat)
            legal = ", ".join(f"{a} ({self.action_name(a)})" for a in np.flatnonzero(mask)) or "none"
            if seat != self.actor:
                raise IllegalActionError(f"seat {seat} played {action!r} but it is seat {self.actor}'s decision")
            raise IllegalActionError(
                f"action {action!r} is not legal for seat {seat} in phase {self.phase.name}; legal: {legal}"
            )
        a = int(action)
        self.actions.append((seat, a))
        self.steps += 1
        self._do(seat, a)
        if self.phase != Phase.OVER and self.steps >= self.config.step_limit:
            self.truncated = True
            self.phase, self.actor = Phase.OVER, NO_SEAT
            return
        self._skip_forced()

    def _do(self, seat: int, a: int) -> None:
        self.events.append(Event(seat, a, self.phase))
        self.version += 1
        self._apply(seat, a)

    def _skip_forced(self) -> None:
        """With ``skip_forced``, apply every decision that has one legal action (never a window)."""
        if not self.config.skip_forced:
            return
        while self.phase != Phase.OVER and self.phase != Phase.WINDOW:
            legal = self.legal_tuple(self.actor)
            if len(legal) != 1:
                return
            self._do(self.actor, legal[0])

    def action_name(self, action: int) -> str:
        if action < NUM_CARD_TYPES:
            return self.cards.names[action]
        return {PASS: "PASS", CLOCKWISE: "CLOCKWISE", COUNTER_CLOCKWISE: "COUNTER-CLOCKWISE"}.get(action, "?")

    # ------------------------------------------------------------------ rules
    def _apply(self, seat: int, a: int) -> None:
        ph, b = self.phase, self.battle
        if a == CHAOS:
            self._play_chaos(seat)
            return
        if ph == Phase.WINDOW:  # PASS in a reaction window
            self._next_window()
            return
        if ph == Phase.CHAOS_DIRECTION:
            self.direction = 1 if a == CLOCKWISE else -1
            self._begin_attack(seat)
            return
        if ph == Phase.ATTACK:
            if a == PASS:  # unable to attack: forced draw, the next fighter attacks
                self.unable[seat] = self.drawn[seat]
                self._draw(seat)
                self._end_battle()
                return
            b.opener = seat
            self._attack(seat, self.next_active(seat), a)
            return
        if ph == Phase.COMBO:
            if a == PASS:  # the combo is complete: the defender answers it
                self._face_next(seat)
                return
            self._play(seat, a)
            b.pending.append(a)
            b.attacks += 1
            if not self._can_extend(seat):
                self._face_next(seat)
            return
        if ph == Phase.DEFEND and b.pending is not None:
            self._defend_combo(seat, a)
            return
        if ph == Phase.DEFEND:
            if a == PASS:  # unable (or unwilling) to defend: draw, battle over
                self.declined[seat, b.attack_card] = self.drawn[seat]
                draws = b.attacks if self.config.hit_draws == "per_attack" else 1
                for _ in range(max(1, draws)):
                    self._draw(seat)
                self._end_battle()
                return
            self._play(seat, a)
            if a == b.attack_card:  # matching attack: the aggressor draws, battle over
                self._draw(b.attacker)
                self._end_battle(after_play_by=seat)
            else:
                self._special_answer(seat, a, [b.attack_card])
            return
        # follow-up phases: an attack, or PASS
        if ph in (Phase.JUMP_FOLLOW, Phase.COUNTER_FOLLOW, Phase.DODGE_AGAIN):
            if a == PASS:
                self._end_battle()
                return
            # the jumper, the counterer and the dodger all attack the aggressor of the battle
            self._attack(seat, b.attacker, a)
            return
        if ph == Phase.DODGE_BACK:
            if a == PASS:
                dodger = b.dodger
                self._set(Phase.DODGE_AGAIN, dodger)
                return
            self._attack(seat, b.dodger, a)
            return
        raise AssertionError(f"unhandled phase {ph}")  # pragma: no cover - every phase is handled above

    def _attack(self, seat: int, target: int, card: int) -> None:
        """``seat`` attacks ``target`` with attack ``card``; the target defends next (with
        ``combo="multi"``, first the attacker may add more cards of the element: phase COMBO)."""
        b = self.battle
        self._play(seat, card)
        b.attacker, b.defender, b.attack_card, b.element = seat, target, card, card >> 1
        b.attacks += 1
        if self.config.combo == "multi":
            b.pending = [card]
            if self._can_extend(seat):
                self.phase, self.actor = Phase.COMBO, seat  # no window yet: the combo is one play
                return
        self._set(Phase.DEFEND, target, after_play_by=seat)

    def _can_extend(self, seat: int) -> bool:
        """Whether ``seat`` holds another attack of the battle's element (a combo decision is asked)."""
        p = 2 * self.battle.element
        if len(self.battle.pending) >= self.config.combo_max:
            return False
        return bool(self.hands[seat, p] > 0 or self.hands[seat, p + 1] > 0)

    def _face_next(self, played_by: int) -> None:
        """The defender faces the combo's next unanswered card; a reaction window first if a card
        was just played (``played_by``). With no card left to answer the battle is over."""
        b = self.battle
        if b.pending:
            b.attack_card = b.pending[0]
            self._set(Phase.DEFEND, b.defender, after_play_by=played_by)
        else:
            self._end_battle(after_play_by=played_by)

    def _defend_combo(self, seat: int, a: int) -> None:
        """``combo="multi"``: the defender answers the combo's first unanswered card (design choice 4).

        The same attack answers that card alone (the aggressor draws one card for it); PASS takes
        that card's hit (the defender draws one); either way the next card is faced, and the battle
        ends after the last. JUMP, DODGE and COUNTER answer the whole rest of the combo with their
        usual follow-ups; BLOCK sends every unanswered card back to the aggressor's hand.
        """
        b = self.battle
        if a == PASS:
            self.declined[seat, b.attack_card] = self.drawn[seat]
            self._draw(seat)
            b.pending.pop(0)
            self._face_next(NO_SEAT)
            return
        self._play(seat, a)
        if a == b.attack_card:
            self._draw(b.attacker)
            b.pending.pop(0)
            self._face_next(seat)
            return
        rest, b.pending = b.pending, []
        self._special_answer(seat, a, rest)

    def _special_answer(self, seat: int, a: int, unanswered: list[int]) -> None:
        """The defender ``seat`` has just played JUMP, DODGE, COUNTER or BLOCK against the attack
        cards ``unanswered`` (one card, or the rest of a combo): the follow-up it opens, or, for
        BLOCK, every one of those cards back to the aggressor's hand and the battle over."""
        b = self.battle
        if a == JUMP:
            self._set(Phase.JUMP_FOLLOW, seat, after_play_by=seat)
        elif a == DODGE:
            b.dodger = seat
            self._set(Phase.DODGE_BACK, b.attacker, after_play_by=seat)
        elif a == COUNTER:
            if self.sizes[seat] == 0:  # COUNTER as the last card: draw one, may play it
                self._draw(seat)
            self._set(Phase.COUNTER_FOLLOW, seat, after_play_by=seat)
        elif a == BLOCK:
            for c in unanswered:
                self.table.remove(c)
                self.hands[b.attacker, c] += 1
                self.sizes[b.attacker] += 1
                self.known[b.attacker, c] += 1  # everyone saw it go back
                self.known_count += 1
            self._end_battle(after_play_by=seat)
        else:  # pragma: no cover - the mask offers no other answer
            raise AssertionError(f"card {a} is not a special answer")

    def _play(self, seat: int, card: int) -> None:
        self.hands[seat, card] -= 1
        self.sizes[seat] -= 1
        if self.known_count and self.known[seat, card] > 0:
            self.known[seat, card] -= 1
            self.known_count -= 1
        self.table.append(card)

    def _draw(self, seat: int) -> None:
        """Draw the top card; an empty draw pile is refilled by shuffling the discard pile."""
        if not self.draw_pile and self.discard:
            self.draw_pile = self.discard
            self.rng.shuffle(self.draw_pile)
            self.discard = []
            self.discard_counts[:] = 0
            self.reshuffles += 1
        if self.draw_pile:
            self.hands[seat, self.draw_pile.pop()] += 1
            self.sizes[seat] += 1
            self.drawn[seat] += 1

    def _to_discard(self, cards: list[int]) -> None:
        for c in cards:
            self.discard.append(c)
            self.discard_counts[c] += 1

    def _play_chaos(self, seat: int) -> None:
        """CHAOS: the battle on the table is abandoned, everyone else draws, ``seat`` picks a direction."""
        self.hands[seat, CHAOS] -= 1
        self.sizes[seat] -= 1
        if self.known_count and self.known[seat, CHAOS] > 0:
            self.known[seat, CHAOS] -= 1
            self.known_count -= 1
        self.chaos_played[seat] += 1
        self._to_discard(self.table)
        self.table = []
        self.chaos_spent += 1  # a played CHAOS leaves the game (seeds/brawl.md, design choices)
        n = self.num_players
        for k in range(1, n):  # clockwise from the CHAOS player's left, a fixed order
            s = (seat + k) % n
            if self.active[s]:
                self._draw(s)
        if self.sizes[seat] == 0:  # CHAOS as the last card: its player draws too
            self._draw(seat)
        self.window = []
        self.battle = Battle()
        if not self.config.ask_noops and int(self.active.sum()) == 2:
            self._begin_attack(seat)  # with two fighters left both directions lead to the same one
            return
        self.phase, self.actor = Phase.CHAOS_DIRECTION, seat

    def _set(self, phase: Phase, actor: int, after_play_by: int = NO_SEAT) -> None:
        """Move to ``phase`` with ``actor`` deciding, opening a reaction window first if a card was played."""
        self.phase, self.actor = phase, actor
        if after_play_by != NO_SEAT:
            self._open_window(after_play_by)

    def _open_window(self, played_by: int) -> None:
        """After a play, other fighters may play CHAOS, clockwise from the player's left.

        The fighter who just played and the one whose decision comes next are skipped: both can
        play CHAOS in a decision of their own anyway. With ``chaos_windows=True`` only CHAOS
        holders are asked (being asked is public: ``known`` records it); with ``"all"`` everyone.
        """
        windows = self.config.chaos_windows
        if not windows or self.phase == Phase.OVER:
            return
        n = self.num_players
        everyone = windows == "all"
        actor, active, hands = self.actor, self.active, self.hands
        self.window = [s for s in ((played_by + k) % n for k in range(1, n))
                       if active[s] and s != actor and (everyone or hands[s, CHAOS] > 0)]
        if self.window:
            self.window_from = played_by
            self.resume = (self.phase, self.actor)
            self.phase = Phase.WINDOW
            self._next_window()

    def _next_window(self) -> None:
        if self.window:
            self.actor = self.window.pop(0)
            if self.config.chaos_windows is True and self.known[self.actor, CHAOS] == 0:
                self.known[self.actor, CHAOS] = 1  # being asked shows a CHAOS in hand
                self.known_count += 1
        else:
            self.phase, self.actor = self.resume

    def _begin_attack(self, seat: int) -> None:
        self.battle = Battle(opener=seat)
        self.phase, self.actor = Phase.ATTACK, seat

    def _enter_showdown(self) -> None:
        self.showdown = True

    def _end_battle(self, after_play_by: int = NO_SEAT) -> None:
        """The battle is over: table to the discard pile, new MASTERs, then the next fighter attacks."""
        self._to_discard(self.table)
        self.table = []
        opener = self.battle.opener
        sizes, active = self.sizes, self.active
        out = [s for s in range(self.num_players) if sizes[s] == 0 and active[s]]
        if out:
            self._finish(out)
        left = int(self.active.sum())
        if left <= 1:
            self._finish([int(s) for s in np.flatnonzero(self.active)])
            self.phase, self.actor = Phase.OVER, NO_SEAT
            return
        if left == 2:
            self._enter_showdown()
        nxt = self.next_active(opener)
        self._begin_attack(nxt)
        if after_play_by != NO_SEAT:
            self._open_window(after_play_by)

    def _finish(self, seats: list[int]) -> None:
        """``seats`` go out together (MASTER): they share the next place."""
        if not seats:
            return
        place = 1 + sum(len(g) for g in self.finish_order)
        for s in seats:
            self.active[s] = False
            self.place[s] = place
            self.known_count -= int(self.known[s].sum())
            self.known[s] = 0
        self.finish_order.append(sorted(seats))

    # ------------------------------------------------------------------ results
    def standing_places(self) -> np.ndarray:
        """Places as 1-based floats, tied fighters sharing the mean of the places they cover.

        Fighters still fighting (after truncation) share the places left.
        """
        n = self.num_players
        out = np.zeros(n, dtype=np.float64)
        first = 1
        groups = [list(g) for g in self.finish_order]
        still = [int(s) for s in np.flatnonzero(self.active)]
        if still:
            groups.append(still)
        for g in groups:
            out[g] = first + (len(g) - 1) / 2.0
            first += len(g)
        return out

    def returns(self, mode: str = "rank") -> np.ndarray:
        """Per-seat final rewards. ``rank``: 1 for first place down to -1 for last, linear in the
        (shared) place. ``winner``: +1 sole first place, 0 each to a shared first place, -1 others."""
        n = self.num_players
        places = self.standing_places()
        if mode == "rank":
            return 1.0 - 2.0 * (places - 1.0) / (n - 1)
        if mode == "winner":
            best = places.min()
            firsts = places == best
            if firsts.sum() == 1:
                return np.where(firsts, 1.0, -1.0)
            return np.where(firsts, 0.0, -1.0)
        raise ConfigError(f"reward must be one of {REWARD_MODES}, got {mode!r}")

    def card_locations(self) -> dict[str, np.ndarray]:
        """Count vectors of every place a card can be (for conservation checks)."""
        return {
            **{f"hand_{s}": self.hands[s].copy() for s in range(self.num_players)},
            "draw_pile": np.bincount(np.array(self.draw_pile, dtype=np.int64), minlength=NUM_CARD_TYPES),
            "discard": np.bincount(np.array(self.discard, dtype=np.int64), minlength=NUM_CARD_TYPES),
            "table": np.bincount(np.array(self.table, dtype=np.int64), minlength=NUM_CARD_TYPES),
            "out_of_play": np.eye(NUM_CARD_TYPES, dtype=np.int64)[CHAOS] * self.chaos_spent,
        }


__all__ = [
    "CLOCKWISE",
    "DECISION_KINDS",
    "RULE_SETS",
    "as_action",
    "COUNTER_CLOCKWISE",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NO_SEAT",
    "NUM_ACTIONS",
    "PASS",
    "REWARD_MODES",
    "Battle",
    "BrawlConfig",
    "BrawlDeal",
    "BrawlGame",
    "Event",
    "Phase",
    "is_attack",
    "parse_deal",
]
