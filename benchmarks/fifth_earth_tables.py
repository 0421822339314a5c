"""Fifth-Earth against tables of random players (issue 14): the share, what it is made of, and its ceiling.

Run from the repository root::

    python benchmarks/fifth_earth_tables.py --players 3 --deals 300 [--agent heuristic] [--opponent random]
        [--opt num_destinations=25] [--seed 2026] [--out FILE.jsonl]

Plays the duplicate deals of ``fight_envs.agents.evaluate.evaluate`` (seeds ``deal_seeds(seed,
deals)``, every seat rotation, agents seeded by ``agent_seed``) directly on the engine, with the
observation ``encode`` gives and the mask ``legal_action_mask`` gives, i.e. the same games as
``evaluate(lambda: fifth_earth_v0.env(num_players=n, **opts), [agent, opponent x (n - 1)], deals,
seed)``, faster. It prints the agent's share of the campaigns (1 per sole win, 1/k per shared one;
95% normal interval over per-deal means, as ``evaluate``), the share of deals split (its seatings did
not all give it the same credit: at 2 players, each seat won once), its share of the destinations claimed,
its battle win rate by the number of players still in the destination (the final is 2), split by
challenger and challenged, and the share of lay decisions (every seat) that offer a run.

``--agent`` is a baseline of the game (``heuristic``, ``cheapest_beat``, ``strongest_single``,
``random``) or one of two probes that read the true game, so no fair player reaches them; they
bound what an agent can gain against random play from the hidden face-down lay:

* ``oracle_answer``: answering, it sees the lays it answers and lays the cheapest lay beating
  them all (cards alone), else its weakest single; laying first it throws its weakest single.
* ``oracle``: the same answers; laying first it also sees the others' hands, so it knows the
  chance that a random answer (a uniform legal lay) beats each lay of its own, and lays the one of
  highest ``P(win) - P(lose) x (cards + power / 12) - 0.3 x cards``.

``--out`` appends one JSON line with every figure.
"""
from __future__ import annotations

import argparse
import ast
import json
import re
import time

import numpy as np

from fight_envs.agents.arena import agent_seed
from fight_envs.agents.evaluate import Z95, deal_seeds
from fight_envs.agents.fifth_earth import CARD_ACTIONS, LAY_COUNT, CardJudge, baselines, card_powers
from fight_envs.games.fifth_earth.cards import NUM_STAGES, FifthEarthCards
from fight_envs.games.fifth_earth.observe import encode
from fight_envs.games.fifth_earth.rules import (
    DESTINATION_BASE,
    PHASE_OVER,
    RUN_BASE,
    FifthEarthConfig,
    FifthEarthGame,
    lay_action,
)

_CHALLENGE = re.compile(r"^P(\d+) challenges P(\d+)$")
_WINS = re.compile(r"^P(\d+) wins the battle$")
_SEEDING = re.compile(r"^round \d+ seeding roll: (.*)$")
_BYE = re.compile(r"^P(\d+) has a bye$")


class _Oracle:
    """A probe that reads the true game (``self.game``, set by the driver before each game)."""

    def __init__(self, first: str) -> None:
        self.first = first
        self.game: FifthEarthGame | None = None

    def seed(self, seed: int | None) -> None:  # deterministic: nothing to seed
        pass

    def reset(self) -> None:
        pass

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        g = self.game
        legal = np.flatnonzero(action_mask)
        if legal[0] >= DESTINATION_BASE:
            return int(legal[0])
        lays = legal[legal < DESTINATION_BASE]
        b, seat = g.battle, g.current_player()
        power = g.cards.card_power
        lay_power = card_powers(g.cards).lay_power  # the game's card data
        if b.laid:
            threat = max(int(power[v].sum()) for v in b.laid.values())
            sure = [a for a in lays if lay_power[a] > threat]  # the answer must beat: ties go to the first layer
            if sure:
                return int(min(sure, key=lambda a: (LAY_COUNT[a], lay_power[a], a)))
        if b.laid or self.first == "weakest":
            singles = lays[lays < CARD_ACTIONS]
            pick = singles if singles.size else lays
            return int(min(pick, key=lambda a: (lay_power[a], a)))
        # Laying first, seeing the others' hands: each answers with a uniform legal lay (random play).
        answers = []
        for opp in b.players:
            if opp != seat:
                hand = np.flatnonzero(g.hands[opp])
                opts = [lay for k in range(1, NUM_STAGES + 1) for lay in g._lays_of_count(opp, hand, k, b.fight)]
                answers.append(np.array([lay_power[lay_action(lay)] for lay in opts]))
        best, choice = -np.inf, int(lays[0])
        for a in sorted(lays, key=lambda a: (LAY_COUNT[a], lay_power[a], a)):
            p_win = float(np.prod([np.mean(x <= lay_power[a]) for x in answers]))
            value = p_win - (1 - p_win) * (LAY_COUNT[a] + lay_power[a] / 12) - 0.3 * LAY_COUNT[a]
            if value > best + 1e-9:
                best, choice = value, int(a)
        return choice


