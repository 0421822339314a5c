"""Records as pictures: every state rebuilt from a record, GIF, SVG files, the HTML page."""

from __future__ import annotations

import base64
import gzip
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from drawing_games import ENVS, finished_record, play_random, raw

from fight_envs.core.errors import RecordError
from fight_envs.drawing import draw
from fight_envs.drawing.replay import load_record, replay_frames, write_gif, write_html, write_svgs


@pytest.fixture(scope="module")
def records() -> dict[str, dict]:
    return {name: finished_record(name, seed=11) for name in ENVS}


@pytest.mark.parametrize("name", ENVS)
def test_frames_rebuild_every_state_of_the_record(name: str, records: dict) -> None:
    record = records[name]
    frames = replay_frames(record, viewers=[0])
    assert len(frames) == len(record["actions"]) + 1
    assert [f.index for f in frames] == list(range(len(frames)))
    assert [f.actor for f in frames[:-1]] == [int(a[0]) for a in record["actions"]]
    assert frames[-1].actor is None
    # the replayed states are the played ones: the final picture is the env's own final picture
    env = raw(name)
    env.reset(seed=11)
    play_random(env, 10**6, seed=11)
    assert frames[-1].pictures[0].to_svg() == draw(env.game, 0).to_svg()


def test_a_partial_game_replays_too() -> None:
    env = raw("fight5_v0")
    env.reset(seed=2)
    play_random(env, 7, seed=2)
    frames = replay_frames(env.game_record(), viewers=[None, 1])
    assert len(frames) == 8
    assert frames[-1].pictures[1].to_svg() == draw(env.game, 1).to_svg()


def test_gif_has_one_image_per_frame(records: dict, tmp_path: Path) -> None:
    from PIL import Image

    frames = replay_frames(records["brawl_v0"], viewers=[0])[:23]  # a few frames keep the test fast
    path = write_gif(frames, tmp_path / "game.gif", viewer=0, fps=4, scale=0.5)
    with Image.open(path) as gif:
        assert gif.format == "GIF"
        assert gif.n_frames == 23
        assert gif.size == (480, 300)
        assert gif.info["duration"] == 250
    # every 5th frame (and the last)
    every = write_gif(frames, tmp_path / "every.gif", viewer=0, every=5, scale=0.25)
    with Image.open(every) as gif:
        assert gif.n_frames == len(frames[::5]) + (0 if (len(frames) - 1) % 5 == 0 else 1)


def test_svg_folder_has_one_valid_file_per_frame(records: dict, tmp_path: Path) -> None:
    frames = replay_frames(records["fifth_earth_v0"], viewers=[None])
    paths = write_svgs(frames, tmp_path / "svg")
    assert len(paths) == len(frames)
    assert paths[0].name == "frame_0000.svg"
    for p in (paths[0], paths[-1]):
        assert ET.parse(p).getroot().tag == "{http://www.w3.org/2000/svg}svg"


def test_frames_are_drawn_only_for_the_viewers_asked(records: dict) -> None:
    frames = replay_frames(records["fight5_v0"], viewers=[1])
    with pytest.raises(RecordError, match="not 0"):
        write_svgs(frames[:1], "/nonexistent-never-written", viewer=0)
    with pytest.raises(RecordError, match="seats in 0..1"):
        replay_frames(records["fight5_v0"], viewers=[2])


def test_html_page_is_self_contained(records: dict, tmp_path: Path) -> None:
    frames = replay_frames(records["fight_klub_v0"])
    page = write_html(frames, tmp_path / "game.html", title="Fight Klub <replay>").read_text()
    assert page.startswith("<!DOCTYPE html>")
    assert "Fight Klub &lt;replay&gt;" in page
    # nothing is fetched: no src/href attributes, no URLs but the SVG namespace, a CSP of 'none'
    assert not re.search(r"\b(src|href)\s*=", page)
    urls = set(re.findall(r"https?://[^\s\"'\\<>]+", page))
    assert urls <= {"http://www.w3.org/2000/svg"}
    assert "default-src 'none'" in page
    data = json.loads(re.search(r"const DATA = (\{.*\});\n", page).group(1).replace("<\\/", "</"))
    svgs = json.loads(gzip.decompress(base64.b64decode(data["svgs_gz"])))
    assert all(svg.startswith("<svg") for svg in svgs)
    assert data["viewers"] == ["spectator", "P0", "P1"]
    assert len(data["index"]) == len(frames) and all(len(row) == 3 for row in data["index"])
    # identical pictures are stored once
    assert len(svgs) < 3 * len(frames)
    assert max(max(row) for row in data["index"]) == len(svgs) - 1
    assert svgs[data["index"][-1][1]] == frames[-1].pictures[0].to_svg()


def test_bad_records_are_refused_by_name(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"game": "chess"}')
    with pytest.raises(RecordError, match="'game' must be one of"):
        load_record(bad)
    with pytest.raises(RecordError, match="cannot read a game record"):
        load_record(tmp_path / "missing.json")
    with pytest.raises(RecordError):
        replay_frames({"game": "fight5", "format": "something else"})
