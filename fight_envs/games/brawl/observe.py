"""Brawl observation encoder: what one fighter sees, as a float32 vector, egocentric.

Seats are relative to the observer: relative seat ``k`` is the fighter ``k`` places clockwise
of it (``k = 0`` is the observer). Every per-seat block has ``MAX_PLAYERS = 8`` entries, zero
beyond the table's size, so one network plays every player count. Hidden information (the other
fighters' hands, the order and make-up of the draw pile) never enters; what does is public
(hand sizes, the discard pile, the cards on the table, everything played) or the observer's own.

| block | size | meaning |
| --- | --- | --- |
| ``hand`` | 13 | my cards, count per card type (0..7 attacks FIRE PUNCH, FIRE KICK, ..., 8 JUMP, 9 DODGE, 10 COUNTER, 11 BLOCK, 12 CHAOS) |
| ``hand_sizes`` | 8 | cards held by each relative seat |
| ``present`` | 8 | 1 for each relative seat at the table |
| ``fighting`` | 8 | 1 for each relative seat still fighting (not MASTER) |
| ``place`` | 8 | finishing place / num_players of each MASTER (0 while fighting) |
| ``draw_pile`` | 1 | cards in the draw pile |
| ``discard`` | 13 | discard pile, count per card type |
| ``table`` | 13 | cards of the current battle on the table, count per type |
| ``chaos_spent`` | 1 | CHAOS cards played (out of the game) |
| ``direction`` | 2 | one-hot: clockwise, counter-clockwise |
| ``phase`` | 9 | one-hot ``rules.Phase`` of the current decision |
| ``attack`` | 13 | one-hot card type of the attack being answered (zeros if none) |
| ``attacker`` | 8 | relative seat of the current aggressor (one-hot) |
| ``defender`` | 8 | relative seat of the current defender |
| ``opener`` | 8 | relative seat of the fighter who opened the battle |
| ``actor`` | 8 | relative seat of the fighter deciding now |
| ``last_action`` | 16 | one-hot of the last action taken by anyone |
| ``last_actor`` | 8 | relative seat that took it |
| ``showdown`` | 1 | 1 once only two fighters are left |
| ``progress`` | 1 | decisions taken / step limit |
"""

from __future__ import annotations

import numpy as np

from fight_envs.games.brawl.cards import NUM_CARD_TYPES
from fight_envs.games.brawl.rules import MAX_PLAYERS, NO_CARD, NO_SEAT, NUM_ACTIONS, NUM_PHASES, BrawlGame

_LAYOUT: list[tuple[str, int]] = [
    ("hand", NUM_CARD_TYPES), ("hand_sizes", MAX_PLAYERS), ("present", MAX_PLAYERS), ("fighting", MAX_PLAYERS),
    ("place", MAX_PLAYERS), ("draw_pile", 1), ("discard", NUM_CARD_TYPES), ("table", NUM_CARD_TYPES),
    ("chaos_spent", 1), ("direction", 2), ("phase", NUM_PHASES), ("attack", NUM_CARD_TYPES),
    ("attacker", MAX_PLAYERS), ("defender", MAX_PLAYERS), ("opener", MAX_PLAYERS), ("actor", MAX_PLAYERS),
    ("last_action", NUM_ACTIONS), ("last_actor", MAX_PLAYERS), ("showdown", 1), ("progress", 1),
]
OBS_SLICES: dict[str, slice] = {}
_start = 0
for _name, _size in _LAYOUT:
    OBS_SLICES[_name] = slice(_start, _start + _size)
    _start += _size
OBS_SIZE = _start
OBS_HIGH = 200.0
"""Upper bound of every feature (a count never exceeds the deck, at most 200 cards by design)."""


def encode(game: BrawlGame, seat: int) -> np.ndarray:
    """The observation vector of ``seat``."""
    n = game.num_players
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    rel = [(seat + k) % n for k in range(n)]  # relative seat k -> absolute seat

    def put(name: str, values: np.ndarray | list[float]) -> None:
        sl = OBS_SLICES[name]
        obs[sl.start:sl.start + len(values)] = values

    def one_hot_seat(name: str, absolute: int) -> None:
        if absolute != NO_SEAT:
            obs[OBS_SLICES[name].start + (absolute - seat) % n] = 1.0

    put("hand", game.hands[seat])
    put("hand_sizes", game.hands.sum(axis=1)[rel])
    put("present", np.ones(n))
    put("fighting", game.active[rel])
    put("place", game.place[rel] / n)
    obs[OBS_SLICES["draw_pile"].start] = len(game.draw_pile)
    put("discard", game.discard_counts)
    if game.table:
        put("table", np.bincount(np.array(game.table), minlength=NUM_CARD_TYPES))
    obs[OBS_SLICES["chaos_spent"].start] = game.chaos_spent
    obs[OBS_SLICES["direction"].start + (0 if game.direction == 1 else 1)] = 1.0
    obs[OBS_SLICES["phase"].start + int(game.phase)] = 1.0
    b = game.battle
    if b.attack_card != NO_CARD:
        obs[OBS_SLICES["attack"].start + b.attack_card] = 1.0
    one_hot_seat("attacker", b.attacker)
    one_hot_seat("defender", b.defender)
    one_hot_seat("opener", b.opener)
    one_hot_seat("actor", game.actor)
    if game.events:
        last = game.events[-1]
        obs[OBS_SLICES["last_action"].start + last.action] = 1.0
        one_hot_seat("last_actor", last.seat)
    obs[OBS_SLICES["showdown"].start] = float(game.showdown)
    obs[OBS_SLICES["progress"].start] = game.steps / game.config.step_limit
    # Custom card data may hold far more cards than the standard deck; clip so the observation
    # always lies inside its Box (only card counts above OBS_HIGH are affected).
    np.minimum(obs, OBS_HIGH, out=obs)
    return obs
