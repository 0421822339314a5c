"""Self-play training throughput for every game: in-process vec envs against SB3's vec envs, in the same run.

Each line runs the trainer itself (``fight_envs.train.selfplay.train_main``, MaskablePPO, the opponent
pool, snapshots, the final checkpoint) for ``--timesteps`` learner decisions and reports
**environment steps per second, rollout and update together**: ``model.num_timesteps`` over the
seconds ``model.learn`` took (``summary.json``'s wall time). Evaluation is switched off
(``eval.games=0``): it plays the same games whatever the vec env, so it would only dilute the
comparison. Every line of a game is the same recipe (``--game G --players n`` reads
``configs/G_selfplay_<n>p.yaml``; Fight 5 at 2 players reads ``configs/fight5_selfplay_batched.yaml``,
the default of ``fight-envs train``, and at 3 or 5 ``configs/fight5_selfplay_<n>p.yaml``) with the
same PPO update; only the vec env differs:

* ``batched`` (Fight 5 only): ``vec_env: batched``, the batched engine (``n_envs`` games x ``n_steps``).
* ``multi``: ``vec_env: multi`` (``fight_envs.train.multi_vec_env``), the config's ``n_envs`` AEC games
  in one process, the opponents acting in batches.
* ``multi2``: the same games split between two worker processes (``workers: 2``,
  ``fight_envs.train.sharded_vec_env``): the games' own work on both cores of a 2-core machine,
  the learner's forward pass and update in the trainer's process.
* ``dummy``: SB3's DummyVecEnv over ``SingleAgentEnv`` (the PettingZoo AEC env), ``n_envs / 16``
  envs x ``16 n_steps`` steps: the same learner decisions per rollout, so the same update.
* ``subproc``: the same with SubprocVecEnv (one worker process per env).

``total_timesteps`` is set to ``--timesteps``, so the opponent mix anneals over the measured run as
over a full one (``--mix start`` keeps the start mix the whole run; ``--mix end`` plays the end
mix, with the scripted baselines and snapshots of the learner, one per rollout, as ``self``
opponents, from the first step). The ``ratio`` column divides by ``dummy``. The ``rollout s`` column is
the time spent collecting rollouts (``MaskablePPO.collect_rollouts``, timed by wrapping it in this
process; callbacks included), ``update s`` the rest of ``learn`` (the PPO update, the same work
on every line), and ``rollout steps/s`` the collection rate alone.

On a shared machine the rate of one run swings with the other jobs' load (by 2x on the 2-core
machine the figures in ``benchmarks/README.md`` come from), so ``--repeats k`` runs every line
k times, interleaved (batched, multi, dummy, ..., batched, ...), and keeps each line's fastest run
(the same seed: the same work each time); the ratios divide those best rates. It also prints
each round's ratios (a line's run over the dummy run of the same round, measured minutes apart
at most) and their median, less sensitive to a load change between rounds. The load average
(``/proc/loadavg``) is printed before and after. ``--game all`` measures every game in turn.

Run from the repository root::

    python benchmarks/bench_selfplay_training.py [--game fight5|brawl|fifth_earth|fight_klub|all]
        [--players 2] [--timesteps 16384] [--only batched multi dummy] [--mix run|start|end]
        [--repeats 1] [--set key=value ...] [--json out.json]
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
GAMES = {"fight5": (2, 3, 5), "brawl": (2, 3, 5), "fifth_earth": (2, 3, 5), "fight_klub": (2,)}
"""Games and the player counts they have configs for (``configs/<game>_selfplay_<n>p.yaml``)."""
DUMMY_SPLIT = 16
"""The dummy and subproc lines run n_envs / 16 envs of 16 x n_steps steps: the same rollout size."""
LINE_NAMES = ("batched", "multi", "multi2", "dummy", "subproc")


def recipe(game: str, players: int) -> Path:
    if game == "fight5" and players == 2:
        return ROOT / "configs" / "fight5_selfplay_batched.yaml"
    return ROOT / "configs" / f"{game}_selfplay_{players}p.yaml"


def line_overrides(name: str, n_envs: int, n_steps: int) -> list[str]:
    """The overrides that turn a game's recipe into line ``name`` (same decisions per rollout)."""
    if name in ("batched", "multi"):
        return [f"vec_env={name}", "workers=1"]
    if name == "multi2":
        return ["vec_env=multi", "workers=2"]
    envs = max(1, n_envs // DUMMY_SPLIT)
    return [f"vec_env={name}", "workers=1", f"n_envs={envs}", f"ppo.n_steps={n_envs * n_steps // envs}"]


def mixes(path: Path) -> dict[str, list[str]]:
    """``run``: the recipe's mix; ``start``: its start mix throughout; ``end``: its end mix from the first step."""
    base = load_config(path)
    start = ", ".join(f"{k}: {v}" for k, v in base.opponents.weights_start.items())
    end = ", ".join(f"{k}: {v}" for k, v in base.opponents.weights_end.items())
    return {
        "run": [],
        "start": [f"opponents.weights_end={{{start}}}"],
        "end": [f"opponents.weights_start={{{end}}}", "opponents.anneal_fraction=0", "opponents.snapshot_every=4096"],
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


def measure(game: str, players: int, name: str, timesteps: int, mix: str, runs_dir: Path, seed: int,
            recipe_overrides: list[str] | None = None) -> dict[str, Any]:
    path = recipe(game, players)
    base = load_config(path, recipe_overrides or [])
    overrides = [*(recipe_overrides or []), *line_overrides(name, base.n_envs, base.ppo.n_steps), *mixes(path)[mix],
                 f"total_timesteps={timesteps}", f"runs_dir={runs_dir}", f"run_name={game}_{players}p_{name}",
                 "eval.games=0", "progress=none", f"checkpoint_every={10 * timesteps}", f"seed={seed}",
                 # no behaviour cloning first (the Brawl and Fight Klub recipes clone a teacher's games):
                 # a line times PPO's rollouts and updates, the same work on every line
                 "pretrain.games=0", "pretrain.epochs=0", "pretrain.data=null"]
    config = load_config(path, overrides)
    ROLLOUT_SECONDS[0] = 0.0
    t0 = time.perf_counter()
    run = train_main(config)
    total = time.perf_counter() - t0
    summary = json.loads((run / "summary.json").read_text())
    steps, wall = summary["num_timesteps"], summary["wall_seconds"]
    return {"game": game, "players": players, "line": name, "config": str(path.relative_to(ROOT)),
            "n_envs": config.n_envs, "n_steps": config.ppo.n_steps, "steps": steps,
            "learn_seconds": wall, "steps_per_second": steps / wall,
            "rollout_seconds": round(ROLLOUT_SECONDS[0], 2), "update_seconds": round(wall - ROLLOUT_SECONDS[0], 2),
            "rollout_steps_per_second": steps / ROLLOUT_SECONDS[0], "total_seconds": round(total, 1)}


def bench_game(game: str, players: int, lines: list[str], args: argparse.Namespace, tmp: Path) -> list[dict[str, Any]]:
    """Every line of one game, ``args.repeats`` interleaved rounds; the best run of each line, with ratios."""
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in lines}
    for k in range(args.repeats):
        for name in lines:
            run = measure(game, players, name, args.timesteps, args.mix, tmp / f"{game}_{players}_{k}", args.seed, args.set)
            runs[name].append(run)
            print(f"#   {game} {players}p {name} (run {k + 1}/{args.repeats}): {run['steps_per_second']:,.0f} steps/s, "
                  f"done in {run['total_seconds']} s; load {_loadavg()}", flush=True)
    rows = [max(runs[name], key=lambda r: r["steps_per_second"]) for name in lines]
    for r in rows:
        r["all_steps_per_second"] = [round(x["steps_per_second"], 1) for x in runs[r["line"]]]
        if "dummy" in runs:  # each round's ratio: this line over the dummy run measured beside it
            r["round_ratios"] = [round(x["steps_per_second"] / d["steps_per_second"], 2)
                                 for x, d in zip(runs[r["line"]], runs["dummy"])]
            r["median_round_ratio"] = float(np.median(r["round_ratios"]))
    base = next((r["steps_per_second"] for r in rows if r["line"] == "dummy"), None)
    print(f"{'game':<12}{'n':>3} {'line':<9}{'n_envs':>7}{'n_steps':>8}{'steps':>9}{'learn s':>9}{'rollout s':>10}"
          f"{'update s':>9}{'rollout steps/s':>16}{'steps/s':>9}{'ratio':>8}")
    for r in rows:
        r["ratio_vs_dummy"] = r["steps_per_second"] / base if base else None
        ratio = f"{r['ratio_vs_dummy']:.2f}x" if base else "-"
        print(f"{game:<12}{players:>3} {r['line']:<9}{r['n_envs']:>7}{r['n_steps']:>8}{r['steps']:>9,}"
              f"{r['learn_seconds']:>9.1f}{r['rollout_seconds']:>10.1f}{r['update_seconds']:>9.1f}"
              f"{r['rollout_steps_per_second']:>16,.0f}{r['steps_per_second']:>9,.0f}{ratio:>8}")
    if args.repeats > 1 and base:
        print("# per-round ratios (each run over the dummy run of its round), median: " + "; ".join(
            f"{r['line']} {', '.join(f'{x:.2f}' for x in r['round_ratios'])} -> {r['median_round_ratio']:.2f}x"
            for r in rows), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", choices=[*GAMES, "all"], default="fight5")
    parser.add_argument("--players", type=int, default=2, help="player count (its config; default 2)")
    parser.add_argument("--timesteps", type=int, default=16384, help="learner decisions per line (default 16384)")
    parser.add_argument("--only", nargs="+", choices=LINE_NAMES, default=None,
                        help="lines to run (default: batched, dummy, subproc for Fight 5 and multi, dummy otherwise)")
    parser.add_argument("--mix", choices=["run", "start", "end"], default="run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=1, help="runs per line, interleaved; the fastest is kept")
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                        help="recipe overrides applied to every line before its own (e.g. ppo.n_epochs=4)")
    parser.add_argument("--json", type=str, default=None)
    args = parser.parse_args()
    games = list(GAMES) if args.game == "all" else [args.game]
    for game in games:
        if args.players not in GAMES[game]:
            parser.error(f"--players {args.players}: {game} has configs for {GAMES[game]} players")
    torch.set_num_threads(1)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load_before = _loadavg()
    print(f"# self-play training throughput: {platform.machine()}, {cpus} CPU cores, torch {torch.__version__} "
          f"(1 thread), {args.timesteps:,} timesteps per line, opponent mix: {args.mix}, "
          f"best of {args.repeats}; load average {load_before}")
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for game in games:
            default = ["batched", "dummy", "subproc"] if game == "fight5" else ["multi", "dummy"]
            lines = [n for n in (args.only or default) if n != "batched" or game == "fight5"]
            rows += bench_game(game, args.players, lines, args, Path(tmp))
    load_after = _loadavg()
    print(f"# load average after: {load_after}")
    if args.json:
        Path(args.json).write_text(json.dumps({"timesteps": args.timesteps, "mix": args.mix, "cpus": cpus,
                                               "players": args.players, "repeats": args.repeats, "set": args.set,
                                               "loadavg_before": load_before, "loadavg_after": load_after,
                                               "machine": platform.machine(), "lines": rows}, indent=2) + "\n")


def _loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


if __name__ == "__main__":
    main()
