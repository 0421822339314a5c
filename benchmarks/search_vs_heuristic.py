"""Search against the heuristic in duplicate deals, one JSON line per deal (so a long run can be cut short).

    python benchmarks/search_vs_heuristic.py SPEC PLAN OUT.jsonl
    python benchmarks/search_vs_heuristic.py "search:sims=48,horizon=bout,tail=greedy" 2x500,3x40 out.jsonl

PLAN: comma-separated ``<players>x<deals>`` (a trailing ``r`` plays the deals last first, ``@k``
starts at deal k, so several processes can share one list). Each deal (seeds ``fight_envs.agents.evaluate.deal_seeds(12, deals)``)
is played once per seat rotation, the search agent in one seat and heuristics in the others, the
games ``fight_envs.agents.evaluate.versus_baseline`` plays. Each line: the deal's mean win credit
of the search agent, and its cumulative decisions, searched decisions, wall and CPU seconds.
``docs/search.md`` summarises such files.
"""
import json, sys
import numpy as np
from fight_envs import fight5_v0
from fight_envs.agents.registry import make_agent
from fight_envs.agents.arena import play_game
from fight_envs.agents.evaluate import deal_seeds
spec = sys.argv[1]; plan = [(int(x.split("x")[0]), x.split("x")[1]) for x in sys.argv[2].split(",")]
out = open(sys.argv[3], "a")
for n, deals in plan:
    env = fight5_v0.env(num_players=n)
    search = make_agent(spec, game="fight5", seed=0)
    heur = [make_agent("heuristic", game="fight5", seed=0) for _ in range(n - 1)]
    deals, _, start = deals.partition("@")
    rev = deals.endswith("r"); deals = int(deals.rstrip("r"))
    seeds = list(enumerate(deal_seeds(12, deals)))[int(start or 0):]
    for d, s in (seeds[::-1] if rev else seeds):
        credits = []
        for r in range(n):
            field = list(heur); field.insert(r, search)
            res = play_game(env, field, seed=s)
            w = res.returns == res.returns.max()
            credits.append(float(w[r] / w.sum()))
        out.write(json.dumps({"spec": spec, "n": n, "deal": d, "credit": float(np.mean(credits)), "credits": credits,
                              "decisions": search.decisions, "searched": search.searched, "seconds": search.search_seconds, "cpu": getattr(search, "search_cpu_seconds", None)}) + "\n")
        out.flush()
