"""What one player knows, as an object a planning agent can search with.

Owns: the small engine vocabulary that game-agnostic code (search agents, the ladder, ablations)
relies on (``SearchableGame``, after OpenSpiel's ``current_player`` / ``legal_actions`` /
``apply_action`` / ``returns`` plus ``clone`` and a determinization), and ``InformationSet``, the
one door through which an env shows a seat's knowledge to an agent that needs more than its
observation vector.

Why it cannot leak: an ``InformationSet`` never holds the true game. Its ``state`` is a
determinization drawn with a fixed seed, that is, a full game equal to the true one in everything
the seat has observed and with every hidden part (others' hands, face-down cards, deck order, the
engine's own generator for future chance) resampled from what the seat observed alone. Two true
games that differ only in what the seat cannot see give the same ``InformationSet``. Whatever an
agent does with it (clone it, play it out, read its fields), it learns nothing the seat could not
see. ``sample(rng)`` draws further determinizations from it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

INFORMATION_SET_SEED = 0x5EA4C4
"""Seed of the determinization an ``InformationSet`` holds (fixed: it must not depend on the true game)."""


@runtime_checkable
class SearchableGame(Protocol):
    """The vocabulary every game engine of the suite implements (``fight_envs/games/<game>/rules.py``)."""

    def clone(self) -> SearchableGame:
        """A fully independent copy, its random generator included."""
        ...

    def determinize(self, seat: int, rng: np.random.Generator) -> SearchableGame:
        """A new game equal to this one in everything ``seat`` observed, every hidden part drawn from ``rng``.

        Reads from ``self`` only what ``seat`` may observe; the result's own generator is seeded
        from ``rng`` (never copied from ``self``, whose state predicts hidden future draws).
        """
        ...

    def current_player(self) -> int: ...

    def legal_actions(self, seat: int) -> list[int]: ...

    def legal_action_mask(self, seat: int) -> np.ndarray: ...

    def apply_action(self, seat: int, action: int) -> None: ...

    def is_terminal(self) -> bool: ...

    def returns(self) -> np.ndarray: ...

    def decision_kind(self, seat: int) -> str:
        """The kind of decision ``seat`` is asked now: one of the engine module's ``DECISION_KINDS``."""
        ...


def win_credit(returns: np.ndarray) -> np.ndarray:
    """Per-seat win credit of a finished game: 1 for a sole best return, 1/k shared by k, 0 otherwise."""
    returns = np.asarray(returns, dtype=np.float64)
    winners = returns == returns.max()
    return winners / winners.sum()


@dataclass(frozen=True)
class InformationSet:
    """One seat's knowledge of a game in progress: a determinized state plus how the env sees it."""

    seat: int
    num_players: int
    state: SearchableGame
    """A determinization (seed ``INFORMATION_SET_SEED``): holds none of the true hidden state."""
    observe: Callable[[SearchableGame, int], tuple[np.ndarray, np.ndarray]]
    """``observe(state, seat)``: that seat's (observation vector, int8 action mask), as the env encodes them;
    the mask is always ``state.legal_action_mask(seat)`` (agents that read only the mask rely on it)."""
    value: Callable[[SearchableGame], np.ndarray] = lambda state: win_credit(state.returns())
    """Per-seat value of a finished state, what evaluation counts (default: win credit of ``returns()``)."""

    @classmethod
    def of(
        cls,
        game: SearchableGame,
        seat: int,
        num_players: int,
        observe: Callable[[SearchableGame, int], tuple[np.ndarray, np.ndarray]],
        value: Callable[[SearchableGame], np.ndarray] | None = None,
    ) -> InformationSet:
        """The information set of ``seat`` in the true ``game`` (which it does not keep)."""
        state = game.determinize(seat, np.random.default_rng(INFORMATION_SET_SEED))
        if value is None:
            return cls(seat, num_players, state, observe)
        return cls(seat, num_players, state, observe, value)

    def sample(self, rng: np.random.Generator) -> SearchableGame:
        """A fresh determinization: a full game consistent with what the seat observed."""
        return self.state.determinize(self.seat, rng)

    def decision_kind(self) -> str:
        return self.state.decision_kind(self.seat)
