"""A game's skill ladder: its standard line-up of agents, every pairing in duplicate deals, Elo and head to head.

The standard line-up of a game (``default_lineup``): ``random``; the simplest sensible one-line
rules (Fight 5: ``greedy``; Brawl: ``first_legal``, ``never_pass``; Fifth-Earth:
``strongest_single``, ``cheapest_beat``; Fight Klub: ``play_anything``); the game's
``heuristic``; ``search`` at two budgets (``SEARCH_BUDGETS``); then any models given. A name
the game's registry does not know yet, or ``search`` on a game whose engine lacks the search
vocabulary (``determinize``), is skipped with a note, so the ladder runs on what exists.

**Pairings.** Every two agents ``A`` and ``B`` play one duplicate match
(``fight_envs.agents.evaluate.evaluate``: each deal once per seat rotation). With ``n > 2``
players the table alternates them, ``A, B, A, B, ...`` (``A`` takes the odd seat out), and the
rotations move everyone round.

**What it reports** (``LadderResult.table`` / ``markdown``):

* Elo per agent (``fight_envs.agents.ratings``: Bradley-Terry fit of every pairwise comparison of
  every game, better return wins, ties by score; 95% interval = 1.96 bootstrap s.e., deals
  resampled within each match; ``random`` = 1000);
* head to head: ``A``'s mean pairwise score against ``B`` (1 better, 0.5 equal, 0 worse; in
  two-player games the win rate with shared wins as halves), 95% normal interval over deals;
* the duplicate split rate of each pairing: the share of deals on which the same seat won in
  every rotation (two players: each agent won the deal once), that is, deals the cards decided
  rather than the agents;
* milliseconds per decision of the agents that report it (``search``): CPU time of the process
  (``time.process_time``, the cost on one free core even on a shared machine), and wall time.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fight_envs.agents.base import Agent
from fight_envs.agents.evaluate import EvalResult, evaluate, mean_ci
from fight_envs.agents.ratings import RatingTable, elo_ratings
from fight_envs.agents.tournament import pairwise_from_game

ONE_LINE_RULES: dict[str, tuple[str, ...]] = {
    "fight5": ("greedy",),
    "brawl": ("first_legal", "never_pass"),
    "fifth_earth": ("strongest_single", "cheapest_beat"),
    "fight_klub": ("play_anything",),
}
"""Each game's simplest sensible one-line rule agents, by registry name."""
SEARCH_BUDGETS: dict[str, tuple[str, str]] = {
    "fight5": ("search:sims=16,horizon=bout,tail=greedy", "search:sims=48,horizon=bout,tail=greedy"),
    # Fifth-Earth: rollouts to the current destination's claim (horizon=destination): a rollout to the end of the
    # 25-destination campaign plays out every later destination for each early decision (seeds/fifth_earth.md section 8).
    "fifth_earth": ("search:sims=8,rollout=random,horizon=destination", "search:sims=32,rollout=random,horizon=destination"),
    # Brawl: heuristic rollouts with keep=2 (the heuristic's action unless another is clearly better): without it
    # the noisy win-or-lose values made search play worse than its rollout policy (seeds/brawl.md section 9).
    "brawl": ("search:sims=8,keep=2", "search:sims=24,keep=2"),
}
"""Each game's two search budgets on the ladder (default for other games: ``DEFAULT_SEARCH_BUDGETS``)."""
DEFAULT_SEARCH_BUDGETS = ("search:sims=16", "search:sims=64")


def env_name(game: str) -> str:
    """``fight5`` / ``fight5_v0`` -> ``fight5_v0``."""
    from fight_envs.agents.registry import game_name

    return f"{game_name(game)}_v0"


def engine_can_search(game: str) -> bool:
    """Whether ``game``'s engine implements the search vocabulary (``determinize`` and the env's ``information_set``)."""
    from fight_envs.registry import make

    env = make(env_name(game), api="raw")
    engine = getattr(env.unwrapped, "game", None)
    if engine is None and hasattr(env.unwrapped, "reset"):  # an env that builds its engine at reset (Fight Klub)
        env.reset(seed=0)
        engine = getattr(env.unwrapped, "game", None)
    return hasattr(env.unwrapped, "information_set") and callable(getattr(engine, "determinize", None))


