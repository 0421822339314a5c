"""Scripted Brawl baselines and the observation view they use.

The agents act from the observation vector and the action mask alone, as a trained policy does;
:class:`BrawlView` decodes the vector (layout: the docstring of
``fight_envs.games.brawl.observe``) into named fields.

Agents: ``random`` (uniform legal, :class:`fight_envs.agents.base.RandomAgent`), ``heuristic``
(:class:`HeuristicAgent`, version 5, written for the standard rules) and two one-line rules,
``first_legal`` (the lowest-numbered legal action) and ``never_pass`` (random, but never PASS
when a card can be played). Measured with ``fight-envs eval`` (``fight_envs.agents.evaluate``:
duplicate deals, every seat rotation, default env options: the standard rules with the 93-card
deck and combos of up to two cards, ``combo="multi"``, ``reward="rank"``), one heuristic against
copies of the other agent, seed 2026, win rate (first place; 1/k for a place shared by k) with
95% normal intervals over deals, 2,000 games each:

* 2 fighters: against ``first_legal`` 0.689 (0.668..0.709), ``never_pass`` 0.788 (0.770..0.806),
  ``random`` 0.963 (0.955..0.971); an even share is 0.5. Randomising one kind of its decisions
  (``fight-envs ablate``) costs it 22 points (``attack``), 22 (``defend``) and 11 (``combo``); at
  three fighters 20 (``defend``), 8.3 (``combo``) and 7.4 (``attack``).
* 5 and 8 fighters (version 5; its changes play only at tables of four or more, so the 2- and
  3-fighter figures above are version 4's and stay this agent's): on fresh deals, seed 2028,
  8,000 games a pairing, see ``seeds/brawl.md`` section 9 for the figures and commands. Version 4
  there (seed 2026, 2,000 games): 5 fighters ``first_legal`` 0.328, ``never_pass`` 0.312 (even
  0.2); 8 fighters 0.215 / 0.200 (even 0.125).

With the previous default, ``combo="single"`` (version 3, the same play there): 2 fighters
``first_legal`` 0.781, ``never_pass`` 0.904, ``random`` 0.982; 5 fighters 0.359 / 0.392; 8
fighters 0.204 / 0.244; randomising ``attack`` / ``defend`` / ``follow_up`` cost 38 / 29 / 4.0
points at two fighters. ``seeds/brawl.md`` section 9 holds the commands, the ablation and the
search figures.
``tests/brawl/test_brawl_baselines.py`` replays shorter matches of the same kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fight_envs.agents.base import Agent, RandomAgent
from fight_envs.games.brawl.cards import (
    BLOCK,
    CHAOS,
    CLASSIC_CARDS,
    COUNTER,
    DEFAULT_CARDS,
    DODGE,
    JUMP,
    NUM_ATTACKS,
    NUM_CARD_TYPES,
    attacks_of_element,
    element_of,
)
from fight_envs.games.brawl.observe import OBS_HIGH, OBS_SLICES, encode
from fight_envs.games.brawl.rules import (
    CLOCKWISE,
    COUNTER_CLOCKWISE,
    MAX_PLAYERS,
    NUM_ACTIONS,
    NO_CARD,
    NO_SEAT,
    PASS,
    BrawlGame,
    Phase,
)

GAME = "brawl"
CHAOS_THREAT = 2
"""In a reaction window, play CHAOS when an opponent still fighting holds this many cards or fewer."""
FOLLOW_RISK = 0.5
"""Defend with COUNTER or JUMP when the follow-up attack's chance of being answered is below this."""
BIG_TABLE = 4
"""Version 5: at tables of this many fighters or more (the seats of the game, fixed for the whole
game; the observation's ``present`` block) the opening attack and every follow-up attack are chosen
by the expected number of my cards the target matches, the combo's second card counted
(``HeuristicAgent._combo_matches``). Smaller tables play version 4 exactly
(``tests/brawl/test_brawl_heuristic_pin.py``)."""
BIG_FOLLOW_RISK = 0.0
"""``FOLLOW_RISK`` at tables of ``BIG_TABLE`` or more: 0, so there a COUNTER or JUMP is never played
before the matching attack, BLOCK or DODGE for the follow-up it allows (at eight fighters against
``never_pass``, 250 deals x 8 seats, seed 2026, with the attack choice of version 5: 0 gave 0.220,
0.5 (version 4's) 0.212, always 0.174)."""
COMBO_RISK = 1.0
"""``combo="multi"``: add a card to my combo when the defender's chance of matching it is below this
(1.0: unless it is sure to be matched). At two fighters (the open showdown) every chance is 0 or 1,
so any value in (0, 1] plays the same; at five, against four ``first_legal`` over 200 deals x 5
seats, seed 2026: 0.5 gave 0.307, 0.67 0.319, 0.85 0.337, always adding 0.343 (intervals +-0.03)."""
_DECKS = {int(c.deck.sum()): c.deck for c in (DEFAULT_CARDS, CLASSIC_CARDS)}
"""The package's decks by size: the observation holds every card's place but not the deck, and the
total (hands, piles, table, spent CHAOS) tells the standard deck from the classic one."""


