"""Self-play training throughput: the batched Fight 5 engine against SB3's vec envs, in the same run (issue 4).

Each line runs the trainer itself (``fight_envs.train.selfplay.train_main``, MaskablePPO, the opponent
pool, snapshots, the final checkpoint) for ``--timesteps`` learner decisions and reports
**environment steps per second, rollout and update together**: ``model.num_timesteps`` over the
seconds ``model.learn`` took (``summary.json``'s wall time). Evaluation is switched off
(``eval.games=0``): it plays the same games whatever the vec env, so it would only dilute the
comparison. Lines:

* ``batched``: ``configs/fight5_selfplay_batched.yaml`` (``vec_env: batched``, 128 games x 32
  steps per rollout).
* ``dummy``: ``configs/fight5_selfplay.yaml`` with ``vec_env=dummy`` (8 ``SingleAgentEnv`` over
  the PettingZoo AEC env in one process, 8 x 512 steps per rollout).
* ``subproc``: the same with ``vec_env=subproc`` (one worker process per env).

Both recipes have 4,096 steps per rollout and the same PPO update (batch 512, 8 epochs), so the
update costs the same and the difference is the rollout. ``total_timesteps`` is set to
``--timesteps``, so the opponent mix anneals over the measured run as over a full one
(``--mix start`` keeps the start mix, random and greedy only, the first half of a real run's
cost profile; ``--mix end`` the end mix, with the heuristic baseline, whose per-game planning
no vec env batches away, and snapshots of the learner, one per rollout, as ``self`` opponents). The ``ratio`` column divides by ``dummy``. The ``rollout s`` column is
the time spent collecting rollouts (``MaskablePPO.collect_rollouts``, timed by wrapping it in this
process; callbacks included), ``update s`` the rest of ``learn`` (the PPO update, the same work
on every line), and ``rollout steps/s`` the collection rate alone.

On a shared machine the rate of one run swings with the other jobs' load (by 2x on the 2-core
machine the figures in ``benchmarks/README.md`` come from), so ``--repeats k`` runs every line
k times, interleaved (batched, dummy, subproc, batched, ...), and keeps each line's fastest run
(the same seed: the same work each time); the ratios divide those best rates. It also prints
each round's ratios (a line's run over the dummy run of the same round, measured minutes apart
at most) and their median, less sensitive to a load change between rounds. The load average
(``/proc/loadavg``) is printed before and after.

Run from the repository root::

    python benchmarks/bench_selfplay_training.py [--timesteps 16384] [--only batched dummy]
        [--mix run|start|end] [--repeats 1] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's packages

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from fight_envs.train.config import load_config
from fight_envs.train.selfplay import train_main

ROOT = Path(__file__).resolve().parent.parent
LINES = {
    "batched": (ROOT / "configs" / "fight5_selfplay_batched.yaml", []),
    "dummy": (ROOT / "configs" / "fight5_selfplay.yaml", ["vec_env=dummy"]),
    "subproc": (ROOT / "configs" / "fight5_selfplay.yaml", ["vec_env=subproc"]),
}
MIXES = {
    "run": [],
    "start": ["opponents.weights_end={random: 0.5, greedy: 0.5}"],
    # the end mix from the first step, with a snapshot every rollout so ``self`` opponents play
    "end": ["opponents.weights_start={random: 0.1, greedy: 0.2, heuristic: 0.3, self: 0.4}",
            "opponents.anneal_fraction=0", "opponents.snapshot_every=4096"],
}


ROLLOUT_SECONDS = [0.0]
_collect = MaskablePPO.collect_rollouts


def _timed_collect(self: MaskablePPO, *args: Any, **kwargs: Any) -> bool:
    t0 = time.perf_counter()
    try:
        return _collect(self, *args, **kwargs)
    finally:
        ROLLOUT_SECONDS[0] += time.perf_counter() - t0


MaskablePPO.collect_rollouts = _timed_collect  # type: ignore[method-assign]  # this process only


def measure(name: str, timesteps: int, mix: str, runs_dir: Path, seed: int) -> dict[str, Any]:
    path, extra = LINES[name]
    overrides = [*extra, *MIXES[mix], f"total_timesteps={timesteps}", f"runs_dir={runs_dir}", f"run_name={name}",
                 "eval.games=0", "progress=none", f"checkpoint_every={10 * timesteps}", f"seed={seed}"]
    config = load_config(path, overrides)
    ROLLOUT_SECONDS[0] = 0.0
    t0 = time.perf_counter()
    run = train_main(config)
    total = time.perf_counter() - t0
    summary = json.loads((run / "summary.json").read_text())
    steps, wall = summary["num_timesteps"], summary["wall_seconds"]
    return {"line": name, "n_envs": config.n_envs, "n_steps": config.ppo.n_steps, "steps": steps,
            "learn_seconds": wall, "steps_per_second": steps / wall,
            "rollout_seconds": round(ROLLOUT_SECONDS[0], 2), "update_seconds": round(wall - ROLLOUT_SECONDS[0], 2),
            "rollout_steps_per_second": steps / ROLLOUT_SECONDS[0], "total_seconds": round(total, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--timesteps", type=int, default=16384, help="learner decisions per line (default 16384)")
    parser.add_argument("--only", nargs="+", choices=list(LINES), default=list(LINES))
    parser.add_argument("--mix", choices=list(MIXES), default="run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=1, help="runs per line, interleaved; the fastest is kept")
    parser.add_argument("--json", type=str, default=None)
    args = parser.parse_args()
    torch.set_num_threads(1)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load_before = _loadavg()
    print(f"# self-play training throughput: {platform.machine()}, {cpus} CPU cores, torch {torch.__version__} "
          f"(1 thread), {args.timesteps:,} timesteps per line, opponent mix: {args.mix}, "
          f"best of {args.repeats}; load average {load_before}")
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in args.only}
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.repeats):
            for name in args.only:
                run = measure(name, args.timesteps, args.mix, Path(tmp) / str(k), args.seed)
                runs[name].append(run)
                print(f"#   {name} (run {k + 1}/{args.repeats}): {run['steps_per_second']:,.0f} steps/s, "
                      f"done in {run['total_seconds']} s", flush=True)
    load_after = _loadavg()
    print(f"# load average after: {load_after}")
    rows = [max(runs[name], key=lambda r: r["steps_per_second"]) for name in args.only]
    for r in rows:
        r["all_steps_per_second"] = [round(x["steps_per_second"], 1) for x in runs[r["line"]]]
        if "dummy" in runs:  # each round's ratio: this line over the dummy run measured beside it
            r["round_ratios"] = [round(x["steps_per_second"] / d["steps_per_second"], 2)
                                 for x, d in zip(runs[r["line"]], runs["dummy"])]
            r["median_round_ratio"] = float(np.median(r["round_ratios"]))
    base = next((r["steps_per_second"] for r in rows if r["line"] == "dummy"), None)
    print(f"{'line':<10}{'n_envs':>8}{'n_steps':>9}{'steps':>9}{'learn s':>10}{'rollout s':>11}{'update s':>10}"
          f"{'rollout steps/s':>17}{'steps/s':>10}{'ratio':>8}")
    for r in rows:
        r["ratio_vs_dummy"] = r["steps_per_second"] / base if base else None
        ratio = f"{r['ratio_vs_dummy']:.2f}x" if base else "-"
        print(f"{r['line']:<10}{r['n_envs']:>8}{r['n_steps']:>9}{r['steps']:>9,}{r['learn_seconds']:>10.1f}"
              f"{r['rollout_seconds']:>11.1f}{r['update_seconds']:>10.1f}{r['rollout_steps_per_second']:>17,.0f}"
              f"{r['steps_per_second']:>10,.0f}{ratio:>8}")
    if args.repeats > 1 and base:
        print("# per-round ratios (each run over the dummy run of its round), median: " + "; ".join(
            f"{r['line']} {', '.join(f'{x:.2f}' for x in r['round_ratios'])} -> {r['median_round_ratio']:.2f}x"
            for r in rows))
    if args.json:
        Path(args.json).write_text(json.dumps({"timesteps": args.timesteps, "mix": args.mix, "cpus": cpus,
                                               "repeats": args.repeats, "loadavg_before": load_before,
                                               "loadavg_after": load_after, "machine": platform.machine(),
                                               "lines": rows}, indent=2) + "\n")


def _loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


if __name__ == "__main__":
    main()
