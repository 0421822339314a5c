"""Throughput of the Fight 5 envs, beside PettingZoo's own classic envs measured in the same run.

Every line plays whole random games with one cheap sampler (a uniform legal action drawn from
the action mask with a seeded ``numpy.random.Generator``, two numpy calls) and reports *agent
decisions per second*: one AEC ``step`` with an action is one decision; one parallel ``step``
with n agents is n decisions; one engine ``apply_action`` is one decision. Resets and the
end-of-game steps that carry no action (``None`` for a finished agent) are inside the timed loop
but are not counted. Each rate is given per second of wall time and per second of this
process's CPU time (``time.process_time``); on a shared machine the second is less disturbed.

Lines (per player count for Fight 5):

* ``fight5 engine``: ``Fight5Game`` alone: ``current_player``, ``legal_action_mask``,
  ``apply_action``; no observation, no env. The ceiling the envs can approach.
* ``fight5_v0.raw_env``: the AEC env without PettingZoo's wrappers.
* ``fight5_v0.env``: the AEC env with its wrappers, the way users run it.
* ``fight5_v0.parallel_env``: the parallel env (every player places one card per step).
* ``connect_four_v3.env`` / ``.raw_env``, ``texas_holdem_v4.env`` / ``.raw_env``: PettingZoo's
  classic envs through the same AEC loop. ``texas_holdem_v4`` needs ``rlcard``
  (``pip install rlcard``) and ``connect_four_v3`` needs ``pygame``; a missing one is reported
  and skipped.

The AEC loop is PettingZoo's documented one::

    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else sample(obs["action_mask"])
        env.step(action)

The ratio columns divide each line by ``connect_four_v3.env`` of the same run. With
``--repeats k`` every line is measured k times, interleaved, and the best is kept (on a shared
machine the best is the least disturbed). Run from the repository root::

    python benchmarks/bench_fight5_envs.py [--seconds 3] [--players 2 3 4 5] [--repeats 1]
        [--only WORD ...] [--json out.json]

``benchmarks/README.md`` explains the lines and holds the latest figures.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import subprocess
import sys
from dataclasses import asdict, dataclass
from importlib import metadata
from typing import Any, Callable

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # connect_four imports pygame, which greets on stdout

import numpy as np
from common import Timing, play_aec_game, sample, time_engine, time_games

from fight_envs import fight5_v0
from fight_envs.games.fight5.rules import Fight5Config, Fight5Game

REFERENCE = "connect_four_v3.env"


def run_aec(env: Any, seconds: float, seed: int) -> Timing:
    """Play whole AEC games for about ``seconds`` of wall time."""
    rng = np.random.default_rng(seed)
    play_aec_game(env, rng, seed)  # warm-up game, not timed: imports, caches, first allocations
    return time_games(seconds, lambda games: play_aec_game(env, rng, seed + games))


def run_parallel(env: Any, seconds: float, seed: int) -> Timing:
    """Play whole parallel games for about ``seconds``; each agent's action is one decision."""
    rng = np.random.default_rng(seed)

    def one(game_seed: int) -> int:
        decisions = 0
        obs, _ = env.reset(seed=game_seed)
        while env.agents:
            decisions += len(env.agents)
            obs = env.step({a: sample(obs[a]["action_mask"], rng) for a in env.agents})[0]
        return decisions

    one(seed)  # warm-up game
    return time_games(seconds, lambda games: one(seed + games))


def run_engine(num_players: int, seconds: float, seed: int) -> Timing:
    """Random play on the bare rules engine: no observation, info or reward is built."""
    return time_engine(Fight5Game(Fight5Config(num_players=num_players)), seconds, seed)


@dataclass
class Line:
    """Best of the repeats of one line; wall and CPU rates are each the best of their own."""

    name: str
    players: int | None
    per_wall_s: float
    per_cpu_s: float
    decisions: int
    games: int


def classic_envs() -> tuple[list[tuple[str, Callable[[], Any]]], list[str]]:
    """PettingZoo's classic reference envs that import here, and a note for each that does not."""
    found: list[tuple[str, Callable[[], Any]]] = []
    notes: list[str] = []
    for name in ("connect_four_v3", "texas_holdem_v4"):
        try:
            module = importlib.import_module(f"pettingzoo.classic.{name}")
        except ImportError as exc:  # connect_four needs pygame; texas_holdem needs rlcard and pygame
            missing = getattr(exc, "name", None) or "rlcard pygame"
            notes.append(f"{name} SKIPPED, it does not import here: {exc} (pip install {missing})")
            continue
        found += [(f"{name}.env", module.env), (f"{name}.raw_env", module.raw_env)]
    return found, notes


