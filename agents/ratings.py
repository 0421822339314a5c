"""Ratings from pairwise results: Elo fitted by maximum likelihood (Bradley-Terry), with
bootstrap standard errors, anchored so that a chosen agent (by default ``random``) has 1000.

Model: agent ``i`` beats ``j`` with probability ``1 / (1 + 10 ** ((R_j - R_i) / 400))``; a draw
counts as half a win each way. The ratings maximise the likelihood of every comparison given.
A perfect record would push a rating to infinity, so each pair that met gets ``prior_draws``
virtual drawn games (default 1: negligible beside the thousands of games of a real match, but
it keeps every rating finite). Ratings only compare agents linked by a chain of matches; a
comparison graph in several pieces is an error.

Uncertainty: the comparisons are resampled with replacement by *cluster* (a deal: the games
of one deal are not independent), within each *stratum* (a match), the model refitted, and the
standard deviation of each rating over the resamples reported. The anchor's own error is 0 by
construction; the others' errors are relative to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

ELO_SCALE = 400.0 / np.log(10.0)
"""Elo points per natural-log unit of strength."""
DEFAULT_ANCHOR = "random"
DEFAULT_ANCHOR_RATING = 1000.0


def _aggregate(num_agents: int, i: np.ndarray, j: np.ndarray, score: np.ndarray,
               prior_draws: float) -> tuple[np.ndarray, np.ndarray]:
    """Wins matrix ``W[a, b]`` (a's points against b) and games matrix ``N`` (symmetric)."""
    W = np.zeros((num_agents, num_agents))
    N = np.zeros((num_agents, num_agents))
    np.add.at(W, (i, j), score)
    np.add.at(W, (j, i), 1.0 - score)
    np.add.at(N, (i, j), 1.0)
    np.add.at(N, (j, i), 1.0)
    met = N > 0
    W = W + met * (prior_draws / 2.0)
    N = N + met * prior_draws
    return W, N


def _check_connected(N: np.ndarray, labels: Sequence[str]) -> None:
    n = N.shape[0]
    seen = {0}
    frontier = [0]
    while frontier:
        a = frontier.pop()
        for b in np.flatnonzero(N[a] > 0):
            if int(b) not in seen:
                seen.add(int(b))
                frontier.append(int(b))
    if len(seen) < n:
        cut = [labels[k] for k in range(n) if k not in seen]
        raise ValueError(f"ratings need every agent linked by matches; no chain of games links {cut} to {labels[0]}")


def fit_bradley_terry(num_agents: int, i: np.ndarray, j: np.ndarray, score: np.ndarray,
                      prior_draws: float = 1.0, labels: Sequence[str] | None = None) -> np.ndarray:
    """Maximum-likelihood strengths (natural-log scale, mean 0) from comparisons.

    Comparison ``k`` is agent ``i[k]`` against ``j[k]`` with ``score[k]`` in {1, 0.5, 0} for
    ``i[k]``'s win, draw or loss. Newton's method on the concave log-likelihood.
    """
    labels = list(labels) if labels is not None else [str(a) for a in range(num_agents)]
    i = np.asarray(i, dtype=np.int64)
    j = np.asarray(j, dtype=np.int64)
    score = np.asarray(score, dtype=np.float64)
    if not (i.shape == j.shape == score.shape):
        raise ValueError("i, j and score must have the same length")
    if np.any(i == j):
        raise ValueError("a comparison needs two different agents (i == j found)")
    if np.any((score < 0) | (score > 1)):
        raise ValueError("scores must lie in [0, 1] (1 win, 0.5 draw, 0 loss)")
    if num_agents < 2:
        raise ValueError("ratings need at least two agents")
    W, N = _aggregate(num_agents, i, j, score, prior_draws)
    _check_connected(N, labels)
    theta = np.zeros(num_agents)
    ones = np.ones((num_agents, num_agents)) / num_agents
    for _ in range(200):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # p[a, b] = P(a beats b)
        grad = (W - N * p).sum(axis=1)
        info = N * p * p.T
        hess = np.diag(info.sum(axis=1)) - info  # negative Hessian: a graph Laplacian
        step = np.linalg.solve(hess + ones, grad)  # ``ones`` pins the free shift of all ratings
        theta = theta + step
        theta -= theta.mean()
        if np.max(np.abs(step)) < 1e-10:
            break
    return theta


@dataclass
class RatingTable:
    """Fitted ratings, one row per agent, in the order given."""

    labels: list[str]
    rating: np.ndarray
    se: np.ndarray
    games: np.ndarray
    anchor: str | None
    anchor_rating: float
    bootstrap: int

    def order(self) -> list[int]:
        """Agent indices, best first."""
        return [int(k) for k in np.argsort(-self.rating, kind="stable")]

    def format(self) -> str:
        anchor = (f"anchored at {self.anchor} = {self.anchor_rating:.0f}" if self.anchor is not None
                  else f"mean = {self.anchor_rating:.0f}")
        rows = [f"Elo (Bradley-Terry maximum likelihood), {anchor}; +- = bootstrap s.e. ({self.bootstrap} resamples)",
                f"{'rank':>4}  {'agent':<28} {'Elo':>7} {'+-':>6} {'games':>7}"]
        for rank, k in enumerate(self.order(), start=1):
            rows.append(
                f"{rank:>4}  {self.labels[k]:<28} {self.rating[k]:>7.0f} {self.se[k]:>6.0f} {int(self.games[k]):>7}"
            )
        return "\n".join(rows)


def find_anchor(labels: Sequence[str], anchor: str | None) -> int | None:
    """Index of the anchor: an exact label, else the first label whose name (before '-v') matches."""
    if anchor is None:
        return None
    if anchor in labels:
        return list(labels).index(anchor)
    for k, label in enumerate(labels):
        if label.rsplit("-v", 1)[0] == anchor:
            return k
    return None


def elo_ratings(
    labels: Sequence[str],
    i: np.ndarray,
    j: np.ndarray,
    score: np.ndarray,
    clusters: np.ndarray | None = None,
    strata: np.ndarray | None = None,
    anchor: str | None = DEFAULT_ANCHOR,
    anchor_rating: float = DEFAULT_ANCHOR_RATING,
    bootstrap: int = 200,
    seed: int = 0,
    prior_draws: float = 1.0,
) -> RatingTable:
    """Fit Elo ratings to comparisons and bootstrap their standard errors.

    ``clusters[k]`` groups comparisons resampled together (default: each alone); ``strata[k]``
    groups clusters resampled separately (default: one stratum). With ``anchor`` present among
    ``labels`` it gets ``anchor_rating``; otherwise the mean rating is ``anchor_rating``.
    """
    labels = list(labels)
    i = np.asarray(i, dtype=np.int64)
    j = np.asarray(j, dtype=np.int64)
    score = np.asarray(score, dtype=np.float64)
    clusters = np.arange(i.size) if clusters is None else np.asarray(clusters)
    strata = np.zeros(i.size, dtype=np.int64) if strata is None else np.asarray(strata)
    if not (clusters.shape == strata.shape == i.shape):
        raise ValueError("clusters and strata must give one entry per comparison")
    a = find_anchor(labels, anchor)

    def anchored(theta: np.ndarray) -> np.ndarray:
        elo = theta * ELO_SCALE
        return elo - (elo[a] if a is not None else elo.mean()) + anchor_rating

    rating = anchored(fit_bradley_terry(len(labels), i, j, score, prior_draws, labels))
    games = np.bincount(i, minlength=len(labels)) + np.bincount(j, minlength=len(labels))

    rng = np.random.default_rng(seed)
    # Members of each cluster, and the clusters of each stratum, for resampling.
    order = np.argsort(clusters, kind="stable")
    _, starts = np.unique(clusters[order], return_index=True)
    members = np.split(order, starts[1:])
    cluster_stratum = strata[order][starts]
    by_stratum = [np.flatnonzero(cluster_stratum == s) for s in np.unique(cluster_stratum)]
    samples = []
    for _ in range(bootstrap):
        picked = np.concatenate([rng.choice(cs, size=cs.size, replace=True) for cs in by_stratum])
        rows = np.concatenate([members[c] for c in picked])
        try:
            samples.append(anchored(fit_bradley_terry(len(labels), i[rows], j[rows], score[rows], prior_draws, labels)))
        except ValueError:  # a resample that lost every link to some agent says nothing of its rating
            continue
    se = np.std(samples, axis=0, ddof=1) if len(samples) > 1 else np.full(len(labels), np.nan)
    return RatingTable(labels, rating, se, games, labels[a] if a is not None else None, anchor_rating, len(samples))


def expected_score(rating_a: float, rating_b: float) -> float:
    """Elo's predicted score of a against b."""
    return 1.0 / (1.0 + 10.0 ** ((rating_b - rating_a) / 400.0))
