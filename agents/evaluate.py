"""Head-to-head evaluation in the duplicate format, with confidence intervals.

A *deal* is a game seed: the env draws every card from it, whatever the agents do. Each deal is
played once per seat rotation (``n`` games for ``n`` players), the agents moving one seat
clockwise each time, so every agent meets the same cards from every chair and the luck of the
deal cancels out.

Per game an agent scores 1 for a sole win, ``1/k`` for a win shared by ``k`` players and 0 for
a loss; its score margin is its final score minus the mean score of the others. The unit of
statistics is the deal: the per-deal means over rotations are independent, the games of one
deal are not. Intervals are normal-approximation 95% intervals on the mean of those per-deal
values (``ci="normal"``), or percentile bootstrap intervals over deals (``ci="bootstrap"``).

**In parallel** (:func:`evaluate_parallel`, ``fight-envs eval --jobs N``): the deals are split into chunks
played by ``N`` worker processes, each building its own env and agents from a picklable ``build``
function. Every game reseeds its agents from the deal's seed and the seat (``play_game``), so the games
are the ones :func:`evaluate` plays, whichever process plays them, and the result is the same.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fight_envs.agents.arena import play_game
from fight_envs.agents.base import Agent

Z95 = 1.959963984540054
"""Two-sided 95% quantile of the standard normal."""
CI_METHODS = ("normal", "bootstrap")


def deal_seeds(seed: int, num_deals: int) -> list[int]:
    """The game seeds of an evaluation: ``num_deals`` distinct seeds derived from ``seed``."""
    if num_deals < 1:
        raise ValueError(f"num_deals must be >= 1, got {num_deals}")
    state = np.random.SeedSequence(seed).generate_state(2 * num_deals + 8, dtype=np.uint32)
    seen: dict[int, None] = {}
    for s in state:  # drop the (rare) repeats so every deal is different
        seen.setdefault(int(s) >> 1, None)
    seeds = list(seen)[:num_deals]
    if len(seeds) < num_deals:
        raise RuntimeError("could not derive enough distinct deal seeds")
    return seeds


def mean_ci(values: np.ndarray, method: str = "normal", rng: np.random.Generator | None = None,
            resamples: int = 2000) -> tuple[float, float, float]:
    """Mean of ``values`` and its 95% interval (normal approximation or percentile bootstrap)."""
    if method not in CI_METHODS:
        raise ValueError(f"unknown interval method {method!r}; allowed: {', '.join(CI_METHODS)}")
    values = np.asarray(values, dtype=np.float64)
    mean = float(values.mean())
    if values.size < 2:
        return mean, float("nan"), float("nan")
    if method == "normal":
        half = Z95 * float(values.std(ddof=1)) / np.sqrt(values.size)
        return mean, mean - half, mean + half
    rng = rng if rng is not None else np.random.default_rng(0)
    idx = rng.integers(values.size, size=(resamples, values.size))
    boot = values[idx].mean(axis=1)
    lo, hi = np.quantile(boot, [0.025, 0.975])
    return mean, float(lo), float(hi)


@dataclass
class GamePlayed:
    """One game of an evaluation: which agent sat where, on which deal, and how it ended."""

    deal: int
    """Index of the deal (0..num_deals-1)."""
    seed: int
    rotation: int
    seating: list[int]
    """``seating[seat]`` = index (into the evaluated agents) of the agent in that seat."""
    returns: np.ndarray
    scores: np.ndarray

    def credit(self) -> np.ndarray:
        """Win credit per seat: 1 sole win, 1/k shared by k, 0 loss (the best return wins)."""
        winners = self.returns == self.returns.max()
        return np.where(winners, 1.0 / winners.sum(), 0.0)

    def margins(self) -> np.ndarray:
        """Per seat: my score minus the mean score of the others."""
        n = self.scores.size
        others = (self.scores.sum() - self.scores) / (n - 1)
        return self.scores - others


@dataclass
class AgentStats:
    """One agent's result over an evaluation."""

    label: str
    games: int
    deals: int
    win_rate: float
    win_ci: tuple[float, float]
    margin: float
    margin_ci: tuple[float, float]
    sole_wins: int
    shared_wins: int
    losses: int


