"""Training config: YAML loading, command-line overrides and their errors, resume base."""

from __future__ import annotations

from pathlib import Path

import pytest

from fight_envs.core.errors import ConfigError
from fight_envs.train.config import Config, load_config, save_config

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_YAML = ROOT / "configs" / "fight5_selfplay.yaml"
TINY_YAML = ROOT / "configs" / "fight5_selfplay_tiny.yaml"


def test_default_yaml_spells_out_the_dataclass_defaults() -> None:
    # The YAML is what users read and copy; the dataclass is what runs without a file.
    assert load_config(DEFAULT_YAML) == Config().validate()


def test_tiny_config_is_tiny() -> None:
    config = load_config(TINY_YAML)
    assert config.total_timesteps <= 1000 and config.torch_threads == 1 and config.vec_env == "dummy"


def test_overrides_set_top_level_section_and_mapping_keys() -> None:
    config = load_config(None, [
        "total_timesteps=2e5", "seed=7", "ppo.learning_rate=1e-4", "ppo.net_arch=[64, 32]",
        "env.num_players=[2,3]", "opponents.weights_end.self=0.9", "eval.baselines=[random]",
        "ppo.target_kl=0.02", "env.target_score=null", "opponents.prioritize=false", "run_name=abc",
    ])
    assert config.total_timesteps == 200_000 and config.seed == 7
    assert config.ppo.learning_rate == pytest.approx(1e-4) and config.ppo.net_arch == [64, 32]
    assert config.env.num_players == [2, 3]
    assert config.opponents.weights_end["self"] == 0.9
    assert config.eval.baselines == ["random"]
    assert config.ppo.target_kl == 0.02 and config.env.target_score is None
    assert config.opponents.prioritize is False and config.run_name == "abc"


def test_a_single_player_count_becomes_a_list() -> None:
    assert load_config(None, ["env.num_players=3"]).env.num_players == [3]


def test_overrides_apply_on_top_of_the_yaml() -> None:
    config = load_config(TINY_YAML, ["total_timesteps=300"])
    assert config.total_timesteps == 300 and config.ppo.n_steps == load_config(TINY_YAML).ppo.n_steps


@pytest.mark.parametrize(
    "override, message",
    [
        ("learning_rate=0.1", r"unknown config key 'learning_rate'; allowed: run_name, runs_dir"),
        ("ppo.lr=0.1", r"unknown config key 'ppo.lr'; allowed: ppo.learning_rate"),
        ("total_timesteps", r"must look like key=value"),
        ("=3", r"no key before"),
        ("total_timesteps=lots", r"total_timesteps must be an integer"),
        ("total_timesteps=1.5", r"total_timesteps must be an integer"),
        ("ppo.gamma=high", r"ppo.gamma must be a number"),
        ("opponents.prioritize=maybe", r"opponents.prioritize must be true or false"),
        ("vec_env=threads", r"vec_env must be one of auto, dummy, subproc"),
        ("ppo.activation=gelu", r"ppo.activation must be one of tanh, relu"),
        ("n_envs=0", r"n_envs must be >= 1"),
        ("ppo=3", r"ppo is a section"),
        ("seed.x=3", r"seed is a value, not a section"),
        ("opponents.weights_start={self: 1.0}", r"positive weight on at least one baseline"),
        ("opponents.weights_end.random=-1", r"weights must be >= 0"),
        ("env.num_players=[]", r"at least one player count"),
    ],
)
def test_bad_overrides_raise_clear_errors(override: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(None, [override])


def test_bad_yaml_files_raise(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("ppo:\n  epochs: 3\n")
    with pytest.raises(ConfigError, match=r"unknown config key 'ppo.epochs'"):
        load_config(bad)
    bad.write_text("- 1\n- 2\n")
    with pytest.raises(ConfigError, match="must hold a mapping"):
        load_config(bad)


def test_saved_config_round_trips(tmp_path: Path) -> None:
    config = load_config(None, ["ppo.net_arch=[8]", "env.num_players=[2,5]", "opponents.weights_end={random: 1}"])
    save_config(config, tmp_path / "config.yaml")
    assert load_config(tmp_path / "config.yaml") == config


def test_resume_uses_the_runs_saved_config_as_base(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    save_config(load_config(None, ["total_timesteps=1000", "ppo.n_steps=32"]), run / "config.yaml")
    config = load_config(TINY_YAML, [f"resume={run}", "total_timesteps=2000"])
    assert config.resume == str(run)
    assert config.total_timesteps == 2000 and config.ppo.n_steps == 32  # from the run, not the tiny file
    with pytest.raises(ConfigError, match="no .*config.yaml"):
        load_config(None, [f"resume={tmp_path / 'nowhere'}"])
