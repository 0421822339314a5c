"""Gymnasium's ``RecordVideo`` on the single-agent views: a real MP4 of the learner's game.

RecordVideo writes through moviepy (in the dev extra; it brings its own ffmpeg binary).
"""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.wrappers import RecordVideo

import fight_envs  # noqa: F401  (registers the Gymnasium ids)
from fight_envs.wrappers.single_agent import SingleAgentEnv

pytest.importorskip("moviepy", reason="RecordVideo needs moviepy (pip install -e '.[dev]')")


def _play(env: gym.Env, steps: int, seed: int) -> int:
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for k in range(steps):
        mask = env.unwrapped.action_masks()
        _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            return k + 1
    return steps


def _frames(path: Path) -> tuple[int, tuple[int, int]]:
    from moviepy import VideoFileClip

    with VideoFileClip(str(path)) as clip:
        return sum(1 for _ in clip.iter_frames()), clip.size


def test_record_video_on_the_registered_fight5_view(tmp_path: Path) -> None:
    env = gym.make("fight_envs/Fight5-v0", render_mode="rgb_array", learner_seat=0, viewer=0, num_bouts=1)
    env = RecordVideo(env, str(tmp_path / "videos"), episode_trigger=lambda episode: True, disable_logger=True)
    steps = _play(env, 1000, seed=0)
    env.close()
    videos = sorted((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1
    frames, size = _frames(videos[0])
    assert tuple(size) == (960, 600)
    assert frames == steps + 1  # the reset frame and one per step


@pytest.mark.parametrize("name", ["brawl_v0", "fifth_earth_v0", "fight_klub_v0"])
def test_record_video_on_every_single_agent_view(name: str, tmp_path: Path) -> None:
    env = SingleAgentEnv(name, learner_seat=1, render_mode="rgb_array", viewer=1)
    assert env.render_mode == "rgb_array"
    env = RecordVideo(env, str(tmp_path / "videos"), episode_trigger=lambda episode: True, video_length=6,
                      disable_logger=True)
    _play(env, 8, seed=1)
    env.close()
    videos = sorted((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000
    frames, _ = _frames(videos[0])
    assert frames == 7  # RecordVideo stops once it holds more than video_length frames


def test_single_agent_frames_show_the_learners_view() -> None:
    from fight_envs.drawing import rgb_array

    env = gym.make("fight_envs/Fight5-v0", render_mode="rgb_array", num_players=3)
    for seed in (0, 1, 2):
        env.reset(seed=seed)
        inner = env.unwrapped
        assert np.array_equal(env.render(), rgb_array(inner.aec.unwrapped.game, inner.learner_seat))
    # a viewer given explicitly wins
    fixed = SingleAgentEnv("fight5_v0", render_mode="rgb_array", viewer=2, learner_seat=0, num_players=3)
    fixed.reset(seed=0)
    assert np.array_equal(fixed.render(), rgb_array(fixed.aec.unwrapped.game, 2))
