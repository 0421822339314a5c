"""Which players share which clash ("Setup" of the rulebook).

Seats 0..n-1 sit clockwise; seat s+1 is on seat s's left. Clash 0 is the middle clash, shared by
everyone. Each neighbouring pair (s, s+1) shares two clashes, ids ``1 + 2s`` and ``2 + 2s``.
That gives 2n + 1 clashes: 7, 9 and 11 for 3, 4 and 5 players. With two players the pairs
(0, 1) and (1, 0) are the same two people, so all five clashes are shared by both, as the
rulebook says.

Each player sees its five clashes in a fixed order relative to its seat, which is also the order
in which it places its cards (its *slots*): the two shared with its right neighbour, the middle
clash, then the two shared with its left neighbour.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

SLOTS_PER_PLAYER = 5
MIDDLE = 0


@dataclass(frozen=True)
class Topology:
    """The clash layout for one player count."""

    num_players: int
    num_clashes: int
    sharers: tuple[tuple[int, ...], ...]
    """Seats sharing each clash, ascending."""
    player_clashes: np.ndarray
    """(num_players, 5): clash id of each of a player's slots."""
    slot_of: np.ndarray
    """(num_clashes, num_players): the slot through which a seat plays to a clash, or -1."""
    sharer_mask: np.ndarray
    """(num_clashes, num_players) bool: who shares each clash."""


def pair_clashes(pair: int) -> tuple[int, int]:
    """The two clash ids shared by seats ``pair`` and ``pair + 1``."""
    return 1 + 2 * pair, 2 + 2 * pair


@lru_cache(maxsize=None)
def topology(num_players: int) -> Topology:
    """Build (and cache) the clash layout for ``num_players`` players."""
    n = num_players
    num_clashes = 2 * n + 1
    sharer_mask = np.zeros((num_clashes, n), dtype=bool)
    sharer_mask[MIDDLE, :] = True
    for pair in range(n):
        for c in pair_clashes(pair):
            sharer_mask[c, pair] = True
            sharer_mask[c, (pair + 1) % n] = True
    player_clashes = np.zeros((n, SLOTS_PER_PLAYER), dtype=np.int64)
    slot_of = np.full((num_clashes, n), -1, dtype=np.int64)
    for seat in range(n):
        right = pair_clashes((seat - 1) % n)
        left = pair_clashes(seat)
        player_clashes[seat] = (right[0], right[1], MIDDLE, left[0], left[1])
        for slot, c in enumerate(player_clashes[seat]):
            slot_of[c, seat] = slot
    sharers = tuple(tuple(int(s) for s in np.flatnonzero(row)) for row in sharer_mask)
    player_clashes.setflags(write=False)
    slot_of.setflags(write=False)
    sharer_mask.setflags(write=False)
    return Topology(n, num_clashes, sharers, player_clashes, slot_of, sharer_mask)