def deck_of_size(total: int) -> np.ndarray:
    """The deck of ``total`` cards the package ships (standard or classic); the standard deck otherwise."""
    return _DECKS.get(int(total), DEFAULT_CARDS.deck)


_S = {name: sl for name, sl in OBS_SLICES.items()}
_ROW = NUM_CARD_TYPES


@dataclass(frozen=True)
class BrawlView:
    """One Brawl observation, decoded. Seats are relative: 0 is me, 1 my left neighbour, ..."""

    num_players: int
    hand: np.ndarray
    """(13,) my cards per type."""
    hand_sizes: np.ndarray
    """(n,) cards held by each relative seat."""
    fighting: np.ndarray
    """(n,) bool: relative seats still fighting."""
    known: np.ndarray
    """(n, 13) cards the table knows to be in each relative seat's hand (row 0, mine, is zero)."""
    unseen: np.ndarray
    """(13,) copies of each type neither in my hand, the discard pile, on the table, spent nor known
    to be in a hand: in the draw pile or another fighter's hidden cards (the package's standard or
    classic deck, told apart by the number of cards in play: ``deck_of_size``)."""
    phase: Phase
    attack: int
    """Card type of the attack being answered, -1 if none."""
    attacker: int
    """Relative seat of the battle's current aggressor, -1 if none."""
    defender: int
    """Relative seat of the battle's current defender, -1 if none."""
    combo: tuple
    """(13,) ``combo="multi"``: the combo's cards not yet answered, per type (zeros otherwise)."""
    battle_attacks: int
    direction_cw: bool
    lists: tuple = field(default=(), repr=False, compare=False)
    """The same counts as Python lists (hand, hand sizes, known rows, unseen, fighting), which the
    heuristic reads: indexing numpy arrays one element at a time cost over half of its time."""
    cache: dict = field(default_factory=dict, repr=False, compare=False)
    """``p_answer`` results of this view, by (seat, cards): an attack's key asks the same ones again."""

    @classmethod
    def decode(cls, obs: np.ndarray) -> BrawlView:
        a = np.asarray(obs)
        o = a.tolist()
        r = np.rint(a).astype(np.int64).tolist()  # the counts, rounded once

        def ints(name: str) -> list[int]:
            return r[_S[name]]

        n = sum(r[_S["present"]])
        hand = ints("hand")
        flat = ints("known")
        known = [flat[k * _ROW:(k + 1) * _ROW] for k in range(n)]
        discard, table = ints("discard"), ints("table")
        spent = r[_S["chaos_spent"].start]
        sizes = ints("hand_sizes")[:n]
        fighting = [x > 0.5 for x in o[_S["fighting"]][:n]]

        def first_max(name: str) -> int:
            block = o[_S[name]]
            top = max(block)
            return block.index(top) if top > 0 else -1

        phase = o[_S["phase"]]
        return cls._of(hand, sizes, fighting, known, discard, table, spent, r[_S["draw_pile"].start],
                       phase=Phase(phase.index(max(phase))), attack=first_max("attack"), attacker=first_max("attacker"),
                       defender=first_max("defender"), combo=tuple(ints("combo")),
                       battle_attacks=r[_S["battle_attacks"].start], direction_cw=o[_S["direction"].start] > 0.5)

    @classmethod
    def _of(cls, hand: list[int], sizes: list[int], fighting: list[bool], known: list[list[int]], discard: list[int],
            table: list[int], spent: int, draw_pile: int, **battle: Any) -> BrawlView:
        """The view from its counts as lists (relative seats), ``unseen`` computed here; ``battle``: the
        phase, attack, attacker, defender, combo, battle_attacks and direction_cw fields."""
        seen = [h + d + t + k for h, d, t, k in zip(hand, discard, table, map(sum, zip(*known)))]  # C loops over the rows
        seen[CHAOS] += spent
        total = sum(sizes) + draw_pile + spent + sum(discard) + sum(table)
        deck = deck_of_size(total).tolist()
        unseen = [max(deck[c] - seen[c], 0) for c in range(_ROW)]
        n = len(sizes)
        return cls(
            num_players=n,
            hand=np.array(hand, dtype=np.int64),
            hand_sizes=np.array(sizes, dtype=np.int64),
            fighting=np.array(fighting, dtype=bool),
            known=np.array(known, dtype=np.int64).reshape(n, _ROW),
            unseen=np.array(unseen, dtype=np.int64),
            lists=(hand, sizes, known, unseen, fighting),
            **battle,
        )

    @classmethod
    def from_game(cls, game: BrawlGame, seat: int) -> BrawlView:
        """``decode(encode(game, seat))`` read from the game itself, without building the observation:
        the same fields, number for number (``tests/brawl/test_brawl_view_from_game.py`` compares
        them over random games at 2 to 8 fighters, both rule sets). The search's rollouts play the
        heuristic this way (``HeuristicAgent.act_game``). A deck of more than ``OBS_HIGH`` cards
        (custom card data, whose observation is clipped) is decoded from the observation."""
        if game.cards.deck_size > OBS_HIGH:
            return cls.decode(encode(game, seat))
        n = game.num_players
        rel = [(seat + k) % n for k in range(n)]
        hand = game.hands[seat].tolist()
        all_sizes = game.sizes
        sizes = [all_sizes[s] for s in rel]
        active = game.active.tolist()
        fighting = [bool(active[s]) for s in rel]
        open_hands = game.showdown and game.config.showdown == "open" and game.phase != Phase.OVER
        public = (game.hands if open_hands else game.known).tolist()
        zero = [0] * _ROW
        known = [zero] + [public[s] for s in rel[1:]]
        discard = game.discard_counts.tolist()
        table = [0] * _ROW
        for c in game.table:
            table[c] += 1
        b = game.battle
        combo = [0] * _ROW
        for c in b.pending or ():
            combo[c] += 1
        return cls._of(hand, sizes, fighting, known, discard, table, game.chaos_spent, len(game.draw_pile),
                       phase=Phase(int(game.phase)), attack=b.attack_card if b.attack_card != NO_CARD else -1,
                       attacker=(b.attacker - seat) % n if b.attacker != NO_SEAT else -1,
                       defender=(b.defender - seat) % n if b.defender != NO_SEAT else -1,
                       combo=tuple(combo), battle_attacks=int(b.attacks), direction_cw=game.direction == 1)

    def _lists(self) -> tuple:
        if self.lists:
            return self.lists
        lists = (self.hand.tolist(), self.hand_sizes.tolist(), self.known.tolist(), self.unseen.tolist(),
                 self.fighting.tolist())
        object.__setattr__(self, "lists", lists)
        return lists

    def next_fighter(self, step: int) -> int:
        """Relative seat of the next fighter still fighting going clockwise (+1) or not (-1)."""
        n = self.num_players
        fighting = self._lists()[4]
        for k in range(1, n):
            s = (step * k) % n
            if fighting[s]:
                return s
        return 0

    def p_answer(self, seat: int, cards: tuple[int, ...]) -> float:
        """Probability that relative ``seat`` holds at least one card of the types ``cards``
        (known cards count as held; its hidden cards drawn without replacement from ``unseen``)."""
        key = (seat, cards)
        p = self.cache.get(key)
        if p is None:
            p = self.cache[key] = self._p_answer(seat, cards)
        return p

    def p_copies(self, seat: int, card: int, copies: int) -> float:
        """Probability that relative ``seat`` holds at least ``copies`` copies of ``card`` (known
        copies count as held; its hidden cards drawn without replacement from ``unseen``)."""
        _, sizes, known, unseen, _ = self._lists()
        need = copies - known[seat][card]
        if need <= 0:
            return 1.0
        hidden = sizes[seat] - sum(known[seat])
        pool, good = sum(unseen), unseen[card]
        # more hidden cards than unseen ones happens only for my own seat (relative 0), whose hand the unseen
        # pool leaves out: the follow-up after a DODGE scores against it (the known flaw in HeuristicAgent)
        # and at tables of BIG_TABLE this divided by comb(pool, hidden) = 0. Drawing the whole pool is the limit.
        hidden = min(hidden, pool)
        if hidden < need or good < need:
            return 0.0
        # P(X >= need), X hypergeometric(pool, good, hidden)
        from math import comb
        total = comb(pool, hidden)
        below = sum(comb(good, x) * comb(pool - good, hidden - x) for x in range(need))
        return 1.0 - below / total

    def _p_answer(self, seat: int, cards: tuple[int, ...]) -> float:
        _, sizes, known, unseen, _ = self._lists()
        row = known[seat]
        if any(row[c] > 0 for c in cards):
            return 1.0
        hidden = sizes[seat] - sum(row)
        pool = sum(unseen)
        good = sum(unseen[c] for c in cards)
        if hidden <= 0 or good == 0:
            return 0.0
        if hidden > pool - good:
            return 1.0
        p_none = 1.0
        for k in range(hidden):  # C(pool-good, hidden) / C(pool, hidden)
            p_none *= (pool - good - k) / (pool - k)
        return 1.0 - p_none


