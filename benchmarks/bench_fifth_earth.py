"""Throughput of the Fifth-Earth env, beside PettingZoo's ``connect_four_v3`` measured in the same run.

Every line plays whole random games with one cheap sampler (a uniform legal action drawn from
the action mask with a seeded ``numpy.random.Generator``) and reports *agent decisions per
second*: one AEC ``step`` with an action is one decision; one engine ``apply_action`` is one
decision. Resets and the end-of-game ``None`` steps are inside the timed loop but not counted.
Rates are per second of wall time and of this process's CPU time (less disturbed on a shared
machine). There is no parallel line: Fifth-Earth has no parallel form (see its env card).

Lines, one per player count 2..6:

* ``fifth_earth engine``: ``FifthEarthGame`` alone (``current_player``, ``legal_action_mask``,
  ``apply_action``): the ceiling the env can approach.
* ``fifth_earth_v0.env``: the AEC env with its wrappers, the way users run it.
* ``connect_four_v3.env``: the reference (needs ``pygame``); the ratio column divides each line
  by it.

Run from the repository root::

    python benchmarks/bench_fifth_earth.py [--seconds 2] [--players 2 3 4 5 6] [--json out.json]
    python benchmarks/bench_fifth_earth.py --min-of 10 [--players 2 6]

``--min-of R`` prints instead the least CPU time per decision over R rounds, each round playing
the same seeded random games on ``connect_four_v3.env()`` and on ``fifth_earth_v0.env()`` at each
player count in turn: on a shared machine the least of several short repeats is far less
disturbed by the other work than one long timing (two runs of the rate lines at load 7 gave
0.69x and 1.16x at 2 players).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # connect_four imports pygame, which greets on stdout

import numpy as np
from common import Timing, play_aec_game, time_engine, time_games

from fight_envs import fifth_earth_v0
from fight_envs.games.fifth_earth.rules import FifthEarthConfig, FifthEarthGame


def run_aec(env: Any, seconds: float, seed: int) -> Timing:
    """Play whole AEC games for about ``seconds`` of wall time (after one untimed warm-up game)."""
    rng = np.random.default_rng(seed)
    play_aec_game(env, rng, seed)
    return time_games(seconds, lambda games: play_aec_game(env, rng, seed + games + 1))


def run_engine(num_players: int, seconds: float, seed: int) -> Timing:
    """Random play on the bare rules engine: no observation, info or reward is built."""
    return time_engine(FifthEarthGame(FifthEarthConfig(num_players=num_players)), seconds, seed)


def min_of(rounds: int, players: list[int]) -> None:
    """The least CPU microseconds per decision over ``rounds`` alternating rounds of fixed games."""
    from pettingzoo.classic import connect_four_v3

    def block(env: Any, games: int) -> float:
        rng = np.random.default_rng(0)
        cpu = time.process_time()
        decisions = sum(play_aec_game(env, rng, g) for g in range(games))
        return (time.process_time() - cpu) / decisions * 1e6

    # games per round: each block about 0.1-0.2 s of CPU
    envs = {"connect_four_v3.env": (connect_four_v3.env(), 40)}
    envs |= {f"fifth_earth_v0.env {n} players": (fifth_earth_v0.env(num_players=n), max(12 // (n - 1), 2)) for n in players}
    best = dict.fromkeys(envs, float("inf"))
    for _ in range(rounds):
        for name, (env, games) in envs.items():
            best[name] = min(best[name], block(env, games))
    ref = best["connect_four_v3.env"]
    for name, us in best.items():
        print(f"{name:<30} {us:8.1f} us / decision   x connect_four {ref / us:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per line")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5, 6])
    parser.add_argument("--json", default=None, help="also write the results to this file")
    parser.add_argument("--min-of", type=int, default=0, metavar="R",
                        help="least CPU time per decision over R alternating rounds of fixed games instead")
    args = parser.parse_args()
    if args.min_of:
        min_of(args.min_of, args.players)
        return
    try:
        import torch

        torch.set_num_threads(1)  # in case anything imported torch: keep the machine's other work undisturbed
    except ImportError:
        pass
    rows: list[dict[str, Any]] = []
    reference = None
    try:
        from pettingzoo.classic import connect_four_v3

        d, wall, cpu, games = run_aec(connect_four_v3.env(), args.seconds, 0)
        reference = (d / wall, d / cpu)
        rows.append({"line": "connect_four_v3.env", "players": 2, "per_s": d / wall, "per_cpu_s": d / cpu, "games": games})
    except ImportError as exc:
        print(f"connect_four_v3 unavailable ({exc}); ratios are left out")
    for n in args.players:
        d, wall, cpu, games = run_engine(n, args.seconds, 0)
        rows.append({"line": "fifth_earth engine", "players": n, "per_s": d / wall, "per_cpu_s": d / cpu, "games": games})
        d, wall, cpu, games = run_aec(fifth_earth_v0.env(num_players=n), args.seconds, 0)
        rows.append({"line": "fifth_earth_v0.env", "players": n, "per_s": d / wall, "per_cpu_s": d / cpu, "games": games})
    print(f"{'line':<22} {'players':>7} {'decisions/s':>12} {'per CPU s':>10} {'games':>6} {'x connect_four':>15}")
    for r in rows:
        ratio = f"{r['per_cpu_s'] / reference[1]:.2f}" if reference else "-"
        r["ratio_cpu"] = None if reference is None else r["per_cpu_s"] / reference[1]
        print(f"{r['line']:<22} {r['players']:>7} {r['per_s']:>12.0f} {r['per_cpu_s']:>10.0f} {r['games']:>6} {ratio:>15}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
