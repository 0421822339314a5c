"""Fifth-Earth: how often a lay decision offers a stage run, under which powers and which play (issue 14).

Issue 14 asks that at least 40% of lay decisions offer a run (a legal lay of stages 1..k of one
character, k >= 2). This script measures that share on the standard rules at 2 players, for
several card-power designs (gap 17 of ``seeds/fifth_earth.md``) and several pairings, and says
why it stays where it is: the share by hand size, and what each player lays when a run is offered.

Run from the repository root::

    python benchmarks/fifth_earth_runs.py [--deals 100] [--profiles packaged flat ...]
        [--pairings heuristic:strongest_single heuristic:cheapest_beat ...] [--opt characters=5]
        [--by-hand] [--out FILE.jsonl]

**Power designs** (``--profiles``; each maps the packaged three profiles, *frail* 1/3/6/10, *plain*
2/4/7/11 and *sturdy* 3/5/8/12, to new stage powers, the power cards unchanged):

* ``packaged``: the powers as shipped;
* ``flat``: 4/5/6/8, 5/6/7/9, 6/7/8/10 (a run of stages 1-2 beats every single card);
* ``junk3``: 4/5/2/9, 5/6/3/10, 6/7/4/11 (stage 3 is the weakest card, so a throw keeps stages 1-2);
* ``early_late``: 1/2/8/12, 5/6/7/8, 3/4/6/9 (a third of the characters have strong stages 1-2).

Any other design: ``NAME=F1/F2/F3/F4,P1/P2/P3/P4,S1/S2/S3/S4``. For a design this script builds
the card data with ``parse_cards`` (the same validation as a cards file) and gives it to the engine
and to the baselines (``cards=``, ``fight_envs.agents.fifth_earth``), so they judge lays by the
powers in play. The packaged design leaves everything as shipped.

**Pairings** (``--pairings A:B``, seat rotations as ``evaluate`` plays them): any two of the
Fifth-Earth baselines (``heuristic``, ``cheapest_beat``, ``strongest_single``, ``random``) or the
probe ``run_keeper``, which plays to keep runs in hand: it never lays a run, never lays a stage 1
or 2 of a character whose stages 1 and 2 it holds (unless nothing else is legal), prefers not to
rest such a character (laying its stage 3 or 4), then prefers not to lay a stage 1 or 2 at all, at
random among the rest. It is an upper bound on the share that play can keep, not a player: it
gives up the run, the rulebook's strongest lay.

Each cell prints the share of lay decisions (every seat) offering a run, the first player's share
of the campaigns (95% normal interval over per-deal means, as ``evaluate``), the share of lays that
are runs, and, per player, the share of its lay decisions offering a run and what it laid when one
was offered. ``--by-hand`` adds the share by the number of cards in hand at the decision.
"""
from __future__ import annotations

import argparse
import ast
import collections
import json
import os
import sys
import time
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fifth_earth_tables import make

from fight_envs.agents.arena import agent_seed
from fight_envs.agents.evaluate import Z95, deal_seeds
from fight_envs.core.data import load_json_data
from fight_envs.games.fifth_earth.cards import (
    DEFAULT_CARDS,
    FifthEarthCards,
    card_id,
    character_of,
    parse_cards,
    stage_of,
)
from fight_envs.games.fifth_earth.observe import encode
from fight_envs.games.fifth_earth.rules import (
    DESTINATION_BASE,
    PHASE_OVER,
    RUN_BASE,
    FifthEarthConfig,
    FifthEarthGame,
    action_cards,
)

PACKAGED = ((1, 3, 6, 10), (2, 4, 7, 11), (3, 5, 8, 12))
"""The packaged profiles (frail, plain, sturdy), as ``cards.json`` gives them."""
PROFILES: dict[str, tuple[tuple[int, ...], ...] | None] = {
    "packaged": None,
    "flat": ((4, 5, 6, 8), (5, 6, 7, 9), (6, 7, 8, 10)),
    "junk3": ((4, 5, 2, 9), (5, 6, 3, 10), (6, 7, 4, 11)),
    "early_late": ((1, 2, 8, 12), (5, 6, 7, 8), (3, 4, 6, 9)),
}
PAIRINGS = ("heuristic:strongest_single", "heuristic:cheapest_beat", "heuristic:heuristic", "random:random",
            "run_keeper:run_keeper")


