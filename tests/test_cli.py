"""The ``fight-envs`` command line: each subcommand end to end on tiny settings, and its errors.

Errors are one line on stderr and exit status 2 (never a traceback); the verbs run from any
folder, reading the configs and models shipped in the package.
"""

from __future__ import annotations

import builtins
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fight_envs.resources import config_path, model_path
from fight_envs.train.cli import DEFAULT_CONFIG, EXIT_ERROR, choose_env, build_parser, main, parse_value

TINY = "fight5_selfplay_tiny.yaml"
MODEL = "models/fight5_2p_default.zip"


def error_of(capsys, argv: list[str]) -> str:
    """Run ``argv``; it must fail with exit 2 and exactly one line on stderr, which is returned."""
    assert main(argv) == EXIT_ERROR
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    assert err.startswith(f"fight-envs {argv[0]}: "), err
    return err


def test_default_config_is_shipped_and_is_the_batched_recipe():
    assert "vec_env: batched" in config_path(DEFAULT_CONFIG).read_text()


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    import fight_envs

    assert capsys.readouterr().out.strip() == f"fight-envs {fight_envs.__version__}"


def test_envs_lists_every_environment_with_its_baselines_and_shipped_rules(capsys):
    assert main(["envs"]) == 0
    out = capsys.readouterr().out
    for name in ("fight5_v0", "brawl_v0", "fifth_earth_v0", "fight_klub_v0"):
        assert name in out
    assert "baselines: random, greedy, heuristic" in out
    for line in out.splitlines():
        if line.strip().startswith("rules:"):
            assert Path(line.split(":", 1)[1].strip()).is_file()


