"""Plot one or more runs' learning curves (their ``eval_history.jsonl``) into a PNG for ``docs/``.

    python scripts/plot_learning_curve.py OUT.png RUN_DIR [RUN_DIR ...] [--title TITLE] [--opponent heuristic]

One line per (run, opponent); with several runs (e.g. seeds of one recipe) each run's line is
labelled by its directory name. ``--opponent`` keeps one opponent's curve. The dashed line is the
fair share of an n-player game (1/n, from the run's ``eval.num_players``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's packages

from fight_envs.agents.plots import plot_learning_curves  # noqa: E402
from fight_envs.train.config import load_config  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--title", default=None)
    parser.add_argument("--opponent", default=None, help="keep only this opponent's curve")
    args = parser.parse_args()
    series: dict[str, list[tuple[float, float]]] = {}
    players = 2
    for run in map(Path, args.runs):
        players = load_config(run / "config.yaml").eval.num_players
        prefix = f"{run.name}: " if len(args.runs) > 1 else ""
        for line in (run / "eval_history.jsonl").read_text().splitlines():
            row = json.loads(line)
            if args.opponent is None or row["opponent"] == args.opponent:
                series.setdefault(f"{prefix}vs {row['opponent']}", []).append((row["step"], row["winrate"]))
    out = plot_learning_curves(series, args.out, xlabel="learner decisions", ylabel="win share (evaluation)",
                               title=args.title, reference=1.0 / players)
    print(out)


if __name__ == "__main__":
    main()
