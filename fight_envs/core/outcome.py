"""One player's win credit at the end of a game, the number every trainer and evaluator counts.

1 for a sole win, 1/k for a win shared by k players, 0 for a loss. Games whose envs report the
(egocentric) final ``scores`` are judged by them; the others by the sign of the player's
episode return (1 above zero, 0.5 at zero, 0 below), which is exact for the suite's
win/loss/draw and rank rewards in two-player games.
"""

from __future__ import annotations

from typing import Any

import numpy as np

RESULT_WIN, RESULT_SHARED, RESULT_LOSS = 1.0, 0.5, 0.0


def win_credit(scores: Any = None, episode_return: float = 0.0, num_players: int | None = None) -> float:
    """Win credit of seat 0 of the egocentric ``scores`` (when given, with ``num_players`` entries), else by return."""
    if scores is not None and (num_players is None or len(scores) == num_players):
        scores = np.asarray(scores)
        best = scores.max()
        return RESULT_LOSS if scores[0] < best else RESULT_WIN / int(np.sum(scores == best))
    return RESULT_WIN if episode_return > 0 else RESULT_SHARED if episode_return == 0 else RESULT_LOSS
