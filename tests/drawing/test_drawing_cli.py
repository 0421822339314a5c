"""``fight-envs replay`` and the record savers ``play --save-record`` and ``eval --save-records``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fight_envs.train.cli import main


def test_eval_saves_every_game_and_replay_draws_one(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    folder = tmp_path / "records"
    assert main(["eval", "heuristic", "random", "--env", "fight5_v0", "--deals", "2", "--save-records",
                 str(folder)]) == 0
    records = sorted(folder.glob("game_*.json"))
    assert [p.name for p in records] == [f"game_{k:05d}.json" for k in range(4)]  # 2 deals x 2 seatings
    record = json.loads(records[0].read_text())
    assert record["game"] == "fight5" and record["finished"] is True
    capsys.readouterr()
    gif, html, svgs = tmp_path / "g.gif", tmp_path / "g.html", tmp_path / "svg"
    assert main(["replay", str(records[0]), "--gif", str(gif), "--svg", str(svgs), "--html", str(html),
                 "--seat", "1", "--every", "10"]) == 0
    out = capsys.readouterr().out
    steps = len(record["actions"]) + 1
    assert f"wrote {len(list(svgs.glob('*.svg')))} SVG files" in out and len(list(svgs.glob("*.svg"))) == steps
    assert "as P1 saw the game" in out
    assert gif.stat().st_size > 0 and html.read_text().startswith("<!DOCTYPE html>")
    from PIL import Image

    with Image.open(gif) as im:
        assert im.n_frames == len(range(0, steps, 10)) + (0 if (steps - 1) % 10 == 0 else 1)


def test_play_saves_the_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture) -> None:
    def first_choice(prompt: str) -> str:  # the human plays the first card it is offered
        return re.search(r"\(([^,;]+)", prompt).group(1).strip()

    monkeypatch.setattr("builtins.input", first_choice)
    path = tmp_path / "played.json"
    assert main(["play", "--env", "fight5_v0", "--opponents", "random", "--seed", "3",
                 "--save-record", str(path)]) == 0
    assert f"record: {path}" in capsys.readouterr().out
    record = json.loads(path.read_text())
    assert record["game"] == "fight5" and record["finished"] is True
    assert main(["replay", str(path), "--svg", str(tmp_path / "svg")]) == 0
    # With no output named, the viewer is written beside the record.
    assert main(["replay", str(path)]) == 0
    assert "<html" in (tmp_path / "played.html").read_text().lower()
    assert len(list((tmp_path / "svg").glob("*.svg"))) == len(record["actions"]) + 1


def test_play_saves_the_game_so_far_when_the_human_quits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    answers = iter(["2", "3", "q"])
    offered: list[str] = []

    def answer(prompt: str) -> str:
        offered.append(re.search(r"\(([^,;]+)", prompt).group(1).strip())
        reply = next(answers)
        return offered[-1] if reply != "q" else reply

    monkeypatch.setattr("builtins.input", answer)
    path = tmp_path / "quit.json"
    assert main(["play", "--env", "fight5_v0", "--opponents", "random", "--seed", "3",
                 "--save-record", str(path)]) == 0
    record = json.loads(path.read_text())
    assert record["finished"] is False
    assert [a for a in record["actions"] if a[0] == 0][:2] == [[0, offered[0]], [0, offered[1]]]
    assert main(["replay", str(path), "--svg", str(tmp_path / "svg")]) == 0


def test_replay_errors_are_one_clear_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(SystemExit, match="fight-envs replay: .* is not a game record"):
        main(["replay", str(bad)])
    assert not (tmp_path / "bad.html").exists()
    with pytest.raises(SystemExit, match="fight-envs replay: .* is not a game record"):
        main(["replay", str(bad), "--gif", str(tmp_path / "x.gif")])
    with pytest.raises(SystemExit, match="fight-envs replay: cannot read"):
        main(["replay", str(tmp_path / "missing.json"), "--html", str(tmp_path / "x.html")])
