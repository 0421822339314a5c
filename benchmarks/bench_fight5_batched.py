"""Throughput of the batched Fight 5 engine beside the PettingZoo AEC env, in the same run (issue 4).

Every line plays random games and reports *agent decisions per second*: one AEC ``step`` with
an action is one decision; one ``Fight5Batch.step`` over B games is B decisions (every game's
acting seat places one card). Observations and action masks are included on both sides: the
AEC loop reads ``env.last()`` (the acting agent's observation and mask) before each step; the
batched engine returns the acting seats' (B, 627) observations and (B, 13) masks from every
step. Each rate is given per second of wall time and per second of this process's CPU time
(``time.process_time``); on a shared machine the second is less disturbed.

Random legal actions: the AEC loop uses the same two-call sampler as ``bench_fight5_envs.py``
(a uniform legal action from the mask); the batched loop draws one uniform legal action per game
with ``batched.random_legal_actions`` (a table lookup on the packed mask), inside the timed loop.

Lines, per player count:

* ``fight5_v0.env (AEC)``: the wrapped AEC env, the way users run it, PettingZoo's loop.
* ``Fight5Batch B=...``: the batched engine, B games stepped together, auto-reset on.

Also printed: the batch's memory per game (game state alone, and with the observation, mask and
scratch buffers), and the dealing cost: the seconds one bout start's shuffles take for the whole
batch (``BatchedPCG64.shuffle``, numpy's ``default_rng`` streams reproduced for all games at
once) and their share of the run time (one bout start per ``rounds x n x 5`` steps).
With ``--repeats k`` every line is measured k times, interleaved, and the best is kept.
Run from the repository root::

    python benchmarks/bench_fight5_batched.py [--seconds 3] [--players 2 5] [--sizes 1 64 1024 4096]
        [--repeats 1] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from common import Timing, play_aec_game, time_games

from fight_envs import fight5_v0
from fight_envs.games.fight5.batched import BatchedPCG64, Fight5Batch, random_legal_actions
from fight_envs.games.fight5.cards import DEFAULT_CARDS, NUM_RANKS

SIZES = (1, 64, 1024, 4096)


def run_aec(num_players: int, seconds: float, seed: int) -> Timing:
    """Play whole games on ``fight5_v0.env`` for about ``seconds`` of wall time."""
    env = fight5_v0.env(num_players=num_players)
    rng = np.random.default_rng(seed)
    play_aec_game(env, rng, seed)  # warm-up game, not timed
    return time_games(seconds, lambda games: play_aec_game(env, rng, seed + games))


def run_batched(num_players: int, num_envs: int, seconds: float, seed: int) -> Timing:
    """Step a ``Fight5Batch`` of ``num_envs`` games for about ``seconds`` of wall time.

    Timed in whole bouts (every bout has the same number of steps), so each measurement
    includes its share of reveals, scoring, dealing and auto-resets.
    """
    batch = Fight5Batch(num_envs, num_players=num_players)
    rng = np.random.default_rng(seed)
    out = batch.reset(seed=seed)
    for _ in range(batch.decisions_per_bout):  # warm-up bout, not timed
        out = batch.step(random_legal_actions(out.action_mask, rng))
    finished_before = batch.games_finished
    steps = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while True:
        for _ in range(batch.decisions_per_bout):
            out = batch.step(random_legal_actions(out.action_mask, rng))
        steps += batch.decisions_per_bout
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps * num_envs, elapsed, time.process_time() - cpu_start, batch.games_finished - finished_before


def dealing_seconds(num_players: int, num_envs: int, repeats: int = 3) -> float:
    """CPU seconds one bout start's shuffles take for a whole batch (best of ``repeats``)."""
    clash_sorted = np.repeat(np.arange(NUM_RANKS, dtype=np.int8), DEFAULT_CARDS.clash_deck)
    deck_sorted = np.repeat(np.arange(NUM_RANKS, dtype=np.int8), DEFAULT_CARDS.player_deck)
    rng = BatchedPCG64(num_envs)
    rng.seed(np.arange(num_envs), np.arange(num_envs, dtype=np.uint64))
    best = float("inf")
    for _ in range(repeats + 1):  # the first call sizes the scratch arrays
        clash = np.repeat(clash_sorted[None, :], num_envs, axis=0)
        decks = [np.repeat(deck_sorted[None, :], num_envs, axis=0) for _ in range(num_players)]
        start = time.process_time()
        rng.shuffle([clash, *decks])
        best = min(best, time.process_time() - start)
    return best