def environment() -> dict[str, Any]:
    def version(pkg: str) -> str:
        try:
            return metadata.version(pkg)
        except metadata.PackageNotFoundError:
            return "not installed"

    try:
        commit = subprocess.run(
            ["git", "describe", "--always", "--dirty"], capture_output=True, text=True, check=True, timeout=5
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "processor": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "cpus_usable": usable,
        "numpy": np.__version__,
        "pettingzoo": version("pettingzoo"),
        "gymnasium": version("gymnasium"),
        "rlcard": version("rlcard"),
        "fight_envs_commit": commit,
    }


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for row in f:
                if row.startswith("model name"):
                    return row.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="timed seconds per line and repeat (default 3)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5], help="Fight 5 player counts")
    parser.add_argument("--repeats", type=int, default=1, help="measure every line this many times, keep the best")
    parser.add_argument("--seed", type=int, default=0, help="first game seed (game g uses seed + g)")
    parser.add_argument("--json", type=str, default=None, help="also write environment and lines to this file")
    parser.add_argument(
        "--only",
        nargs="+",
        default=None,
        help=f"measure only lines whose name contains one of these words (and {REFERENCE}, the ratios' base)",
    )
    args = parser.parse_args(argv)
    for n in args.players:
        Fight5Config(num_players=n)  # rejects a bad count before minutes of measuring

    env_info = environment()
    print("environment: " + ", ".join(f"{k}={v}" for k, v in env_info.items()))
    refs, notes = classic_envs()
    for note in notes:
        print(note)

    jobs: list[tuple[str, int | None, Callable[[], Timing]]] = []
    for name, make in refs:
        jobs.append((name, None, lambda make=make: run_aec(make(), args.seconds, args.seed)))
    secs, seed = args.seconds, args.seed
    for n in args.players:
        jobs.append(("fight5 engine", n, lambda n=n: run_engine(n, secs, seed)))
        jobs.append(("fight5_v0.raw_env", n, lambda n=n: run_aec(fight5_v0.raw_env(num_players=n), secs, seed)))
        jobs.append(("fight5_v0.env", n, lambda n=n: run_aec(fight5_v0.env(num_players=n), secs, seed)))
        jobs.append(
            ("fight5_v0.parallel_env", n, lambda n=n: run_parallel(fight5_v0.parallel_env(num_players=n), secs, seed))
        )
    if args.only:
        jobs = [job for job in jobs if job[0] == REFERENCE or any(word in job[0] for word in args.only)]

    best: dict[tuple[str, int | None], Line] = {}
    for r in range(args.repeats):
        for name, n, job in jobs:
            decisions, wall, cpu, games = job()
            key = (name, n)
            line = best.setdefault(key, Line(name, n, 0.0, 0.0, 0, 0))
            line.per_wall_s = max(line.per_wall_s, decisions / wall)
            line.per_cpu_s = max(line.per_cpu_s, decisions / cpu)
            line.decisions += decisions
            line.games += games
            label = name if n is None else f"{name} n={n}"
            rates = f"{decisions / wall:,.0f}/s wall, {decisions / cpu:,.0f}/s cpu"
            print(f"  [{r + 1}/{args.repeats}] {label}: {rates}", flush=True)

    ref = best.get((REFERENCE, None))
    print()
    print(f"decisions per second (best of {args.repeats}); ratios are to {REFERENCE} of this run")
    print(f"{'line':<26}{'players':>8}{'wall':>10}{'cpu':>10}{'ratio wall':>12}{'ratio cpu':>11}{'games':>8}")
    for line in best.values():
        wall_ratio = f"{line.per_wall_s / ref.per_wall_s:.2f}x" if ref else "n/a"
        cpu_ratio = f"{line.per_cpu_s / ref.per_cpu_s:.2f}x" if ref else "n/a"
        players = "" if line.players is None else str(line.players)
        print(
            f"{line.name:<26}{players:>8}{line.per_wall_s:>10,.0f}{line.per_cpu_s:>10,.0f}"
            f"{wall_ratio:>12}{cpu_ratio:>11}{line.games:>8}"
        )

    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "environment": env_info,
                    "options": vars(args),
                    "notes": notes,
                    "reference": REFERENCE,
                    "lines": [asdict(line) for line in best.values()],
                },
                f,
                indent=2,
            )
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
