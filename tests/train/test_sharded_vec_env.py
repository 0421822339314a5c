"""The multi-game vec env split across worker processes (``fight_envs.train.sharded_vec_env``): the
same games as its shards stepped side by side in one process, seeding, the config's checks, a
worker's error raised in the trainer's process, closing, pinning the workers to CPUs, and a tiny
training run with two workers.

Each sharded env starts worker processes (a few seconds each under forkserver), so the tests share
few of them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
import torch
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

from fight_envs.core.errors import ConfigError
from fight_envs.train.config import load_config
from fight_envs.train.multi_vec_env import MultiGameVecEnv
from fight_envs.train.selfplay import train_main
from fight_envs.train import sharded_vec_env
from fight_envs.train.sharded_vec_env import ShardedMultiGameVecEnv, shard_indices, shard_seed, shard_sizes, worker_cpus
from vec_helpers import random_actions, write_manifest

torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parents[2]


def test_shard_layout() -> None:
    assert shard_sizes(5, 2) == [3, 2] and shard_sizes(4, 4) == [1, 1, 1, 1]
    rows = shard_indices(5, 2, [3, 2])
    # block per player count (5 games each); worker 0's games first in each block
    assert rows[0].tolist() == [0, 1, 2, 5, 6, 7] and rows[1].tolist() == [3, 4, 8, 9]
    assert sorted(np.concatenate(rows).tolist()) == list(range(10))
    assert shard_seed(None, 1) is None and shard_seed(3, 0) != shard_seed(3, 1) and shard_seed(3, 1) == shard_seed(3, 1)


def test_equals_its_shards_stepped_in_one_process(tmp_path: Path) -> None:
    """Observations, masks, rewards, dones, infos and learner seats are those of the shards' own
    MultiGameVecEnvs (the same arguments, their shares of n_envs, shard_seed), placed at their rows;
    the opponents (the heuristic and random, from a manifest) act in the workers."""
    manifest = write_manifest(tmp_path / "manifest.json", "brawl", {"heuristic": 0.7, "random": 0.3})
    n_envs, counts, seed = 5, [2, 3], 11
    vec = ShardedMultiGameVecEnv("brawl_v0", n_envs, counts, manifest_path=manifest, seed=seed, workers=2)
    try:
        assert vec.num_envs == 10 and is_masking_supported(vec)
        sizes = shard_sizes(n_envs, 2)
        rows = shard_indices(n_envs, len(counts), sizes)
        shards = [MultiGameVecEnv("brawl_v0", s, counts, manifest_path=manifest, seed=shard_seed(seed, w))
                  for w, s in enumerate(sizes)]
        assert vec.env_num_players.tolist() == [2] * 5 + [3] * 5
        obs = vec.reset()
        for w, shard in enumerate(shards):
            assert np.array_equal(obs[rows[w]], shard.reset())
            assert np.array_equal(vec.learner_seats[rows[w]], shard.learner_seats)
        rng = np.random.default_rng(0)
        ended = 0
        for _ in range(150):
            masks = get_action_masks(vec)
            for w, shard in enumerate(shards):
                assert np.array_equal(masks[rows[w]], shard.action_masks())
            actions = random_actions(masks, rng)
            vec.step_async(actions)
            obs, rewards, dones, infos = vec.step_wait()
            for w, shard in enumerate(shards):
                shard.step_async(actions[rows[w]])
                o, r, d, i = shard.step_wait()
                assert np.array_equal(obs[rows[w]], o) and np.array_equal(rewards[rows[w]], r)
                assert np.array_equal(dones[rows[w]], d)
                assert np.array_equal(vec.learner_seats[rows[w]], shard.learner_seats)
                for k, info in zip(rows[w].tolist(), i):
                    assert infos[k].keys() == info.keys()
                    for key, value in info.items():
                        if isinstance(value, np.ndarray):
                            assert np.array_equal(infos[k][key], value)
                        elif key == "episode":
                            assert infos[k][key]["r"] == value["r"] and infos[k][key]["l"] == value["l"]
                        else:
                            assert infos[k][key] == value, key
            ended += int(dones.sum())
        assert ended > 10  # games ended and restarted in both workers
        assert get_action_masks(vec).any(axis=1).all()
        # seed() reseeds every worker's next reset with shard_seed
        vec.seed(5)
        again = vec.reset()
        for w, s in enumerate(sizes):
            fresh = MultiGameVecEnv("brawl_v0", s, counts, manifest_path=manifest, seed=shard_seed(5, w))
            assert np.array_equal(again[rows[w]], fresh.reset())
    finally:
        vec.close()
    assert all(not p.is_alive() for p in vec._processes)
    vec.close()  # closing twice is harmless
    with pytest.raises(RuntimeError, match="closed"):
        vec.step_async(np.zeros(vec.num_envs, dtype=np.int64))


def test_a_worker_error_is_raised_in_the_trainer_process() -> None:
    vec = ShardedMultiGameVecEnv("fight5_v0", 2, [2], seed=0, workers=2, reward="score", num_bouts=1)
    try:
        vec.reset()
        masks = get_action_masks(vec)
        illegal = np.where(~masks, np.arange(masks.shape[1]), -1).max(axis=1)  # an action off every mask
        assert (illegal >= 0).all()
        vec.step_async(illegal)
        with pytest.raises(RuntimeError, match="worker 0 failed during step") as info:
            vec.step_wait()
        assert "IllegalActionError" in str(info.value)
    finally:
        vec.close()
    assert all(not p.is_alive() for p in vec._processes)


def test_rejects_bad_arguments() -> None:
    with pytest.raises(ConfigError, match="workers must be"):
        ShardedMultiGameVecEnv("brawl_v0", 4, [2], workers=1)
    with pytest.raises(ConfigError, match="at most n_envs"):
        ShardedMultiGameVecEnv("brawl_v0", 2, [2], workers=3)
    with pytest.raises(ConfigError, match="learner_seat"):
        ShardedMultiGameVecEnv("brawl_v0", 4, [2], workers=2, learner_seat="left")
    with pytest.raises(ConfigError):  # the env's own options are checked here, before any worker starts
        ShardedMultiGameVecEnv("brawl_v0", 4, [2], workers=2, no_such_option=1)


def test_worker_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    """``pin_workers``: "auto" pins when the process may use exactly as many CPUs as there are workers,
    True round-robin over them, False never; anything else, and True where nothing can pin, is refused."""
    if not hasattr(os, "sched_setaffinity"):
        pytest.skip("pinning needs os.sched_setaffinity (Linux)")
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {5, 3})  # two CPUs of a larger machine
    assert worker_cpus(2, "auto") == [3, 5]
    assert worker_cpus(3, "auto") is None and worker_cpus(1, "auto") is None
    assert worker_cpus(3, True) == [3, 5, 3]
    assert worker_cpus(2, False) is None
    for bad in ("yes", "true", 1, 0, None):
        with pytest.raises(ConfigError, match="pin_workers must be 'auto', true or false"):
            worker_cpus(2, bad)
    monkeypatch.delattr(os, "sched_setaffinity")
    assert worker_cpus(2, "auto") is None
    with pytest.raises(ConfigError, match="needs os.sched_setaffinity"):
        worker_cpus(2, True)


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="pinning needs os.sched_setaffinity (Linux)")
def test_workers_pinned_as_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each pinned worker runs on its one CPU, the trainer's process keeps every CPU it had, and the
    games still step; unpinned workers keep the trainer's CPUs; a CPU that cannot be had is an error
    that names it."""
    allowed = os.sched_getaffinity(0)
    vec = ShardedMultiGameVecEnv("fight5_v0", 2, [2], seed=0, workers=2, pin_workers=True)
    try:
        assert vec.worker_cpus == worker_cpus(2, True)
        for process, cpu in zip(vec._processes, vec.worker_cpus):
            assert os.sched_getaffinity(process.pid) == {cpu}
        assert os.sched_getaffinity(0) == allowed
        vec.reset()
        vec.step_async(random_actions(get_action_masks(vec), np.random.default_rng(0)))
        vec.step_wait()
    finally:
        vec.close()
    vec = ShardedMultiGameVecEnv("fight5_v0", 2, [2], seed=0, workers=2, pin_workers=False)
    try:
        assert vec.worker_cpus is None
        assert all(os.sched_getaffinity(p.pid) == allowed for p in vec._processes)
    finally:
        vec.close()
    monkeypatch.setattr(sharded_vec_env, "worker_cpus", lambda workers, pin: [65_536] * workers)
    with pytest.raises(RuntimeError, match="could not pin the worker to CPU 65536"):
        ShardedMultiGameVecEnv("fight5_v0", 2, [2], seed=0, workers=2)


