"""Screen a Brawl deck at two (and five) fighters (``seeds/brawl.md`` section 9). Run from the repository root::

    python benchmarks/brawl_deck_screen.py JUMP DODGE COUNTER BLOCK CHAOS DEALS2 [DEALS5]

The standard card data (``fight_envs/games/brawl/cards.json``) with the five special counts given,
written to a temporary file and played with ``cards=`` (the heuristic is told the deck, since it
otherwise recognises only the package's decks by their size). Prints, seed 2026, duplicate deals:
the cost of the heuristic's ``follow_up`` decisions played at random against an unmodified
heuristic (what ``fight-envs ablate`` measures) and that kind's share of its decisions, over
DEALS2 two-fighter deals; the heuristic against ``first_legal`` at two fighters; with DEALS5, at
five fighters too.
"""
import json
import os
import sys
import tempfile

import fight_envs.agents.brawl as heuristics
from fight_envs import brawl_v0
from fight_envs.agents.ablation import AblatedAgent
from fight_envs.agents.evaluate import evaluate, versus_baseline
from fight_envs.games.brawl.cards import load_cards

SEED = 2026


def main(argv: list[str]) -> None:
    if len(argv) not in (6, 7):
        raise SystemExit(__doc__)
    jump, dodge, counter, block, chaos, deals2 = (int(x) for x in argv[:6])
    deals5 = int(argv[6]) if len(argv) > 6 else 0
    with open("fight_envs/games/brawl/cards.json", encoding="utf-8") as fh:
        data = json.load(fh)
    data["specials"] = {"JUMP": jump, "DODGE": dodge, "COUNTER": counter, "BLOCK": block, "CHAOS": chaos}
    fd, path = tempfile.mkstemp(suffix=".json")
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh)
    cards = load_cards(path)
    heuristics._DECKS[int(cards.deck.sum())] = cards.deck  # the heuristic counts unseen cards of this deck
    tag = f"JUMP {jump} DODGE {dodge} COUNTER {counter} BLOCK {block} CHAOS {chaos} ({int(cards.deck.sum())} cards)"

    def env(n: int):
        return lambda: brawl_v0.env(num_players=n, cards=path)

    ablated = AblatedAgent(heuristics.HeuristicAgent(SEED), "follow_up", seed=SEED)
    st = evaluate(env(2), [ablated, heuristics.HeuristicAgent(SEED)], deals2, SEED).stats[0]
    share = ablated.counts.get("follow_up", [0])[0] / max(1, sum(c[0] for c in ablated.counts.values()))
    print(f"{tag}: 2 fighters, follow_up randomised costs {0.5 - st.win_rate:+.3f} "
          f"[{0.5 - st.win_ci[1]:+.3f}, {0.5 - st.win_ci[0]:+.3f}], {share:.3f} of decisions, {st.games} games", flush=True)
    st = versus_baseline(env(2), heuristics.HeuristicAgent(0), heuristics.FirstLegalAgent(0), deals2, SEED)
    print(f"{tag}: 2 fighters, heuristic vs first_legal {st.win_rate:.3f} [{st.win_ci[0]:.3f}, {st.win_ci[1]:.3f}], "
          f"{st.games} games", flush=True)
    if deals5:
        st = versus_baseline(env(5), heuristics.HeuristicAgent(0), heuristics.FirstLegalAgent(0), deals5, SEED)
        print(f"{tag}: 5 fighters, heuristic vs first_legal {st.win_rate:.3f} [{st.win_ci[0]:.3f}, {st.win_ci[1]:.3f}], "
              f"{st.games} games", flush=True)
    os.unlink(path)


if __name__ == "__main__":
    main(sys.argv[1:])
