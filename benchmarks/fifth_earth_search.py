"""Fifth-Earth search against the heuristic at 2 players, one JSON line per deal (a long run can be cut short).

Run from the repository root::

    python benchmarks/fifth_earth_search.py SPEC DEALS[@START] OUT.jsonl [--destinations 1]

Deal ``d`` is seed ``fight_envs.agents.evaluate.deal_seeds(2026, DEALS)[d]`` played from both
seats, the games ``evaluate(lambda: fifth_earth_v0.env(num_destinations=...), [make_agent(SPEC,
"fifth_earth", 1), make_agent("heuristic", "fifth_earth", 2)], DEALS, seed=2026)`` plays for that
deal (the seed list's first k entries do not depend on DEALS, so runs over different ranges add
up). ``@START`` skips the first START deals. Each line: the deal, the search agent's mean win
credit (1 a sole win, 1/2 a shared one) and the CPU seconds the deal took.
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

from fight_envs import fifth_earth_v0
from fight_envs.agents.arena import play_game
from fight_envs.agents.evaluate import deal_seeds
from fight_envs.agents.registry import make_agent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("spec")
    ap.add_argument("deals")
    ap.add_argument("out")
    ap.add_argument("--destinations", type=int, default=1)
    args = ap.parse_args()
    deals, _, start = args.deals.partition("@")
    env = fifth_earth_v0.env(num_destinations=args.destinations)
    agents = [make_agent(args.spec, "fifth_earth", 1), make_agent("heuristic", "fifth_earth", 2)]
    with open(args.out, "a") as f:
        for d, s in list(enumerate(deal_seeds(2026, int(deals))))[int(start or 0):]:
            cpu, credits = time.process_time(), []
            for r in range(2):
                field = agents if r == 0 else agents[::-1]  # agent i in seat (i + r) % 2, as evaluate seats them
                res = play_game(env, field, seed=s)
                won = res.returns == res.returns.max()
                credits.append(float(won[r] / won.sum()))
            f.write(json.dumps({"spec": args.spec, "destinations": args.destinations, "deal": d,
                                "credit": float(np.mean(credits)), "cpu": round(time.process_time() - cpu, 2)}) + "\n")
            f.flush()


if __name__ == "__main__":
    main()