def test_config_checks_workers() -> None:
    path = ROOT / "configs" / "brawl_selfplay_2p.yaml"
    assert load_config(path).workers == 1  # the recipes step their games in one process
    assert load_config(path, ["workers=2"]).workers == 2
    with pytest.raises(ConfigError, match="needs vec_env=multi"):
        load_config(path, ["workers=2", "vec_env=dummy"])
    with pytest.raises(ConfigError, match="at most n_envs"):
        load_config(path, ["workers=4", "n_envs=2"])
    with pytest.raises(ConfigError, match="workers must be >= 1"):
        load_config(path, ["workers=0"])
    assert load_config(path).pin_workers == "auto"
    assert load_config(path, ["pin_workers=false"]).pin_workers is False
    assert load_config(path, ["pin_workers=true"]).pin_workers is True
    with pytest.raises(ConfigError, match="pin_workers must be 'auto', true or false"):
        load_config(path, ["pin_workers=2"])


def test_tiny_training_run_with_two_workers(tmp_path: Path) -> None:
    def run(name: str) -> tuple[dict[str, object], dict[str, np.ndarray]]:
        config = load_config(ROOT / "configs" / "brawl_selfplay_2p.yaml", [
            f"runs_dir={tmp_path}", f"run_name={name}", "total_timesteps=512", "n_envs=8", "workers=2",
            "ppo.n_steps=32", "ppo.batch_size=64", "ppo.n_epochs=1", "ppo.net_arch=[16]", "ppo.features=flat",
            "eval.games=0", "progress=none", "opponents.snapshot_every=256", "pretrain.games=0", "pretrain.epochs=0", "seed=3",
            "opponents.weights_start={random: 0.5, heuristic: 0.5}", "opponents.weights_end={heuristic: 0.5, self: 0.5}"])
        out = train_main(config)
        summary = json.loads((out / "summary.json").read_text())
        assert summary["num_timesteps"] == 512
        assert (out / "final.zip").is_file() and (out / "pool" / "self_0000000256.zip").is_file()
        from fight_envs.agents.checkpoint import load_policy

        policy, _ = load_policy(out / "final.zip", device="cpu")
        return summary, {k: v.detach().numpy().copy() for k, v in policy.state_dict().items()}

    a, wa = run("a")
    b, wb = run("b")
    # the same seed and worker count: the same games, so the same weights
    assert wa.keys() == wb.keys() and all(np.array_equal(wa[k], wb[k]) for k in wa)
