"""The robustness corpus, resets: non-dict options, bad option values and bad seeds for all four
games, each given to an env holding a game in progress. Every one must be refused, and the game
in progress must be exactly as before (record, observations, agent to act), play on to its end,
and replay from its record."""

from __future__ import annotations

import pytest

from . import env_cases
from .common import check


@pytest.mark.parametrize("game", list(env_cases.GAMES))
def test_a_refused_reset_leaves_the_game_in_progress_usable(game: str) -> None:
    outcomes = check("reset", [c for c in env_cases.reset_cases() if c.game == game])
    assert len(outcomes) >= 25