def make(name: str, seed: int, cards: FifthEarthCards | None = None, **kwargs):
    """The agent ``name`` seeded with ``seed``; a baseline judging lays by card powers judges by ``cards``
    (None: the packaged cards; the oracles read the game's own)."""
    if name == "oracle":
        return _Oracle("value")
    if name == "oracle_answer":
        return _Oracle("weakest")
    table = baselines()
    if name not in table:
        raise SystemExit(f"unknown agent {name!r}; allowed: {', '.join(sorted(table))}, oracle, oracle_answer")
    if issubclass(table[name], CardJudge):
        kwargs["cards"] = cards
    return table[name](seed=seed, **kwargs)


def battles(events: list) -> list[tuple[int, int, int, int]]:
    """(players in the round, challenged, challenger, winner) of every knockout battle, from the game's events."""
    out, alive, pair = [], 0, None
    for e in events:
        if not isinstance(e, str):
            continue
        if m := _SEEDING.match(e):
            alive = len(m.group(1).split(", "))
        elif m := _CHALLENGE.match(e):
            pair = (int(m.group(2)), int(m.group(1)))
        elif (m := _WINS.match(e)) and pair is not None:
            out.append((alive, pair[0], pair[1], int(m.group(1))))
    return out


def bye_finals(events: list) -> list[int]:
    """For every final (two players left) one of whose players had the bye in the round before it:
    1 if that player won the final, else 0 (knockout only; a royale has no byes)."""
    out, bye, alive, last_bye = [], None, 0, None
    for e in events:
        if not isinstance(e, str):
            continue
        if m := _SEEDING.match(e):
            alive, last_bye, bye = len(m.group(1).split(", ")), bye, None
            if alive != 2:
                last_bye = None
        elif m := _BYE.match(e):
            bye = int(m.group(1))
        elif (m := _WINS.match(e)) and alive == 2 and last_bye is not None:
            out.append(int(int(m.group(1)) == last_bye))
            last_bye = None
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, required=True)
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--agent", default="heuristic")
    ap.add_argument("--opponent", default="random")
    ap.add_argument("--agent-kw", default="{}", help="keyword arguments of the agent measured, as a Python dict")
    ap.add_argument("--opt", action="append", default=[], help="an engine option KEY=VALUE (repeatable)")
    ap.add_argument("--out")
    args = ap.parse_args()
    n = args.players
    opts = {k: ast.literal_eval(v) for k, v in (o.split("=", 1) for o in args.opt)}
    config = FifthEarthConfig(num_players=n, **opts)
    # agent i: 0 the one measured, 1..n-1 the opponents (seeds as make_agent(name, game, i + 1) would get)
    agents = [make(args.agent, 1, **ast.literal_eval(args.agent_kw))] + [make(args.opponent, 2 + i) for i in range(n - 1)]
    per_deal, claimed, lays, runs, my_lays, my_runs, split, byes = [], [], 0, 0, 0, 0, 0, []
    fought: dict[tuple[int, str], list[int]] = {}
    t0 = time.process_time()
    for s in deal_seeds(args.seed, args.deals):
        credit = []
        for r in range(n):
            seating = [(seat - r) % n for seat in range(n)]  # agent i in seat (i + r) % n
            field = [agents[i] for i in seating]
            me = seating.index(0)
            for seat, agent in enumerate(field):
                agent.seed(agent_seed(s, seat))
                agent.reset()
            game = FifthEarthGame(config)
            for agent in field:
                if isinstance(agent, _Oracle):
                    agent.game = game
            game.new_game(np.random.default_rng(s))
            while game.phase != PHASE_OVER:
                seat = game.current_player()
                mask = game.legal_action_mask(seat)
                if mask[:DESTINATION_BASE].any():
                    lays += 1
                    run = bool(mask[RUN_BASE:DESTINATION_BASE].any())
                    runs += run
                    if seat == me:
                        my_lays += 1
                        my_runs += run
                action = int(field[seat].act(encode(game, seat), mask))
                game.apply_action(seat, action)
            won = game.destinations_won
            top = np.flatnonzero(won == won.max())
            credit.append(1.0 / top.size if me in top else 0.0)
            claimed.append(won[me] / config.num_destinations)
            byes += bye_finals(game._events)
            for alive, challenged, challenger, winner in battles(game._events):
                if me in (challenged, challenger):
                    role = "challenger" if me == challenger else "challenged"
                    fought.setdefault((alive, role), []).append(int(winner == me))
        per_deal.append(float(np.mean(credit)))
        split += min(credit) < max(credit)
    x = np.array(per_deal)
    half = Z95 * float(x.std(ddof=1)) / np.sqrt(x.size) if x.size > 1 else float("nan")
    by_round = {}
    for alive in sorted({k[0] for k in fought}, reverse=True):
        both = fought.get((alive, "challenger"), []) + fought.get((alive, "challenged"), [])
        by_round[alive] = {"win": float(np.mean(both)), "battles": len(both)} | {
            role: float(np.mean(fought[(alive, role)])) for role in ("challenger", "challenged") if (alive, role) in fought}
    allb = [w for v in fought.values() for w in v]
    result = {"players": n, "deals": args.deals, "games": x.size * n, "seed": args.seed, "agent": args.agent,
              "opponent": args.opponent, "options": opts, "share": float(x.mean()),
              "share_ci": [float(x.mean() - half), float(x.mean() + half)], "even_share": 1 / n,
              "deals_split": split / max(len(per_deal), 1), "destinations_claimed": float(np.mean(claimed)), "battle_win": float(np.mean(allb)),
              "battles": len(allb), "battle_win_by_players_left": by_round,
              "lay_decisions_offering_a_run": runs / max(lays, 1),
              "bye_final_win": float(np.mean(byes)) if byes else None, "bye_finals": len(byes),
              "own_lay_decisions_offering_a_run": my_runs / max(my_lays, 1), "agent_kw": args.agent_kw, "cpu_s": round(time.process_time() - t0, 1)}
    print(f"{args.agent}{args.agent_kw if args.agent_kw != '{}' else ''} vs {n - 1} x {args.opponent}, {n} players, {args.deals} deals x {n} seatings {opts or ''}: "
          f"share {result['share']:.3f} [{result['share_ci'][0]:.3f}, {result['share_ci'][1]:.3f}] (even {1 / n:.3f}), "
          f"deals split {result['deals_split']:.3f}, "
          f"destinations claimed {result['destinations_claimed']:.3f}, battles won {result['battle_win']:.3f} "
          f"of {len(allb)}, runs offered {result['lay_decisions_offering_a_run']:.3f} "
          f"(its own decisions {result['own_lay_decisions_offering_a_run']:.3f})"
          + (f", the bye player won {result['bye_final_win']:.3f} of {len(byes)} finals" if byes else ""))
    for alive, v in by_round.items():
        print(f"  {alive} players left: battles won {v['win']:.3f} of {v['battles']}"
              + "".join(f", as {role} {v[role]:.3f}" for role in ("challenger", "challenged") if role in v))
    if args.out:
        with open(args.out, "a") as f:
            f.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
