"""Ensemble checkpoints (``agents.checkpoint.save_ensemble``, ``fight-envs ensemble``): several policies
of one env in one data-only zip, played as one agent whose logits are the members' mean."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from sb3_contrib import MaskablePPO

from fight_envs.agents.checkpoint import (
    ENSEMBLE_ENTRY,
    CheckpointError,
    EnsembleAgent,
    PolicyAgent,
    checkpoint_kind,
    load_checkpoint_agent,
    load_ensemble,
    load_policy,
    load_training_state,
    read_metadata,
    save_checkpoint,
    save_ensemble,
)
from fight_envs.agents.evaluate import evaluate
from fight_envs.agents.registry import make_agent
from fight_envs.core.errors import ConfigError
from fight_envs.registry import make
from fight_envs.train.cli import main as cli_main
from fight_envs.wrappers import SingleAgentEnv


def _checkpoint(path: Path, seed: int, fight5_metadata, net_arch=(16, 16), **meta: object) -> Path:
    model = MaskablePPO("MlpPolicy", SingleAgentEnv(seed=0), policy_kwargs={"net_arch": list(net_arch)}, seed=seed, n_steps=16)
    return save_checkpoint(model, path, fight5_metadata(label=f"seed{seed}@{seed * 100}", num_timesteps=seed * 100, **meta))


def _observations(n: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of a few random Fight 5 games."""
    env = make("fight5_v0", api="raw", num_players=2)
    rng = np.random.default_rng(0)
    obs, masks = [], []
    seed = 0
    while len(obs) < n:
        env.reset(seed=seed)
        seed += 1
        for agent in env.agent_iter():
            o, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            obs.append(o["observation"])
            masks.append(o["action_mask"])
            env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return np.asarray(obs[:n]), np.asarray(masks[:n])


def test_an_ensemble_plays_the_mean_of_its_members_logits(tmp_path: Path, fight5_metadata) -> None:
    members = [_checkpoint(tmp_path / f"m{s}.zip", s, fight5_metadata) for s in (1, 2, 3)]
    out = save_ensemble(members, tmp_path / "ens.zip")
    assert checkpoint_kind(out) == "ensemble"
    agent = load_checkpoint_agent(out, game="fight5")
    assert isinstance(agent, EnsembleAgent) and len(agent.members) == 3
    singles = [load_checkpoint_agent(m, game="fight5") for m in members]
    obs, masks = _observations()
    mean = sum(s.logits(obs) for s in singles) / 3
    np.testing.assert_allclose(agent.logits(obs), mean, rtol=1e-5, atol=1e-6)
    legal = np.where(masks.astype(bool), mean, -np.inf)
    np.testing.assert_array_equal(agent.act_batch(obs, masks), legal.argmax(axis=1))
    # the members differ, so the mean is not any one of them
    assert not np.allclose(singles[0].logits(obs), singles[1].logits(obs))
    # the stored weights are the members' own, byte for byte
    with zipfile.ZipFile(out) as z, zipfile.ZipFile(members[1]) as m:
        assert z.read("member_1/policy.pt") == m.read("policy.pt")
        assert json.loads(z.read(ENSEMBLE_ENTRY)) == {"format": "fight-envs-ensemble", "format_version": 1,
                                                      "members": 3, "combine": "mean_logits"}
    meta = read_metadata(out)
    assert meta["label"] == "ensemble(seed1@100+seed2@200+seed3@300)" and meta["num_timesteps"] == 600
    assert [m["file"] for m in meta["ensemble"]] == ["m1.zip", "m2.zip", "m3.zip"]
    assert meta["env"] == "fight5_v0" and meta["num_players"] == [2]


def test_an_ensemble_samples_from_its_own_generator(tmp_path: Path, fight5_metadata) -> None:
    members = [_checkpoint(tmp_path / f"m{s}.zip", s, fight5_metadata) for s in (1, 2)]
    out = save_ensemble(members, tmp_path / "ens.zip")
    obs, masks = _observations()
    a = load_checkpoint_agent(out, deterministic=False, seed=5)
    b = load_checkpoint_agent(out, deterministic=False, seed=5)
    first, again = a.act_batch(obs, masks), b.act_batch(obs, masks)
    np.testing.assert_array_equal(first, again)
    assert masks[np.arange(len(first)), first].all()


def test_an_ensemble_plays_through_the_registry_and_the_evaluator(tmp_path: Path, fight5_metadata) -> None:
    members = [_checkpoint(tmp_path / f"m{s}.zip", s, fight5_metadata) for s in (1, 2)]
    out = save_ensemble(members, tmp_path / "ens.zip", label="pair")
    agent = make_agent(str(out), game="fight5", seed=0)
    assert agent.label == "pair" and agent.describe()["members"] == 2
    result = evaluate(lambda: make("fight5_v0", num_players=2), [agent, make_agent("random", game="fight5", seed=1)],
                      num_deals=2, seed=0)
    assert result.stats[0].games == 4
    with pytest.raises(CheckpointError, match="is a 'fight5' checkpoint, not a 'brawl' one"):
        load_checkpoint_agent(out, game="brawl")