def default_lineup(game: str, models: Sequence[str] = ()) -> tuple[list[str], list[str]]:
    """(agent specs, notes): the game's standard ladder, with a note for every name skipped."""
    from fight_envs.agents.registry import game_name, list_agents

    base = game_name(game)
    known = set(list_agents(base))
    specs: list[str] = []
    notes: list[str] = []
    for name in ("random", *ONE_LINE_RULES.get(base, ()), "heuristic"):
        if name in known:
            specs.append(name)
        else:
            notes.append(f"skipped {name!r}: not registered for {base} yet (agents/registry.py)")
    budgets = SEARCH_BUDGETS.get(base, DEFAULT_SEARCH_BUDGETS)
    if engine_can_search(base):
        specs.extend(budgets)
    else:
        notes.append(f"skipped search ({', '.join(budgets)}): the {base} engine has no determinize() yet")
    specs.extend(models)
    return specs, notes


@dataclass
class Pairing:
    """One duplicate match between agents ``a`` and ``b`` (indices into the line-up)."""

    a: int
    b: int
    result: EvalResult = field(repr=False)
    score: float
    """``a``'s mean pairwise score against ``b``."""
    score_ci: tuple[float, float]
    split_rate: float
    """Share of deals on which the same seat won in every rotation."""


@dataclass
class LadderResult:
    game: str
    num_players: int
    num_deals: int
    seed: int
    labels: list[str]
    pairings: list[Pairing]
    ratings: RatingTable
    ms_per_decision: list[float | None]
    """CPU milliseconds per decision (all of the agent's decisions, forced ones included), where reported."""
    notes: list[str]
    seconds: float
    ms_wall_per_decision: list[float | None] = field(default_factory=list)

    def head_to_head(self) -> np.ndarray:
        """``h[i, j]``: i's mean pairwise score against j (nan on the diagonal)."""
        k = len(self.labels)
        h = np.full((k, k), np.nan)
        for p in self.pairings:
            h[p.a, p.b] = p.score
            h[p.b, p.a] = 1.0 - p.score
        return h

    def table(self) -> str:
        return _render(self, markdown=False)

    def markdown(self, png_name: str | None = None, command: str | None = None) -> str:
        return _render(self, markdown=True, png_name=png_name, command=command)

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game, "num_players": self.num_players, "num_deals": self.num_deals, "seed": self.seed,
            "labels": self.labels, "elo": self.ratings.rating.tolist(), "elo_se": self.ratings.se.tolist(),
            "ms_per_decision": self.ms_per_decision, "ms_wall_per_decision": self.ms_wall_per_decision, "notes": self.notes, "seconds": self.seconds,
            "pairings": [{"a": self.labels[p.a], "b": self.labels[p.b], "score": p.score, "score_ci": list(p.score_ci),
                          "split_rate": p.split_rate} for p in self.pairings],
        }


def _seating(a: int, b: int, n: int) -> list[int]:
    return [a if s % 2 == 0 else b for s in range(n)]


def split_rate(result: EvalResult) -> float:
    """Share of deals on which the same seat won (alone or shared) in every rotation of the deal."""
    winners: dict[int, set[tuple[int, ...]]] = {}
    for g in result.games:
        win = tuple(int(s) for s in np.flatnonzero(g.returns == g.returns.max()))
        winners.setdefault(g.deal, set()).add(win)
    return float(np.mean([len(w) == 1 for w in winners.values()]))


