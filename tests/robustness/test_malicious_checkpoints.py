"""A crafted SB3 zip and a crafted RLlib directory whose pickles, once unpickled, write a marker
file. On every load path, without ``trust`` / ``--trust-checkpoint``, the load is refused with a
message saying why, and the marker never appears; with ``trust=True`` the payload does run
(which is what makes the other assertions meaningful)."""

from __future__ import annotations

import base64
import json
import pickle
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from fight_envs.agents.checkpoint import CheckpointError, checkpoint_metadata, load_policy, save_checkpoint, write_metadata

TRUST_HINT = "trust"


class Payload:
    """What an attacker pickles: unpickling calls ``Path(marker).write_text('pwned')``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # noqa: ANN204
        return (Path.write_text, (Path(self.marker), "pwned"))


def fight5_meta(**extra: object) -> dict:
    return checkpoint_metadata(game="fight5", env="fight5_v0", num_players=[2], observation_shape=(627,), num_actions=13,
                               env_options={"reward": "outcome"}, label="evil@0", **extra)


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Exit status and everything printed (the CLI returns a status or raises SystemExit)."""
    from fight_envs.train.cli import main

    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
        text = "" if isinstance(exc.code, int) else str(exc.code)
        out = capsys.readouterr()
        return code, text + out.out + out.err
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.fixture(scope="module")
def model():  # noqa: ANN201
    from sb3_contrib import MaskablePPO

    from fight_envs.wrappers import SingleAgentEnv

    return MaskablePPO("MlpPolicy", SingleAgentEnv(seed=0), policy_kwargs={"net_arch": [8]}, seed=0, n_steps=16)


