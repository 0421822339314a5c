"""The ``fight-envs`` command line: each subcommand end to end on tiny settings, and its errors."""

from __future__ import annotations

import builtins
from pathlib import Path

import pytest

from fight_envs.train.cli import DEFAULT_CONFIG, main, project_root

TINY = str(project_root() / "configs" / "fight5_selfplay_tiny.yaml")


def test_default_config_exists_and_is_the_batched_recipe():
    assert (project_root() / DEFAULT_CONFIG).is_file()
    assert "vec_env: batched" in (project_root() / DEFAULT_CONFIG).read_text()


def test_envs_lists_every_environment(capsys):
    assert main(["envs"]) == 0
    out = capsys.readouterr().out
    for name in ("fight5_v0", "brawl_v0", "fifth_earth_v0", "fight_klub_v0"):
        assert name in out


def test_eval_head_to_head_prints_a_table(capsys):
    assert main(["eval", "heuristic", "greedy", "--deals", "3", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "3 deals x 2 rotations = 6 games" in out and "heuristic-v1" in out and "greedy-v1" in out


def test_eval_is_deterministic(capsys):
    main(["eval", "greedy", "--deals", "3", "--baselines", "random", "--seed", "4"])
    first = capsys.readouterr().out
    main(["eval", "greedy", "--deals", "3", "--baselines", "random", "--seed", "4"])
    assert capsys.readouterr().out == first


def test_eval_rejects_an_unknown_agent_naming_the_known_ones():
    with pytest.raises(SystemExit, match="heuristic"):
        main(["eval", "no_such_agent", "--deals", "1"])


def test_eval_needs_one_agent_per_seat():
    with pytest.raises(SystemExit, match="3-player games need 3 agents"):
        main(["eval", "random", "greedy", "--players", "3", "--deals", "1"])


def test_train_then_eval_and_tournament_on_the_run(tmp_path: Path, capsys):
    runs = tmp_path / "runs"
    assert main(["train", "--config", TINY, f"runs_dir={runs}", "eval.games=0"]) == 0
    latest = runs / "latest"
    assert latest.is_symlink() and (latest / "final.zip").is_file()
    capsys.readouterr()
    assert main(["eval", str(latest), "--deals", "2", "--baselines", "random"]) == 0
    assert "random" in capsys.readouterr().out
    plot = tmp_path / "ratings.png"
    assert main(["tournament", str(latest), "random", "greedy", "--deals", "2", "--plot", str(plot)]) == 0
    assert plot.is_file() and plot.stat().st_size > 0
    assert "Elo" in capsys.readouterr().out


def test_train_reports_bad_overrides_clearly():
    with pytest.raises(SystemExit, match="no_such_key"):
        main(["train", "--config", TINY, "no_such_key=1"])


def test_a_directory_without_a_model_is_refused(tmp_path: Path):
    with pytest.raises(SystemExit, match="no final.zip"):
        main(["eval", str(tmp_path), "--deals", "1"])


def test_play_quits_cleanly(monkeypatch, capsys):
    monkeypatch.setattr(builtins, "input", lambda prompt="": "q")
    assert main(["play", "--opponents", "random", "--seed", "3"]) == 0
    assert "bye" in capsys.readouterr().out