class RunKeeper:
    """The probe described in the module docstring: it reads its own hand from the game (``self.game``)."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.game: FifthEarthGame | None = None

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        pass

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal[0] >= DESTINATION_BASE:
            return int(self.rng.choice(legal))
        return keeper_choice(self.game, self.game.current_player(), legal, self.rng)


def keeper_choice(game: FifthEarthGame, seat: int, legal: np.ndarray, rng: np.random.Generator) -> int:
    """The run keeper's lay: the legal single of least penalty (3: breaks a stage-1-and-2 pair I
    hold; 2: rests a character whose pair I hold; 1: a stage 1 or 2; 0: anything else), at random
    among equals; a run only when no single is legal."""
    hand = set(np.flatnonzero(game.hands[seat]).tolist())
    best, picks = 4, []
    for a in legal.tolist():
        if a >= RUN_BASE:
            continue
        ch, st = character_of(a), stage_of(a)
        pair = card_id(ch, 1) in hand and card_id(ch, 2) in hand
        pen = 3 if pair and st <= 2 else 2 if pair else 1 if st <= 2 else 0
        if pen < best:
            best, picks = pen, [a]
        elif pen == best:
            picks.append(a)
    return int(rng.choice(picks)) if picks else int(rng.choice(legal))


def design_cards(profiles: tuple[tuple[int, ...], ...]) -> FifthEarthCards:
    """The packaged card data with each packaged profile's stage powers replaced (validated by ``parse_cards``)."""
    data, _ = load_json_data("fight_envs.games.fifth_earth", "cards.json", None, "fifth_earth/cards.json")
    swap = dict(zip(PACKAGED, profiles))
    for c in data["characters"]:
        c["stages"] = list(swap[tuple(c["stages"])])
    return parse_cards(data, "design")


def agent(name: str, seed: int, cards: FifthEarthCards) -> Any:
    """The player ``name`` (a baseline judging lays by ``cards``, or the run keeper)."""
    return RunKeeper(seed) if name == "run_keeper" else make(name, seed, cards)