@dataclass
class EvalResult:
    """Everything an evaluation measured; ``stats[i]`` belongs to ``agents[i]`` as passed."""

    labels: list[str]
    stats: list[AgentStats]
    games: list[GamePlayed] = field(repr=False)
    num_players: int
    num_deals: int
    seed: int
    ci: str

    def per_deal(self, what: str = "credit") -> np.ndarray:
        """(num_deals, num_agents): each agent's mean win credit (or margin) over a deal's rotations."""
        if what not in ("credit", "margin"):
            raise ValueError(f"per_deal() measures 'credit' or 'margin', got {what!r}")
        out = np.zeros((self.num_deals, len(self.labels)))
        count = np.zeros((self.num_deals, len(self.labels)))
        for g in self.games:
            vals = g.credit() if what == "credit" else g.margins()
            for seat, agent in enumerate(g.seating):
                out[g.deal, agent] += vals[seat]
                count[g.deal, agent] += 1
        return out / np.maximum(count, 1)

    def table(self) -> str:
        return format_table(self)


def _distinct(agents: Sequence[Agent]) -> list[Agent]:
    """Agents keep per-game state and their own generator, so one object may hold only one seat."""
    out: list[Agent] = []
    seen: set[int] = set()
    for a in agents:
        out.append(copy.deepcopy(a) if id(a) in seen else a)
        seen.add(id(a))
    return out


def evaluate(
    env_fn: Callable[[], Any],
    agents: Sequence[Agent],
    num_deals: int,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    ci: str = "normal",
    progress: Callable[[int, int], None] | None = None,
) -> EvalResult:
    """Play ``num_deals`` deals, each once per seat rotation, and summarise every agent.

    ``env_fn()`` builds the AEC env (its seat count must equal ``len(agents)``). In rotation
    ``r`` agent ``i`` sits in seat ``(i + r) % n``. The same ``seed`` gives the same games.
    ``progress(done, total)`` is called after every game.
    """
    if ci not in CI_METHODS:
        raise ValueError(f"unknown interval method {ci!r}; allowed: {', '.join(CI_METHODS)}")
    env = env_fn()
    n = len(env.possible_agents)
    if len(agents) != n:
        raise ValueError(f"the env has {n} seats but {len(agents)} agents were given; pass one agent per seat")
    seeds = deal_seeds(seed, num_deals)
    games = play_deals(env, agents, list(enumerate(seeds)), options, progress, num_deals * n)
    env.close()
    return summarise(games, [a.label for a in agents], n, num_deals, seed, ci)


def play_deals(env: Any, agents: Sequence[Agent], deals: list[tuple[int, int]], options: dict[str, Any] | None,
                progress: Callable[[int, int], None] | None = None, total: int = 0) -> list[GamePlayed]:
    """Every seat rotation of the given (deal index, deal seed) pairs on ``env`` (what :func:`evaluate` plays, for
    a share of the deals: its workers, and scripts that keep their agents to read them afterwards)."""
    n = len(env.possible_agents)
    players = _distinct(agents)
    games: list[GamePlayed] = []
    for d, s in deals:
        for r in range(n):
            seating = [(seat - r) % n for seat in range(n)]  # agent i in seat (i + r) % n
            result = play_game(env, [players[i] for i in seating], seed=s, options=options)
            games.append(GamePlayed(d, s, r, seating, result.returns, result.scores))
            if progress is not None:
                progress(len(games), total)
    return games


def _worker_init() -> None:
    """One torch thread per worker (the workers already fill the cores), without importing torch for games
    whose agents never load it: the variable is read when a checkpoint agent first imports torch."""
    import os
    import sys

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if "torch" in sys.modules:  # imported already (a preloaded module): set it directly
        sys.modules["torch"].set_num_threads(1)


def _play_chunk(build: Callable[[], tuple[Callable[[], Any], Sequence[Agent]]], deals: list[tuple[int, int]],
                options: dict[str, Any] | None) -> list[GamePlayed]:
    """A worker's share: its own env and agents from ``build``, then the deals."""
    env_fn, agents = build()
    env = env_fn()
    try:
        return play_deals(env, agents, deals, options)
    finally:
        env.close()


