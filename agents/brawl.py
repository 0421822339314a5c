"""Scripted Brawl baselines and the observation view they use.

The agents act from the observation vector and the action mask alone, as a trained policy does;
:class:`BrawlView` decodes the vector (layout: the docstring of
``fight_envs.games.brawl.observe``) into named fields.

Agents: ``random`` (uniform legal, :class:`fight_envs.agents.base.RandomAgent`) and ``heuristic``
(:class:`HeuristicAgent`). Measured with ``fight_envs.agents.evaluate.evaluate`` (duplicate deals, every
seat rotation, default env options: CHAOS windows for holders, ``reward="rank"``), one
heuristic against random fighters, seed 11, win rate (first place; 1/k for a place shared by k)
with 95% normal intervals over deals:

* 2 fighters, 300 deals x 2 rotations: 0.856 (0.828..0.884); an even share is 0.5.
* 4 fighters, 100 deals x 4 rotations: 0.562 (0.513..0.612); an even share is 0.25.
* 8 fighters, 25 deals x 8 rotations: 0.438 (0.367..0.508); an even share is 0.125.

``tests/brawl/test_brawl_baselines.py::test_heuristic_beats_random_slow`` replays these matches.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fight_envs.agents.base import Agent, RandomAgent
from fight_envs.games.brawl.cards import (
    BLOCK,
    CHAOS,
    COUNTER,
    DEFAULT_CARDS,
    DODGE,
    JUMP,
    NUM_ATTACKS,
    NUM_CARD_TYPES,
    attacks_of_element,
    element_of,
)
from fight_envs.games.brawl.observe import OBS_SLICES
from fight_envs.games.brawl.rules import CLOCKWISE, COUNTER_CLOCKWISE, MAX_PLAYERS, PASS, Phase

GAME = "brawl"
CHAOS_THREAT = 2
"""In a reaction window, play CHAOS when an opponent still fighting holds this many cards or fewer."""


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
    unseen: np.ndarray
    """(13,) copies of each type neither in my hand, the discard pile, on the table nor spent:
    in the draw pile or another fighter's hand (standard card data assumed)."""
    phase: Phase
    attack: int
    """Card type of the attack being answered, -1 if none."""

    @classmethod
    def decode(cls, obs: np.ndarray) -> BrawlView:
        o = np.asarray(obs, dtype=np.float64)

        def block(name: str) -> np.ndarray:
            return o[OBS_SLICES[name]]

        n = round(float(block("present").sum()))
        hand = np.rint(block("hand")).astype(np.int64)
        seen = hand + np.rint(block("discard")).astype(np.int64) + np.rint(block("table")).astype(np.int64)
        seen[CHAOS] += round(float(o[OBS_SLICES["chaos_spent"].start]))
        attack = block("attack")
        return cls(
            num_players=n,
            hand=hand,
            hand_sizes=np.rint(block("hand_sizes")[:n]).astype(np.int64),
            fighting=block("fighting")[:n] > 0.5,
            unseen=np.maximum(DEFAULT_CARDS.deck - seen, 0),
            phase=Phase(int(block("phase").argmax())),
            attack=int(attack.argmax()) if attack.max() > 0 else -1,
        )

    def next_fighter(self, step: int) -> int:
        """Relative seat of the next fighter still fighting going clockwise (+1) or not (-1)."""
        n = self.num_players
        for k in range(1, n):
            s = (step * k) % n
            if self.fighting[s]:
                return s
        return 0


class HeuristicAgent(Agent):
    """Shed cards fast, make opponents draw, keep CHAOS for when it hurts.

    * Attacking: the attack type with the fewest unseen copies (least likely to be matched, which
      would make me draw), preferring an element where I hold both PUNCH and KICK (so a DODGE
      can be answered).
    * Defending: COUNTER or JUMP when a follow-up attack is in hand (two cards shed), else the
      matching attack (the aggressor draws), BLOCK, DODGE, a bare JUMP; take the hit last.
    * Follow-ups: always attack back when able.
    * CHAOS: in a reaction window only when an opponent is close to going out (everyone else
      draws); in my own decisions when the alternative is drawing.
    * Direction after CHAOS: towards the nearer fighter with fewer cards, who is then attacked.
    """

    name = "heuristic"
    version = 1
    game = GAME

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("no legal action: the action mask is all zeros")
        if legal.size == 1:
            return int(legal[0])
        v = BrawlView.decode(observation)
        m = np.asarray(action_mask) > 0
        if v.phase == Phase.CHAOS_DIRECTION:
            cw, ccw = v.next_fighter(1), v.next_fighter(-1)
            return CLOCKWISE if v.hand_sizes[cw] <= v.hand_sizes[ccw] else COUNTER_CLOCKWISE
        if v.phase == Phase.WINDOW:
            others = [s for s in range(1, v.num_players) if v.fighting[s]]
            threat = min((int(v.hand_sizes[s]) for s in others), default=99)
            return CHAOS if threat <= CHAOS_THREAT and m[CHAOS] else PASS
        attacks = [c for c in range(NUM_ATTACKS) if m[c]]
        if v.phase == Phase.DEFEND:
            follow_any = v.hand[:NUM_ATTACKS].sum() > 0
            follow_elem = any(v.hand[c] > 0 for c in attacks_of_element(element_of(v.attack)))
            matching = v.attack if v.attack >= 0 and m[v.attack] else -1
            if m[COUNTER] and follow_any:
                return COUNTER
            if m[JUMP] and follow_elem and v.hand[v.attack] == 0:
                return JUMP
            for choice in (matching, BLOCK, DODGE, JUMP, COUNTER):
                if choice >= 0 and m[choice]:
                    return int(choice)
            return CHAOS if m[CHAOS] else PASS
        if attacks:
            return self._best_attack(v, attacks)
        if m[CHAOS] and v.phase == Phase.ATTACK:
            return CHAOS  # the alternative is drawing
        return PASS

    def _best_attack(self, v: BrawlView, attacks: list[int]) -> int:
        def key(c: int) -> tuple[float, float, float]:
            punch, kick = attacks_of_element(element_of(c))
            both = v.hand[punch] > 0 and v.hand[kick] > 0
            return (float(v.unseen[c]), -float(both), -float(v.hand[c]))

        best = min(key(c) for c in attacks)
        tied = [c for c in attacks if key(c) == best]
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
