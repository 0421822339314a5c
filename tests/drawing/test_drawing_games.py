"""Pictures of every game: ``render_mode="rgb_array"`` frames and SVG, per game.

The documented frame shape and dtype; not a constant image; a new image after the state
changes; the same image for two states that differ only in what the viewer cannot see (and a
different one for the seat that can); every state of a whole random game draws.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from drawing_games import ENVS, hidden_variant, play_random, raw

from fight_envs.core.errors import ConfigError
from fight_envs.drawing import FRAME_SHAPE, draw, rgb_array, svg


@pytest.mark.parametrize("name", ENVS)
def test_rgb_array_frame_shape_dtype_and_content(name: str) -> None:
    env = raw(name, render_mode="rgb_array", viewer=0)
    env.reset(seed=3)
    frame = env.render()
    assert isinstance(frame, np.ndarray)
    assert frame.shape == FRAME_SHAPE == (600, 960, 3)
    assert frame.dtype == np.uint8
    colours = np.unique(frame[..., 0].astype(np.int64) << 16 | frame[..., 1].astype(np.int64) << 8 | frame[..., 2])
    assert len(colours) > 50, "a card table has many colours, not a constant image"
    assert frame.std() > 10


@pytest.mark.parametrize("name", ENVS)
def test_a_step_changes_the_picture(name: str) -> None:
    env = raw(name, render_mode="rgb_array", viewer=0)
    env.reset(seed=4)
    before = env.render()
    assert play_random(env, 12, seed=4) == 12
    after = env.render()
    assert after.shape == before.shape
    assert np.any(after != before)


@pytest.mark.parametrize("name", ENVS)
def test_what_the_viewer_cannot_see_is_not_drawn(name: str) -> None:
    env = raw(name, viewer=0)
    # mid-game, where hands hold hidden cards: the same random game replayed to half its length
    # (at most 25 steps), so a game that ends early does not leave nothing hidden to compare
    env.reset(seed=5)
    length = play_random(env, 10_000, seed=5)
    env.reset(seed=5)
    play_random(env, min(25, length // 2), seed=5)
    game, twin = env.game, hidden_variant(name, env.game, other=1)
    # seat 0 and the spectator cannot tell the two games apart, so neither can their pictures
    for viewer in (0, None):
        assert svg(game, viewer) == svg(twin, viewer)
    assert np.array_equal(rgb_array(game, 0), rgb_array(twin, 0))
    # seat 1 sees its own hand, which differs: the check above could fail
    assert svg(game, 1) != svg(twin, 1)


@pytest.mark.parametrize("name", ENVS)
def test_only_the_viewers_hand_is_drawn(name: str) -> None:
    env = raw(name)
    env.reset(seed=6)
    play_random(env, 3, seed=6)
    spectator, seat0, seat1 = (draw(env.game, v).to_svg() for v in (None, 0, 1))
    # the hand panel's title is "P<seat> hand (<count>)"
    assert "P0 hand (" in seat0 and "P1 hand (" not in seat0
    assert "P1 hand (" in seat1 and "P0 hand (" not in seat1
    assert "hand (" not in spectator


@pytest.mark.parametrize("name", ENVS)
def test_every_state_of_a_game_draws_as_svg(name: str) -> None:
    env = raw(name, viewer=1)
    env.reset(seed=7)
    steps = 0
    while env.agents and steps < 400:
        for viewer in (None, 0, 1):
            root = ET.fromstring(draw(env.game, viewer).to_svg())
            assert root.tag == "{http://www.w3.org/2000/svg}svg"
            assert root.get("width") == str(FRAME_SHAPE[1]) and root.get("height") == str(FRAME_SHAPE[0])
        steps += play_random(env, 1, seed=steps)
        if steps == 0:
            break
    # the last state drawn as a frame too (game over, or the step cap)
    assert draw(env.game, 1).to_array().shape == FRAME_SHAPE


@pytest.mark.parametrize("name", ENVS)
def test_render_modes_are_declared_and_checked(name: str) -> None:
    env = raw(name)
    assert "rgb_array" in env.metadata["render_modes"]
    with pytest.raises(ConfigError, match="render_mode"):
        raw(name, render_mode="pixels")


def test_fight5_parallel_env_renders_frames_too() -> None:
    from fight_envs import fight5_v0

    env = fight5_v0.parallel_env(render_mode="rgb_array", viewer=1, num_players=3)
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == FRAME_SHAPE and frame.dtype == np.uint8


def test_a_canvas_shows_itself_in_notebooks() -> None:
    env = raw("fight5_v0")
    env.reset(seed=0)
    picture = draw(env.game, 0)
    assert picture._repr_svg_() == picture.to_svg()


def test_an_unknown_engine_is_refused_by_name() -> None:
    with pytest.raises(TypeError, match="no picture for object"):
        draw(object())


def test_pillow_is_imported_only_when_a_picture_is_drawn() -> None:
    import subprocess
    import sys

    code = ("import sys\nfrom fight_envs.registry import make\n"
            "env = make('brawl_v0', api='raw', render_mode='rgb_array')\nenv.reset(seed=0)\n"
            "before = 'PIL' in sys.modules\nenv.render()\nprint(before, 'PIL' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True"]
