"""The balance tool (``benchmarks/bench_fight_klub.py --balance``): the seed offset used to screen
candidate pools away from the reported table's seeds, the pair filter, the worker processes (the
same games as one process) and a candidate pool given by path; and the deck changes that
seeds/fight_klub.md section 10 measures."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_fight_klub as bench

from fight_envs import fight_klub_v0
from fight_envs.agents.arena import play_game
from fight_envs.agents.fight_klub import HeuristicAgent


def _credit(seed: int, decks: list[str]) -> float:
    env = fight_klub_v0.env(max_turns=40)
    r = play_game(env, [HeuristicAgent(0), HeuristicAgent(1)], seed=seed, options={"decks": decks})
    return 0.5 if r.returns[0] == r.returns[1] else float(r.returns[0] > r.returns[1])


def test_balance_first_seed_and_pairings_play_the_named_games() -> None:
    out = bench.balance(2, random_games=0, first_seed=5, pairings=["grin_swarm:lumen_tricks"])
    assert out["games"] == 4 and list(out["pairs"]) == ["lumen_tricks:grin_swarm"]
    want = [_credit(1000 * s + 7, d) if d[0] == "lumen_tricks" else 1.0 - _credit(1000 * s + 7, d)
            for s in (5, 6) for d in (["lumen_tricks", "grin_swarm"], ["grin_swarm", "lumen_tricks"])]
    assert out["table"]["lumen_tricks"]["grin_swarm"] == sum(want) / 4
    assert out["table"]["grin_swarm"]["lumen_tricks"] == 1.0 - sum(want) / 4


def test_balance_jobs_give_the_same_games_as_one_process() -> None:
    pairs = ["vega_blitz:sage_patience", "hollow_control:queen_pressure"]
    one = bench.balance(1, random_games=0, first_seed=3, pairings=pairs, jobs=1)
    two = bench.balance(1, random_games=0, first_seed=3, pairings=pairs, jobs=2)
    assert one["pairs"] == two["pairs"] and one["fight_win_rates"] == two["fight_win_rates"]


def test_balance_reads_a_candidate_pool_by_path(tmp_path: Path) -> None:
    data_dir = ROOT / "fight_envs" / "games" / "fight_klub"
    cards = json.loads((data_dir / "cards.json").read_text(encoding="utf-8"))
    for ch in cards["characters"]:
        ch["life"] = 1  # the first fight won ends the game
    (tmp_path / "cards.json").write_text(json.dumps(cards), encoding="utf-8")
    out = bench.balance(1, random_games=0, pairings=["vega_blitz:grin_swarm"], cards=str(tmp_path / "cards.json"),
                        deck_lists=str(data_dir / "decks.json"))
    assert out["turns_max"] == 1


def test_the_balance_swaps_of_seeds_section_10() -> None:
    """The deck changes that section 10's table measures (a revert would move three pairings back out)."""
    from fight_envs.games.fight_klub.cards import DEFAULT_POOL

    grin, hollow = DEFAULT_POOL.decks["grin_swarm"], DEFAULT_POOL.decks["hollow_control"]
    grin_draw, hollow_draw, hollow_fight = dict(grin.draw), dict(hollow.draw), dict(hollow.fight)
    assert grin_draw.get("v_amulet") == 3 and "v_slip" not in grin_draw  # Gear in play against Outlast
    assert "v_lens" not in hollow_draw and hollow_draw.get("v_brace") == 2
    assert "v_patience" not in hollow_fight and hollow_fight.get("v_hook") == 2
    assert {c: DEFAULT_POOL.characters[c].life for c in DEFAULT_POOL.characters} == {
        "captain_vega": 21, "iron_sage": 19, "the_hollow": 19, "rust_queen": 15, "lumen": 21, "grin": 22}
