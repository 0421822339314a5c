"""A loss or weights turning NaN stop a run with a clear error (and a non-zero exit on the command
line) instead of training NaN weights to the end and exiting 0."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from fight_envs.train.config import TrainingDiverged, load_config
from fight_envs.train.fast_ppo import FastMaskablePPO
from fight_envs.train.rllib.trainer import check_losses
from fight_envs.train.selfplay import train_main

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "configs" / "fight5_selfplay_tiny.yaml"


@pytest.fixture()
def poisoned_update(monkeypatch: pytest.MonkeyPatch) -> None:
    """The second PPO update leaves a NaN weight (what ppo.learning_rate=.inf did)."""
    real = FastMaskablePPO.train
    calls = []

    def train(self: FastMaskablePPO) -> None:
        real(self)
        calls.append(1)
        if len(calls) == 2:
            with torch.no_grad():
                next(self.policy.parameters()).fill_(float("nan"))

    monkeypatch.setattr(FastMaskablePPO, "train", train)


def test_nan_weights_stop_training_with_the_last_good_checkpoint_named(tmp_path: Path, poisoned_update: None) -> None:
    # Rollouts of 128 steps: the checkpoint at 256 is taken before the second update, which poisons the
    # weights; the check before the third rollout stops the run.
    with pytest.raises(TrainingDiverged, match=r"NaN or infinite .* at 256 steps; the last good checkpoint is "
                                               r"step_0000000256.zip\. Lower ppo.learning_rate"):
        train_main(load_config(TINY, [f"runs_dir={tmp_path}", "eval.games=0", "total_timesteps=512"]))
    assert not (tmp_path / "tiny" / "final.zip").exists(), "a diverged run wrote a final model"
    from fight_envs.agents.checkpoint import load_policy

    policy, _ = load_policy(tmp_path / "tiny" / "checkpoints" / "step_0000000256.zip")  # finite weights, or refused
    assert all(bool(torch.isfinite(p).all()) for p in policy.parameters())


def test_the_command_line_exits_non_zero(tmp_path: Path, poisoned_update: None,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    from fight_envs.train.cli import main

    try:
        code = main(["train", "--config", str(TINY), f"runs_dir={tmp_path}", "eval.games=0", "total_timesteps=512"])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    assert code != 0
    assert "NaN or infinite" in capsys.readouterr().err


def test_an_infinite_learning_rate_is_refused_before_training() -> None:
    from fight_envs.core.errors import ConfigError

    with pytest.raises(ConfigError, match=r"ppo.learning_rate must be a finite number in \(0, 1\]"):
        load_config(TINY, ["ppo.learning_rate=.inf"])


def test_rllib_results_with_a_nan_loss_stop_the_run() -> None:
    check_losses({"learners": {"learner": {"total_loss": 0.5, "vf_loss": 0.1}}}, 100)
    with pytest.raises(TrainingDiverged, match="total_loss of module 'learner' became nan after 4,096"):
        check_losses({"learners": {"learner": {"total_loss": float("nan")}}}, 4096)
