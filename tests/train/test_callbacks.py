"""Callback helpers: step grids, checkpoint listing, evaluation history and the rating fitted on it."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from fight_envs.train.callbacks import Evaluator, checkpoint_name, list_checkpoints, next_multiple
from fight_envs.train.config import EvalConfig


def test_next_multiple_keeps_the_grid_across_resumes() -> None:
    assert [next_multiple(s, 100) for s in (0, 99, 100, 101, 250)] == [100, 100, 200, 200, 300]


def test_list_checkpoints_orders_by_step_and_ignores_other_files(tmp_path: Path) -> None:
    for step in (300, 20, 1000):
        (tmp_path / checkpoint_name(step)).write_bytes(b"")
    (tmp_path / "step_x.zip").write_bytes(b"")
    (tmp_path / "final.zip").write_bytes(b"")
    assert [s for s, _ in list_checkpoints(tmp_path)] == [20, 300, 1000]


def test_rating_is_elo_of_the_win_rates_anchored_on_random(tmp_path: Path) -> None:
    ev = Evaluator(EvalConfig(baselines=["random", "greedy"]), "fight5_v0", {}, "fight5", 0, tmp_path / "h.jsonl")
    ev.history = [
        {"step": 10, "opponent": "random", "winrate": 0.75, "games": 400},
        {"step": 10, "opponent": "greedy", "winrate": 0.5, "games": 400},
    ]
    ratings = ev.ratings()
    assert ratings["random"] == 1000.0
    # 3:1 odds are 400 * log10(3) = 191 Elo; one virtual draw per pair pulls it in slightly.
    assert ratings["learner@10"] == pytest.approx(1000 + 400 * math.log10(3), abs=3)
    assert ratings["greedy"] == pytest.approx(ratings["learner@10"], abs=1)


def test_evaluation_plays_each_baseline_and_appends_to_the_history(tmp_path: Path, fight5_model) -> None:
    path = tmp_path / "h.jsonl"
    config = EvalConfig(games=4, baselines=["random", "greedy"], num_players=2)
    ev = Evaluator(config, "fight5_v0", {"num_bouts": 1, "reward": "score"}, "fight5", 0, path)
    winrates = ev.run(fight5_model.policy, step=7)
    assert set(winrates) == {"random", "greedy"} and all(0 <= w <= 1 for w in winrates.values())
    again = Evaluator(config, "fight5_v0", {"num_bouts": 1}, "fight5", 0, path)
    assert [(h["step"], h["opponent"], h["games"]) for h in again.history] == [(7, "random", 4), (7, "greedy", 4)]
    # Wins are counted with the env's default reward (Fight 5: the outcome), whatever the training reward.
    assert "reward" not in ev.env_options
    assert ev._env().table.reward_mode == "outcome"
