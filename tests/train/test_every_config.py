"""Every shipped training config loads, validates, and builds the env it names for each of its
player counts, so a config cannot drift from its game's options unnoticed."""

from __future__ import annotations

from pathlib import Path

import pytest

from fight_envs.registry import make
from fight_envs.train.config import load_config

CONFIGS = sorted((Path(__file__).resolve().parents[2] / "configs").glob("*.yaml"))
RLLIB_PREFIX = "rllib_"
"""Configs of the RLlib trainer (``fight-envs train-rllib``, ``fight_envs.train.rllib.config``): the same
``env`` section, checked the same way, loaded by their own loader (it needs no Ray)."""


def load_any(path: Path):
    if path.stem.startswith(RLLIB_PREFIX):
        from fight_envs.train.rllib.config import load_rllib_config

        return load_rllib_config(path)
    return load_config(path).validate()


def test_configs_exist_for_every_game():
    names = {p.stem for p in CONFIGS}
    for game in ("fight5", "brawl", "fifth_earth", "fight_klub"):
        assert f"{game}_selfplay" in names


PER_COUNT = {"fight5": {2: "fight5_selfplay_batched", 3: "fight5_selfplay_3p", 5: "fight5_selfplay_5p"},
             **{g: {n: f"{g}_selfplay_{n}p" for n in (2, 3, 5)} for g in ("brawl", "fifth_earth")},
             "fight_klub": {2: "fight_klub_selfplay_2p"}}


@pytest.mark.parametrize("game", list(PER_COUNT))
def test_a_recipe_per_game_and_player_count(game: str) -> None:
    """Issue 16: every game at 2, 3 and 5 players (Fight Klub: 2) has its recipe, on an in-process vec env."""
    for n, stem in PER_COUNT[game].items():
        config = load_config(CONFIGS[0].parent / f"{stem}.yaml").validate()
        assert config.env.num_players == [n] and config.eval.num_players == n, stem
        assert config.vec_env == ("batched" if game == "fight5" else "multi"), stem


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_config_builds_its_envs(path: Path):
    config = load_any(path)
    for n in config.env.num_players:
        env = make(config.env.name, api="raw", num_players=n, **config.env.env_options())
        env.reset(seed=0)
        assert len(env.possible_agents) == n


def test_game_specific_options_pass_through_and_override():
    config = load_config(CONFIGS[0].parent / "brawl_selfplay.yaml", ["env.options.max_steps=200"])
    assert config.env.options["max_steps"] == 200 and isinstance(config.env.options["max_steps"], int)
    assert "num_bouts" not in config.env.env_options()  # Fight 5's options are not passed to Brawl


def test_unknown_game_option_fails_with_the_allowed_list():
    config = load_config(CONFIGS[0].parent / "fight5_selfplay.yaml", ["env.options.no_such_option=1"])
    with pytest.raises(ValueError, match="no_such_option"):
        make(config.env.name, api="raw", num_players=2, **config.env.env_options())