@dataclass
class Line:
    """Best of the repeats of one line; wall and CPU rates are each the best of their own."""

    name: str
    players: int
    num_envs: int | None
    per_wall_s: float
    per_cpu_s: float
    decisions: int
    games: int
    state_bytes_per_game: float | None = None
    total_bytes_per_game: float | None = None
    deal_ms_per_bout: float | None = None
    deal_share: float | None = None


def environment() -> dict[str, Any]:
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for row in f:
                if row.startswith("model name"):
                    model = row.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": model,
        "cpu_count": os.cpu_count(),
        "cpus_usable": usable,
        "load_average_at_start": load,
        "numpy": np.__version__,
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="wall seconds per measurement")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 5])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), help="batch sizes B")
    parser.add_argument("--repeats", type=int, default=1, help="measure each line this often, keep the best")
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args(argv)

    env_info = environment()
    print(f"python {env_info['python']}, numpy {env_info['numpy']}, {env_info['processor']}, "
          f"{env_info['cpus_usable']} usable CPUs, load average {env_info['load_average_at_start']}")
    print(f"{args.seconds:g} s per line, best of {args.repeats}; single process, one thread of numpy work\n")

    lines: list[Line] = []
    for n in args.players:
        jobs: list[tuple[str, int | None]] = [("fight5_v0.env (AEC)", None)] + [(f"Fight5Batch B={b}", b) for b in args.sizes]
        best: dict[str, Line] = {}
        for rep in range(args.repeats):
            for name, size in jobs:
                seed = 1000 * rep
                decisions, wall, cpu, games = (
                    run_aec(n, args.seconds, seed) if size is None else run_batched(n, size, args.seconds, seed)
                )
                line = best.get(name)
                if line is None:
                    line = best[name] = Line(name, n, size, 0.0, 0.0, decisions, games)
                line.per_wall_s = max(line.per_wall_s, decisions / wall)
                line.per_cpu_s = max(line.per_cpu_s, decisions / max(cpu, 1e-9))
        for name, size in jobs:
            line = best[name]
            if size is not None:
                batch = Fight5Batch(size, num_players=n)
                batch.reset(seed=0)  # deals once, so the dealing scratch is counted
                memory = batch.memory_bytes()
                line.state_bytes_per_game = memory["state"] / size
                line.total_bytes_per_game = memory["total"] / size
                deal = dealing_seconds(n, size)
                line.deal_ms_per_bout = deal * 1e3
                step_cpu_s = size / line.per_cpu_s  # CPU seconds per batched step
                line.deal_share = deal / (step_cpu_s * batch.decisions_per_bout)
            lines.append(line)

    header = (f"{'line':<22} {'players':>7} {'decisions/s (wall)':>19} {'decisions/s (CPU)':>18} {'x AEC (CPU)':>11} "
              f"{'bytes/game':>17} {'deal ms/bout':>12} {'deal share':>10}")
    print(header)
    print("-" * len(header))
    for line in lines:
        aec = next(x for x in lines if x.players == line.players and x.num_envs is None)
        ratio = line.per_cpu_s / aec.per_cpu_s
        memory = "" if line.total_bytes_per_game is None else (
            f"{line.state_bytes_per_game:,.0f} / {line.total_bytes_per_game:,.0f}")
        deal = "" if line.deal_ms_per_bout is None else f"{line.deal_ms_per_bout:.2f}"
        share = "" if line.deal_share is None else f"{100 * line.deal_share:.1f}%"
        print(f"{line.name:<22} {line.players:>7} {line.per_wall_s:>19,.0f} {line.per_cpu_s:>18,.0f} {ratio:>10.1f}x "
              f"{memory:>17} {deal:>12} {share:>10}")
    print("\nbytes/game: game state (with its generator) / everything the batch holds, divided by B")
    for n in args.players:
        big = [x for x in lines if x.players == n and x.num_envs == max(args.sizes)]
        if big and big[0].total_bytes_per_game is not None:
            b = big[0]
            print(f"{n} players, B={b.num_envs}: {b.total_bytes_per_game * b.num_envs / 2**20:.1f} MiB in all")
    result = {"environment": env_info, "seconds": args.seconds, "repeats": args.repeats,
              "lines": [asdict(x) for x in lines]}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return result


if __name__ == "__main__":
    main()
