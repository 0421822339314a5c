"""Throughput of the Brawl envs per fighter count, beside PettingZoo's ``connect_four_v3`` measured
in the same run.

Every line plays whole games with uniformly random legal actions (drawn from the action mask
with a seeded ``numpy.random.Generator``) and reports *agent decisions per second*: one AEC
``step`` with an action is one decision; one parallel ``step`` is one decision too (only the
deciding fighter's action is applied). Resets and the action-less end-of-game steps are timed but
not counted. Rates are per second of wall time and of this process's CPU time.

Lines, per fighter count (2..8):

* ``brawl engine``: ``BrawlGame`` alone (``legal_action_mask`` + ``apply_action``), the ceiling.
* ``brawl_v0.raw_env`` / ``brawl_v0.env``: the AEC env without / with PettingZoo's wrappers.
* ``brawl_v0.parallel_env``: the parallel conversion.
* ``connect_four_v3.env``: the reference; the ratio column divides every line by it.

The envs run with their defaults (the standard rules); ``--rules classic`` measures the first
release's rules and ``--no-windows`` adds ``chaos_windows=False``. The machine may be shared, so
the lines are measured in ``--rounds`` rounds, each round timing the reference right before the
Brawl lines, and the ratio column is the median over rounds of each round's ratio (CPU time).
Run from the repository root::

    python benchmarks/bench_brawl.py [--seconds 1] [--rounds 3] [--players 2 3 5 8] [--rules standard]
                                     [--no-windows] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np
from common import play_aec_game

from fight_envs import brawl_v0
from fight_envs.games.brawl.rules import BrawlConfig, BrawlGame

REFERENCE = "connect_four_v3.env"


@dataclass
class Timing:
    name: str
    players: int
    decisions: int
    games: int
    wall_s: float
    cpu_s: float

    @property
    def per_wall_s(self) -> float:
        return self.decisions / self.wall_s

    @property
    def per_cpu_s(self) -> float:
        return self.decisions / max(self.cpu_s, 1e-9)


def sample(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(legal.size)])


def _timed(name: str, players: int, seconds: float, play_one: Callable[[int], int]) -> Timing:
    decisions = games = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    while time.perf_counter() - wall0 < seconds:
        decisions += play_one(games)
        games += 1
    return Timing(name, players, decisions, games, time.perf_counter() - wall0, time.process_time() - cpu0)


def run_aec(name: str, players: int, make: Callable[[], Any], seconds: float) -> Timing:
    env = make()
    rng = np.random.default_rng(0)

    return _timed(name, players, seconds, lambda i: play_aec_game(env, rng, i, sample))


def run_parallel(players: int, seconds: float, options: dict[str, Any]) -> Timing:
    env = brawl_v0.parallel_env(num_players=players, **options)
    rng = np.random.default_rng(0)

    def one(i: int) -> int:
        obs, _ = env.reset(seed=i)
        n = 0
        while env.agents:
            actions = {a: sample(o["action_mask"], rng) for a, o in obs.items()}  # PASS for those waiting
            obs, *_ = env.step(actions)
            n += 1
        return n

    return _timed("brawl_v0.parallel_env", players, seconds, one)


def run_engine(players: int, seconds: float, options: dict[str, Any]) -> Timing:
    game = BrawlGame(BrawlConfig(num_players=players, **options))
    rng = np.random.default_rng(0)

    def one(i: int) -> int:
        game.new_game(np.random.default_rng(i))
        while not game.is_over():
            seat = game.current_player()
            game.apply_action(seat, sample(game.legal_action_mask(seat), rng))
        return game.steps

    return _timed("brawl engine", players, seconds, one)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per line and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (the ratio is the median over rounds)")
    parser.add_argument("--players", type=int, nargs="+", default=list(range(2, 9)))
    parser.add_argument("--rules", default="standard", help="rule set: standard (default) or classic")
    parser.add_argument("--no-windows", action="store_true", help="chaos_windows=False")
    parser.add_argument("--json", help="also write the timings here")
    args = parser.parse_args(argv)
    options: dict[str, Any] = {"rules": args.rules}
    if args.no_windows:
        options["chaos_windows"] = False
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError as exc:  # connect_four needs pygame
        connect_four_v3 = None
        print(f"connect_four_v3 unavailable ({exc}); ratios left out", file=sys.stderr)
    rounds: list[list[Timing]] = []
    for _ in range(args.rounds):
        timings: list[Timing] = []
        for n in args.players:
            if connect_four_v3 is not None:
                timings.append(run_aec(REFERENCE, 2, connect_four_v3.env, args.seconds))
            timings.append(run_engine(n, args.seconds, options))
            timings.append(run_aec("brawl_v0.raw_env", n, lambda n=n: brawl_v0.raw_env(num_players=n, **options),
                                   args.seconds))
            timings.append(run_aec("brawl_v0.env", n, lambda n=n: brawl_v0.env(num_players=n, **options), args.seconds))
            timings.append(run_parallel(n, args.seconds, options))
        rounds.append(timings)
    print(f"Brawl throughput, options={options}, {args.seconds:g} s per line, {args.rounds} rounds, "
          f"agent decisions per second (sums over rounds), ratio: median over rounds")
    print(f"{'line':<24}{'players':>8}{'games':>8}{'dec/s wall':>13}{'dec/s cpu':>12}{'x c4 (cpu)':>12}")
    rows = []
    for k, t0 in enumerate(rounds[0]):
        if t0.name == REFERENCE:
            continue
        same = [r[k] for r in rounds]
        total = Timing(t0.name, t0.players, sum(t.decisions for t in same), sum(t.games for t in same),
                       sum(t.wall_s for t in same), sum(t.cpu_s for t in same))
        ratio = None
        if connect_four_v3 is not None:
            ref_index = max(j for j in range(k) if rounds[0][j].name == REFERENCE)
            ratio = float(np.median([r[k].per_cpu_s / r[ref_index].per_cpu_s for r in rounds]))
        rows.append((total, ratio))
        text = f"{ratio:.2f}" if ratio is not None else "-"
        print(f"{total.name:<24}{total.players:>8}{total.games:>8}{total.per_wall_s:>13,.0f}{total.per_cpu_s:>12,.0f}"
              f"{text:>12}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"options": options, "seconds": args.seconds, "rounds": args.rounds,
                       "timings": [asdict(t) | {"per_wall_s": t.per_wall_s, "per_cpu_s": t.per_cpu_s, "x_c4": r}
                                   for t, r in rows]}, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
