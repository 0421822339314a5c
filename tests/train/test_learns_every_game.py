"""Slow: a short self-play run of every game's 2-player recipe beats the random baseline clearly.

Each game trains from its own shipped config (``configs/<game>_selfplay_2p.yaml``; Fight 5: the default
``fight5_selfplay_batched.yaml``) with fewer timesteps, then plays 100 duplicate deals (200 games)
against ``random``: the trained agent must win at least 60% with the 95% interval above 55% (luck
weighs differently per game: Fifth-Earth's heuristic beats random only about 0.69 of the time; measured
on the rules of 2026-12-01, 60k decisions: Brawl passed, Fifth-Earth 0.630 [0.565, 0.695]; Fight Klub
0.720 [0.662, 0.778] on 2026-12-02; Fifth-Earth on the whole campaign of 25 destinations, 2026-12-02:
0.635 [0.566, 0.704] with its recipe's ``reward: destination``, 0.550 [0.485, 0.615] with ``outcome``;
with the heuristic-heavy opponent mix of the recipe since 2026-12-02, 0.585 [0.514, 0.656] after 60k decisions,
so Fifth-Earth trains 150k here, which passed in 90 s).
Fight Klub's pointer recipe (2026-12-03), with 200 cloned games here, passed in 247 s.
Nothing here is specific to a game's rules, so the test follows each game as it changes.
Run: ``python -m pytest -q -m slow tests/train/test_learns_every_game.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from fight_envs.agents.base import RandomAgent
from fight_envs.agents.checkpoint import load_checkpoint_agent
from fight_envs.agents.evaluate import evaluate
from fight_envs.registry import make
from fight_envs.train.config import load_config
from fight_envs.train.selfplay import train_main

torch.set_num_threads(1)
CONFIGS = Path(__file__).resolve().parents[2] / "configs"
RUNS = {
    # game: (config, learner decisions, extra overrides)
    "fight5": ("fight5_selfplay_batched.yaml", 60_000, []),
    # the Brawl recipe clones search first (2,000 games, about 35 min): here a short clone of the heuristic
    "brawl": ("brawl_selfplay_2p.yaml", 60_000, ["pretrain.teacher=heuristic", "pretrain.games=500"]),
    "fifth_earth": ("fifth_earth_selfplay_2p.yaml", 150_000, []),
    # the Fight Klub recipe clones 1,000 heuristic games first (about 4 GB of observations): here 200
    "fight_klub": ("fight_klub_selfplay_2p.yaml", 60_000, ["pretrain.games=200"]),
}
DEALS = 100
MIN_WIN_RATE = 0.60
MIN_LOWER_BOUND = 0.55


@pytest.mark.slow
@pytest.mark.parametrize("game", list(RUNS))
def test_short_run_beats_random(tmp_path: Path, game: str) -> None:
    name, steps, extra = RUNS[game]
    config = load_config(CONFIGS / name, [f"runs_dir={tmp_path}", "run_name=short", f"total_timesteps={steps}",
                                          "eval.games=0", "progress=none", "opponents.snapshot_every=20000", *extra])
    run = train_main(config)
    agent = load_checkpoint_agent(run / "final.zip", game=game)
    options = config.env.env_options()
    result = evaluate(lambda: make(config.env.name, api="raw", num_players=2, **options),
                      [agent, RandomAgent()], num_deals=DEALS, seed=123)
    stats = result.stats[0]
    assert stats.win_rate >= MIN_WIN_RATE and stats.win_ci[0] > MIN_LOWER_BOUND, (
        f"{game}: after {steps:,} decisions the learner scored {stats.win_rate:.3f} {stats.win_ci} against random")