def test_one_policy_readers_refuse_an_ensemble_naming_its_members(tmp_path: Path, fight5_metadata) -> None:
    members = [_checkpoint(tmp_path / f"m{s}.zip", s, fight5_metadata) for s in (1, 2)]
    out = save_ensemble(members, tmp_path / "ens.zip")
    for read in (load_policy, load_training_state):
        with pytest.raises(CheckpointError, match=r"is an ensemble of policies .*members: seed1@100, seed2@200"):
            read(out)
    with pytest.raises(CheckpointError, match="not an ensemble"):
        load_ensemble(members[0])
    policies, meta = load_ensemble(out)
    assert len(policies) == 2 and meta["label"].startswith("ensemble(")
    from fight_envs.train.config import load_config
    from fight_envs.train.selfplay import load_init_policy

    config = load_config(None, ["env.name=fight5_v0", f"init_from={out}"])
    with pytest.raises(ConfigError, match=r"init_from=.*is an ensemble of policies .*but a warm start, a resume or a weight average needs one policy"):
        load_init_policy(config)


def test_members_must_share_the_env_and_be_plain_data_checkpoints(tmp_path: Path, fight5_metadata,
                                                                   fight5_pickled_checkpoint: Path) -> None:
    a = _checkpoint(tmp_path / "a.zip", 1, fight5_metadata)
    b = _checkpoint(tmp_path / "b.zip", 2, fight5_metadata, env_options={"illegal_action": "raise"})
    target = tmp_path / "ens.zip"
    with pytest.raises(CheckpointError, match=r"must share the env: .*a.zip has env_options=.*b.zip has env_options="):
        save_ensemble([a, b], target)
    with pytest.raises(CheckpointError, match="2 to 16 checkpoints, got 1"):
        save_ensemble([a], target)
    with pytest.raises(CheckpointError, match="is a pickled SB3 checkpoint"):
        save_ensemble([a, fight5_pickled_checkpoint], target)
    with pytest.raises(CheckpointError, match="is not a file"):
        save_ensemble([a, tmp_path / "missing.zip"], target)
    ens = save_ensemble([a, _checkpoint(tmp_path / "c.zip", 3, fight5_metadata)], tmp_path / "ok.zip")
    with pytest.raises(CheckpointError, match="is itself an ensemble"):
        save_ensemble([a, ens], target)
    assert not target.exists() and not target.with_suffix(".json").exists()


def test_a_damaged_ensemble_header_is_refused(tmp_path: Path, fight5_metadata) -> None:
    members = [_checkpoint(tmp_path / f"m{s}.zip", s, fight5_metadata) for s in (1, 2)]
    out = save_ensemble(members, tmp_path / "ens.zip")
    with zipfile.ZipFile(out) as z:
        entries = {name: z.read(name) for name in z.namelist()}
    for header, message in (({"format": "x"}, "not a fight-envs ensemble header"),
                            ({"format": "fight-envs-ensemble", "format_version": 9, "members": 2, "combine": "mean_logits"},
                             "format_version 9"),
                            ({"format": "fight-envs-ensemble", "format_version": 1, "members": 3, "combine": "mean_logits"},
                             "lacks 'member_2/fight_envs_policy.json'"),
                            ({"format": "fight-envs-ensemble", "format_version": 1, "members": 2, "combine": "vote"},
                             "'combine' must be 'mean_logits'")):
        with zipfile.ZipFile(out, "w") as z:
            for name, data in {**entries, ENSEMBLE_ENTRY: json.dumps(header).encode()}.items():
                z.writestr(name, data)
        with pytest.raises(CheckpointError, match=message):
            load_checkpoint_agent(out)


def test_the_ensemble_command(tmp_path: Path, fight5_metadata, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run_b"
    run.mkdir()
    a = _checkpoint(tmp_path / "a.zip", 1, fight5_metadata)
    _checkpoint(run / "final.zip", 2, fight5_metadata)
    assert cli_main(["ensemble", str(tmp_path / "e.zip"), str(a), str(run), "--label", "both"]) == 0
    assert "wrote" in capsys.readouterr().out
    agent = make_agent(str(tmp_path / "e.zip"), game="fight5")
    assert isinstance(agent, EnsembleAgent) and agent.label == "both"
    assert isinstance(agent.members[0], PolicyAgent)
    assert cli_main(["ensemble", str(tmp_path / "e.txt"), str(a), str(run)]) != 0
    assert "must end in .zip" in capsys.readouterr().err
    assert cli_main(["ensemble", str(tmp_path / "f.zip"), str(a), str(tmp_path / "nope")]) != 0
    assert "is not a file" in capsys.readouterr().err
    assert not (tmp_path / "f.zip").exists()
