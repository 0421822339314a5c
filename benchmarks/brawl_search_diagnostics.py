"""Brawl search diagnostics at two fighters (``seeds/brawl.md`` section 9). Run from the repository root::

    python benchmarks/brawl_search_diagnostics.py versus SPEC DEALS[@START] OUT.jsonl [--full-information]
    python benchmarks/brawl_search_diagnostics.py regret K GAMES EVERY OUT.jsonl

``versus``: SPEC (a ``search:...`` agent) against the heuristic, every deal (seeds
``fight_envs.agents.evaluate.deal_seeds(2026, DEALS)``, the games ``versus_baseline`` plays) from
both seats, one JSON line per deal (mean win credit, decisions, CPU seconds), so a long run can
be cut short and several processes can share the deals (``@START``). ``--full-information``
hands the search the true game instead of a determinization (it then knows the draw pile's
order): an upper bound no fair player reaches.

``regret``: heuristic self-play over GAMES deals (seeds ``deal_seeds(99, GAMES)``); at every
EVERY-th decision with a choice, K determinizations x every legal action rolled out with the
heuristic (common random numbers), written with the heuristic's own action; a split-half estimate
(choose the best action on one half of the determinizations, score it on the other) of how much
one decision's best action gains over the heuristic's is what search with heuristic rollouts can
win at that decision, at any budget. ``summarise OUT.jsonl ...`` prints both kinds of file.
"""
import json
import sys
import time

import numpy as np

from fight_envs import brawl_v0
from fight_envs.agents.arena import play_game
from fight_envs.agents.evaluate import deal_seeds
from fight_envs.agents.registry import make_agent
from fight_envs.agents.search import SearchAgent
from fight_envs.core.information import InformationSet


def versus(spec: str, deals: str, out: str, full: bool) -> None:
    deals, _, start = deals.partition("@")
    env = brawl_v0.env(num_players=2)

    class TrueGame(InformationSet):
        def sample(self, rng):  # the true game: hands and the draw pile's order
            return env.unwrapped.game.clone()

    search = make_agent(spec, game="brawl", seed=0)
    if full:
        act = search.act_with_information
        search.act_with_information = lambda o, m, i: act(o, m, TrueGame(i.seat, i.num_players, i.state, i.observe, i.value))
    heur = make_agent("heuristic", game="brawl", seed=0)
    with open(out, "a") as f:
        for d, s in list(enumerate(deal_seeds(2026, int(deals))))[int(start or 0):]:
            credits, t0 = [], time.process_time()
            for r in range(2):
                field = [heur]
                field.insert(r, search)
                res = play_game(env, field, seed=s)
                w = res.returns == res.returns.max()
                credits.append(float(w[r] / w.sum()))
            f.write(json.dumps({"spec": spec, "full_information": full, "deal": d, "credit": float(np.mean(credits)),
                                "decisions": search.decisions, "searched": search.searched,
                                "cpu": time.process_time() - t0}) + "\n")
            f.flush()


def regret(k: int, games: int, every: int, out: str) -> None:
    env = brawl_v0.env(num_players=2)
    raw = env.unwrapped
    search = SearchAgent("brawl", seed=7, sims=10**6)
    with open(out, "a") as f:
        for gi, seed in enumerate(deal_seeds(99, games)):
            heur = [make_agent("heuristic", game="brawl", seed=seed + i) for i in range(2)]
            env.reset(seed=seed)
            choices = 0
            for agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                mask = obs["action_mask"]
                legal = np.flatnonzero(mask)
                a = heur[int(agent[-1])].act(obs["observation"], mask)
                if legal.size > 1:
                    if choices % every == 0:
                        info = raw.information_set(agent)
                        dets = [info.sample(search.rng) for _ in range(k)]
                        t0 = time.process_time()
                        rows = search._generic_values(info, dets, legal, search.rng.integers(2**62, size=k))
                        f.write(json.dumps({"game": gi, "kind": raw.decision_kind(agent), "legal": legal.tolist(),
                                            "heuristic": int(a), "rows": rows.tolist(),
                                            "cpu": time.process_time() - t0}) + "\n")
                        f.flush()
                    choices += 1
                env.step(a)
            f.write(json.dumps({"game": gi, "choice_decisions": choices}) + "\n")
            f.flush()


def summarise(paths: list[str]) -> None:
    for p in paths:
        lines = [json.loads(x) for x in open(p)]
        deals = [x for x in lines if "credit" in x]
        if deals:
            c = np.array([x["credit"] for x in deals])
            h = 1.96 * c.std(ddof=1) / np.sqrt(c.size) if c.size > 1 else float("nan")
            print(f"{p}: {deals[0]['spec']}{' full information' if deals[0].get('full_information') else ''} "
                  f"{c.mean():.3f} ({c.mean() - h:.3f}..{c.mean() + h:.3f}) over {2 * c.size} games, "
                  f"{sum(x['cpu'] for x in deals) / (2 * c.size):.2f} CPU s a game")
        rows = [x for x in lines if "rows" in x]
        if rows:
            full, split = [], []
            for x in rows:
                r = np.array(x["rows"])
                j = x["legal"].index(x["heuristic"])
                m = r.mean(axis=0)
                full.append(m.max() - m[j])
                a, b = r[: len(r) // 2], r[len(r) // 2:]
                split.append(0.5 * ((b[:, a.mean(0).argmax()] - b[:, j]).mean() + (a[:, b.mean(0).argmax()] - a[:, j]).mean()))
            s = np.array(split)
            games = [x["choice_decisions"] for x in lines if "choice_decisions" in x]
            print(f"{p}: {len(rows)} decisions; gain over the heuristic's action per decision, split-half "
                  f"{s.mean():+.4f} (+-{1.96 * s.std(ddof=1) / np.sqrt(s.size):.4f}), same-sample {np.mean(full):+.4f}; "
                  f"decisions with a choice per game (both fighters) {np.mean(games) if games else float('nan'):.1f}")


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "versus":
        versus(args[0], args[1], args[2], "--full-information" in args)
    elif cmd == "regret":
        regret(int(args[0]), int(args[1]), int(args[2]), args[3])
    elif cmd == "summarise":
        summarise(args)
    else:
        raise SystemExit(__doc__)
