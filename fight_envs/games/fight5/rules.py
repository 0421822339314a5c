"""The Fight 5 rules engine: state, legal actions, applying an action, scoring, game end.

Pure Python and numpy; no RL library is imported here. Randomness comes in as a
``numpy.random.Generator``. The vocabulary follows OpenSpiel: ``legal_actions``,
``apply_action``, ``is_terminal``, ``returns``.

A round is played as micro-steps: each player places one card per step, into its slots 0..4 in
order (see ``topology.py`` for the slot order), face down. When every player has filled all
five slots the cards are revealed and every clash is resolved at once ("Sequence of Play",
step 4). Players may fill their slots in any interleaving; the result does not depend on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fight_envs.core.errors import ConfigError, DealError, IllegalActionError
from fight_envs.core.seeding import copy_rng
from fight_envs.games.fight5.cards import (
    DEFAULT_CARDS,
    NUM_RANKS,
    RANK_NAMES,
    RANK_VALUES,
    STAR,
    Fight5Cards,
    rank_of,
)
from fight_envs.games.fight5.topology import SLOTS_PER_PLAYER, Topology, topology

MIN_PLAYERS = 2
MAX_PLAYERS = 5
NUM_ACTIONS = NUM_RANKS
"""Action ``a`` places a card of rank ``a`` (0..11 = 2..13, 12 = star) in the next slot."""
NO_CARD = -1

OUTCOME_WIN = 1.0
OUTCOME_SHARED_WIN = 0.0
OUTCOME_LOSS = -1.0

DECISION_KINDS: tuple[str, ...] = ("right_a", "right_b", "middle", "left_a", "left_b")
"""The kind of every decision is the slot it fills (``decision_kind``): the two clashes shared with
the right neighbour, the middle clash, the two shared with the left neighbour. ``left_b``, the
round's last placement, is always forced (one card left in hand)."""


@dataclass(frozen=True)
class Fight5Config:
    """Options of one Fight 5 game ("Ending the Game" and "Alternate Game Lengths").

    ``num_bouts`` is the most bouts the game lasts; ``target_score`` ends it after any bout in
    which someone has at least that many points (None: play all ``num_bouts``). The rulebook's
    standard game is 3 bouts or 200 points; its "up to 1,000" game is
    ``Fight5Config(num_bouts=50, target_score=1000)`` (a bout cap keeps episodes bounded).
    """

    num_players: int = 2
    num_bouts: int = 3
    target_score: int | None = 200

    def __post_init__(self) -> None:
        if not isinstance(self.num_players, int) or not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            raise ConfigError(f"num_players must be an int in {MIN_PLAYERS}..{MAX_PLAYERS}, got {self.num_players!r}")
        if not isinstance(self.num_bouts, int) or isinstance(self.num_bouts, bool) or self.num_bouts < 1:
            raise ConfigError(f"num_bouts must be an int >= 1, got {self.num_bouts!r}")
        if self.target_score is not None and (
            not isinstance(self.target_score, int) or isinstance(self.target_score, bool) or self.target_score < 1
        ):
            raise ConfigError(f"target_score must be an int >= 1 or None, got {self.target_score!r}")


@dataclass
class ClashResult:
    """What happened at one clash in the last reveal."""

    clash: int
    clash_card: int
    plays: dict[int, int]
    winner: int  # seat, or NO_CARD on a tie
    cards_won: int


@dataclass(frozen=True)
class BoutDeal:
    """A fixed deal for one bout: every clash stack and every player deck, top card first."""

    clash_stacks: tuple[tuple[int, ...], ...]
    player_decks: tuple[tuple[int, ...], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "clash_stacks": [[RANK_NAMES[r] for r in s] for s in self.clash_stacks],
            "player_decks": [[RANK_NAMES[r] for r in d] for d in self.player_decks],
        }


