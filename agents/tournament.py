"""Round-robin tournaments in the duplicate format, and Elo ratings from them.

Format. With ``n``-seat games, every ``n``-subset of the agents plays one duplicate match
(:func:`fight_envs.agents.evaluate.evaluate`: each deal once per seat rotation). For two-player games that
is every pair; for ``n > 2`` it is every group of ``n`` (so at least ``n`` agents are needed,
and ``C(k, n)`` matches are played for ``k`` agents). Within a group the agents sit in the
order given and rotate cyclically, so each keeps the same neighbours in that match; the
different groups vary the company. All matches use the same deals (common random numbers),
which makes the comparisons between matches sharper.

Ratings. Each game is turned into pairwise comparisons between every two agents at the table:
the one with the better return wins, ties in return are broken by final score, and equal both
ways is a draw. Elo is fitted to all comparisons (:mod:`fight_envs.agents.ratings`), with the bootstrap
resampling whole deals within each match.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fight_envs.agents.base import Agent
from fight_envs.agents.evaluate import EvalResult, evaluate
from fight_envs.agents.ratings import DEFAULT_ANCHOR, DEFAULT_ANCHOR_RATING, RatingTable, elo_ratings


@dataclass
class Match:
    """One duplicate match of the tournament: which agents (indices) and what happened."""

    members: tuple[int, ...]
    result: EvalResult


@dataclass
class TournamentResult:
    labels: list[str]
    matches: list[Match]
    ratings: RatingTable
    comparisons: dict[str, np.ndarray]
    """Arrays ``i``, ``j``, ``score`` (i's: 1, 0.5, 0), ``cluster`` (a deal of a match), ``stratum`` (the match)."""

    def head_to_head(self) -> tuple[np.ndarray, np.ndarray]:
        """(score, games): ``score[a, b]`` = a's mean pairwise score against b over their games."""
        k = len(self.labels)
        pts = np.zeros((k, k))
        games = np.zeros((k, k))
        c = self.comparisons
        np.add.at(pts, (c["i"], c["j"]), c["score"])
        np.add.at(pts, (c["j"], c["i"]), 1.0 - c["score"])
        np.add.at(games, (c["i"], c["j"]), 1.0)
        np.add.at(games, (c["j"], c["i"]), 1.0)
        with np.errstate(invalid="ignore"):
            return pts / games, games

    def table(self) -> str:
        """Ratings, then the head-to-head matrix (row's score against column), best first."""
        order = self.ratings.order()
        score, _ = self.head_to_head()
        width = max(8, *(len(self.labels[k]) for k in order))
        lines = [self.ratings.format(), "", "head to head (row's pairwise score against column):"]
        short = [f"#{r + 1}" for r in range(len(order))]
        lines.append(f"{'':>4}  {'agent':<{width}} " + " ".join(f"{s:>6}" for s in short))
        for r, a in enumerate(order):
            cells = ["     -" if a == b or np.isnan(score[a, b]) else f"{score[a, b]:>6.3f}" for b in order]
            lines.append(f"{short[r]:>4}  {self.labels[a]:<{width}} " + " ".join(cells))
        return "\n".join(lines)


def pairwise_from_game(returns: np.ndarray, scores: np.ndarray) -> list[tuple[int, int, float]]:
    """(seat a, seat b, a's score) for every two seats of one game: 1 better, 0.5 equal, 0 worse."""
    out = []
    n = len(returns)
    for a, b in itertools.combinations(range(n), 2):
        key_a, key_b = (returns[a], scores[a]), (returns[b], scores[b])
        out.append((a, b, 1.0 if key_a > key_b else 0.0 if key_a < key_b else 0.5))
    return out


def round_robin(
    env_fn: Callable[[], Any],
    agents: Sequence[Agent],
    num_deals: int,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    anchor: str | None = DEFAULT_ANCHOR,
    anchor_rating: float = DEFAULT_ANCHOR_RATING,
    bootstrap: int = 200,
    progress: Callable[[int, int], None] | None = None,
) -> TournamentResult:
    """Play every group of ``n`` agents (``n`` = the env's seats) a duplicate match; rate all.

    ``progress(done, total)`` is called after each match.
    """
    n = len(env_fn().possible_agents)
    k = len(agents)
    if k < max(n, 2):
        raise ValueError(f"a round robin of {n}-player games needs at least {max(n, 2)} agents, got {k}")
    labels = [a.label for a in agents]
    groups = list(itertools.combinations(range(k), n))
    matches: list[Match] = []
    rows: list[tuple[int, int, float, int, int]] = []
    for m, members in enumerate(groups):
        result = evaluate(env_fn, [agents[a] for a in members], num_deals, seed, options)
        matches.append(Match(members, result))
        for g in result.games:
            at_seat = [members[idx] for idx in g.seating]  # global agent index in each seat
            for sa, sb, s in pairwise_from_game(g.returns, g.scores):
                rows.append((at_seat[sa], at_seat[sb], s, m * num_deals + g.deal, m))
        if progress is not None:
            progress(m + 1, len(groups))
    arr = np.array(rows, dtype=np.float64)
    comparisons = {
        "i": arr[:, 0].astype(np.int64),
        "j": arr[:, 1].astype(np.int64),
        "score": arr[:, 2],
        "cluster": arr[:, 3].astype(np.int64),
        "stratum": arr[:, 4].astype(np.int64),
    }
    ratings = elo_ratings(labels, comparisons["i"], comparisons["j"], comparisons["score"],
                          comparisons["cluster"], comparisons["stratum"], anchor, anchor_rating, bootstrap, seed)
    return TournamentResult(labels, matches, ratings, comparisons)
