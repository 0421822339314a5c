"""Egocentric observation encoder for Fight 5: what one seat may know, as a flat float32 vector.

Everything is relative to the observer: relative seat 0 is the observer, 1 the player on its
left (next clockwise), and so on. Shapes are padded to the largest game (5 players, 11 clashes)
so one network can play every player count; padding is zero and flagged by ``present`` bits.

Only public information and the observer's own private information is encoded: the observer's
hand and the cards it has placed this round; face-up clash cards, pots, last round's reveal,
point piles, scores. Hidden things (others' hands and face-down placements, the order of any
deck or stack) never enter. "What a player still has to play" is public: its deck composition
minus the cards it revealed this bout.

Layout (``OBS_LAYOUT`` lists the same slices; a test checks the total equals the space):

| slice | size | meaning |
| --- | --- | --- |
| ``clashes`` | 11 x 39 | one block per clash: the observer's five slots first, in slot order (right-a, right-b, middle, left-a, left-b), then the other pairs' clashes in clockwise order, then padding |
|   ``.present`` | 1 | 1 if this block is a real clash |
|   ``.clash_card`` | 14 | one-hot of the face-up Clash Card: ranks 2..13, star, then "none" |
|   ``.stack_left`` | 1 | face-down cards left in the stack / 5 |
|   ``.pot`` | 13 | cards left in play there from earlier ties, by rank, / 5 |
|   ``.sharers`` | 5 | relative seats that share the clash |
|   ``.last_plays`` | 5 | card each relative seat revealed there last round: (rank index + 1) / 13, 0 if none |
| ``hand`` | 13 | observer's cards in hand not yet placed, by rank, / 2 |
| ``my_slots`` | 5 x 14 | card the observer placed in each slot this round (one-hot, last column "none") |
| ``current_slot`` | 5 | one-hot of the slot the observer fills now (all zero when not acting) |
| ``unrevealed`` | 5 x 13 | per relative seat: its deck's cards not yet revealed this bout, by rank, / 2 |
| ``pile_cards`` | 5 | per relative seat: cards in its Point Pile / 25 |
| ``pile_points`` | 5 | per relative seat: its Point Pile's worth without the bonus / 100 |
| ``score`` | 5 | per relative seat: score from finished bouts / 200 |
| ``seat_present`` | 5 | 1 for relative seats that exist in this game |
| ``clash_unseen`` | 13 | Clash Deck cards not flipped this bout (in stacks or set aside), by rank, / 7 |
| ``round`` | 5 | one-hot of the round within the bout |
| ``bout`` | 2 | bouts finished / num_bouts, and 1 in the last bout |
| ``num_players`` | 4 | one-hot of 2..5 |
| ``target_score`` | 1 | target score / 1000, 0 when there is none |
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from fight_envs.games.fight5.cards import NUM_RANKS
from fight_envs.games.fight5.rules import MAX_PLAYERS, MIN_PLAYERS, NO_CARD, Fight5Game
from fight_envs.games.fight5.topology import SLOTS_PER_PLAYER, pair_clashes, topology

MAX_CLASHES = 2 * MAX_PLAYERS + 1
CARD_ONEHOT = NUM_RANKS + 1  # 13 ranks + "none"
NONE_COLUMN = NUM_RANKS

CLASH_LAYOUT: tuple[tuple[str, int], ...] = (
    ("present", 1),
    ("clash_card", CARD_ONEHOT),
    ("stack_left", 1),
    ("pot", NUM_RANKS),
    ("sharers", MAX_PLAYERS),
    ("last_plays", MAX_PLAYERS),
)
CLASH_FEATURES = sum(size for _, size in CLASH_LAYOUT)

OBS_LAYOUT: tuple[tuple[str, int], ...] = (
    ("clashes", MAX_CLASHES * CLASH_FEATURES),
    ("hand", NUM_RANKS),
    ("my_slots", SLOTS_PER_PLAYER * CARD_ONEHOT),
    ("current_slot", SLOTS_PER_PLAYER),
    ("unrevealed", MAX_PLAYERS * NUM_RANKS),
    ("pile_cards", MAX_PLAYERS),
    ("pile_points", MAX_PLAYERS),
    ("score", MAX_PLAYERS),
    ("seat_present", MAX_PLAYERS),
    ("clash_unseen", NUM_RANKS),
    ("round", 5),
    ("bout", 2),
    ("num_players", MAX_PLAYERS - MIN_PLAYERS + 1),
    ("target_score", 1),
)
OBS_SIZE = sum(size for _, size in OBS_LAYOUT)
OBS_HIGH = 100.0
"""Upper bound of the observation Box; features are clipped to it (only huge scores reach it)."""


def _slices(layout: tuple[tuple[str, int], ...]) -> dict[str, slice]:
    out, start = {}, 0
    for name, size in layout:
        out[name] = slice(start, start + size)
        start += size
    return out


OBS_SLICES = _slices(OBS_LAYOUT)
CLASH_SLICES = _slices(CLASH_LAYOUT)


@lru_cache(maxsize=None)
def clash_order(num_players: int, seat: int) -> tuple[int, ...]:
    """Clash ids in the observer's block order: its five slots, then other pairs clockwise."""
    mine = tuple(int(c) for c in topology(num_players).player_clashes[seat])
    others: list[int] = []
    for k in range(1, num_players - 1):
        others.extend(pair_clashes((seat + k) % num_players))
    return mine + tuple(others)