def parse_deal(raw: Any, num_players: int, cards: Fight5Cards = DEFAULT_CARDS, where: str = "deal") -> BoutDeal:
    """Validate one bout's deal given as JSON-like data; raise DealError naming the problem.

    ``raw`` is ``{"clash_stacks": [[card, ...] per stack], "player_decks": [[card, ...] per
    player]}`` with cards as names ('2'..'13', 'star') or numbers, top card first.
    """
    if isinstance(raw, BoutDeal):
        raw = raw.to_json()
    if not isinstance(raw, dict) or set(raw) != {"clash_stacks", "player_decks"}:
        raise DealError(f"{where} must be a dict with exactly the keys 'clash_stacks' and 'player_decks'")
    num_stacks = cards.clash_stacks[num_players]
    stacks_raw, decks_raw = raw["clash_stacks"], raw["player_decks"]
    if not isinstance(stacks_raw, (list, tuple)) or len(stacks_raw) != num_stacks:
        raise DealError(f"{where}.clash_stacks must list {num_stacks} stacks for {num_players} players")
    if not isinstance(decks_raw, (list, tuple)) or len(decks_raw) != num_players:
        raise DealError(f"{where}.player_decks must list {num_players} decks, one per player")

    def ranks(seq: Any, label: str, length: int) -> tuple[int, ...]:
        if not isinstance(seq, (list, tuple)) or len(seq) != length:
            raise DealError(f"{label} must be a list of {length} cards")
        try:
            return tuple(rank_of(c) for c in seq)
        except ValueError as exc:
            raise DealError(f"{label}: {exc}") from None

    stacks = tuple(ranks(s, f"{where}.clash_stacks[{i}]", cards.stack_size) for i, s in enumerate(stacks_raw))
    used = np.bincount([r for s in stacks for r in s], minlength=NUM_RANKS)
    over = [RANK_NAMES[r] for r in range(NUM_RANKS) if used[r] > cards.clash_deck[r]]
    if over:
        raise DealError(f"{where}.clash_stacks use more copies than the Clash Deck holds of {over}")
    decks = tuple(ranks(d, f"{where}.player_decks[{i}]", int(cards.player_deck.sum())) for i, d in enumerate(decks_raw))
    for i, d in enumerate(decks):
        if not np.array_equal(np.bincount(d, minlength=NUM_RANKS), cards.player_deck):
            raise DealError(f"{where}.player_decks[{i}] is not a full Player Deck (two each of 2..13 and one star)")
    return BoutDeal(stacks, decks)


