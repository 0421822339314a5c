"""Crashes while a run writes its files, then resume: atomic writes keep every file whole, and
resume reports and skips a damaged newest checkpoint (files cut by an older fight-envs, a full
disk, a copy interrupted), falling back to the one before."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from fight_envs.core.atomic import atomic_directory, atomic_write, existing_directory
from fight_envs.core.errors import ConfigError
from fight_envs.train.callbacks import list_checkpoints
from fight_envs.train.config import load_config
from fight_envs.train.selfplay import train_main

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "configs" / "fight5_selfplay_tiny.yaml"
FAST = ["eval.games=0", "opponents.snapshot_every=128"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny finished run: checkpoints at 128 and 256 steps, pool, history, summary."""
    runs = tmp_path_factory.mktemp("runs")
    return train_main(load_config(TINY, [f"runs_dir={runs}", "eval.games=2", "eval.every=128"]))


@pytest.fixture()
def run(trained: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "tiny"
    shutil.copytree(trained, copy)
    return copy


def resume(run: Path, total: int = 384) -> Path:
    return train_main(load_config(None, [f"resume={run}", f"total_timesteps={total}", *FAST]))


def newest(run: Path) -> Path:
    return list_checkpoints(run / "checkpoints")[-1][1]


# ----------------------------------------------------------------------------- the atomic helpers
def _child(code: str) -> int:
    """Run ``code`` in a fresh interpreter (it kills itself mid-write); returns its exit status."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, timeout=120).returncode


def test_a_kill_mid_write_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    atomic_write(target, '{"old": true}')
    status = _child(f"""
        import os, signal
        from fight_envs.core.atomic import atomic_path
        with atomic_path({str(target)!r}) as tmp:
            with open(tmp, "w") as f:
                f.write('{{"new": tr')
                f.flush()
                os.kill(os.getpid(), signal.SIGKILL)
    """)
    assert status == -signal.SIGKILL
    assert json.loads(target.read_text()) == {"old": True}
    assert [p.name for p in tmp_path.iterdir() if p.name == "state.json"] == ["state.json"]


def test_an_interrupted_directory_swap_leaves_a_complete_copy(tmp_path: Path) -> None:
    target = tmp_path / "algo"
    with atomic_directory(target) as tmp:
        (tmp / "a.txt").write_text("v1")
    status = _child(f"""
        import os, signal
        from pathlib import Path
        from fight_envs.core.atomic import atomic_directory
        with atomic_directory({str(target)!r}) as tmp:
            (Path(tmp) / "a.txt").write_text("v2-half")
            os.kill(os.getpid(), signal.SIGKILL)
    """)
    assert status == -signal.SIGKILL
    assert (existing_directory(target) / "a.txt").read_text() == "v1"
    with atomic_directory(target) as tmp:
        (tmp / "a.txt").write_text("v3")
    assert (existing_directory(target) / "a.txt").read_text() == "v3"
    assert not (tmp_path / "algo.old").exists()


def test_a_kill_during_a_checkpoint_save_then_resume(run: Path, tmp_path: Path) -> None:
    """A training process is killed while writing step_384's zip: that checkpoint never appears
    half-written, and the run resumes from step_256."""
    status = _child(f"""
        import os, signal
        import fight_envs.agents.checkpoint as ck
        real = ck.atomic_write

        def dying_write(path, data, *args, **kwargs):
            if "step_0000000384" in str(path) and str(path).endswith(".zip"):
                from fight_envs.core.atomic import atomic_path
                with atomic_path(path) as tmp:
                    with open(tmp, "wb") as f:
                        f.write(data[: len(data) // 2])
                        f.flush()
                        os.kill(os.getpid(), signal.SIGKILL)
            return real(path, data, *args, **kwargs)

        ck.atomic_write = dying_write
        from fight_envs.train.config import load_config
        from fight_envs.train.selfplay import train_main
        train_main(load_config(None, ["resume={run}", "total_timesteps=512", "checkpoint_every=128",
                                      "eval.games=0", "opponents.snapshot_every=128"]))
    """)
    assert status == -signal.SIGKILL
    assert [s for s, _ in list_checkpoints(run / "checkpoints")] == [128, 256]
    assert not (run / "checkpoints" / "step_0000000384.zip").exists()
    assert resume(run, 512) == run
    assert json.loads((run / "final.json").read_text())["num_timesteps"] == 512


# ----------------------------------------------------------------------------- damaged files, then resume
@pytest.mark.parametrize("cut", ["empty", "half", "garbage"])
def test_resume_skips_a_damaged_newest_checkpoint(run: Path, cut: str, capsys: pytest.CaptureFixture[str]) -> None:
    bad = newest(run)
    data = bad.read_bytes()
    bad.write_bytes({"empty": b"", "half": data[: len(data) // 2], "garbage": os.urandom(len(data))}[cut])
    assert resume(run) == run
    out = capsys.readouterr().out
    assert f"skipping checkpoint {bad.name}" in out, out
    assert "resuming from step_0000000128.zip" in out, out
    assert json.loads((run / "final.json").read_text())["num_timesteps"] == 384
    history = [json.loads(line) for line in (run / "eval_history.jsonl").read_text().splitlines()]
    assert all(row["step"] <= 128 for row in history), "evaluations after the checkpoint resumed are dropped"


def test_resume_skips_a_checkpoint_without_its_sidecar(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    newest(run).with_suffix(".json").unlink()
    resume(run)
    assert "skipping checkpoint step_0000000256.zip" in capsys.readouterr().out


def test_resume_refuses_when_no_checkpoint_is_readable(run: Path) -> None:
    for _, path in list_checkpoints(run / "checkpoints"):
        path.write_bytes(b"")
    config_before = (run / "config.yaml").read_text()
    with pytest.raises(ConfigError, match="no readable checkpoint; skipped step_0000000256.zip, step_0000000128.zip"):
        resume(run)
    assert (run / "config.yaml").read_text() == config_before


def test_a_cut_pool_state_and_history_are_reported_and_resume_goes_on(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = run / "pool" / "state.json"
    state.write_text(state.read_text()[:25])
    history = run / "eval_history.jsonl"
    history.write_text(history.read_text() + '{"step": 300, "oppo')
    assert resume(run) == run
    out = capsys.readouterr().out
    assert "state.json is unreadable" in out and "rebuilding the pool's snapshots" in out, out
    assert "skipping a line that is not an evaluation row" in out, out
    json.loads(state.read_text())  # rewritten whole


def test_a_config_saved_before_a_key_was_added_resumes(run: Path) -> None:
    """A run saved before ``pin_workers`` or ``ppo.critic`` existed resumes with its default; any other missing key
    is damage."""
    config = run / "config.yaml"
    data = yaml.safe_load(config.read_text())
    data.pop("pin_workers")
    data["ppo"].pop("critic")
    config.write_text(yaml.safe_dump(data))
    resumed = load_config(None, [f"resume={run}"])
    assert resumed.pin_workers == "auto" and resumed.ppo.critic == "shared"
    data.pop("torch_threads")
    config.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match="config.yaml lacks torch_threads.*damaged"):
        load_config(None, [f"resume={run}"])


def test_a_cut_config_does_not_resume_with_defaults(run: Path) -> None:
    config = run / "config.yaml"
    text = config.read_text()
    lines = text.splitlines(keepends=True)
    config.write_text("".join(lines[: len(lines) // 3]))  # cut at a line's end: valid YAML, keys missing
    with pytest.raises(ConfigError, match="config.yaml lacks .*damaged"):
        load_config(None, [f"resume={run}"])
    # cut anywhere (here within a line, wherever a third of the text ends: the run's path is in it): refused too
    config.write_text(text[: len(text) // 3])
    with pytest.raises(ConfigError, match=r"config.yaml (lacks .*damaged|is not valid YAML)"):
        load_config(None, [f"resume={run}"])


def test_every_file_of_a_run_is_whole_after_a_run(trained: Path) -> None:
    """No temporary file is left, and every JSON file parses (written through atomic_write)."""
    assert not [p for p in trained.rglob("*.tmp")]
    for path in [*trained.rglob("*.json"), trained / "eval_history.jsonl"]:
        for line in ([path.read_text()] if path.suffix == ".json" else path.read_text().splitlines()):
            json.loads(line)