def evaluate_parallel(
    build: Callable[[], tuple[Callable[[], Any], Sequence[Agent]]],
    num_deals: int,
    seed: int = 0,
    jobs: int = 2,
    options: dict[str, Any] | None = None,
    ci: str = "normal",
    progress: Callable[[int, int], None] | None = None,
) -> EvalResult:
    """:func:`evaluate` of ``build()``'s env factory and agents, the deals played by ``jobs`` worker processes.

    ``build`` must pickle (a module-level function, or a ``functools.partial`` of one, with plain
    arguments): each worker calls it to make its own env factory and agents, as the caller's process
    does once to check them and read their labels. The result equals ``evaluate(*build(), num_deals,
    seed, ...)``. ``progress(done, total)`` is called as chunks of deals finish. Workers start under
    ``forkserver`` (``spawn`` where it is missing), so a script calling this keeps its code under
    ``if __name__ == "__main__":``.
    """
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor, as_completed

    if ci not in CI_METHODS:
        raise ValueError(f"unknown interval method {ci!r}; allowed: {', '.join(CI_METHODS)}")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be an int >= 1, got {jobs!r}")
    env_fn, agents = build()
    env = env_fn()
    n = len(env.possible_agents)
    env.close()
    if len(agents) != n:
        raise ValueError(f"the env has {n} seats but {len(agents)} agents were given; pass one agent per seat")
    if jobs == 1:
        return evaluate(env_fn, agents, num_deals, seed, options, ci, progress)
    deals = list(enumerate(deal_seeds(seed, num_deals)))
    # chunks of a few deals, so that the workers share the work evenly and progress is reported often
    size = max(1, -(-num_deals // (jobs * 8)))
    chunks = [deals[k:k + size] for k in range(0, num_deals, size)]
    methods = mp.get_all_start_methods()
    context = mp.get_context("forkserver" if "forkserver" in methods else "spawn")
    games: list[GamePlayed] = []
    with ProcessPoolExecutor(max_workers=min(jobs, len(chunks)), mp_context=context, initializer=_worker_init) as pool:
        futures = [pool.submit(_play_chunk, build, chunk, options) for chunk in chunks]
        for future in as_completed(futures):
            games.extend(future.result())
            if progress is not None:
                progress(len(games), num_deals * n)
    games.sort(key=lambda g: (g.deal, g.rotation))
    return summarise(games, [a.label for a in agents], n, num_deals, seed, ci)


def summarise(games: list[GamePlayed], labels: list[str], num_players: int, num_deals: int, seed: int,
              ci: str = "normal") -> EvalResult:
    """Build an :class:`EvalResult` from played games (``labels[i]`` names agent ``i``)."""
    result = EvalResult(list(labels), [], games, num_players, num_deals, seed, ci)
    credit = result.per_deal("credit")
    margin = result.per_deal("margin")
    rng = np.random.default_rng(seed)
    for i, label in enumerate(labels):
        mine = [(g.credit()[g.seating.index(i)]) for g in games if i in g.seating]
        sole = sum(1 for c in mine if c == 1.0)
        shared = sum(1 for c in mine if 0.0 < c < 1.0)
        w, wlo, whi = mean_ci(credit[:, i], ci, rng)
        m, mlo, mhi = mean_ci(margin[:, i], ci, rng)
        result.stats.append(AgentStats(
            label=label, games=len(mine), deals=num_deals, win_rate=w,
            win_ci=(max(0.0, float(wlo)), min(1.0, float(whi))), margin=m, margin_ci=(float(mlo), float(mhi)),
            sole_wins=sole, shared_wins=shared, losses=len(mine) - sole - shared,
        ))
    return result


def versus_baseline(
    env_fn: Callable[[], Any],
    agent: Agent,
    baseline: Agent,
    num_deals: int,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    ci: str = "normal",
) -> AgentStats:
    """``agent`` against ``n - 1`` copies of ``baseline`` in every seat rotation: its stats.

    The win rate to compare against is ``1 / n`` (what a copy of the baseline would get).
    """
    n = len(env_fn().possible_agents)
    field_ = [agent] + [copy.deepcopy(baseline) for _ in range(n - 1)]
    return evaluate(env_fn, field_, num_deals, seed, options, ci).stats[0]


def format_table(result: EvalResult) -> str:
    """A plain-text table of an evaluation, one row per agent."""
    labels = [s.label for s in result.stats]
    dup = {lab for lab in labels if labels.count(lab) > 1}
    head = (f"{result.num_players} players, {result.num_deals} deals x {result.num_players} rotations = "
            f"{len(result.games)} games, seed {result.seed}, 95% {result.ci} intervals over deals")
    rows = [head, f"{'agent':<24} {'win rate':>9} {'95% CI':>17} {'margin':>8} {'95% CI':>17} {'W/S/L':>14}"]
    for i, s in enumerate(result.stats):
        name = f"{s.label}#{i}" if s.label in dup else s.label
        rows.append(
            f"{name:<24} {s.win_rate:>9.3f} {f'[{s.win_ci[0]:.3f}, {s.win_ci[1]:.3f}]':>17} {s.margin:>8.1f} "
            f"{f'[{s.margin_ci[0]:.1f}, {s.margin_ci[1]:.1f}]':>17} {f'{s.sole_wins}/{s.shared_wins}/{s.losses}':>14}"
        )
    return "\n".join(rows)
