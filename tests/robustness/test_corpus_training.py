"""The robustness corpus, training side: broken data-only checkpoints (cut, garbage, bad network
descriptions, NaN or misshapen weights, damaged sidecars), broken RLlib exports, and bad
training configs (every hyperparameter NaN, infinite, negative, zero or huge; run_name escaping
runs_dir; a device that is not there; thread counts; unknown baselines and env options). A bad
config must be refused before anything is written."""

from __future__ import annotations

from pathlib import Path

from . import train_cases
from .common import check


def test_broken_checkpoints_are_refused_and_run_no_code(tmp_path: Path) -> None:
    outcomes = check("checkpoint", train_cases.checkpoint_cases(tmp_path))
    assert len(outcomes) >= 60
    assert not list(tmp_path.rglob("PWNED")), "a checkpoint's pickled payload ran"


def test_broken_rllib_exports_are_refused_and_run_no_code(tmp_path: Path) -> None:
    outcomes = check("checkpoint", train_cases.rllib_cases(tmp_path))
    assert len(outcomes) >= 20
    assert not list(tmp_path.rglob("PWNED")), "an RLlib export's pickled payload ran"


def test_bad_training_configs_are_refused_before_anything_is_written(tmp_path: Path) -> None:
    outcomes = check("config", train_cases.config_cases(tmp_path))
    assert len(outcomes) >= 250


def test_bad_rllib_configs_are_refused() -> None:
    check("config", train_cases.rllib_config_cases())


def test_the_corpus_holds_at_least_500_bad_inputs(tmp_path: Path) -> None:
    """Counted from the categories this session ran (the whole directory: every one), building the rest."""
    from . import env_cases
    from .common import COUNTS

    builders = {
        "constructor": env_cases.constructor_cases, "reset": env_cases.reset_cases, "action": env_cases.action_cases,
        "cards": lambda: env_cases.card_cases(tmp_path), "record": env_cases.record_cases,
        "checkpoint": lambda: train_cases.checkpoint_cases(tmp_path / "ck") + train_cases.rllib_cases(tmp_path / "rl"),
        "config": lambda: train_cases.config_cases(tmp_path / "cf") + train_cases.rllib_config_cases(),
    }
    counts = {cat: COUNTS.get(cat) or len(build()) for cat, build in builders.items()}
    assert sum(counts.values()) >= 500, counts
    assert all(n >= 20 for n in counts.values()), counts
