"""How far above the heuristic can any Brawl player get at 3 or 5 fighters? A cheating player as a ceiling.

Issue 16 asks a trained agent for 1.5 times the fair share against n-1 heuristics (0.5 at 3 fighters,
0.3 at 5). No agent reached it (``docs/results_games.md``). This script measures a player that cannot
be beaten on information: the **oracle** sees the true game (every hand, the draw pile in order, the
engine's own random generator, so every future draw and reshuffle), and at each decision with more
than one legal action it plays every action in ``--sims`` copies of the true game, finishes each with
the heuristic in every seat (its own included, fresh tie-break draws per copy, the same draws for every
action: common random numbers), and plays the action with the best mean win credit (1 sole first
place, 1/k shared, 0 otherwise). Ties keep the heuristic's own choice when it is among the best.
With ``--keep z`` it keeps the heuristic's choice unless another action beats it by more than ``z``
standard errors of the paired difference over the copies (as the search agent's ``keep`` does): at a
few copies per action, win-or-lose values are mostly noise, and the plain best mean then changes the
heuristic's play at random.

``--knows hands`` takes the future away: in each copy the draw pile is shuffled afresh and the engine
gets a fresh generator (the same shuffle for every action of one copy), so the oracle still sees every
hand but not what will be drawn. ``--knows all`` (the default) keeps the true pile and generator.

It is a one-step lookahead against the very opponents it meets, with more information than any honest
agent (one that sees only its observation) has. Its score is not a proven upper bound (a
deeper search could do better), but a share well under the bar says that information and a better
next move are not enough to reach it, and a share well over it says the bar is not out of reach in
principle.

It plays the deals of ``fight-envs eval`` (``deal_seeds``, every seat rotation), so its figure compares
with ``fight-envs eval models/brawl_3p.zip --env brawl_v0 --players 3 --baselines heuristic --deals D --seed S``
on the same deals. ``--jobs`` plays the deals in that many processes (the same games).

Run from the repository root::

    python benchmarks/brawl_oracle.py --players 3 --deals 100 --seed 7 [--sims 8] [--knows all|hands] [--keep 2]
        [--jobs 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's packages

from fight_envs import brawl_v0
from fight_envs.agents.base import Agent
from fight_envs.agents.brawl import HeuristicAgent
from fight_envs.agents.evaluate import GamePlayed, deal_seeds, play_deals, summarise


def win_credit(game: Any, seat: int) -> float:
    """1 for a sole first place, 1/k for a first place shared by k, 0 otherwise."""
    places = game.standing_places()
    best = places.min()
    return float(1.0 / np.count_nonzero(places == best)) if places[seat] == best else 0.0


class OracleAgent(Agent):
    """One-step lookahead over the true game, the heuristic finishing every copy (module docstring).
    Reads the env's true state: a measuring device, never an agent to evaluate honestly."""

    name = "oracle"

    def __init__(self, sims: int = 8, knows: str = "all", keep: float | None = None, seed: int | None = None) -> None:
        super().__init__(seed)
        self.sims = sims
        self.knows = knows
        self.keep = keep
        self.env: Any = None
        self.own = HeuristicAgent()
        self.decisions = 0
        self.changed = 0  # decisions where the oracle's action differed from the heuristic's

    def bind_rules(self, env: Any) -> None:
        self.env = env.unwrapped

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        self.own.seed(None if seed is None else seed + 1)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        game = self.env.game
        seat = game.current_player()
        legal = game.legal_tuple(seat)
        base = self.own.act_game(game, seat)
        if len(legal) == 1:
            return legal[0]
        n = game.num_players
        seeds = self.rng.integers(2**63, size=(self.sims, n + 1))
        value, credits = {}, {}
        for a in legal:
            total, got = 0.0, []
            for k in range(self.sims):
                g = game.clone()
                if self.knows == "hands":  # the hands as they are, the future drawn afresh
                    g.rng = np.random.default_rng(int(seeds[k, n]))
                    g.rng.shuffle(g.draw_pile)
                g.apply_action(seat, a)
                players = [HeuristicAgent(seed=int(x)) for x in seeds[k, :n]]
                while not g.is_terminal():
                    s = g.current_player()
                    g.apply_action(s, players[s].act_game(g, s))
                got.append(win_credit(g, seat))
                total += got[-1]
            value[a], credits[a] = total / self.sims, np.array(got)
        top = max(value.values())
        choice = base if value.get(base, -1.0) == top else min(a for a in legal if value[a] == top)
        if self.keep is not None and choice != base and self.sims > 1:
            diff = credits[choice] - credits[base]  # paired over the copies (the same draws for both)
            se = diff.std(ddof=1) / np.sqrt(self.sims)
            if se > 0 and diff.mean() <= self.keep * se:  # no spread: every copy agrees the other is better
                choice = base
        self.decisions += 1
        self.changed += choice != base
        return int(choice)