def test_eval_head_to_head_prints_a_table(capsys):
    assert main(["eval", "heuristic", "greedy", "--deals", "3", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "3 deals x 2 rotations = 6 games" in out and "heuristic-v1" in out and "greedy-v1" in out


def test_eval_is_deterministic(capsys):
    main(["eval", "greedy", "--deals", "3", "--baselines", "random", "--seed", "4"])
    first = capsys.readouterr().out
    main(["eval", "greedy", "--deals", "3", "--baselines", "random", "--seed", "4"])
    assert capsys.readouterr().out == first


def test_eval_jobs_plays_the_same_games_in_worker_processes(capsys, tmp_path: Path):
    """``--jobs 2`` prints what one process prints: against baselines, and one agent per seat (search included,
    whose rollout policies are built in each worker); its refusals are one line each."""
    for argv in (["eval", "heuristic", "--env", "brawl_v0", "--players", "3", "--baselines", "random", "never_pass",
                  "--deals", "5", "--seed", "2"],
                 ["eval", "heuristic", "search:sims=4", "random", "--env", "brawl_v0", "--players", "3",
                  "--deals", "3", "--seed", "5"]):
        assert main(argv) == 0
        serial = capsys.readouterr().out
        assert main([*argv, "--jobs", "2"]) == 0
        assert capsys.readouterr().out == serial
    assert "--jobs must be 1 or more" in error_of(capsys, ["eval", "heuristic", "--jobs", "0"])
    assert "use it with --jobs 1" in error_of(capsys, ["eval", "heuristic", "--jobs", "2",
                                                       "--save-records", str(tmp_path)])


def test_eval_uses_the_games_own_baselines_and_no_margin_where_there_is_no_score(capsys):
    assert main(["eval", "heuristic", "--env", "brawl_v0", "--deals", "2"]) == 0
    out = capsys.readouterr().out
    from fight_envs.train.cli import game_baselines

    rows = [line.split()[0] for line in out.splitlines()[2:]]
    assert rows == game_baselines("brawl") and "greedy" not in rows
    assert "margin" not in out  # Brawl keeps no score: a 0.0 [0.0, 0.0] column would mean nothing


def test_eval_takes_the_game_from_the_checkpoint(capsys, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the shipped model is found in the package, not in this folder
    assert main(["eval", MODEL, "--deals", "1", "--baselines", "random"]) == 0
    out = capsys.readouterr().out
    assert "on fight5_v0(num_bouts=3, target_score=200), 2 players" in out


def test_env_options_openspiel_style_and_one_at_a_time():
    args = build_parser().parse_args(["eval", "random", "--env", "fifth_earth_v0(num_destinations=5, format='royale')",
                                      "--env-opt", "num_players=3", "--env-opt", "ties=rolloff"])
    choice = choose_env(args)
    assert choice.name == "fifth_earth_v0"
    assert choice.options == {"num_destinations": 5, "format": "royale", "num_players": 3, "ties": "rolloff"}
    assert choice.make().config.num_destinations == 5
    assert parse_value("[2, 3]") == [2, 3] and parse_value("true") is True and parse_value("none") is None
    assert parse_value("Vega") == "Vega"


@pytest.mark.parametrize(("argv", "message"), [
    (["eval", "no_such_agent", "--deals", "1"], "unknown agent 'no_such_agent' for fight5; available: random"),
    (["eval", "random", "greedy", "--players", "3", "--deals", "1"], "3-player games need 3 agents"),
    (["eval", "random", "--env", "nope_v0"], "unknown environment 'nope_v0'; registered: fight5_v0"),
    (["eval", "random", "--env", "fifth_earth_v0(num_destinations=99)"], "num_destinations must be an integer in 1..25"),
    (["eval", "random", "--env-opt", "colour=red"], "unknown fight5_v0 option 'colour'; allowed:"),
    (["eval", "random", "--env-opt", "colour"], "is not key=value"),
    (["eval", "random", "--env", "fight5_v0(("], "is not NAME or NAME(key=value, ...)"),
    (["play", "--players", "9"], "num_players must be an int in 2..5, got 9"),
    (["play", "--seat", "4"], "--seat must be in 0..1"),
    (["train", "--config", TINY, "no_such_key=1"], "no_such_key"),
    (["train", "--config", TINY, "env.num_players=[2,9]"], "num_players"),
    (["train", "--config", "nope.yaml"], "no config file at 'nope.yaml'"),
    (["results", "--run", "nowhere"], "no run or checkpoint at 'nowhere'"),
    (["tournament", "random", "--deals", "1"], "at least two agents"),
])
def test_errors_are_one_line_and_exit_2(capsys, argv: list[str], message: str):
    assert message in error_of(capsys, argv)


def test_a_directory_without_a_model_is_refused(capsys, tmp_path: Path):
    assert "no final.zip" in error_of(capsys, ["eval", str(tmp_path), "--deals", "1"])


def test_a_missing_extra_names_the_extra(capsys, monkeypatch):
    import fight_envs.train.cli as cli

    def no_torch(args):
        raise ModuleNotFoundError("No module named 'torch'", name="torch")

    monkeypatch.setattr(cli, "build_parser", lambda: _parser_with(cli, "envs", no_torch))
    err = error_of(capsys, ["envs"])
    assert "pip install 'fight-envs[train]'" in err


def _parser_with(cli, verb, func):
    import argparse

    parser = argparse.ArgumentParser(prog="fight-envs")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser(verb).set_defaults(func=func)
    return parser


def test_ctrl_c_is_one_line_and_exit_130(capsys, monkeypatch):
    def interrupted(prompt=""):
        raise KeyboardInterrupt

    monkeypatch.setattr(builtins, "input", interrupted)
    assert main(["play", "--opponents", "random", "--seed", "3"]) == 130
    assert capsys.readouterr().err.strip() == "fight-envs play: interrupted"


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


def test_train_list_keys_names_every_key_with_its_default(capsys):
    from fight_envs.train.cli import _config_keys
    from fight_envs.train.config import Config

    assert main(["train", "--list-keys"]) == 0
    out = capsys.readouterr().out
    for key, default in _config_keys(Config()):
        assert f"  {key} " in out
    assert "total_timesteps" in out and "ppo.learning_rate" in out and "(fight5_selfplay_batched.yaml: 3000000)" in out


def play_with(monkeypatch, capsys, argv: list[str], moves: list[str]) -> str:
    answers = iter(moves)

    def answer(prompt=""):
        print(prompt)  # what a terminal would show
        return next(answers, "q")

    monkeypatch.setattr(builtins, "input", answer)
    assert main(argv) == 0
    return capsys.readouterr().out


def test_play_without_a_seed_and_with_a_shipped_model(monkeypatch, capsys):
    out = play_with(monkeypatch, capsys, ["play", "--opponents", MODEL], ["q"])
    assert "deal seed" in out and "bye" in out


@pytest.mark.parametrize("env", ["fight5_v0", "brawl_v0", "fifth_earth_v0", "fight_klub_v0"])
def test_play_names_the_actions_of_every_game_and_echoes_my_move(monkeypatch, capsys, env: str):
    import re

    out = play_with(monkeypatch, capsys, ["play", "--env", env, "--seed", "2"], [])
    if env == "fight5_v0":
        assert "your card (" in out  # card names: 2..13, star
        return
    line = next(line for line in out.splitlines() if line.startswith("legal moves: "))
    moves = [m.split(" = ", 1) for m in line[len("legal moves: "):].split("; ")]
    assert moves and all(num.isdigit() and name and not re.fullmatch(r"action \d+", name) for num, name in moves)
    out = play_with(monkeypatch, capsys, ["play", "--env", env, "--seed", "2"], [moves[0][0]])
    assert f"\nyou: {moves[0][1]}\n" in out


def test_play_to_the_end_says_who_won(monkeypatch, capsys):
    import fight_envs.agents.human as human

    def act(self, observation, action_mask):  # a player who always takes the first legal move
        import numpy as np

        return int(np.flatnonzero(action_mask)[0])

    monkeypatch.setattr(human.HumanAgent, "act", act)
    assert main(["play", "--env", "brawl_v0", "--seed", "5"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("final rewards: you ") and ("win" in last or "winner" in last)


def test_results_writes_in_the_current_folder_by_default(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["results", "--deals", "2", "--tournament-deals", "1", "--baseline-deals", "1"]) == 0
    page = (tmp_path / "results.md").read_text()
    assert "issue" not in page.lower()
    assert (tmp_path / "ratings.png").is_file()
    assert "[results]" in capsys.readouterr().err  # progress on stderr
    assert model_path("fight5_2p_default.zip").is_file()


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="torch's default is one thread on one core: nothing to tell apart")
@pytest.mark.parametrize("user_setting, expected", [(None, 1), ("2", 2)])
def test_playing_verbs_give_torch_one_thread_unless_the_user_chose(user_setting: str | None, expected: int) -> None:
    # two evals side by side on 2 cores, each with torch's default two OpenMP threads, ran 7x slower
    pytest.importorskip("torch")
    # torch is imported after main: it reads OMP_NUM_THREADS once, at its first import
    code = ("from fight_envs.train.cli import main\n"
            "rc = main(['eval', 'models/fight5_2p_default.zip', '--baselines', 'random', '--deals', '1'])\n"
            "import torch\n"
            "print('threads', rc, torch.get_num_threads())\n")
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    if user_setting is not None:
        env["OMP_NUM_THREADS"] = user_setting
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr
    assert f"threads 0 {expected}" in out.stdout.splitlines()[-1]
