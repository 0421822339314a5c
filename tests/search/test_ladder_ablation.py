"""The ladder and ablation tools, and their command-line verbs, on tiny budgets."""

from __future__ import annotations

import json

import pytest

from fight_envs.agents.ablation import AblatedAgent, decision_kinds, run_ablation
from fight_envs.agents.ladder import ONE_LINE_RULES, default_lineup, run_ladder, split_rate
from fight_envs.agents.registry import list_agents, make_agent
from fight_envs.train.cli import main


def test_default_lineups_use_the_standard_names_and_skip_what_is_missing() -> None:
    specs, notes = default_lineup("fight5")
    assert specs[:3] == ["random", "greedy", "heuristic"] and [s.split(":")[0] for s in specs[3:]] == ["search", "search"]
    assert notes == []
    for game, rules in ONE_LINE_RULES.items():
        specs, notes = default_lineup(game, models=["m.zip"])
        known = set(list_agents(game))
        for name in ("random", *rules, "heuristic"):
            assert (name in specs) == (name in known)
            assert (name in known) or any(repr(name) in n for n in notes)
        assert specs[-1] == "m.zip"


def test_ladder_cli_writes_the_page_png_and_json(tmp_path, capsys) -> None:
    out = tmp_path / "docs"
    assert main(["ladder", "fight5", "--deals", "1", "--agents", "random", "greedy", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Elo" in printed and "split" in printed
    page = (out / "ladder_fight5.md").read_text()
    assert "ladder_fight5.png" in page and "| rank | agent | Elo | 95% interval | ms / decision, CPU (wall) |" in page
    assert (out / "ladder_fight5.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads((out / "ladder_fight5.json").read_text())
    assert len(data["pairings"]) == 1 and data["labels"] == ["random-v1", "greedy-v1"]
    assert data["elo"][0] == pytest.approx(1000.0)  # random anchors the scale (its label carries a version)


def test_ladder_with_search_reports_its_cost_per_decision() -> None:
    result = run_ladder("fight5", ["random", "search:sims=2,horizon=bout,tail=greedy"], num_deals=1,
                        env_options={"num_bouts": 1, "target_score": None})
    assert result.ms_per_decision[0] is None and result.ms_per_decision[1] > 0 and result.ms_wall_per_decision[1] > 0
    assert "search-v1:sims=2,horizon=bout,tail=greedy" in result.table()


def test_ladder_three_players_and_split_rate() -> None:
    result = run_ladder("fight5", ["random", "greedy"], num_players=3, num_deals=2, seed=1)
    (pairing,) = result.pairings
    assert 0.0 <= pairing.score <= 1.0 and pairing.score_ci[0] <= pairing.score <= pairing.score_ci[1]
    assert pairing.split_rate == split_rate(pairing.result)
    assert len(pairing.result.games) == 2 * 3


def test_ladder_refuses_bad_line_ups() -> None:
    with pytest.raises(ValueError, match="at least two"):
        run_ladder("fight5", ["random"], num_deals=1)
    with pytest.raises(ValueError, match="once"):
        run_ladder("fight5", ["random", "random"], num_deals=1)


def test_ablate_cli_and_costs(tmp_path, capsys) -> None:
    out = tmp_path / "ablation.md"
    assert main(["ablate", "fight5", "--deals", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    for kind in decision_kinds("fight5"):
        assert kind in printed
    assert "| decision kind |" in out.read_text()


def test_a_forced_kind_costs_nothing_and_the_ablated_agent_plays_randomly_there() -> None:
    result = run_ablation("fight5", "heuristic", num_players=2, num_deals=2, kinds=("left_b", "right_a"),
                          env_options={"num_bouts": 1, "target_score": None})
    forced, first = result.rows
    assert forced.choice_share == 0.0 and forced.cost == pytest.approx(0.0)  # left_b is always forced
    assert first.choice_share > 0.9 and forced.share == pytest.approx(0.2)
    with pytest.raises(ValueError, match="unknown decision kinds"):
        run_ablation("fight5", kinds=("flop",), num_deals=1)
    assert AblatedAgent(make_agent("heuristic"), "middle").label == "heuristic-v1-random@middle"


def test_ablate_reports_a_game_without_decision_kinds() -> None:
    from fight_envs.agents.registry import GAMES

    for game in GAMES:
        try:
            kinds = decision_kinds(game)
        except ValueError as exc:
            assert "DECISION_KINDS" in str(exc)
        else:
            assert kinds and all(k == k.lower() and " " not in k for k in kinds)


def test_ablate_cli_passes_env_options_and_refuses_a_bad_one(tmp_path, capsys) -> None:
    out = tmp_path / "ablation.md"
    assert main(["ablate", "fight5", "--deals", "1", "--env-opt", "num_bouts=1", "--env-opt", "target_score=None",
                 "--out", str(out)]) == 0
    assert "--env-opt num_bouts=1 --env-opt target_score=None" in out.read_text()
    capsys.readouterr()
    with pytest.raises(SystemExit) as bad:  # refused before any game is played, naming the option
        main(["ablate", "fight5", "--deals", "1", "--env-opt", "num_bouts=-3"])
    assert bad.value.code != 0
    assert "num_bouts" in capsys.readouterr().err + str(bad.value)
    assert main(["ablate", "fight5", "--deals", "1", "--env-opt", "no-equals-sign"]) != 0
    assert "is not key=value" in capsys.readouterr().err
