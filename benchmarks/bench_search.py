"""Cost per decision of the search agent, beside the heuristic's own decision measured in the same run.

Positions: every decision of one seat in heuristic-vs-heuristic games of Fight 5 (``--games``
games per player count, seeds from ``--seed``; forced decisions, a single legal card, included,
as the agent meets them). For each line the agent decides every position once, and the line
reports milliseconds per decision of wall time and of this process's CPU time
(``time.process_time``, less disturbed on a shared machine), and the ratio to the heuristic's
own decision on the same positions (``heuristic`` line: ``HeuristicAgent.act`` from a fresh
agent, its per-decision cost including a round plan whenever the slot is 0).

Lines: ``heuristic`` (the reference), then each ``--specs`` (default: the ladder's two Fight 5
budgets, ``fight_envs.agents.ladder.SEARCH_BUDGETS["fight5"]``, and full-game heuristic
rollouts ``search:sims=16``).

    python benchmarks/bench_search.py                       # 2 players, 2 games: about a minute on a free core
    python benchmarks/bench_search.py --players 2 3 5 --games 1 --json out.json
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from fight_envs import fight5_v0
from fight_envs.agents.fight5 import HeuristicAgent
from fight_envs.agents.ladder import SEARCH_BUDGETS
from fight_envs.agents.registry import make_agent


def positions(num_players: int, games: int, seed: int) -> list[tuple[np.ndarray, np.ndarray, object]]:
    """(observation, mask, information set) of every decision of seat 0 in heuristic self-play."""
    out = []
    env = fight5_v0.env(num_players=num_players)
    for g in range(games):
        agents = [HeuristicAgent(seed + g) for _ in range(num_players)]
        env.reset(seed=seed + g)
        for aid in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = int(aid.split("_")[1])
            if seat == 0:
                out.append((obs["observation"].copy(), obs["action_mask"].copy(), env.unwrapped.information_set(aid)))
            env.step(agents[seat].act(obs["observation"], obs["action_mask"]))
    return out


def time_line(spec: str, points: list, num_players: int) -> tuple[float, float]:
    if spec == "heuristic":
        wall, cpu = time.perf_counter(), time.process_time()
        for obs, mask, _ in points:
            HeuristicAgent(0).act(obs, mask)
        return (time.perf_counter() - wall) / len(points) * 1000, (time.process_time() - cpu) / len(points) * 1000
    agent = make_agent(spec, game="fight5", seed=0)
    wall, cpu = time.perf_counter(), time.process_time()
    for obs, mask, info in points:
        agent.act_with_information(obs, mask, info)
    return (time.perf_counter() - wall) / len(points) * 1000, (time.process_time() - cpu) / len(points) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2])
    parser.add_argument("--games", type=int, default=2, help="heuristic self-play games per player count (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--specs", nargs="+", default=[*SEARCH_BUDGETS["fight5"], "search:sims=16"])
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    rows = []
    print(f"{'players':>7} {'line':<44} {'ms wall':>8} {'ms cpu':>8} {'x heuristic (cpu)':>18}")
    for n in args.players:
        points = positions(n, args.games, args.seed)
        ref = time_line("heuristic", points, n)
        for spec in ["heuristic", *args.specs]:
            wall, cpu = ref if spec == "heuristic" else time_line(spec, points, n)
            rows.append({"players": n, "line": spec, "decisions": len(points), "ms_wall": wall, "ms_cpu": cpu,
                         "ratio_cpu": cpu / ref[1]})
            print(f"{n:>7} {spec:<44} {wall:>8.2f} {cpu:>8.2f} {cpu / ref[1]:>18.1f}", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"games": args.games, "seed": args.seed, "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