def encode(game: Fight5Game, seat: int) -> np.ndarray:
    """The observation vector of ``seat`` (see the module docstring for the layout)."""
    n = game.num_players
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    rel = [(seat + k) % n for k in range(n)]  # rel[k] = absolute seat at relative seat k
    order = list(clash_order(n, seat))
    C = len(order)

    blocks = obs[OBS_SLICES["clashes"]].reshape(MAX_CLASHES, CLASH_FEATURES)
    blocks[:C, CLASH_SLICES["present"]] = 1.0
    cc = game.clash_card[order]
    onehot = blocks[:C, CLASH_SLICES["clash_card"]]
    onehot[np.arange(C), np.where(cc == NO_CARD, NONE_COLUMN, cc)] = 1.0
    blocks[:C, CLASH_SLICES["stack_left"].start] = [len(game.clash_stacks[c]) / 5.0 for c in order]
    blocks[:C, CLASH_SLICES["pot"]] = game.pot[order].sum(axis=1) / 5.0
    blocks[:C, CLASH_SLICES["sharers"].start : CLASH_SLICES["sharers"].start + n] = game.topo.sharer_mask[order][:, rel]
    last = game.last_plays[order][:, rel]
    blocks[:C, CLASH_SLICES["last_plays"].start : CLASH_SLICES["last_plays"].start + n] = np.where(
        last == NO_CARD, 0.0, (last + 1) / NUM_RANKS
    )

    obs[OBS_SLICES["hand"]] = game.hands[seat] / 2.0
    my_slots = obs[OBS_SLICES["my_slots"]].reshape(SLOTS_PER_PLAYER, CARD_ONEHOT)
    placed = game.committed[seat]
    my_slots[np.arange(SLOTS_PER_PLAYER), np.where(placed == NO_CARD, NONE_COLUMN, placed)] = 1.0
    slot = game.current_slot(seat)
    if not game.game_over and slot < SLOTS_PER_PLAYER:
        obs[OBS_SLICES["current_slot"].start + slot] = 1.0

    unrevealed = obs[OBS_SLICES["unrevealed"]].reshape(MAX_PLAYERS, NUM_RANKS)
    unrevealed[:n] = (game.cards.player_deck[None, :] - game.revealed[rel]) / 2.0
    obs[OBS_SLICES["pile_cards"].start : OBS_SLICES["pile_cards"].start + n] = game.pile_sizes()[rel] / 25.0
    obs[OBS_SLICES["pile_points"].start : OBS_SLICES["pile_points"].start + n] = game.pile_points()[rel] / 100.0
    obs[OBS_SLICES["score"].start : OBS_SLICES["score"].start + n] = game.scores[rel] / 200.0
    obs[OBS_SLICES["seat_present"].start : OBS_SLICES["seat_present"].start + n] = 1.0
    obs[OBS_SLICES["clash_unseen"]] = (game.cards.clash_deck - game.clash_seen) / 7.0
    obs[OBS_SLICES["round"].start + min(game.round, 4)] = 1.0
    bout_sl = OBS_SLICES["bout"].start
    bouts = game.config.num_bouts
    obs[bout_sl] = min(game.bout, bouts) / bouts
    obs[bout_sl + 1] = 1.0 if game.bout >= bouts - 1 else 0.0
    obs[OBS_SLICES["num_players"].start + n - MIN_PLAYERS] = 1.0
    if game.config.target_score is not None:
        obs[OBS_SLICES["target_score"].start] = game.config.target_score / 1000.0
    np.minimum(obs, OBS_HIGH, out=obs)
    return obs