def cell(cards: FifthEarthCards, first: str, second: str, deals: int, seed: int,
         options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Play ``deals`` duplicate deals (both seatings) of ``first`` against ``second`` at 2 players
    (the standard rules, with ``options`` on top); return the figures."""
    config = FifthEarthConfig(num_players=2, **(options or {}))
    agents = [agent(first, 1, cards), agent(second, 2, cards)]
    lays = collections.Counter()
    offered = collections.Counter()
    laid_when_offered: dict[int, collections.Counter] = {0: collections.Counter(), 1: collections.Counter()}
    run_lays = 0
    by_hand: dict[int, list[int]] = {}
    per_deal = []
    for s in deal_seeds(seed, deals):
        credit = []
        for r in range(2):
            seating = [(seat - r) % 2 for seat in range(2)]  # agent i in seat (i + r) % 2
            field = [agents[i] for i in seating]
            for seat, a in enumerate(field):
                a.seed(agent_seed(s, seat))
                a.reset()
            game = FifthEarthGame(config, cards)
            for a in field:
                if hasattr(a, "game"):
                    a.game = game
            game.new_game(np.random.default_rng(s))
            while game.phase != PHASE_OVER:
                seat = game.current_player()
                mask = game.legal_action_mask(seat)
                action = int(field[seat].act(encode(game, seat), mask))
                if mask[:DESTINATION_BASE].any():
                    who = seating[seat]
                    run = bool(mask[RUN_BASE:DESTINATION_BASE].any())
                    lays[who] += 1
                    offered[who] += run
                    size = int(game.hands[seat].sum())
                    by_hand.setdefault(size, [0, 0])[0] += 1
                    by_hand[size][1] += run
                    cards_laid = action_cards(action)
                    run_lays += len(cards_laid) > 1
                    if run:
                        kind = f"run of {len(cards_laid)}" if len(cards_laid) > 1 else f"stage {stage_of(cards_laid[0])}"
                        laid_when_offered[who][kind] += 1
                game.apply_action(seat, action)
            won = game.destinations_won
            me = seating.index(0)
            top = np.flatnonzero(won == won.max())
            credit.append(1.0 / top.size if me in top else 0.0)
        per_deal.append(float(np.mean(credit)))
    x = np.array(per_deal)
    half = Z95 * float(x.std(ddof=1)) / np.sqrt(x.size) if x.size > 1 else float("nan")
    total = lays[0] + lays[1]
    return {
        "first": first, "second": second, "deals": deals, "seed": seed,
        "runs_offered": (offered[0] + offered[1]) / max(total, 1),
        "runs_offered_by_player": [offered[i] / max(lays[i], 1) for i in (0, 1)],
        "lays_that_are_runs": run_lays / max(total, 1),
        "first_share": float(x.mean()), "first_share_ci": [float(x.mean() - half), float(x.mean() + half)],
        "laid_when_offered": [{k: v / max(offered[i], 1) for k, v in sorted(laid_when_offered[i].items())} for i in (0, 1)],
        "by_hand": {k: {"share": v[0] / max(total, 1), "offered": v[1] / max(v[0], 1)} for k, v in sorted(by_hand.items())},
        "lay_decisions": total,
    }


def parse_profile(text: str) -> tuple[str, tuple[tuple[int, ...], ...] | None]:
    if "=" not in text:
        if text not in PROFILES:
            raise SystemExit(f"unknown profile {text!r}; allowed: {', '.join(PROFILES)}, or NAME=F1/F2/F3/F4,P1/..,S1/..")
        return text, PROFILES[text]
    name, spec = text.split("=", 1)
    try:
        parts = tuple(tuple(int(v) for v in p.split("/")) for p in spec.split(","))
    except ValueError:
        raise SystemExit(f"profile {text!r}: powers must be integers, as NAME=1/3/6/10,2/4/7/11,3/5/8/12") from None
    if len(parts) != 3 or any(len(p) != 4 for p in parts):
        raise SystemExit(f"profile {text!r}: give three profiles of four stage powers, as NAME=1/3/6/10,2/4/7/11,3/5/8/12")
    return name, parts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--profiles", nargs="+", default=list(PROFILES))
    ap.add_argument("--pairings", nargs="+", default=list(PAIRINGS))
    ap.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE",
                    help="a game option on top of the standard rules, e.g. characters=5 (repeatable)")
    ap.add_argument("--by-hand", action="store_true")
    ap.add_argument("--out")
    args = ap.parse_args()
    designs = [parse_profile(p) for p in args.profiles]
    options = {k: ast.literal_eval(v) for k, v in (o.split("=", 1) for o in args.opt)}
    FifthEarthConfig(num_players=2, **options)  # a bad option fails here, before any game
    pairings = []
    for p in args.pairings:
        first, sep, second = p.partition(":")
        if not sep:
            raise SystemExit(f"pairing {p!r}: write FIRST:SECOND, e.g. heuristic:cheapest_beat")
        pairings.append((first, second))
    for name, profiles in designs:
        cards = DEFAULT_CARDS if profiles is None else design_cards(profiles)
        for first, second in pairings:
            t0 = time.process_time()
            r = cell(cards, first, second, args.deals, args.seed, options)
            r["profile"] = name
            r["options"] = options
            r["powers"] = [list(p) for p in (profiles or PACKAGED)]
            r["cpu_s"] = round(time.process_time() - t0, 1)
            lo, hi = r["first_share_ci"]
            print(f"{name:>10}{' ' + str(options) if options else ''} {first}:{second}: runs offered {r['runs_offered']:.3f} "
                  f"({r['runs_offered_by_player'][0]:.3f} / {r['runs_offered_by_player'][1]:.3f}), "
                  f"lays that are runs {r['lays_that_are_runs']:.3f}, {first} share {r['first_share']:.3f} "
                  f"[{lo:.3f}, {hi:.3f}], {r['lay_decisions']} lay decisions, {r['cpu_s']} CPU s", flush=True)
            for i, who in enumerate((first, second)):
                laid = ", ".join(f"{k} {v:.2f}" for k, v in r["laid_when_offered"][i].items())
                print(f"{'':>12}{who} when a run is offered: {laid}")
            if args.by_hand:
                print(f"{'':>12}by hand size: " + ", ".join(
                    f"{k}: {v['share']:.2f} of decisions, {v['offered']:.2f} offered" for k, v in r["by_hand"].items()))
            if args.out:
                with open(args.out, "a") as f:
                    f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
