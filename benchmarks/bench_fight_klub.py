"""Throughput of the Fight Klub env beside PettingZoo's ``connect_four_v3``, and the deck balance table.

**Throughput** (agent decisions per second, the same loop and sampler for every line, as in
``bench_fight5_envs.py``: one AEC ``step`` with an action is one decision; resets and the
``None`` steps of finished agents are timed but not counted):

* ``fight_klub engine``: ``FightKlubGame`` alone (``pending``, ``apply_action``), no observation.
* ``fight_klub_v0.raw_env`` / ``fight_klub_v0.env``: the AEC env without / with its wrappers.
* ``connect_four_v3.env``: PettingZoo's classic env through the same loop (needs ``pygame``).

Fight Klub has two players only and no parallel form, so there is one line per env. The lines
are timed in ``--rounds`` rounds (the reference first in each; each round plays new games), and the ratio column is the
median over rounds of each line's decisions per CPU second divided by ``connect_four_v3.env``'s
in the same round: on a shared, loaded machine a line timed alone swings by 2x, a ratio within a
round much less. Beside it: a 95% t interval of the mean round ratio, the games played and the load
average when the table was printed.

**Deck balance** (``--balance N``): the ``heuristic`` baseline plays itself with every pair of
two different preconstructed decks, ``N`` seeds per pair, each seed played twice with the decks
swapped between the seats (so each deck meets the same shuffles from both chairs); every game is
played and counted once (cell (a, b) is 1 minus cell (b, a)). The table gives the row deck's win
rate against the column deck over both seats (draws and truncations count half; no mirror
matches), then each deck's overall win rate, seat 0's win rate (The Drop on turn 1 is drawn
at random, so seat 0 has no built-in edge), the first holder of The Drop's win rate, every
Fight card's fight win rate (opposed fights it was in), and game lengths in turns (also over
random play). Each pair's rate is printed with a 95% interval over its seeds (the mean of each
seed's two games) and the count of pairs within [0.40, 0.60]. ``--first-seed S`` starts at seed
index ``S`` (game seed ``1000 s + 7``), so candidate pools are screened on seeds the reported table
never uses; ``--pairings a:b,c:d`` plays only those pairs; ``--jobs N`` plays the pairs in ``N``
processes (the same games); ``--cards`` / ``--deck-lists`` load a candidate pool (the env options);
``--balance-only`` skips the timing.

Run from the repository root::

    python benchmarks/bench_fight_klub.py [--seconds 2] [--rounds 5] [--balance 100] [--json out.json]
    python benchmarks/bench_fight_klub.py --balance 200 --balance-only [--first-seed 1000] [--jobs 2]
    python benchmarks/bench_fight_klub.py --ablate 200 [--kinds enhance,setup]

**Ablation** (``--ablate N``): the games and table of ``fight-envs ablate fight_klub --deals N``
(``agents/ablation.py``), with the ablated agent reading the decision kind from its observation
rather than from an information set, which costs a determinization (two replays of the game so
far) per decision and made the tool's run many times slower; ``--kinds`` limits it to some kinds.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time
from typing import Any

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from common import play_aec_game

from fight_envs import fight_klub_v0
from fight_envs.games.fight_klub.cards import DEFAULT_POOL, load_pool
from fight_envs.games.fight_klub.rules import FightKlubGame

REFERENCE = "connect_four_v3.env"
ROUND_SEEDS = 1_000_000
"""Round ``k`` of the throughput plays games from seed ``k * ROUND_SEEDS`` on: no round replays another's games."""


def run_aec(env: Any, seconds: float, seed: int) -> tuple[int, float, float, int]:
    rng = np.random.default_rng(seed)
    decisions = games = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        decisions += play_aec_game(env, rng, seed + games)
        games += 1
    return decisions, time.perf_counter() - start, time.process_time() - cpu, games