def run_ladder(
    game: str,
    specs: Sequence[str],
    num_players: int = 2,
    num_deals: int = 100,
    seed: int = 0,
    notes: Sequence[str] = (),
    progress: Callable[[str], None] | None = None,
    bootstrap: int = 200,
    env_options: dict[str, Any] | None = None,
) -> LadderResult:
    """Play every pairing of ``specs`` (agent specs of ``game``) in ``num_deals`` duplicate deals; rate them.

    ``env_options``: constructor options of the env besides ``num_players`` (e.g. a shorter game)."""
    from fight_envs.agents.registry import game_name, make_agent
    from fight_envs.registry import make

    start = time.perf_counter()
    base = game_name(game)
    if len(specs) < 2:
        raise ValueError(f"a ladder needs at least two agents, got {list(specs)}")
    if len(set(specs)) != len(specs):
        raise ValueError(f"each agent may appear once on a ladder, got {list(specs)}")
    env_fn = lambda: make(env_name(base), api="raw", num_players=num_players, **(env_options or {}))  # noqa: E731
    probe: list[Agent] = [make_agent(s, game=base, seed=seed) for s in specs]
    labels = [a.label for a in probe]
    rows: list[tuple[int, int, float, int, int]] = []
    pairings: list[Pairing] = []
    seconds = np.zeros(len(specs))
    cpu = np.zeros(len(specs))
    decisions = np.zeros(len(specs))
    pairs = list(itertools.combinations(range(len(specs)), 2))
    for m, (a, b) in enumerate(pairs):
        t0 = time.perf_counter()
        agents = {a: make_agent(specs[a], game=base, seed=seed + 2 * m), b: make_agent(specs[b], game=base, seed=seed + 2 * m + 1)}
        seating = _seating(a, b, num_players)
        field_ = [agents[i] for i in seating]  # evaluate copies an agent that holds several seats

        def report(done: int, total: int, _m: int = m, _t: float = t0) -> None:
            if progress is not None and (done == total or done % max(1, total // 10) == 0):
                progress(f"pairing {_m + 1}/{len(pairs)} {labels[a]} vs {labels[b]}: game {done}/{total} "
                         f"({time.perf_counter() - _t:.0f}s)")

        result = evaluate(env_fn, field_, num_deals, seed, progress=report)
        for i, agent in agents.items():
            if hasattr(agent, "search_seconds"):
                seconds[i] += agent.search_seconds
                cpu[i] += getattr(agent, "search_cpu_seconds", agent.search_seconds)
                decisions[i] += agent.decisions
        per_deal: dict[int, list[float]] = {}
        for g in result.games:
            at_seat = [seating[idx] for idx in g.seating]  # line-up index in each seat
            for sa, sb, s in pairwise_from_game(g.returns, g.scores):
                i, j = at_seat[sa], at_seat[sb]
                if i == j:
                    continue
                rows.append((i, j, s, m * num_deals + g.deal, m))
                per_deal.setdefault(g.deal, []).append(s if i == a else 1.0 - s)
        values = np.array([np.mean(v) for _, v in sorted(per_deal.items())])
        mean, lo, hi = mean_ci(values)
        pairings.append(Pairing(a, b, result, mean, (max(0.0, lo), min(1.0, hi)), split_rate(result)))
    arr = np.array(rows, dtype=np.float64)
    ratings = elo_ratings(labels, arr[:, 0].astype(np.int64), arr[:, 1].astype(np.int64), arr[:, 2],
                          arr[:, 3].astype(np.int64), arr[:, 4].astype(np.int64), "random",  # labels carry versions ('random-v1'): matched by name; absent -> mean
                          1000.0, bootstrap, seed)
    ms = [float(1000 * cpu[i] / decisions[i]) if decisions[i] else None for i in range(len(specs))]
    ms_wall = [float(1000 * seconds[i] / decisions[i]) if decisions[i] else None for i in range(len(specs))]
    return LadderResult(base, num_players, num_deals, seed, labels, pairings, ratings, ms, list(notes),
                        time.perf_counter() - start, ms_wall)


def _render(result: LadderResult, markdown: bool, png_name: str | None = None, command: str | None = None) -> str:
    order = result.ratings.order()
    z = 1.959963984540054
    h = result.head_to_head()
    lines: list[str] = []
    games_per = result.num_deals * result.num_players
    head = (f"{result.game}, {result.num_players} players: every pairing {result.num_deals} deals x "
            f"{result.num_players} rotations = {games_per} games; seed {result.seed}; {result.seconds:.0f}s")
    if markdown:
        lines += [f"# Skill ladder: {result.game}, {result.num_players} players", "",
                  "Generated by `fight-envs ladder` (`fight_envs/agents/ladder.py`, whose docstring defines every "
                  "column). " + head + ".", ""]
        if command:
            lines += ["```", command, "```", ""]
        if png_name:
            lines += [f"![Elo ratings]({png_name})", ""]
        lines += ["| rank | agent | Elo | 95% interval | ms / decision, CPU (wall) |", "| --- | --- | --- | --- | --- |"]
    else:
        lines += [head, "", f"{'rank':>4}  {'agent':<44} {'Elo':>6} {'95% interval':>15} {'ms/dec cpu (wall)':>18}"]
    for r, k in enumerate(order, start=1):
        rating, se = result.ratings.rating[k], result.ratings.se[k]
        ci = f"[{rating - z * se:.0f}, {rating + z * se:.0f}]"
        ms = "" if result.ms_per_decision[k] is None else f"{result.ms_per_decision[k]:.1f}"
        if ms and result.ms_wall_per_decision and result.ms_wall_per_decision[k] is not None:
            ms += f" ({result.ms_wall_per_decision[k]:.0f})"
        if markdown:
            lines.append(f"| {r} | `{result.labels[k]}` | {rating:.0f} | {ci} | {ms} |")
        else:
            lines.append(f"{r:>4}  {result.labels[k]:<44} {rating:>6.0f} {ci:>15} {ms:>18}")
    lines.append("")
    title = "Head to head (row's pairwise score against column, 95% interval over deals)"
    short = [f"#{r + 1}" for r in range(len(order))]
    if markdown:
        lines += [f"**{title}**", "", "| | agent | " + " | ".join(short) + " |", "| --- | --- |" + " --- |" * len(order)]
    else:
        lines += [title + ":"]
    ci_of = {(p.a, p.b): p.score_ci for p in result.pairings}
    for r, a in enumerate(order):
        cells = []
        for b in order:
            if a == b:
                cells.append("-")
                continue
            lo, hi = ci_of[(a, b)] if (a, b) in ci_of else tuple(1.0 - x for x in ci_of[(b, a)][::-1])
            cells.append(f"{h[a, b]:.2f} [{lo:.2f}, {hi:.2f}]")
        if markdown:
            lines.append(f"| {short[r]} | `{result.labels[a]}` | " + " | ".join(cells) + " |")
        else:
            lines.append(f"{short[r]:>4} {result.labels[a]:<44} " + "  ".join(f"{c:>19}" for c in cells))
    lines.append("")
    title = "Duplicate split rate per pairing (share of deals on which the same seat won in every rotation)"
    if markdown:
        lines += [f"**{title}**", "", "| pairing | split rate | score of the first | 95% interval |", "| --- | --- | --- | --- |"]
    else:
        lines += [title + ":"]
    for p in sorted(result.pairings, key=lambda p: (order.index(p.a), order.index(p.b))):
        a, b = (p.a, p.b)
        if markdown:
            lines.append(f"| `{result.labels[a]}` vs `{result.labels[b]}` | {p.split_rate:.2f} | {p.score:.3f} | "
                         f"[{p.score_ci[0]:.3f}, {p.score_ci[1]:.3f}] |")
        else:
            lines.append(f"  {result.labels[a]} vs {result.labels[b]}: split {p.split_rate:.2f}, "
                         f"score {p.score:.3f} [{p.score_ci[0]:.3f}, {p.score_ci[1]:.3f}]")
    if result.notes:
        lines += ["", "Notes:" if not markdown else "**Notes**", ""]
        lines += [("- " if markdown else "  ") + note for note in result.notes]
    return "\n".join(lines) + "\n"


def write_ladder(result: LadderResult, out_dir: str, command: str | None = None) -> dict[str, str]:
    """Write ``ladder_<game>.md``, ``ladder_<game>.png`` and ``ladder_<game>.json`` (``_<n>p`` beyond 2 players) into ``out_dir``."""
    from fight_envs.agents.plots import plot_ratings

    os.makedirs(out_dir, exist_ok=True)
    stem = f"ladder_{result.game}" + ("" if result.num_players == 2 else f"_{result.num_players}p")
    png = os.path.join(out_dir, stem + ".png")
    plot_ratings(result.ratings, png, title=f"{result.game} ladder, {result.num_players} players "
                                            f"({result.num_deals} deals per pairing)")
    md = os.path.join(out_dir, stem + ".md")
    with open(md, "w", encoding="utf-8") as fh:
        fh.write(result.markdown(png_name=stem + ".png", command=command))
    js = os.path.join(out_dir, stem + ".json")
    with open(js, "w", encoding="utf-8") as fh:
        json.dump(result.to_json(), fh, indent=1)
    return {"markdown": md, "png": png, "json": js}


def stderr_progress(message: str) -> None:
    print("  " + message, file=sys.stderr, flush=True)


def ladder_command(game: str, players: int, deals: int, agents: Sequence[str] | None, models: Sequence[str],
                   out: str | None, seed: int, default_out: str = "docs") -> int:
    """``fight-envs ladder``: run, print the table, write the page, PNG and JSON; returns the exit code."""
    if deals < 1:
        raise ValueError(f"--deals must be >= 1, got {deals}")
    if agents:
        specs, notes = [*agents, *models], []
    else:
        specs, notes = default_lineup(game, models)
    print(f"[ladder] {game}, {players} players, {deals} deals per pairing: {', '.join(specs)}", file=sys.stderr, flush=True)
    for note in notes:
        print(f"[ladder] note: {note}", file=sys.stderr, flush=True)
    result = run_ladder(game, specs, players, deals, seed, notes, progress=stderr_progress)
    print(result.table())
    command = f"fight-envs ladder {game} --players {players} --deals {deals} --seed {seed}"
    if agents:
        command += " --agents " + " ".join(f'"{a}"' for a in agents)
    if models:
        command += " --models " + " ".join(models)
    paths = write_ladder(result, out or default_out, command=command)
    print("wrote " + ", ".join(paths.values()))
    return 0
