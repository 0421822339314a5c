"""Brawl rules engine: the state of one game and every rule that changes it (``seeds/brawl.md``).

The game is a sequence of *decisions*; each belongs to one fighter (``current_player()``) and is
one action of ``Discrete(NUM_ACTIONS)``: play a card of a type (0..12, see ``cards.py``),
``PASS`` (13: decline, or take the hit / draw where the rules say so), or choose the direction
of play after a CHAOS (``CLOCKWISE`` 14, ``COUNTER_CLOCKWISE`` 15). ``legal_actions(seat)`` is
exactly the set ``apply_action`` accepts; anything else raises ``IllegalActionError`` and
changes nothing.

Seats ``0..n-1`` sit clockwise; the dealer is seat ``n-1``, so seat 0 (left of the dealer)
attacks first and the first direction of play is clockwise (increasing seat index).
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
    attacks_of_element,
    element_of,
    is_attack,
)

MIN_PLAYERS, MAX_PLAYERS = 2, 8
PASS = NUM_CARD_TYPES
CLOCKWISE = NUM_CARD_TYPES + 1
COUNTER_CLOCKWISE = NUM_CARD_TYPES + 2
NUM_ACTIONS = NUM_CARD_TYPES + 3
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
    """A reaction window: a fighter holding CHAOS may play it out of turn, or PASS."""
    OVER = 8


NUM_PHASES = len(Phase)


@dataclass(frozen=True)
class BrawlConfig:
    """Game options. ``max_steps`` None means the default limit of ``step_limit``."""

    num_players: int = 2
    chaos_windows: bool | str = True
    """True: reaction windows for CHAOS holders; 'all': every other fighter is asked (so being
    asked reveals nothing); False: no windows."""
    max_steps: int | None = None

    def __post_init__(self) -> None:
        n = self.num_players
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise ConfigError(f"num_players must be an int in {MIN_PLAYERS}..{MAX_PLAYERS}, got {n!r}")
        w = self.chaos_windows
        if not (w is True or w is False or w == "all"):  # identity: 1 and 0 are not accepted as booleans
            raise ConfigError(f"chaos_windows must be True, False or 'all', got {w!r}")
        m = self.max_steps
        if m is not None and (isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1):
            raise ConfigError(f"max_steps must be None or an int >= 1, got {m!r}")

    @property
    def step_limit(self) -> int:
        """``max_steps``, or by default 150 decisions per fighter (300 with ``chaos_windows="all"``,
        whose windows ask every fighter after every card and so about triple a game's decisions)."""
        if self.max_steps is not None:
            return int(self.max_steps)
        per_player = DEFAULT_STEPS_PER_PLAYER * (2 if self.chaos_windows == "all" else 1)
        return per_player * self.num_players


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


@dataclass
class Event:
    """One thing that happened (for logs, rendering and the 'last action' features)."""

    seat: int
    action: int
    phase: Phase


class BrawlGame:
    """One game of Brawl. ``new_game`` deals; ``apply_action`` advances it one decision."""

    def __init__(self, config: BrawlConfig | None = None, cards: BrawlCards = DEFAULT_CARDS) -> None:
        self.config = config or BrawlConfig()
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
        self.rng = rng
        self.fixed_deal = deal is not None
        if deal is None:
            deck = np.repeat(np.arange(NUM_CARD_TYPES), cards.deck).tolist()
            rng.shuffle(deck)
            # deal one card at a time, clockwise from the fighter left of the dealer (seat 0)
            hands: list[list[int]] = [[] for _ in range(n)]
            for k in range(cards.deal_size * n):
                hands[k % n].append(int(deck[k]))
            deal = BrawlDeal(tuple(tuple(h) for h in hands), tuple(int(c) for c in deck[cards.deal_size * n:]))
        elif len(deal.hands) != n:
            raise DealError(f"the deal has {len(deal.hands)} hands for {n} fighters")
        self.deal = deal
        self.hands = np.zeros((n, NUM_CARD_TYPES), dtype=np.int64)
        for s, h in enumerate(deal.hands):
            for c in h:
                self.hands[s, c] += 1
        self.draw_pile: list[int] = list(reversed(deal.draw_pile))  # top of the pile is the list's end
        self.discard: list[int] = []
        self.discard_counts = np.zeros(NUM_CARD_TYPES, dtype=np.int64)
        self.table: list[int] = []
        self.direction = 1
        self.active = np.ones(n, dtype=bool)
        self.place = np.zeros(n, dtype=np.int64)
        """Finishing place (1 = first), 0 while still fighting."""
        self.finish_order: list[list[int]] = []
        self.showdown = n == 2
        self.battle = Battle()
        self.window: list[int] = []
        self.resume: tuple[Phase, int] = (Phase.OVER, NO_SEAT)
        self.steps = 0
        self.truncated = False
        self.reshuffles = 0
        self.chaos_spent = 0
        self.actions: list[tuple[int, int]] = []
        self.events: list[Event] = []
        self.version = 0
        self._begin_attack(0)

    # ------------------------------------------------------------------ queries
    def current_player(self) -> int:
        return self.actor

    def is_terminal(self) -> bool:
        """The game ended by the rules (not by the step limit)."""
        return self.phase == Phase.OVER and not self.truncated

    def is_over(self) -> bool:
        return self.phase == Phase.OVER

    def hand_size(self, seat: int) -> int:
        return int(self.hands[seat].sum())

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
        return [int(a) for a in np.flatnonzero(self.legal_action_mask(seat))]

    def legal_action_mask(self, seat: int) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if self.phase == Phase.OVER or seat != self.actor:
            return mask
        hand = self.hands[seat]
        ph, b = self.phase, self.battle
        if ph == Phase.CHAOS_DIRECTION:
            mask[CLOCKWISE] = mask[COUNTER_CLOCKWISE] = 1
            return mask
        if ph == Phase.WINDOW:
            mask[CHAOS] = hand[CHAOS] > 0
            mask[PASS] = 1
            return mask
        mask[CHAOS] = hand[CHAOS] > 0  # CHAOS may be played at any decision of one's own
        if ph == Phase.ATTACK:
            mask[:NUM_ATTACKS] = hand[:NUM_ATTACKS] > 0
            # PASS (draw, turn over) only when no elemental attack can be played
            mask[PASS] = not mask[:NUM_ATTACKS].any()
        elif ph == Phase.DEFEND:
            mask[b.attack_card] = hand[b.attack_card] > 0
            for c in (JUMP, DODGE, COUNTER, BLOCK):
                mask[c] = hand[c] > 0
            mask[PASS] = 1
        elif ph in (Phase.JUMP_FOLLOW, Phase.DODGE_BACK, Phase.DODGE_AGAIN):
            for c in attacks_of_element(b.element):
                mask[c] = hand[c] > 0
            mask[PASS] = 1
        elif ph == Phase.COUNTER_FOLLOW:
            mask[:NUM_ATTACKS] = hand[:NUM_ATTACKS] > 0
            mask[PASS] = 1
        return mask

    # ------------------------------------------------------------------ the one entry point
    def apply_action(self, seat: int, action: Any) -> None:
        """Apply one decision; IllegalActionError (state unchanged) if not legal for ``seat``."""
        if self.phase == Phase.OVER:
            raise IllegalActionError("the game is over; no action is legal")
        is_int = isinstance(action, (int, np.integer)) and not isinstance(action, bool)
        mask = self.legal_action_mask(seat)
        if not is_int or not 0 <= int(action) < NUM_ACTIONS or not mask[int(action)]:
            legal = ", ".join(f"{a} ({self.action_name(a)})" for a in np.flatnonzero(mask)) or "none"
            if seat != self.actor:
                raise IllegalActionError(f"seat {seat} played {action!r} but it is seat {self.actor}'s decision")
            raise IllegalActionError(
                f"action {action!r} is not legal for seat {seat} in phase {self.phase.name}; legal: {legal}"
            )
        a = int(action)
        self.actions.append((seat, a))
        self.events.append(Event(seat, a, self.phase))
        self.steps += 1
        self.version += 1
        self._apply(seat, a)
        if self.phase != Phase.OVER and self.steps >= self.config.step_limit:
            self.truncated = True
            self.phase, self.actor = Phase.OVER, NO_SEAT

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
                self._draw(seat)
                self._end_battle()
                return
            b.opener = seat
            self._attack(seat, self.next_active(seat), a)
            return
        if ph == Phase.DEFEND:
            if a == PASS:  # unable (or unwilling) to defend: draw, battle over
                self._draw(seat)
                self._end_battle()
                return
            self._play(seat, a)
            if a == b.attack_card:  # matching attack: the aggressor draws, battle over
                self._draw(b.attacker)
                self._end_battle(after_play_by=seat)
            elif a == JUMP:
                self._set(Phase.JUMP_FOLLOW, seat, after_play_by=seat)
            elif a == DODGE:
                b.dodger = seat
                self._set(Phase.DODGE_BACK, b.attacker, after_play_by=seat)
            elif a == COUNTER:
                if self.hand_size(seat) == 0:  # COUNTER as the last card: draw one, may play it
                    self._draw(seat)
                self._set(Phase.COUNTER_FOLLOW, seat, after_play_by=seat)
            elif a == BLOCK:  # the aggressor takes its attack back into its hand
                self.table.remove(b.attack_card)
                self.hands[b.attacker, b.attack_card] += 1
                self._end_battle(after_play_by=seat)
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
        """``seat`` attacks ``target`` with attack ``card``; the target defends next."""
        b = self.battle
        self._play(seat, card)
        b.attacker, b.defender, b.attack_card, b.element = seat, target, card, element_of(card)
        self._set(Phase.DEFEND, target, after_play_by=seat)

    def _play(self, seat: int, card: int) -> None:
        self.hands[seat, card] -= 1
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

    def _to_discard(self, cards: list[int]) -> None:
        for c in cards:
            self.discard.append(c)
            self.discard_counts[c] += 1

    def _play_chaos(self, seat: int) -> None:
        """CHAOS: the battle on the table is abandoned, everyone else draws, ``seat`` picks a direction."""
        self.hands[seat, CHAOS] -= 1
        self._to_discard(self.table)
        self.table = []
        self.chaos_spent += 1  # a played CHAOS leaves the game (seeds/brawl.md, design choices)
        n = self.num_players
        for k in range(1, n):  # clockwise from the CHAOS player's left, a fixed order
            s = (seat + k) % n
            if self.active[s]:
                self._draw(s)
        if self.hand_size(seat) == 0:  # CHAOS as the last card: its player draws too
            self._draw(seat)
        self.window = []
        self.battle = Battle()
        self.phase, self.actor = Phase.CHAOS_DIRECTION, seat

    def _set(self, phase: Phase, actor: int, after_play_by: int = NO_SEAT) -> None:
        """Move to ``phase`` with ``actor`` deciding, opening a reaction window first if a card was played."""
        self.phase, self.actor = phase, actor
        if after_play_by != NO_SEAT:
            self._open_window(after_play_by)

    def _open_window(self, played_by: int) -> None:
        """After a play, every other fighter holding CHAOS may play it, clockwise from the player's left.

        The fighter who just played and the one whose decision comes next are skipped: both can
        play CHAOS in a decision of their own anyway.
        """
        if not self.config.chaos_windows or self.phase == Phase.OVER:
            return
        n = self.num_players
        seats = [(played_by + k) % n for k in range(1, n)]
        everyone = self.config.chaos_windows == "all"
        self.window = [s for s in seats if self.active[s] and s != self.actor
                       and (everyone or self.hands[s, CHAOS] > 0)]
        if self.window:
            self.resume = (self.phase, self.actor)
            self.phase, self.actor = Phase.WINDOW, self.window.pop(0)

    def _next_window(self) -> None:
        if self.window:
            self.actor = self.window.pop(0)
        else:
            self.phase, self.actor = self.resume

    def _begin_attack(self, seat: int) -> None:
        self.battle = Battle(opener=seat)
        self.phase, self.actor = Phase.ATTACK, seat

    def _end_battle(self, after_play_by: int = NO_SEAT) -> None:
        """The battle is over: table to the discard pile, new MASTERs, then the next fighter attacks."""
        self._to_discard(self.table)
        self.table = []
        opener = self.battle.opener
        out = [s for s in range(self.num_players) if self.active[s] and self.hand_size(s) == 0]
        if out:
            self._finish(out)
        left = int(self.active.sum())
        if left <= 1:
            self._finish([int(s) for s in np.flatnonzero(self.active)])
            self.phase, self.actor = Phase.OVER, NO_SEAT
            return
        if left == 2:
            self.showdown = True
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
