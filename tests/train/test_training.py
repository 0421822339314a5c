"""Tiny self-play runs: files written, TensorBoard scalars, resume, checkpoint as agent, determinism."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from fight_envs.agents.arena import play_game
from fight_envs.agents.base import RandomAgent
from fight_envs.agents.checkpoint import load_checkpoint_agent, load_policy
from fight_envs import fight5_v0
from fight_envs.core.errors import ConfigError
from fight_envs.train.callbacks import list_checkpoints
from fight_envs.train.config import load_config
from fight_envs.train.selfplay import train_main

TINY = Path(__file__).resolve().parents[2] / "configs" / "fight5_selfplay_tiny.yaml"


def tb_scalars(run: Path) -> dict[str, list[int]]:
    """Steps at which each scalar was logged, over every events file of the run."""
    steps: dict[str, list[int]] = {}
    for events in sorted((run / "tb").glob("events.out.tfevents.*")):
        acc = EventAccumulator(str(events))
        acc.Reload()
        for tag in acc.Tags()["scalars"]:
            steps.setdefault(tag, []).extend(e.step for e in acc.Scalars(tag))
    return steps


def test_tiny_run_checkpoints_logs_resumes_and_loads_as_an_agent(tmp_path: Path) -> None:
    run = train_main(load_config(TINY, [f"runs_dir={tmp_path}"]))
    assert run == tmp_path / "tiny"
    for name in ("config.yaml", "final.zip", "final.json", "eval_history.jsonl", "pool/manifest.json", "pool/state.json"):
        assert (run / name).is_file(), name
    assert [s for s, _ in list_checkpoints(run / "checkpoints")] == [128, 256]
    assert (run / "checkpoints" / "step_0000000256.json").is_file()
    meta = json.loads((run / "final.json").read_text())
    assert meta["game"] == "fight5" and meta["num_players"] == [2] and meta["observation_shape"] == [627]
    assert meta["num_actions"] == 13 and meta["num_timesteps"] == 256 and meta["env_options"]["num_bouts"] == 1
    scalars = tb_scalars(run)
    for tag in ("selfplay/winrate_vs_random", "selfplay/winrate_vs_greedy", "selfplay/rating",
                "selfplay/train_winrate", "train/loss", "rollout/ep_rew_mean"):
        assert tag in scalars, (tag, sorted(scalars))
    first_events = len(list((run / "tb").glob("events.out.tfevents.*")))

    # Resume: the counter continues from 256, in the same TensorBoard directory.
    resumed = train_main(load_config(TINY, [f"resume={run}", "total_timesteps=512"]))
    assert resumed == run
    assert json.loads((run / "final.json").read_text())["num_timesteps"] == 512
    assert [s for s, _ in list_checkpoints(run / "checkpoints")] == [384, 512]  # keep_checkpoints: 2
    assert len(list((run / "tb").glob("events.out.tfevents.*"))) > first_events
    steps = tb_scalars(run)["time/fps"]
    assert max(steps) == 512 and len(steps) == len(set(steps))  # no step logged twice: no restart at 0
    history = [json.loads(line) for line in (run / "eval_history.jsonl").read_text().splitlines()]
    assert sorted({h["step"] for h in history}) == [128, 256, 384, 512]

    # The final model plays legal moves as an agent (raw env: an illegal move would raise).
    agent = load_checkpoint_agent(run / "final.zip", game="fight5")
    assert agent.label == "tiny@512"
    summary = json.loads((run / "summary.json").read_text())
    assert summary["num_timesteps"] == 512 and summary["trained_steps"] == 512 and summary["sessions"] == 2
    assert summary["steps_per_second"] > 0 and set(summary["final_eval"]) == {"random", "greedy"}
    env = fight5_v0.raw_env(num_players=2, num_bouts=1)
    result = play_game(env, [agent, RandomAgent()], seed=0)
    assert env.game.is_terminal() and result.num_steps == 50


def test_resume_refuses_a_different_network_and_a_fresh_run_refuses_an_existing_dir(tmp_path: Path) -> None:
    run = train_main(load_config(TINY, [f"runs_dir={tmp_path}", "total_timesteps=64", "eval.games=0"]))
    with pytest.raises(ConfigError, match=r"cannot change the game or the network: ppo.net_arch"):
        train_main(load_config(None, [f"resume={run}", "ppo.net_arch=[8]"]))
    with pytest.raises(ConfigError, match="already exists; pass resume="):
        train_main(load_config(TINY, [f"runs_dir={tmp_path}"]))


def test_one_network_learns_every_player_count(tmp_path: Path) -> None:
    run = train_main(load_config(TINY, [f"runs_dir={tmp_path}", "env.num_players=[2,3]", "n_envs=1",
                                        "total_timesteps=128", "eval.games=0"]))
    state = json.loads((run / "pool" / "state.json").read_text())
    assert state["results"], "no training game finished"
    assert "selfplay/train_winrate_2p" in tb_scalars(run) or "selfplay/train_winrate_3p" in tb_scalars(run)
    agent = load_checkpoint_agent(run / "final.zip")
    for n in (2, 3):
        env = fight5_v0.raw_env(num_players=n, num_bouts=1)
        play_game(env, [agent] + [RandomAgent() for _ in range(n - 1)], seed=n)
        assert env.game.is_terminal()


def test_same_seed_same_weights(tmp_path: Path) -> None:
    def weights(name: str) -> list[np.ndarray]:
        run = train_main(load_config(TINY, [f"runs_dir={tmp_path}", f"run_name={name}", "total_timesteps=128",
                                            "eval.games=0"]))
        policy, _ = load_policy(run / "final.zip")
        return [p.detach().numpy().copy() for p in policy.parameters()]

    threads = torch.get_num_threads()
    a, b = weights("a"), weights("b")
    assert torch.get_num_threads() == 1 and threads >= 1
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_pool_works_inside_subprocess_workers(tmp_path: Path) -> None:
    # Workers read the manifest and load snapshots from disk; their results come back in infos.
    run = train_main(load_config(TINY, [f"runs_dir={tmp_path}", "vec_env=subproc", "total_timesteps=256",
                                        "eval.games=0", "opponents.weights_start={random: 0.2, self: 0.8}",
                                        "opponents.weights_end={random: 0.2, self: 0.8}"]))
    results = json.loads((run / "pool" / "state.json").read_text())["results"]
    assert any(k.startswith("self@") for k in results), results
