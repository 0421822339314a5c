"""What the drawing tests share: each game's env built for pictures, random play, and a copy of a
game that differs from it only in what one seat cannot see."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from fight_envs.registry import make

ENVS = ("fight5_v0", "brawl_v0", "fifth_earth_v0", "fight_klub_v0")


DEFAULTS: dict[str, dict[str, Any]] = {"brawl_v0": {"num_players": 3}}
"""Options the drawing tests use unless told otherwise (Brawl with two is an open showdown from the start)."""


def raw(name: str, **options: Any) -> Any:
    return make(name, api="raw", **{**DEFAULTS.get(name, {}), **options})


def play_random(env: Any, steps: int, seed: int = 0) -> int:
    """Up to ``steps`` uniform-random legal AEC steps; returns how many were taken."""
    rng = np.random.default_rng(seed)
    taken = 0
    while taken < steps and env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        mask = env.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        taken += 1
    return taken


def finished_record(name: str, seed: int, **options: Any) -> dict[str, Any]:
    env = raw(name, **options)
    env.reset(seed=seed)
    play_random(env, 10**6, seed)
    return env.game_record()


def hidden_variant(name: str, game: Any, other: int) -> Any:
    """A deep copy of ``game`` with seat ``other``'s hidden cards and the hidden piles changed.

    Changed: ``other``'s hand (same size, other cards), its face-down cards, the order of
    face-down piles. Seen by any seat but ``other``, the two games look the same.
    """
    g = copy.deepcopy(game)
    if name == "fight5_v0":
        g.hands[other] = np.roll(g.hands[other], 3)
        g.committed[other] = np.where(g.committed[other] >= 0, (g.committed[other] + 1) % 13, g.committed[other])
        g.decks[other] = list(reversed(g.decks[other]))
        g.clash_stacks = [list(reversed(s)) for s in g.clash_stacks]
    elif name == "brawl_v0":
        # only the part of the hand the table does not know (``public_hand``: all of it in an open showdown)
        known = g.public_hand(other).copy()
        g.hands[other] = known + np.roll(g.hands[other] - known, 5)
        g.draw_pile = list(reversed(g.draw_pile))
    elif name == "fifth_earth_v0":
        g.hands[other] = np.roll(g.hands[other], 37)
        if g.battle is not None and other in g.battle.laid:
            g.battle.laid[other] = [(c + 37) % 100 for c in g.battle.laid[other]]
    elif name == "fight_klub_v0":
        p = g.players[other]
        ids = sorted(g.pool.support)
        p.hand = [ids[(ids.index(c) + 1) % len(ids)] for c in p.hand]
        p.draw_deck = list(reversed(p.draw_deck))
        p.fight_stack = list(reversed(p.fight_stack))
    else:
        raise KeyError(name)
    return g
