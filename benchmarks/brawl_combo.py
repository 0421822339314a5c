"""Brawl's ``combo="multi"`` lever measured (``seeds/brawl.md`` section 9, design choice 4). Run from
the repository root::

    python benchmarks/brawl_combo.py ablate DEALS [KIND ...]      # 2 fighters
    python benchmarks/brawl_combo.py versus DEALS PLAYERS [RULE ...]

``ablate``: what ``fight-envs ablate brawl --agent heuristic --players 2 --deals DEALS --seed 2026``
measures (``fight_envs.agents.ablation.run_ablation``: one decision kind of the heuristic played at
random against an unmodified heuristic, duplicate deals), with the env option ``combo="multi"``
(the standard rules' default since issue 13, so the CLI's default run plays the same games; the
option is kept explicit here); every kind of ``rules.DECISION_KINDS`` unless KINDs are named.
``versus``: the heuristic against ``PLAYERS - 1`` copies of each one-line rule (default
``first_legal never_pass``), what ``fight-envs eval heuristic --baselines RULE --env brawl_v0
--env-opt combo=multi --players PLAYERS --deals DEALS --seed 2026`` measures. One line per result,
flushed as it comes.
"""
import sys
import time

from fight_envs import brawl_v0
from fight_envs.agents.ablation import decision_kinds, run_ablation
from fight_envs.agents.brawl import baselines
from fight_envs.agents.evaluate import versus_baseline

SEED = 2026
OPTIONS = {"combo": "multi"}


def main(argv: list[str]) -> None:
    if len(argv) < 2 or argv[0] not in ("ablate", "versus"):
        raise SystemExit(__doc__)
    deals = int(argv[1])
    if argv[0] == "ablate":
        kinds = tuple(argv[2:]) or decision_kinds("brawl")
        for kind in kinds:
            t = time.time()
            r = run_ablation("brawl", "heuristic", 2, deals, SEED, kinds=(kind,), env_options=OPTIONS)
            row = r.rows[0]
            s = row.stats
            print(f"combo=multi 2 fighters, {kind} random: share {row.share:.3f}, with a choice {row.choice_share:.2f}, "
                  f"win rate {s.win_rate:.3f} [{s.win_ci[0]:.3f}, {s.win_ci[1]:.3f}], cost {row.cost:+.3f} "
                  f"[{row.cost_ci[0]:+.3f}, {row.cost_ci[1]:+.3f}], {s.games} games, {time.time() - t:.0f} s", flush=True)
        return
    players = int(argv[2])
    made = baselines()
    for rule in argv[3:] or ("first_legal", "never_pass"):
        t = time.time()
        st = versus_baseline(lambda: brawl_v0.env(num_players=players, **OPTIONS), made["heuristic"](0),
                             made[rule](0), deals, SEED)
        print(f"combo=multi {players} fighters, heuristic vs {rule}: {st.win_rate:.3f} [{st.win_ci[0]:.3f}, "
              f"{st.win_ci[1]:.3f}], {st.games} games, {time.time() - t:.0f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
