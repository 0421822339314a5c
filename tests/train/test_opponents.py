"""Opponent pool: mix annealing, prioritisation, the manifest, and the env-side sampler."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from sb3_contrib import MaskablePPO

from fight_envs.agents.checkpoint import PolicyAgent
from fight_envs.wrappers import SingleAgentEnv
from fight_envs.train.config import OpponentConfig
from fight_envs.train.opponents import OpponentPool, PoolOpponentSampler


def make_pool(tmp_path: Path, **changes: object) -> OpponentPool:
    config = OpponentConfig(weights_start={"random": 1.0}, weights_end={"random": 0.5, "greedy": 0.25, "self": 0.25},
                            anneal_fraction=0.5, prioritize=False, max_snapshots=2)
    for key, value in changes.items():
        setattr(config, key, value)
    return OpponentPool(tmp_path / "pool", config, "fight5", total_timesteps=1000)


def test_mix_anneals_from_start_to_end(tmp_path: Path) -> None:
    pool = make_pool(tmp_path)
    assert pool.mix(0) == {"greedy": 0.0, "random": 1.0, "self": 0.0}
    assert pool.mix(250) == pytest.approx({"greedy": 0.125, "random": 0.75, "self": 0.125})
    assert pool.mix(500) == pool.mix(900) == {"greedy": 0.25, "random": 0.5, "self": 0.25}


def test_self_weight_is_left_out_until_a_snapshot_exists_then_shared(tmp_path: Path, fight5_model: MaskablePPO,
                                                                     fight5_metadata: Callable[..., dict]) -> None:
    pool = make_pool(tmp_path)
    assert pool.weights(500) == pytest.approx({"random": 2 / 3, "greedy": 1 / 3})
    for step in (100, 200, 300):
        pool.add_snapshot(fight5_model.policy, step, fight5_metadata())
    weights = pool.weights(500)
    # max_snapshots = 2: the oldest snapshot left the mix; the other two share 'self'.
    assert weights == pytest.approx({"random": 0.5, "greedy": 0.25, "self@200": 0.125, "self@300": 0.125})
    assert (pool.dir / "self_0000000100.zip").is_file()  # kept on disk for workers still using it


def test_prioritisation_favours_opponents_the_learner_loses_to(tmp_path: Path) -> None:
    pool = make_pool(tmp_path, prioritize=True, pfsp_power=2.0, weights_end={"random": 0.5, "greedy": 0.5})
    for _ in range(8):
        pool.record(["random"], 1.0)
        pool.record(["greedy", "greedy"], 0.0)  # one game against two greedy seats counts once
    assert pool.games_played("greedy") == 8
    assert pool.winrate("random") == pytest.approx(9 / 10) and pool.winrate("greedy") == pytest.approx(1 / 10)
    w = pool.weights(1000)
    assert w["greedy"] / w["random"] == pytest.approx((0.9 / 0.1) ** 2)


def test_manifest_is_rewritten_only_when_it_changes_and_the_sampler_follows(tmp_path: Path) -> None:
    pool = make_pool(tmp_path)
    assert pool.write_manifest(0)
    assert not pool.write_manifest(0)
    sampler = PoolOpponentSampler(pool.manifest_path)
    rng = np.random.default_rng(0)
    assert {o.label for o in sampler(rng, 50)} == {"random"}
    pool.config.weights_start = {"greedy": 1.0}
    pool.config.weights_end = {"greedy": 1.0}
    assert pool.write_manifest(10)
    stat = pool.manifest_path.stat()  # some filesystems keep a coarse mtime: make the change visible
    os.utime(pool.manifest_path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert {o.label for o in sampler(rng, 50)} == {"greedy"}


def test_sampler_loads_snapshots_and_draws_by_weight(tmp_path: Path, fight5_model: MaskablePPO,
                                                      fight5_metadata: Callable[..., dict]) -> None:
    pool = make_pool(tmp_path, weights_start={"random": 1.0, "self": 3.0}, weights_end={"random": 1.0, "self": 3.0})
    pool.add_snapshot(fight5_model.policy, 64, fight5_metadata())
    pool.write_manifest(0)
    manifest = json.loads(pool.manifest_path.read_text())
    assert [e["id"] for e in manifest["entries"]] == ["random", "self@64"]
    sampler = PoolOpponentSampler(pool.manifest_path)
    drawn = [o.label for o in sampler(np.random.default_rng(1), 2000)]
    assert abs(drawn.count("self@64") / 2000 - 0.75) < 0.04
    snap = next(o for o in sampler(np.random.default_rng(2), 20) if o.label == "self@64")
    assert isinstance(snap.agent, PolicyAgent) and not snap.agent.deterministic


def test_pool_opponents_play_whole_games_in_the_env(tmp_path: Path, fight5_model: MaskablePPO,
                                                    fight5_metadata: Callable[..., dict]) -> None:
    pool = make_pool(tmp_path, weights_start={"greedy": 1.0, "self": 1.0})
    pool.add_snapshot(fight5_model.policy, 8, fight5_metadata())
    pool.write_manifest(0)
    env = SingleAgentEnv(opponents=PoolOpponentSampler(pool.manifest_path), seed=0, num_players=3, num_bouts=1)
    seen = set()
    for _ in range(4):
        env.reset()
        done = False
        while not done:
            _, _, done, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        seen.update(info["opponents"])
        pool.record(info["opponents"], info["result"])
    assert seen <= {"greedy", "self@8"} and seen
    assert sum(pool.games_played(k) for k in ("greedy", "self@8")) >= 4


def test_pool_state_survives_a_restart(tmp_path: Path, fight5_model: MaskablePPO,
                                       fight5_metadata: Callable[..., dict]) -> None:
    pool = make_pool(tmp_path)
    pool.add_snapshot(fight5_model.policy, 5, fight5_metadata())
    pool.record(["random"], 1.0)
    pool.save_state()
    again = make_pool(tmp_path)
    again.load_state()
    assert [s.id for s in again.snapshots] == ["self@5"] and again.games_played("random") == 1


def test_unknown_baseline_fails_at_pool_creation(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="wizard"):
        make_pool(tmp_path, weights_end={"wizard": 1.0})