def play_share(args: tuple[list[tuple[int, int]], int, int, str, float | None]) -> tuple[list[GamePlayed], int, int]:
    """Play the given (deal index, deal seed) pairs, every rotation: the oracle and n-1 heuristics."""
    deals, players, sims, knows, keep = args
    env = brawl_v0.env(num_players=players)
    oracle = OracleAgent(sims=sims, knows=knows, keep=keep)
    agents: list[Agent] = [oracle, *(HeuristicAgent() for _ in range(players - 1))]
    return play_deals(env, agents, deals, None), oracle.decisions, oracle.changed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--sims", type=int, default=8, help="copies of the true game per legal action (default 8)")
    parser.add_argument("--knows", choices=["all", "hands"], default="all",
                        help="all: the true game, future draws included; "
                             "hands: every hand, the draw pile reshuffled per copy")
    parser.add_argument("--keep", type=float, default=None,
                        help="keep the heuristic's choice unless another beats it by more than this many "
                             "standard errors")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", type=str, default=None)
    args = parser.parse_args()
    if args.players < 2 or args.deals < 1 or args.sims < 1 or args.jobs < 1:
        parser.error("--players must be >= 2 and --deals, --sims, --jobs >= 1")
    seeds = deal_seeds(args.seed, args.deals)
    deals = list(enumerate(seeds))
    chunks = [deals[j::args.jobs] for j in range(args.jobs)]
    t0 = time.perf_counter()
    if args.jobs == 1:
        parts = [play_share((deals, args.players, args.sims, args.knows, args.keep))]
    else:
        with ProcessPoolExecutor(args.jobs) as pool:
            parts = list(pool.map(play_share, [(c, args.players, args.sims, args.knows, args.keep) for c in chunks]))
    games = sorted((g for p in parts for g in p[0]), key=lambda g: (g.deal, g.rotation))
    decisions, changed = sum(p[1] for p in parts), sum(p[2] for p in parts)
    labels = ["oracle", *(f"heuristic_{k}" for k in range(1, args.players))]
    result = summarise(games, labels, args.players, args.deals, args.seed, "normal")
    st = result.stats[0]
    minutes = (time.perf_counter() - t0) / 60
    print(f"# brawl_v0, {args.players} fighters, {args.deals} deals x {args.players} seats, seed {args.seed}, "
          f"sims {args.sims}, knows {args.knows}, keep {args.keep}, {minutes:.1f} min")
    print(f"oracle against {args.players - 1} heuristics: win share {st.win_rate:.3f} "
          f"[{st.win_ci[0]:.3f}, {st.win_ci[1]:.3f}] "
          f"({st.sole_wins} sole / {st.shared_wins} shared / {st.losses} lost); "
          f"fair share {1 / args.players:.3f}, issue 16's bar {0.6 if args.players == 2 else 1.5 / args.players:.3f}")
    print(f"searched decisions {decisions}, where it left the heuristic's choice {changed} "
          f"({changed / max(decisions, 1):.1%})")
    if args.json:
        out = {"players": args.players, "deals": args.deals, "seed": args.seed, "sims": args.sims,
               "knows": args.knows, "keep": args.keep,
               "win_share": st.win_rate, "ci": list(st.win_ci), "sole_wins": st.sole_wins,
               "shared_wins": st.shared_wins, "losses": st.losses, "decisions": decisions, "changed": changed,
               "minutes": round(minutes, 2)}
        with open(args.json + ".tmp", "w") as f:
            json.dump(out, f, indent=1)
        os.replace(args.json + ".tmp", args.json)


if __name__ == "__main__":
    main()