@dataclass
class Fight5Game:
    """A mutable Fight 5 game. Create it, call :meth:`new_game`, then :meth:`apply_action`."""

    config: Fight5Config = field(default_factory=Fight5Config)
    cards: Fight5Cards = DEFAULT_CARDS

    def __post_init__(self) -> None:
        n = self.config.num_players
        if n not in self.cards.clash_stacks:
            # Custom card data may list fewer player counts; fail here, not with a KeyError at deal time.
            raise ConfigError(
                f"the card data has no clash-stack count for {n} players; it supports {sorted(self.cards.clash_stacks)}"
            )
        self.topo: Topology = topology(n)
        self.num_clashes = self.topo.num_clashes
        self.points_per_rank = self.cards.points_per_rank()
        self.hand_size = self.cards.hand_size
        self._sharer_slots = [
            [(s, int(self.topo.slot_of[c, s])) for s in self.topo.sharers[c]] for c in range(self.num_clashes)
        ]
        # Every play of a round as flat arrays (play p: seat _play_seat[p] puts the card of its slot
        # _play_slot[p] at clash _play_clash[p]), so a reveal is a few numpy operations, not one
        # per card; _clash_plays[c] lists (seat, p) for clash c, seats ascending.
        plays = [(c, s, slot) for c in range(self.num_clashes) for s, slot in self._sharer_slots[c]]
        self._play_clash = np.array([c for c, _, _ in plays], dtype=np.int64)
        self._play_seat = np.array([s for _, s, _ in plays], dtype=np.int64)
        self._play_slot = np.array([slot for _, _, slot in plays], dtype=np.int64)
        self._clash_plays = [[(s, p) for p, (c2, s, _) in enumerate(plays) if c2 == c] for c in range(self.num_clashes)]
        self.max_actions_per_player = self.config.num_bouts * self.cards.rounds_per_bout * SLOTS_PER_PLAYER
        self.game_over = True
        self.version = 0  # bumped on every change; observation caches key on it
        # Bumped only when public information changes (a round starts, the game ends): placing a
        # card face down changes nothing public, so the envs reuse each seat's public features
        # for the whole round and re-encode only its hand and slots after each placement.
        self.public_version = 0

    # ----------------------------------------------------------------- setup
    def new_game(self, rng: np.random.Generator, deals: list[BoutDeal] | None = None) -> None:
        """Start a game. Bout ``b`` uses ``deals[b]`` when given, else a shuffle from ``rng``."""
        n = self.config.num_players
        self.rng = rng
        self.fixed_deals = list(deals or [])
        self.scores = np.zeros(n, dtype=np.int64)
        self.bout_points: list[np.ndarray] = []
        self.bout = 0
        self.game_over = False
        self.actions: list[tuple[int, int]] = []
        self.deals_used: list[BoutDeal] = []
        self.last_results: list[ClashResult] = []
        self._start_bout()

    def _deal(self) -> BoutDeal:
        if self.bout < len(self.fixed_deals):
            return self.fixed_deals[self.bout]
        n = self.config.num_players
        clash_cards = np.repeat(np.arange(NUM_RANKS), self.cards.clash_deck)
        order = self.rng.permutation(clash_cards)
        size, num_stacks = self.cards.stack_size, self.cards.clash_stacks[n]
        stacks = tuple(tuple(int(r) for r in order[i * size:(i + 1) * size]) for i in range(num_stacks))
        deck_cards = np.repeat(np.arange(NUM_RANKS), self.cards.player_deck)
        decks = tuple(tuple(int(r) for r in self.rng.permutation(deck_cards)) for _ in range(n))
        return BoutDeal(stacks, decks)

    def _start_bout(self) -> None:
        """Setup: shuffle (or take the fixed deal), deal the stacks, set the rest aside."""
        n, C = self.config.num_players, self.num_clashes
        deal = self._deal()
        self.deals_used.append(deal)
        # Stacks and decks are stored bottom-first so the top card is popped from the end.
        self.clash_stacks = [list(reversed(s)) for s in deal.clash_stacks]
        self.decks = [list(reversed(d)) for d in deal.player_decks]
        dealt = np.bincount([r for s in deal.clash_stacks for r in s], minlength=NUM_RANKS)
        self.set_aside = self.cards.clash_deck - dealt
        self.clash_card = np.full(C, NO_CARD, dtype=np.int64)
        self.pot = np.zeros((C, n, NUM_RANKS), dtype=np.int64)
        self.point_pile = np.zeros((n, n + 1, NUM_RANKS), dtype=np.int64)  # source n = Clash Deck
        self.hands = np.zeros((n, NUM_RANKS), dtype=np.int64)
        self.committed = np.full((n, SLOTS_PER_PLAYER), NO_CARD, dtype=np.int64)
        self.num_committed = [0] * n
        self.last_plays = np.full((C, n), NO_CARD, dtype=np.int64)
        self.revealed = np.zeros((n, NUM_RANKS), dtype=np.int64)
        self.clash_seen = np.zeros(NUM_RANKS, dtype=np.int64)
        self.round = 0
        self._start_round()

    def _start_round(self) -> None:
        """Steps 1-2: everyone draws five; flip a clash card wherever none is face up."""
        n = self.num_players
        # all draws in one numpy update (flat index seat * 13 + rank) rather than one per card
        drawn = [seat * NUM_RANKS + deck.pop() for seat, deck in enumerate(self.decks) for _ in range(self.hand_size)]
        self.hands += np.bincount(drawn, minlength=n * NUM_RANKS).reshape(n, NUM_RANKS)
        face_up = self.clash_card.tolist()
        for c, stack in enumerate(self.clash_stacks):
            if face_up[c] == NO_CARD and stack:
                rank = stack.pop()
                self.clash_card[c] = rank
                self.clash_seen[rank] += 1
        self.version += 1
        self.public_version += 1

    # ----------------------------------------------------------------- queries
    @property
    def num_players(self) -> int:
        return self.config.num_players

    def is_terminal(self) -> bool:
        return self.game_over

    def pending_seats(self) -> list[int]:
        """Seats that still have a slot to fill this round (empty once the game is over)."""
        if self.game_over:
            return []
        return [s for s, k in enumerate(self.num_committed) if k < SLOTS_PER_PLAYER]

    def current_player(self) -> int:
        """The seat that acts next in turn order (lowest pending seat), or -1 when over."""
        if self.game_over:
            return -1
        for s, k in enumerate(self.num_committed):
            if k < SLOTS_PER_PLAYER:
                return s
        raise AssertionError("a round with every slot filled must already be resolved")

    def current_slot(self, seat: int) -> int:
        """The slot ``seat`` fills next (0..4), or 5 when its slots are full."""
        return self.num_committed[seat]

    def legal_action_mask(self, seat: int) -> np.ndarray:
        """int8 vector over the 13 ranks: 1 where ``seat`` may place that rank now."""
        if self.game_over or self.num_committed[seat] >= SLOTS_PER_PLAYER:
            return np.zeros(NUM_ACTIONS, dtype=np.int8)
        return (self.hands[seat] > 0).astype(np.int8)

    def legal_actions(self, seat: int) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.legal_action_mask(seat))]

    # ----------------------------------------------------------------- play
    def apply_action(self, seat: int, action: int) -> None:
        """Place a card of rank ``action`` face down in ``seat``'s next slot.

        Raises IllegalActionError (changing nothing) unless ``seat`` has a slot to fill and
        holds a card of that rank. Resolves the round once every slot is filled.
        """
        if self.game_over:
            raise IllegalActionError("the game is over; call new_game() to start another")
        if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
            action = action.item()  # a 0-d integer array, as Gymnasium's Discrete accepts and SB3's predict returns
        if not isinstance(seat, (int, np.integer)) or isinstance(seat, bool) or not 0 <= seat < self.num_players:
            raise IllegalActionError(f"seat {seat!r} is not a seat of this {self.num_players}-player game")
        if self.num_committed[seat] >= SLOTS_PER_PLAYER:
            raise IllegalActionError(f"seat {seat} has already placed a card at all five clashes this round")
        is_int = isinstance(action, (int, np.integer)) and not isinstance(action, bool)
        if not is_int or not 0 <= action < NUM_ACTIONS or self.hands[seat, action] == 0:
            legal = ", ".join(f"{a} ({RANK_NAMES[a]})" for a in self.legal_actions(seat))
            shown = f"{action} ({RANK_NAMES[action]})" if is_int and 0 <= action < NUM_ACTIONS else repr(action)
            why = ("that card is not in hand" if is_int and 0 <= action < NUM_ACTIONS else
                   f"an action is an integer in 0..{NUM_ACTIONS - 1} (int, numpy integer or 0-d integer array)")
            raise IllegalActionError(
                f"illegal action {shown} for seat {seat} at slot {self.num_committed[seat]}: "
                f"{why}; legal actions: {legal}"
            )
        action = int(action)
        self.hands[seat, action] -= 1
        self.committed[seat, self.num_committed[seat]] = action
        self.num_committed[seat] += 1
        self.actions.append((int(seat), action))
        self.version += 1
        if self.num_committed.count(SLOTS_PER_PLAYER) == self.num_players:  # every slot is filled
            self._resolve_round()

    def _resolve_round(self) -> None:
        """Steps 4-5: reveal, resolve every clash, then next round or the end of the bout."""
        n = self.num_players
        # Reveal every card at once. (clash, seat) pairs are distinct, so plain fancy-index
        # assignment is exact; one seat may reveal two cards of a rank, hence bincount there.
        ranks = self.committed[self._play_seat, self._play_slot]
        self.last_plays.fill(NO_CARD)
        self.last_plays[self._play_clash, self._play_seat] = ranks
        self.pot[self._play_clash, self._play_seat, ranks] += 1  # played cards join whatever is left in play there
        self.revealed += np.bincount(self._play_seat * NUM_RANKS + ranks, minlength=n * NUM_RANKS).reshape(n, NUM_RANKS)
        rank_of_play = ranks.tolist()
        clash_cards = self.clash_card.tolist()
        in_play = self.pot.sum(axis=(1, 2)).tolist()
        results = []
        won_clashes = []
        for c, sharer_plays in enumerate(self._clash_plays):
            plays = {s: rank_of_play[p] for s, p in sharer_plays}
            clash_card = clash_cards[c]
            winner = clash_winner(clash_card, plays)
            won = 0
            if winner != NO_CARD:
                won = in_play[c] + 1
                self.point_pile[winner, :n] += self.pot[c]
                self.point_pile[winner, n, clash_card] += 1
                won_clashes.append(c)
            results.append(ClashResult(c, clash_card, plays, winner, won))
        if won_clashes:
            self.pot[won_clashes] = 0
            self.clash_card[won_clashes] = NO_CARD
        self.last_results = results
        self.committed.fill(NO_CARD)
        self.num_committed = [0] * self.num_players
        self.round += 1
        if self.round == self.cards.rounds_per_bout:
            self._end_bout()
        else:
            self._start_round()

    def pile_points(self) -> np.ndarray:
        """Points each Point Pile is worth now, before the most-cards bonus."""
        return self.point_pile.sum(axis=1) @ self.points_per_rank

    def pile_sizes(self) -> np.ndarray:
        return self.point_pile.sum(axis=(1, 2))

    def score_bout(self) -> np.ndarray:
        """Scoring, applied at the end of each bout (the rulebook's "round" is a slip).

        5 per card of value 10 or more, 10 per Star (a Star scores only as a Star), and 15 to
        everyone tied for the most cards, provided that most is at least one card. Pots still
        unresolved are not in any Point Pile and score nothing.
        """
        points = self.pile_points()
        sizes = self.pile_sizes()
        if sizes.max() > 0:
            points = points + np.where(sizes == sizes.max(), self.cards.most_cards_bonus, 0)
        return points

    def _end_bout(self) -> None:
        points = self.score_bout()
        self.scores += points
        self.bout_points.append(points)
        self.bout += 1
        target = self.config.target_score
        if self.bout >= self.config.num_bouts or (target is not None and self.scores.max() >= target):
            self.game_over = True
            self.version += 1
            self.public_version += 1
        else:
            self._start_bout()

    # ----------------------------------------------------------------- outcome
    def winners(self) -> list[int]:
        """Seats with the most points (all of them share the win)."""
        return [int(s) for s in np.flatnonzero(self.scores == self.scores.max())]

    def returns(self) -> np.ndarray:
        """Outcome per seat once the game is over: +1 sole win, 0 shared win, -1 loss."""
        out = np.zeros(self.num_players, dtype=np.float64)
        if not self.game_over:
            return out
        winners = self.winners()
        out[:] = OUTCOME_LOSS
        out[winners] = OUTCOME_WIN if len(winners) == 1 else OUTCOME_SHARED_WIN
        return out

    # ----------------------------------------------------------------- search vocabulary
    # (fight_envs.core.information.SearchableGame: what game-agnostic search relies on)
    _STATIC_FIELDS = (
        "config", "cards", "topo", "num_clashes", "points_per_rank", "hand_size", "_sharer_slots",
        "_play_clash", "_play_seat", "_play_slot", "_clash_plays", "max_actions_per_player",
    )
    """Fields fixed by the config and card data: shared (never mutated) between a game and its copies."""
    _PUBLIC_ARRAYS = ("scores", "clash_card", "pot", "point_pile", "last_plays", "revealed", "clash_seen")
    """Arrays every seat observes (scores; the clashes; pots, Point Piles and reveals, all revealed cards)."""

    def _bare_copy(self) -> Fight5Game:
        new = object.__new__(Fight5Game)
        d = new.__dict__
        for name in self._STATIC_FIELDS:
            d[name] = self.__dict__[name]
        return new

    def clone(self) -> Fight5Game:
        """A fully independent copy of this game, its random generator included."""
        new = self._bare_copy()
        d, src = new.__dict__, self.__dict__
        if self.game_over and not hasattr(self, "rng"):  # never started
            d.update(game_over=True, version=self.version, public_version=self.public_version)
            return new
        for name in self._PUBLIC_ARRAYS + ("hands", "committed", "set_aside"):
            d[name] = src[name].copy()
        d["rng"] = copy_rng(self.rng)
        d["fixed_deals"] = list(self.fixed_deals)
        d["bout_points"] = [p.copy() for p in self.bout_points]
        d["actions"] = list(self.actions)
        d["deals_used"] = list(self.deals_used)
        d["last_results"] = list(self.last_results)
        d["clash_stacks"] = [list(s) for s in self.clash_stacks]
        d["decks"] = [list(s) for s in self.decks]
        d["num_committed"] = list(self.num_committed)
        for name in ("bout", "game_over", "round", "version", "public_version"):
            d[name] = src[name]
        return new

    def determinize(self, seat: int, rng: np.random.Generator) -> Fight5Game:
        """A game equal to this one in everything ``seat`` observed, every hidden part drawn from ``rng``.

        What ``seat`` observes: the config, scores, every past bout's points, the bout and round,
        every Clash Card face up, pots, Point Piles and last round's reveal (so every card revealed
        this bout and whose it was), how many cards each clash stack still holds, and its own hand,
        placements this round and deck contents. Hidden, and drawn here:

        * each other player's hand: a uniform draw of five cards from its *pool*, its Player Deck
          minus the cards it revealed this bout (its deck was shuffled, and every card drawn in an
          earlier round was revealed, so its hand is a uniform subset of that pool whatever its
          policy); the rest of the pool becomes its deck, in uniform order;
        * the other players' placements of this round: Fight 5 is simultaneous (the AEC order is
          an artefact of turn-based stepping), so they are returned to the hand: in the result
          every other player still has all five slots to fill (``num_committed`` 0) and a searcher
          lets its rollout policy choose them again;
        * ``seat``'s own deck order (its contents are known: its Player Deck minus what it revealed,
          holds and placed);
        * the Clash Cards not yet flipped this bout (the Clash Deck minus every card flipped): a
          uniform shuffle, dealt into the stacks (each keeping its observed size) and the set-aside
          pile;
        * future chance: the result's generator is ``default_rng`` seeded from ``rng``, and it has
          no fixed deals for later bouts.

        Reads nothing else from ``self``: not the hidden arrays, ``deals_used``, ``fixed_deals``,
        the generator or others' actions of this round (``actions`` keeps the revealed actions and
        ``seat``'s own; ``deals_used`` is left empty). So two games that differ only in what ``seat``
        cannot see give identical results for the same ``rng`` state.
        """
        if not isinstance(seat, (int, np.integer)) or not 0 <= seat < self.num_players:
            raise ValueError(f"seat must be a seat of this {self.num_players}-player game (0..{self.num_players - 1}), got {seat!r}")
        if not hasattr(self, "rng"):
            raise ValueError("determinize() needs a started game: call new_game() first")
        seat = int(seat)
        n = self.num_players
        new = self._bare_copy()
        d, src = new.__dict__, self.__dict__
        for name in self._PUBLIC_ARRAYS:
            d[name] = src[name].copy()
        d["bout_points"] = [p.copy() for p in self.bout_points]
        d["last_results"] = list(self.last_results)
        for name in ("bout", "game_over", "round", "version", "public_version"):
            d[name] = src[name]
        d["fixed_deals"] = []
        d["deals_used"] = []
        # this round's placements are the last sum(num_committed) actions; only seat's own are seen
        in_round = sum(self.num_committed)
        done = self.actions[: len(self.actions) - in_round]
        d["actions"] = done + [(s, a) for s, a in self.actions[len(done):] if s == seat]
        player_deck = self.cards.player_deck
        hands = np.zeros_like(self.hands)
        committed = np.full_like(self.committed, NO_CARD)
        num_committed = [0] * n
        decks: list[list[int]] = []
        hands[seat] = self.hands[seat]
        committed[seat] = self.committed[seat]
        num_committed[seat] = self.num_committed[seat]
        for s in range(n):
            if s == seat:
                placed = np.bincount(self.committed[seat][self.committed[seat] != NO_CARD], minlength=NUM_RANKS)
                rest = player_deck - self.revealed[seat] - self.hands[seat] - placed
                decks.append([int(r) for r in rng.permutation(np.repeat(np.arange(NUM_RANKS), rest))])
                continue
            pool = rng.permutation(np.repeat(np.arange(NUM_RANKS), player_deck - self.revealed[s]))
            in_hand = 0 if self.game_over else self.hand_size
            hands[s] = np.bincount(pool[:in_hand], minlength=NUM_RANKS)
            decks.append([int(r) for r in pool[in_hand:]])  # bottom-first, like self.decks
        d["hands"], d["committed"], d["num_committed"], d["decks"] = hands, committed, num_committed, decks
        unseen = rng.permutation(np.repeat(np.arange(NUM_RANKS), self.cards.clash_deck - self.clash_seen))
        stacks: list[list[int]] = []
        at = 0
        for stack in self.clash_stacks:
            stacks.append([int(r) for r in unseen[at: at + len(stack)]])
            at += len(stack)
        d["clash_stacks"] = stacks
        d["set_aside"] = np.bincount(unseen[at:], minlength=NUM_RANKS).astype(np.int64)
        d["rng"] = np.random.default_rng(int(rng.integers(2**63)))
        return new

    def decision_kind(self, seat: int) -> str:
        """The kind of the decision ``seat`` is asked now: the slot it fills (``DECISION_KINDS``)."""
        if self.game_over or not 0 <= seat < self.num_players or self.num_committed[seat] >= SLOTS_PER_PLAYER:
            raise ValueError(f"seat {seat!r} has no decision to make now")
        return DECISION_KINDS[self.num_committed[seat]]


_RANK_VALUE: tuple[int, ...] = tuple(RANK_VALUES.tolist())
"""RANK_VALUES as Python ints: clash_winner runs for every clash of every round."""


def clash_winner(clash_card: int, plays: dict[int, int]) -> int:
    """Clashes: who wins a clash given its Clash Card and this round's plays, or NO_CARD.

    A sole Star beats every number whatever the Clash Card; two or more Stars tie the clash even
    when a number would otherwise qualify. Otherwise the highest card wins if it is unique and at
    least the Clash Card's value (a Star Clash Card counts as 0); anything else is a tie.
    """
    stars = [s for s, r in plays.items() if r == STAR]
    if len(stars) == 1:
        return stars[0]
    if len(stars) > 1:
        return NO_CARD
    best = max(plays.values())
    leaders = [s for s, r in plays.items() if r == best]
    if len(leaders) == 1 and _RANK_VALUE[best] >= _RANK_VALUE[clash_card]:
        return leaders[0]
    return NO_CARD