def evil_sb3_zip(model, path: Path, marker: Path) -> Path:  # noqa: ANN001
    """An SB3 model zip whose ``policy_class`` is the payload (SB3 stores it cloudpickled, base64)."""
    model.save(path)
    with zipfile.ZipFile(path) as z:
        entries = {n: z.read(n) for n in z.namelist()}
    data = json.loads(entries["data"])
    data["policy_class"][":serialized:"] = base64.b64encode(pickle.dumps(Payload(marker))).decode()
    entries["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(path, "w") as z:
        for name, blob in entries.items():
            z.writestr(name, blob)
    write_metadata(path, fight5_meta())
    return path


def evil_rllib_dir(path: Path, marker: Path) -> Path:
    """An RLlib module checkpoint (RLlib's own pickled layout) whose class file is the payload."""
    path.mkdir(parents=True)
    (path / "class_and_ctor_args.pkl").write_bytes(pickle.dumps(Payload(marker)))
    (path / "module_state.pkl").write_bytes(pickle.dumps(Payload(marker)))
    (path / "metadata.json").write_text(json.dumps({"class_and_ctor_args_file": "class_and_ctor_args.pkl",
                                                    "state_file": "module_state", "ray_version": "2.60.0",
                                                    "checkpoint_version": "2.1"}))
    (path / "fight_envs_agent.json").write_text(json.dumps({"format": "fight-envs rllib learner 1", "game": "fight5",
                                                            "env": "fight5_v0", "env_options": {"num_players": 2}}))
    return path


@pytest.fixture()
def evil(tmp_path: Path, model) -> dict[str, Path]:  # noqa: ANN001
    marker = tmp_path / "PWNED"
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    sb3 = evil_sb3_zip(model, tmp_path / "evil.zip", marker)
    shutil.copy(sb3, run / "final.zip")
    shutil.copy(sb3.with_suffix(".json"), run / "final.json")
    rllib = evil_rllib_dir(tmp_path / "evil_rllib", marker)
    return {"marker": marker, "sb3": sb3, "rllib": rllib, "run": run, "tmp": tmp_path}


def test_the_payloads_do_run_when_trusted(evil: dict[str, Path]) -> None:
    """The control: with trust, unpickling runs the payload (so its absence below means something)."""
    with pytest.raises(Exception):  # noqa: B017,PT011 - whatever fails after the payload ran
        load_policy(evil["sb3"], trust=True)
    assert evil["marker"].read_text() == "pwned"
    evil["marker"].unlink()
    from fight_envs.agents.rllib_agent import load_rllib_agent

    with pytest.raises(Exception):  # noqa: B017,PT011
        load_rllib_agent(evil["rllib"], trust=True)
    assert evil["marker"].read_text() == "pwned"


@pytest.mark.parametrize("kind", ["sb3", "rllib"])
def test_make_agent_refuses_without_trust(evil: dict[str, Path], kind: str) -> None:
    from fight_envs.agents.registry import make_agent

    with pytest.raises(ValueError, match="pickled .*trust"):
        make_agent(str(evil[kind]), game="fight5")
    assert not evil["marker"].exists()


def test_library_loaders_refuse_without_trust(evil: dict[str, Path]) -> None:
    from fight_envs.agents.checkpoint import convert_checkpoint, load_checkpoint_agent, load_training_state
    from fight_envs.agents.rllib_agent import convert_rllib_checkpoint, load_rllib_agent

    for call in (lambda: load_policy(evil["sb3"]), lambda: load_checkpoint_agent(evil["sb3"]),
                 lambda: load_training_state(evil["sb3"]), lambda: convert_checkpoint(evil["sb3"], evil["tmp"] / "c.zip"),
                 lambda: load_rllib_agent(evil["rllib"]),
                 lambda: convert_rllib_checkpoint(evil["rllib"], evil["tmp"] / "c_rllib")):
        with pytest.raises(ValueError, match=TRUST_HINT):
            call()
    assert not evil["marker"].exists()


@pytest.mark.parametrize("kind", ["sb3", "rllib"])
@pytest.mark.parametrize("command", ["eval", "tournament", "play"])
def test_cli_commands_refuse_without_the_flag(evil: dict[str, Path], kind: str, command: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    spec = str(evil[kind])
    argv = {"eval": ["eval", spec, "--deals", "1"], "tournament": ["tournament", spec, "random", "--deals", "1"],
            "play": ["play", "--opponents", spec]}[command]
    code, text = run_cli(argv, capsys)
    assert code != 0 and "--trust-checkpoint" in text, (code, text)
    assert not evil["marker"].exists()


def test_results_refuses_a_run_whose_final_model_is_pickled(evil: dict[str, Path],
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, text = run_cli(["results", "--run", str(evil["run"]), "--deals", "1", "--tournament-deals", "1",
                          "--out", str(evil["tmp"] / "results.md")], capsys)
    assert code != 0 and "trust" in text, (code, text)
    assert not evil["marker"].exists()
    assert not (evil["tmp"] / "results.md").exists()


def test_training_resume_refuses_a_pickled_checkpoint(evil: dict[str, Path], model,  # noqa: ANN001
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from fight_envs.core.errors import ConfigError
    from fight_envs.train.config import load_config, save_config
    from fight_envs.train.selfplay import train_main

    run = evil["run"]
    save_config(load_config(None, ["run_name=run", f"runs_dir={evil['tmp']}"]), run / "config.yaml")
    step = run / "checkpoints" / "step_0000000064.zip"
    shutil.copy(evil["sb3"], step)
    shutil.copy(evil["sb3"].with_suffix(".json"), step.with_suffix(".json"))
    before = (run / "config.yaml").read_text()
    with pytest.raises(ConfigError, match="pickled SB3 checkpoint.*trust"):
        train_main(load_config(None, [f"resume={run}"]))
    code, text = run_cli(["train", f"resume={run}"], capsys)
    assert code != 0 and "--trust-checkpoint" in text, (code, text)
    assert not evil["marker"].exists()
    assert (run / "config.yaml").read_text() == before, "a refused resume rewrote the run's config"


def test_rllib_resume_refuses_without_trust(evil: dict[str, Path]) -> None:
    from fight_envs.core.errors import ConfigError
    from fight_envs.train.rllib.config import load_rllib_config, save_rllib_config
    from fight_envs.train.rllib.trainer import train_rllib

    run = evil["tmp"] / "rllib_run"
    algo = run / "checkpoints" / "algo"
    algo.mkdir(parents=True)
    (algo / "class_and_ctor_args.pkl").write_bytes(pickle.dumps(Payload(evil["marker"])))
    (run / "league_state.json").write_text(json.dumps({"learner_steps": 10, "snapshots": [], "results": {}}))
    save_rllib_config(load_rllib_config(None, ["run_name=rllib_run", f"runs_dir={evil['tmp']}"]), run / "config.yaml")
    with pytest.raises(ConfigError, match="pickle.*--trust-checkpoint"):
        train_rllib(load_rllib_config(None, [f"resume={run}", "total_timesteps=100000"]))
    assert not evil["marker"].exists()


def test_opponent_pool_snapshots_refuse_a_pickled_file(evil: dict[str, Path]) -> None:
    """Rollout workers load snapshots the manifest names: a pickled one is refused, in the env
    sampler and in the batched engine's opponent table alike."""
    from fight_envs.train.batched_vec_env import BatchedFight5VecEnv
    from fight_envs.train.opponents import PoolOpponentSampler

    pool = evil["tmp"] / "pool"
    pool.mkdir()
    shutil.copy(evil["sb3"], pool / "self_0000000064.zip")
    shutil.copy(evil["sb3"].with_suffix(".json"), pool / "self_0000000064.json")
    manifest = {"game": "fight5", "deterministic": True,
                "entries": [{"id": "self@64", "kind": "snapshot", "spec": "self_0000000064.zip", "weight": 1.0}]}
    (pool / "manifest.json").write_text(json.dumps(manifest))
    sampler = PoolOpponentSampler(pool / "manifest.json")
    with pytest.raises(CheckpointError, match="pickled SB3 checkpoint"):
        sampler(np.random.default_rng(0), 1)
    with pytest.raises(CheckpointError, match="pickled SB3 checkpoint"):
        BatchedFight5VecEnv(2, [2], manifest_path=pool / "manifest.json", seed=0).reset()
    assert not evil["marker"].exists()


def test_a_data_only_checkpoint_loads_without_trust(tmp_path: Path, model) -> None:  # noqa: ANN001
    from fight_envs.agents.registry import make_agent

    path = save_checkpoint(model, tmp_path / "ok.zip", fight5_meta())
    agent = make_agent(str(path), game="fight5", seed=0)
    obs = np.zeros((1, 627), np.float32)
    mask = np.zeros((1, 13), np.int8)
    mask[0, 3] = 1
    assert agent.act_batch(obs, mask).tolist() == [3]
