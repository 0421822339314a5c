"""``init_from``: a new run starts from a trained model's weights (a warm start), checked before anything is written."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from fight_envs.agents.checkpoint import load_policy
from fight_envs.core.errors import ConfigError
from fight_envs.train.config import load_config
from fight_envs.train.selfplay import train_main

TINY = Path(__file__).resolve().parents[2] / "configs" / "fight5_selfplay_tiny.yaml"
QUICK = ["total_timesteps=64", "eval.games=0", "checkpoint_every=64"]


def _weights(path: Path) -> dict[str, torch.Tensor]:
    return load_policy(path)[0].state_dict()


def _largest_gap(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> float:
    assert a.keys() == b.keys()
    return max(float((a[k] - b[k]).abs().max()) for k in a)


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny trained Fight 5 model (its final.zip)."""
    runs = tmp_path_factory.mktemp("source")
    return train_main(load_config(TINY, [f"runs_dir={runs}", "run_name=a", *QUICK])) / "final.zip"


def test_a_warm_start_begins_at_the_models_weights(tmp_path: Path, source: Path) -> None:
    # a learning rate too small to move any weight: the new run's model is the source's, a fresh run's is not
    still = ["ppo.learning_rate=1e-12", "ppo.lr_schedule=constant"]
    warm = train_main(load_config(TINY, [f"runs_dir={tmp_path}", "run_name=warm", f"init_from={source}", "seed=5",
                                         *QUICK, *still]))
    fresh = train_main(load_config(TINY, [f"runs_dir={tmp_path}", "run_name=fresh", "seed=5", *QUICK, *still]))
    assert _largest_gap(_weights(warm / "final.zip"), _weights(source)) < 1e-6
    assert _largest_gap(_weights(fresh / "final.zip"), _weights(source)) > 1e-2
    # the counter starts afresh, and the config saved with the run names the model it started from
    assert (warm / "checkpoints" / "step_0000000064.zip").is_file()
    assert load_config(warm / "config.yaml").init_from == str(source)

    # resuming the warm run carries on from its own checkpoint (init_from, saved in its config, is not reloaded)
    resumed = train_main(load_config(TINY, [f"resume={warm}", "total_timesteps=128"]))
    assert (resumed / "checkpoints" / "step_0000000128.zip").is_file()


@pytest.mark.parametrize(("overrides", "message"), [
    (["ppo.net_arch=[8]"], r"net_arch \[32, 32\], the config's \[8\]; set ppo.net_arch=\[32,32\]"),
    (["ppo.activation=relu"], r"activation 'Tanh'.*set ppo.activation=tanh"),
    (["ppo.features=flat"], r"features 'fight5_slot', the config's 'flat'; set ppo.features=fight5_slot"),
])
def test_a_model_that_does_not_fit_is_refused_before_the_run_directory_exists(
        tmp_path: Path, source: Path, overrides: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        train_main(load_config(TINY, [f"runs_dir={tmp_path}", "run_name=x", f"init_from={source}", *QUICK, *overrides]))
    assert not (tmp_path / "x").exists()


def test_init_from_names_a_file_or_a_shipped_model(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"init_from='nope.zip': no such file, and no shipped model 'nope.zip'; shipped: .*fight5_3p.zip"):
        train_main(load_config(TINY, [f"runs_dir={tmp_path}", "run_name=x", "init_from=nope.zip", *QUICK]))
    # a shipped model by name: Fight Klub's, refused for this Fight 5 run by its game
    with pytest.raises(ConfigError, match=r"init_from='fight_klub_2p.zip' was trained on 'fight_klub_v0'; the run's env.name is 'fight5_v0'"):
        train_main(load_config(TINY, [f"runs_dir={tmp_path}", "run_name=x", "init_from=fight_klub_2p.zip", *QUICK]))
    with pytest.raises(ConfigError, match="init_from must be a checkpoint path"):
        load_config(TINY, ["init_from=''"]).validate()
    assert not (tmp_path / "x").exists()


def test_a_pickled_model_needs_the_trust_flag(tmp_path: Path, source: Path) -> None:
    from sb3_contrib import MaskablePPO

    from fight_envs.agents.checkpoint import metadata_path, read_metadata, write_metadata
    from fight_envs.wrappers import SingleAgentEnv

    pickled = tmp_path / "pickled.zip"
    MaskablePPO("MlpPolicy", SingleAgentEnv(seed=0, num_bouts=1), policy_kwargs={"net_arch": [32, 32]}, n_steps=16).save(pickled)
    write_metadata(metadata_path(pickled), read_metadata(source))
    with pytest.raises(ConfigError, match="trust"):
        train_main(load_config(TINY, [f"runs_dir={tmp_path}", "run_name=x", f"init_from={pickled}", *QUICK]))
    assert not (tmp_path / "x").exists()


def test_a_warm_start_with_pretrain_mode_dagger_labels_its_own_games(tmp_path: Path, source: Path) -> None:
    """``init_from`` skips behaviour cloning (the model is trained), but DAgger is the warm start's own games
    labelled by the teacher: it runs, its record is written, and the kinds left out keep the model's play."""
    import json

    dagger = ["pretrain.mode=dagger", "pretrain.games=4", "pretrain.epochs=1", "pretrain.teacher=heuristic",
              "pretrain.opponents={random: 1.0}", "pretrain.kinds=[middle]"]
    run = train_main(load_config(TINY, [f"runs_dir={tmp_path}", "run_name=d", f"init_from={source}", *QUICK, *dagger]))
    result = json.loads((run / "pretrain.json").read_text())
    # (how much of the rest stays is checked on a trained student in test_imitation.py; this one is barely trained)
    assert 0 < result["labelled"] < result["decisions"] and 0.0 <= result["unlabelled_unchanged"] <= 1.0
    # behaviour cloning after a warm start is still skipped: no pretrain.json
    clone = train_main(load_config(TINY, [f"runs_dir={tmp_path}", "run_name=c", f"init_from={source}", *QUICK,
                                          "pretrain.games=4", "pretrain.epochs=1"]))
    assert not (clone / "pretrain.json").exists()