_ANSWERS = (JUMP, DODGE, COUNTER, BLOCK, CHAOS)
"""What answers any punch or kick besides the matching attack."""


class HeuristicAgent(Agent):
    """Make the opponent draw: attack where it cannot answer, answer where it pays, keep CHAOS for when it hurts.

    Version 5 (version 2, the standard rules' public memory: cards known in a hand, the open
    showdown; version 3 reads which deck is in play, standard or classic, from the number of cards
    the observation places, so its counting is right under both rule sets; version 4: the same
    code, its combo play now the default play since the standard rules play ``combo="multi"``;
    version 5: two changes at tables of ``BIG_TABLE`` (4) fighters or more, where hands are hidden
    and every "any answer" chance is close to 1, listed below; smaller tables play version 4
    exactly, pinned by ``tests/brawl/test_brawl_heuristic_pin.py``):

    * ``p_answer(seat, cards)``: the probability that a fighter holds one of ``cards``, exact when
      its hand is known (the open showdown), else hypergeometric over the unseen cards (the deck
      less every card the observation places: ``BrawlView.unseen``).
    * Attacking (and every follow-up attack): the attack the target is least likely to answer
      (matching copy, JUMP, DODGE, COUNTER, BLOCK or CHAOS), then the one least likely to be
      matched, then one whose element I hold twice (a DODGE can be answered). At tables of four
      or more, first of all the attack with the fewest expected matched cards less cards shed
      (``_combo_matches``: the chance it is matched, plus, when I hold a second card of its
      element, that card's chance less one), which favours openings that can become combos.
    * Defending: COUNTER or JUMP when it lets me follow with an attack the aggressor is unlikely
      to answer (below ``FOLLOW_RISK``; at tables of four or more ``BIG_FOLLOW_RISK`` = 0, never);
      else the matching attack (the aggressor draws), BLOCK,
      DODGE, a bare JUMP or COUNTER; CHAOS before taking the hit; take the hit last.
    * Follow-ups: attack back when able, with the attack chosen as above against the fighter
      attacked. One known flaw, kept so the measured figures stay this agent's: after a DODGE the
      aggressor's follow-up (phase ``DODGE_BACK``) is scored against its own seat instead of the
      dodger's (the observation's ``attacker`` is then the aggressor itself), so its choice between
      the element's PUNCH and KICK there ignores the dodger's hand (about 0.3 such decisions a
      two-fighter game; ``seeds/brawl.md`` section 9). Declining follow-ups that are sure to be
      answered was measured and played no better.
    * CHAOS: in a reaction window when an opponent still fighting is close to going out
      (``CHAOS_THREAT`` cards or fewer); in my own decisions when the alternative is drawing.
    * Direction after CHAOS: towards the nearer fighter with fewer cards, who is then attacked.
    * Combos (``combo="multi"``, the standard rules' default; phase ``COMBO``): add the attack of the led element the defender is least
      likely to match (``p_copies``: it needs one copy more than the combo already asks of it)
      while that chance is below ``COMBO_RISK``, or when it is my last card and may go
      unmatched; else stop. Against a
      combo it answers card for card as against one attack (the order above), so it matches what
      it can and then spends a BLOCK, DODGE, JUMP or COUNTER on the rest.
    """

    name = "heuristic"
    version = 5
    game = GAME

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("no legal action: the action mask is all zeros")
        if legal.size == 1:
            return int(legal[0])
        return self._act(BrawlView.decode(observation), (np.asarray(action_mask) > 0).tolist())

    def act_game(self, game: BrawlGame, seat: int) -> int:
        """``act(*observe_state(game, seat))`` without building the observation (the same action and
        the same draws of this agent's generator): the view is read from the game
        (``BrawlView.from_game``). The search's rollouts call it when the information set's
        observation is the env's standard one."""
        legal = game.legal_tuple(seat)
        if not legal:
            raise ValueError("no legal action: the action mask is all zeros")
        if len(legal) == 1:
            return legal[0]
        m = [False] * NUM_ACTIONS
        for a in legal:
            m[a] = True
        return self._act(BrawlView.from_game(game, seat), m)

    def _act(self, v: BrawlView, m: list[bool]) -> int:
        hand, sizes, _, _, fighting = v._lists()
        if v.phase == Phase.CHAOS_DIRECTION:
            cw, ccw = v.next_fighter(1), v.next_fighter(-1)
            return CLOCKWISE if sizes[cw] <= sizes[ccw] else COUNTER_CLOCKWISE
        if v.phase == Phase.WINDOW:
            threat = min((sizes[s] for s in range(1, v.num_players) if fighting[s]), default=99)
            return CHAOS if threat <= CHAOS_THREAT and m[CHAOS] else PASS
        attacks = [c for c in range(NUM_ATTACKS) if m[c]]
        if v.phase == Phase.COMBO:
            return self._extend_combo(v, attacks)
        if v.phase == Phase.DEFEND:
            aggressor = v.attacker if v.attacker > 0 else v.next_fighter(1)
            matching = v.attack if v.attack >= 0 and m[v.attack] else -1
            mine = [c for c in range(NUM_ATTACKS) if hand[c] > 0]
            follow_risk = BIG_FOLLOW_RISK if v.num_players >= BIG_TABLE else FOLLOW_RISK
            if m[COUNTER] and mine and min(self._risk(v, aggressor, c) for c in mine) < follow_risk:
                return COUNTER
            if m[JUMP] and v.attack >= 0:
                follow = [c for c in attacks_of_element(element_of(v.attack)) if hand[c] > 0]
                if follow and min(self._risk(v, aggressor, c) for c in follow) < follow_risk:
                    return JUMP
            for choice in (matching, BLOCK, DODGE, JUMP, COUNTER):
                if choice >= 0 and m[choice]:
                    return int(choice)
            return CHAOS if m[CHAOS] else PASS
        if attacks:
            target = self._attack_target(v) if v.phase == Phase.ATTACK else max(v.attacker, 0)
            return self._best_attack(v, attacks, target)
        if m[CHAOS] and v.phase == Phase.ATTACK:
            return CHAOS  # the alternative is drawing
        return PASS

    def _extend_combo(self, v: BrawlView, attacks: list[int]) -> int:
        """``combo="multi"``: add the attack the defender is least likely to match (it needs one
        more copy than the combo already asks of it) while that chance is below ``COMBO_RISK``, or
        when the card would empty my hand and might not be matched; else PASS (the combo is complete)."""
        if not attacks:
            return PASS
        target = v.defender if v.defender > 0 else v.next_fighter(1 if v.direction_cw else -1)
        hand = v._lists()[0]
        risk = {c: v.p_copies(target, c, v.combo[c] + 1) for c in attacks}
        best = min(attacks, key=lambda c: (round(risk[c], 6), c))
        if risk[best] < COMBO_RISK or (sum(hand) == 1 and risk[best] < 1.0):
            return int(best)
        return PASS

    @staticmethod
    def _attack_target(v: BrawlView) -> int:
        """The fighter my opening attack goes to: the next one in the direction of play (decoded
        from the observation's direction block)."""
        return v.next_fighter(1 if v.direction_cw else -1)

    @staticmethod
    def _risk(v: BrawlView, target: int, card: int) -> float:
        return v.p_answer(target, (card,) + _ANSWERS)

    @staticmethod
    def _combo_matches(v: BrawlView, hand: list[int], target: int, c: int) -> float:
        """Tables of ``BIG_TABLE`` or more: the cards of mine ``target`` is expected to match if I
        open with ``c`` and (when I hold another card of its element) add the second card it is
        least likely to match, less one for that second card shed: lower is better."""
        expected = v.p_answer(target, (c,))
        punch, kick = attacks_of_element(element_of(c))
        rest = [x for x in (punch, kick) if hand[x] - (x == c) > 0]
        if rest:
            expected += min(v.p_copies(target, x, 1 + (x == c)) for x in rest) - 1.0
        return expected

    def _best_attack(self, v: BrawlView, attacks: list[int], target: int) -> int:
        hand = v._lists()[0]
        big = v.num_players >= BIG_TABLE

        def key(c: int) -> tuple[float, ...]:
            punch, kick = attacks_of_element(element_of(c))
            both = hand[punch] > 0 and hand[kick] > 0
            k = (round(self._risk(v, target, c), 6), round(v.p_answer(target, (c,)), 6), -float(both),
                 -float(hand[c]))
            return (round(self._combo_matches(v, hand, target, c), 6),) + k if big else k

        keys = {c: key(c) for c in attacks}
        best = min(keys.values())
        tied = [c for c in attacks if keys[c] == best]
        return int(tied[int(self.rng.integers(len(tied)))])


class FirstLegalAgent(Agent):
    """One-line rule: always the lowest-numbered legal action."""

    name = "first_legal"
    game = GAME

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("no legal action: the action mask is all zeros")
        return int(legal[0])


class NeverPassAgent(Agent):
    """One-line rule: uniformly random among the legal actions, but never PASS when a card can be played."""

    name = "never_pass"
    game = GAME

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("no legal action: the action mask is all zeros")
        cards = legal[legal < PASS]
        pick = cards if cards.size else legal
        return int(pick[self.rng.integers(pick.size)])


def baselines() -> dict[str, type[Agent]]:
    """Baseline classes of Brawl by name."""
    return {"random": RandomAgent, "heuristic": HeuristicAgent, "first_legal": FirstLegalAgent,
            "never_pass": NeverPassAgent}


__all__ = ["MAX_PLAYERS", "NUM_CARD_TYPES", "BrawlView", "FirstLegalAgent", "HeuristicAgent", "NeverPassAgent",
           "baselines"]
