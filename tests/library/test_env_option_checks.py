"""The options every env takes alike (``viewer``, ``mask_in_info``) are checked alike
(``fight_envs.envs.base.check_viewer`` / ``check_flag``): numpy scalars are accepted as Python's
(what a config read through numpy, or a seat drawn by a generator, gives), and a bool is no seat."""

from __future__ import annotations

import numpy as np
import pytest

from fight_envs.core.errors import ConfigError
from fight_envs.registry import list_envs, make


def _options(env: object) -> object:
    """Where an env keeps its checked options: Fight 5 and Brawl keep them on the table their AEC and
    parallel forms share, the others on the env."""
    return getattr(env, "table", env)


GAMES = {"fight5_v0": 5, "brawl_v0": 8, "fifth_earth_v0": 6, "fight_klub_v0": 2}
"""Each env with a ``viewer`` option, and its largest player count."""


def test_every_env_with_a_viewer_is_listed() -> None:
    assert {s.name for s in list_envs() if "viewer" in s.options} == set(GAMES)


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("bad", [True, False, np.bool_(True), 1.0, "1", -1, 2, np.int64(2), [1]])
def test_a_viewer_that_is_no_seat_is_refused(name: str, bad: object) -> None:
    with pytest.raises(ConfigError, match=r"viewer must be None or a seat in 0\.\.1, got"):
        make(name, api="raw", num_players=2, viewer=bad)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_numpy_seat_is_a_viewer(name: str) -> None:
    env = make(name, api="raw", num_players=2, viewer=np.int64(1), render_mode="ansi")
    viewer = _options(env).viewer
    assert viewer == 1 and type(viewer) is int
    env.reset(seed=3)
    assert isinstance(env.render(), str)
    assert _options(make(name, api="raw", num_players=2, viewer=None)).viewer is None


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_top_seat_is_a_viewer_at_the_largest_table(name: str) -> None:
    n = GAMES[name]
    assert _options(make(name, api="raw", num_players=n, viewer=n - 1)).viewer == n - 1
    with pytest.raises(ConfigError, match=rf"viewer must be None or a seat in 0\.\.{n - 1}, got {n}"):
        make(name, api="raw", num_players=n, viewer=n)


@pytest.mark.parametrize("name", [*sorted(GAMES), "fight_klub_deckbuild_v0"])
def test_mask_in_info_takes_python_and_numpy_bools_only(name: str) -> None:
    for ok in (True, np.bool_(True)):
        assert _options(make(name, api="raw", mask_in_info=ok)).mask_in_info is True
    for bad in (1, 0, "yes", None, np.int8(1)):
        with pytest.raises(ConfigError, match="mask_in_info'? must be True or False"):
            make(name, api="raw", mask_in_info=bad)