def run_engine(seconds: float, seed: int) -> tuple[int, float, float, int]:
    rng = np.random.default_rng(seed)
    decks = list(DEFAULT_POOL.decks.values())
    decisions = games = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        g = FightKlubGame(DEFAULT_POOL, [decks[games % len(decks)], decks[(games // len(decks)) % len(decks)]])
        g.new_game(np.random.default_rng(seed + games))
        while g.pending is not None:
            d = g.pending
            g.apply_action(d.seat, d.legal[int(rng.random() * len(d.legal))])
            decisions += 1
        games += 1
    return decisions, time.perf_counter() - start, time.process_time() - cpu, games


def throughput(seconds: float, rounds: int = 5) -> list[dict[str, Any]]:
    """Each round times the reference, then each Fight Klub line; a line's ratio is the median over
    rounds of (its decisions per CPU second) / (the reference's in that round)."""
    # every round plays new games (seeds from ROUND_SEEDS x its index): the encoder keeps tables
    # across games (card features, token and Life numbers), so games replayed round after round
    # would find in them what new games must compute, and read faster than training does
    lines: list[tuple[str, Any]] = [
        ("fight_klub engine", lambda seed: run_engine(seconds, seed)),
        ("fight_klub_v0.raw_env", lambda seed: run_aec(fight_klub_v0.raw_env(), seconds, seed)),
        ("fight_klub_v0.env", lambda seed: run_aec(fight_klub_v0.env(), seconds, seed)),
    ]
    try:
        from pettingzoo.classic import connect_four_v3

        lines.insert(0, (REFERENCE, lambda seed: run_aec(connect_four_v3.env(), seconds, seed)))
    except ImportError as exc:  # pygame missing
        print(f"skipping {REFERENCE}: {exc}")
    per_round: list[dict[str, tuple[int, float, float, int]]] = []
    for k in range(rounds):
        per_round.append({name: fn(ROUND_SEEDS * k) for name, fn in lines})
    rows = []
    for name, _ in lines:
        n = sum(r[name][0] for r in per_round)
        wall = sum(r[name][1] for r in per_round)
        cpu = sum(r[name][2] for r in per_round)
        games = sum(r[name][3] for r in per_round)
        ratio, round_ratios, interval = None, None, None
        if REFERENCE in per_round[0]:
            round_ratios = [(r[name][0] / r[name][2]) / (r[REFERENCE][0] / r[REFERENCE][2]) for r in per_round]
            ratio = float(np.median(round_ratios))
            interval = _mean_interval(round_ratios)
        rows.append({"line": name, "decisions": n, "seconds": wall, "cpu_seconds": cpu, "games": games,
                     "per_s": n / wall, "per_cpu_s": n / cpu, "decisions_per_game": n / max(games, 1), "ratio": ratio,
                     "round_ratios": round_ratios, "ratio_mean_95": interval})
    print(f"{rounds} rounds of {seconds:g} s per line; ratio: median over rounds of decisions per CPU second / {REFERENCE}'s; "
          f"95%: t interval of the mean round ratio; load average {' '.join(_load())}")
    print(f"{'line':<24} {'dec/s wall':>12} {'dec/s cpu':>12} {'ratio':>8} {'95% (mean)':>15} {'games':>7} {'decisions/game':>15}")
    for r in rows:
        ratio = f"{r['ratio']:.3f}" if r["ratio"] is not None else "-"
        ci = "-" if r["ratio_mean_95"] is None else "{:.3f}-{:.3f}".format(*r["ratio_mean_95"])
        print(f"{r['line']:<24} {r['per_s']:>12.0f} {r['per_cpu_s']:>12.0f} {ratio:>8} {ci:>15} {r['games']:>7} "
              f"{r['decisions_per_game']:>15.1f}")
    return rows


def _mean_interval(values: list[float]) -> tuple[float, float] | None:
    """95% t interval of the mean of ``values`` (the rounds of one line), None for one round."""
    if len(values) < 2:
        return None
    df = len(values) - 1
    t = _T975[min(df, len(_T975) - 1)]
    m, se = float(np.mean(values)), float(np.std(values, ddof=1) / np.sqrt(len(values)))
    return m - t * se, m + t * se


_T975 = (float("nan"), 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
         2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042)
"""Student's t 0.975 quantiles by degrees of freedom 1-30 (more rounds use df 30's, slightly wide)."""


def _load() -> list[str]:
    """The 1, 5 and 15 minute load averages (the machine is shared: a ratio is read beside them)."""
    try:
        return [f"{x:.2f}" for x in os.getloadavg()]
    except OSError:
        return ["?"]


def _balance_pair(a: str, b: str, seeds: int, first_seed: int, cards: str | None,
                  deck_lists: str | None) -> dict[str, Any]:
    """The games of one pair of decks for ``balance``: seeds ``first_seed .. first_seed + seeds - 1``
    (game seed ``1000 s + 7``), each played twice with the decks swapped between the seats."""
    from fight_envs.agents.arena import play_game
    from fight_envs.agents.fight_klub import HeuristicAgent

    env = fight_klub_v0.env(max_turns=40, cards=cards, deck_lists=deck_lists)  # above the default limit, so
    agents = [HeuristicAgent(0), HeuristicAgent(1)]  # the game lengths measured are not cut
    out: dict[str, Any] = {"pair": (a, b), "ab": [], "seat0": [], "first_drop": [], "turns": [], "fights": {}}
    fights: dict[str, list[int]] = out["fights"]  # Fight card -> [fights won, opposed fights fought]
    for s in range(first_seed, first_seed + seeds):
        for decks in ((a, b), (b, a)):
            r = play_game(env, agents, seed=1000 * s + 7, options={"decks": list(decks)})
            g = env.unwrapped.game
            c0 = 0.5 if r.returns[0] == r.returns[1] else float(r.returns[0] > r.returns[1])
            out["seat0"].append(c0)
            out["first_drop"].append(c0 if g.first_drop == 0 else 1.0 - c0)
            out["turns"].append(g.turn)
            out["ab"].append(c0 if decks[0] == a else 1.0 - c0)  # deck a's credit; (b, a) is 1 minus it
            cards_shown: list[list[str | None]] = []
            for e in g.log:
                if e[0] == "reveal":
                    cards_shown = e[1]
                elif e[0] == "fight":
                    pair = cards_shown[e[1]]
                    for seat in (0, 1):
                        if pair[0] is not None and pair[1] is not None:
                            row = fights.setdefault(pair[seat], [0, 0])
                            row[0] += int(e[2] == seat)
                            row[1] += 1
    return out


def _balance_pair_star(args: tuple[Any, ...]) -> dict[str, Any]:
    return _balance_pair(*args)


def balance(seeds: int, random_games: int = 300, first_seed: int = 0, pairings: list[str] | None = None,
            jobs: int = 1, cards: str | None = None, deck_lists: str | None = None) -> dict[str, Any]:
    """The balance table (module docstring). ``first_seed``: the first seed index (so candidate pools
    can be screened on seeds that the reported table does not use); ``pairings``: only these pairs
    (``"deck_a:deck_b"``, either order; default all 15); ``jobs``: worker processes, one pair of
    decks each at a time (the same games as one process); ``cards`` / ``deck_lists``: the env's
    options of those names (a candidate pool; default the package's own)."""
    from fight_envs.agents.arena import play_game
    from fight_envs.agents.base import RandomAgent

    pool = DEFAULT_POOL if (cards, deck_lists) == (None, None) else load_pool(cards, deck_lists)
    names = list(pool.decks)
    pairs = list(itertools.combinations(names, 2))
    if pairings:
        wanted = {frozenset(p.split(":")) for p in pairings}
        unknown = wanted - {frozenset(p) for p in pairs}
        if unknown:
            raise SystemExit(f"--pairings: unknown pair(s) {sorted(':'.join(sorted(u)) for u in unknown)}; decks: {names}")
        pairs = [p for p in pairs if frozenset(p) in wanted]
    work = [(a, b, seeds, first_seed, cards, deck_lists) for a, b in pairs]
    if jobs > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(jobs) as workers:
            parts = workers.map(_balance_pair_star, work, chunksize=1)
    else:
        parts = [_balance_pair(*w) for w in work]
    credit: dict[tuple[str, str], list[float]] = {}
    seat0, first_drop, turns = [], [], []
    fights: dict[str, list[int]] = {}
    for part in parts:
        a, b = part["pair"]
        credit[(a, b)] = part["ab"]
        credit[(b, a)] = [1.0 - x for x in part["ab"]]
        seat0 += part["seat0"]
        first_drop += part["first_drop"]
        turns += part["turns"]
        for c, (w, n) in part["fights"].items():
            row = fights.setdefault(c, [0, 0])
            row[0] += w
            row[1] += n
    names = sorted({d for p in pairs for d in p}, key=names.index)
    table = {a: {b: (float(np.mean(credit[(a, b)])) if (a, b) in credit else None) for b in names if b != a}
             for a in names}
    overall = {a: float(np.mean([x for b in names if (a, b) in credit for x in credit[(a, b)]])) for a in names}
    intervals = {}  # per pair: 95% interval of the mean over seeds of each seed's two games (deck a's credit)
    for a, b in pairs:
        per_seed = np.asarray(credit[(a, b)]).reshape(-1, 2).mean(axis=1)
        m, h = float(per_seed.mean()), 1.96 * float(per_seed.std(ddof=1) / np.sqrt(len(per_seed))) if len(per_seed) > 1 else 0.0
        intervals[f"{a}:{b}"] = (m, m - h, m + h)
    random_turns = []
    if random_games:
        renv = fight_klub_v0.env(max_turns=40, cards=cards, deck_lists=deck_lists)
        for s in range(random_games):
            play_game(renv, [RandomAgent(0), RandomAgent(1)], seed=s)
            random_turns.append(renv.unwrapped.game.turn)
    fight_rates = {c: w / n for c, (w, n) in fights.items()}
    print(f"\ndeck balance: heuristic vs heuristic, {seeds} seeds (from seed {first_seed}) x 2 seatings per pair "
          f"of decks; row deck's win rate")
    print(f"{'':<16}" + "".join(f"{b:>16}" for b in names) + f"{'overall':>10}")
    for a in names:
        cell = {b: ("-" if a == b or table[a][b] is None else f"{table[a][b]:.3f}") for b in names}
        print(f"{a:<16}" + "".join(f"{cell[b]:>16}" for b in names) + f"{overall[a]:>10.3f}")
    inside = sum(0.40 <= m <= 0.60 for m, _, _ in intervals.values())
    print(f"pairings within [0.40, 0.60]: {inside} of {len(intervals)}; each pair (first deck's rate, 95% interval "
          f"over its {seeds} seeds):")
    for key, (m, lo, hi) in intervals.items():
        print(f"  {key:<32} {m:.4f} [{lo:.3f}, {hi:.3f}]{'' if 0.40 <= m <= 0.60 else '  OUT'}")
    print(f"seat 0 win rate: {np.mean(seat0):.3f}; first holder of The Drop: {np.mean(first_drop):.3f} ({len(seat0)} games)")
    low = sorted(fight_rates.items(), key=lambda kv: kv[1])[:3]
    print("lowest fight win rates: " + ", ".join(f"{c} {r:.3f} ({fights[c][1]} fights)" for c, r in low))
    print(f"turns: heuristic max {max(turns)} mean {np.mean(turns):.2f}" + (
        f"; random play ({random_games} games) max {max(random_turns)} mean {np.mean(random_turns):.2f}" if random_turns else ""))
    return {"table": table, "overall": overall, "pairs": intervals, "within": inside, "seat0": float(np.mean(seat0)),
            "first_drop": float(np.mean(first_drop)), "games": len(seat0), "first_seed": first_seed, "seeds": seeds,
            "fight_win_rates": fight_rates, "fight_counts": {c: n for c, (_, n) in fights.items()},
            "turns_max": max(turns), "random_turns_max": max(random_turns) if random_turns else None}


class _KindFromObservation:
    """``ablation.AblatedAgent`` reading the decision kind from the observation's one-hot (the global
    block, as the heuristic reads it) instead of an information set: the same choices and the same
    random stream, without a determinization per decision (which replays the game twice)."""

    @staticmethod
    def make(base: Any, kind: str, seed: int) -> Any:
        from fight_envs.agents.ablation import AblatedAgent
        from fight_envs.agents.fight_klub import _KIND0
        from fight_envs.games.fight_klub.rules import DECISION_KINDS

        class Ablated(AblatedAgent):
            needs_information_set = False

            def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
                k = DECISION_KINDS[int(np.argmax(observation[_KIND0:_KIND0 + len(DECISION_KINDS)]))]

                class _Info:  # what act_with_information reads of an information set
                    @staticmethod
                    def decision_kind() -> str:
                        return k
                return self.act_with_information(observation, action_mask, _Info())

        return Ablated(base, kind, seed=seed)


def ablate(deals: int, kinds: list[str] | None, seed: int = 0) -> Any:
    """``fight-envs ablate fight_klub --deals DEALS --seed SEED`` (``agents/ablation.run_ablation``), the
    same games and table, with the kind read from the observation (``_KindFromObservation``)."""
    import copy

    from fight_envs.agents.ablation import AblationResult, KindCost
    from fight_envs.agents.evaluate import evaluate
    from fight_envs.agents.registry import make_agent
    from fight_envs.games.fight_klub.rules import DECISION_KINDS

    kinds = list(DECISION_KINDS) if not kinds else kinds
    rows = []
    for i, kind in enumerate(kinds):
        reference = make_agent("heuristic", game="fight_klub", seed=seed)
        ablated = _KindFromObservation.make(make_agent("heuristic", game="fight_klub", seed=seed), kind, seed)
        stats = evaluate(lambda: fight_klub_v0.raw_env(), [ablated, copy.deepcopy(reference)], deals, seed).stats[0]
        total = sum(c[0] for c in ablated.counts.values())
        mine = ablated.counts.get(kind, [0, 0])
        rows.append(KindCost(kind, stats, 0.5 - stats.win_rate, (0.5 - stats.win_ci[1], 0.5 - stats.win_ci[0]),
                             mine[0] / max(total, 1), mine[1] / max(mine[0], 1)))
        print(f"  kind {i + 1}/{len(kinds)} {kind}: cost {rows[-1].cost:+.3f}", file=sys.stderr, flush=True)
    result = AblationResult("fight_klub", "heuristic", 2, deals, seed, rows)
    print(result.table(markdown=True))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=5, help="rounds of throughput timing (ratio: median over rounds)")
    parser.add_argument("--balance", type=int, default=0, help="seeds per deck pair for the balance table (0: skip)")
    parser.add_argument("--ablate", type=int, default=0, help="deals per decision kind of an ablation of the "
                        "heuristic, as fight-envs ablate fight_klub (0: skip); skips the timing")
    parser.add_argument("--kinds", type=str, default="", help="with --ablate: comma-separated decision kinds (default all)")
    parser.add_argument("--first-seed", type=int, default=0, help="with --balance: the first seed index (game seed "
                        "1000 s + 7); screen candidate pools on seeds the reported table does not use")
    parser.add_argument("--pairings", type=str, default="", help="with --balance: comma-separated deck pairs "
                        "a:b (default all 15)")
    parser.add_argument("--jobs", type=int, default=1, help="with --balance: worker processes (one pair of decks each)")
    parser.add_argument("--cards", type=str, default=None, help="with --balance: a card-data JSON (env option 'cards')")
    parser.add_argument("--deck-lists", type=str, default=None, help="with --balance: deck lists JSON (env option "
                        "'deck_lists')")
    parser.add_argument("--random-games", type=int, default=300, help="with --balance: random games for game lengths")
    parser.add_argument("--balance-only", action="store_true", help="with --balance: skip the timing")
    parser.add_argument("--json", type=str, default=None)
    args = parser.parse_args()
    if args.ablate:
        ablate(args.ablate, [k for k in args.kinds.split(",") if k])
        return
    out: dict[str, Any] = {} if args.balance and args.balance_only else {"throughput": throughput(args.seconds, args.rounds)}
    if args.balance:
        out["balance"] = balance(args.balance, args.random_games, args.first_seed,
                                 [p for p in args.pairings.split(",") if p], args.jobs, args.cards, args.deck_lists)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
