"""RLlib self-play end to end on a local Ray: two tiny iterations, checkpoints that load as suite
agents, snapshots that copy the learner, and config errors that name the key."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fight_envs.agents.evaluate import evaluate
from fight_envs.agents.registry import make_agent
from fight_envs.agents.rllib_agent import RLlibCheckpointError, RLlibModuleAgent, load_rllib_agent
from fight_envs.core.errors import ConfigError
from fight_envs.registry import make
from fight_envs.train.cli import resolve_agent_spec
from fight_envs.train.rllib.config import load_rllib_config

TINY = [
    "total_timesteps=512", "ppo.train_batch_size=256", "ppo.batch_size=128", "ppo.n_epochs=1", "ppo.net_arch=[32]",
    "ray.num_env_runners=1", "ray.num_envs_per_env_runner=2", "ray.num_cpus=2", "ray.object_store_memory=100000000",
    "opponents.snapshot_every=200", "opponents.max_snapshots=2", "eval.every=256", "eval.games=2", "checkpoint_every=256",
]


@pytest.fixture(scope="module")
def local_ray():
    import ray

    from fight_envs.train.rllib.trainer import init_ray

    config = load_rllib_config(None, TINY)
    started = init_ray(config)
    yield
    if started:
        ray.shutdown()


@pytest.fixture(scope="module")
def trained_run(local_ray, tmp_path_factory):
    from fight_envs.train.rllib.trainer import train_rllib

    runs = tmp_path_factory.mktemp("runs")
    config = load_rllib_config(None, TINY + [f"runs_dir={runs}", "run_name=tiny"])
    return train_rllib(config)


def test_two_iterations_write_progress_checkpoints_and_evaluation(trained_run):
    lines = [json.loads(x) for x in (trained_run / "progress.jsonl").read_text().splitlines()]
    assert len(lines) == 2
    assert 256 <= lines[0]["learner_steps"] < lines[1]["learner_steps"]
    assert "self_0" not in lines[0]["weights"] or lines[0]["learner_steps"] >= 200
    assert "self_0" in lines[1]["weights"], "a snapshot of the learner joined the opponent mix"
    assert set(lines[1]["eval"]) == {"random", "greedy", "heuristic"}
    history = [json.loads(x) for x in (trained_run / "eval_history.jsonl").read_text().splitlines()]
    assert {row["opponent"] for row in history} == {"random", "greedy", "heuristic"}
    summary = json.loads((trained_run / "summary.json").read_text())
    assert summary["learner_steps"] == lines[-1]["learner_steps"] and summary["learner_steps_per_s"] > 0
    # the embedded Ray stays on loopback: its env runner ran on a node registered at a 127.x address
    assert [r["node_ip"].startswith("127.") for r in summary["env_runners"]] == [True]
    assert summary["env_runners"][0]["env_steps"] >= 512
    assert (trained_run / "checkpoints" / "algo").is_dir()
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    board = EventAccumulator(str(trained_run / "tb"))
    board.Reload()
    tags = set(board.Tags()["scalars"])
    assert {"rllib/learner_steps_per_s", "selfplay/train_winrate", "selfplay/winrate_vs_heuristic"} <= tags, tags
    assert len(board.Scalars("rllib/learner_steps_per_s")) == 2
    assert sorted(p.name for p in (trained_run / "checkpoints").glob("learner_*"))


def test_checkpoints_load_as_suite_agents_and_play(trained_run):
    final = make_agent(resolve_agent_spec(str(trained_run)), game="fight5", seed=0)
    assert isinstance(final, RLlibModuleAgent)
    assert final.metadata["game"] == "fight5" and final.label.startswith("tiny@")
    with pytest.raises(RLlibCheckpointError, match="pickled RLlib checkpoint"):
        load_rllib_agent(trained_run / "checkpoints" / "algo")  # RLlib's own layout: pickles, so only with trust
    algo_ckpt = load_rllib_agent(trained_run / "checkpoints" / "algo", trust=True)
    env = make("fight5_v0", api="raw")
    env.reset(seed=3)
    o = env.observe(env.agent_selection)
    # the final export and the last algorithm checkpoint hold the same learner
    np.testing.assert_allclose(final.logits(o["observation"][None], o["action_mask"][None]),
                               algo_ckpt.logits(o["observation"][None], o["action_mask"][None]), rtol=1e-6)
    result = evaluate(lambda: make("fight5_v0", api="raw", num_players=2),
                      [final, make_agent("random", "fight5", seed=1)], num_deals=2)
    assert result.stats[0].games == 4  # every game played with legal actions only (the raw env raises otherwise)


def test_loading_checks_the_game_and_the_directory(trained_run, tmp_path):
    with pytest.raises(RLlibCheckpointError, match="trained on 'fight5', not 'brawl'"):
        load_rllib_agent(trained_run / "final", game="brawl")
    with pytest.raises(RLlibCheckpointError, match="no module 'nope'"):
        load_rllib_agent(trained_run / "checkpoints" / "algo", module_id="nope")
    with pytest.raises(RLlibCheckpointError, match="not an RLlib checkpoint"):
        load_rllib_agent(tmp_path)
    with pytest.raises(ValueError, match="not an RLlib checkpoint"):
        make_agent(str(tmp_path), game="fight5")


def test_a_snapshot_slot_gets_the_learners_weights(local_ray):
    from fight_envs.train.rllib.trainer import build_algorithm_config, copy_learner_to_slot, register_fight_env

    config = load_rllib_config(None, TINY + ["ray.num_env_runners=0"])
    register_fight_env(config.env.name, "auto", config.env.env_options(), config.env.num_players)
    algo = build_algorithm_config(config).build_algo()
    try:
        def weights(module_id):
            state = algo.learner_group.get_state(components=f"learner/rl_module/{module_id}")
            return state["learner"]["rl_module"][module_id]

        learner, before = weights("learner"), weights("self_1")
        key = next(k for k in learner if k.endswith("weight"))
        assert not np.allclose(learner[key], before[key])
        copy_learner_to_slot(algo, "self_1")
        after = weights("self_1")
        assert all(np.allclose(learner[k], after[k]) for k in learner)
        runner_module = algo.env_runner.module["self_1"]  # the env runners got the copy too
        runner_state = runner_module.get_state()
        assert np.allclose(np.asarray(runner_state[key]), learner[key])
    finally:
        algo.stop()


@pytest.mark.parametrize("override, message", [
    (["ray.nope=1"], "unknown config key 'ray.nope'"),
    (["ppo.batch_size=9000"], "must not exceed ppo.train_batch_size"),
    (["ray.env_api=both"], "ray.env_api must be one of"),
    (["opponents.weights_start={self: 1}"], "needs a positive weight on at least one baseline"),
])
def test_config_errors_name_the_key(override, message):
    with pytest.raises(ConfigError, match=message):
        load_rllib_config(None, override)


def test_more_player_counts_than_env_runners_is_refused_before_ray_starts(tmp_path):
    from fight_envs.train.rllib.trainer import train_rllib

    config = load_rllib_config(None, ["env.num_players=[2, 3]", "ray.num_env_runners=1", f"runs_dir={tmp_path}"])
    with pytest.raises(ConfigError, match="one count per env runner"):
        train_rllib(config)
    assert not any(tmp_path.iterdir())


def test_the_docs_example_builds_and_samples(local_ray):
    """docs/rllib.md's "your own RLlib code" block runs as written."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "rllib.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "build_algo" in b)
    namespace: dict = {}
    exec(compile(block, "docs/rllib.md", "exec"), namespace)
    algo = namespace["algo"]
    try:
        assert "shared" in algo.config.policies
        sampled = algo.env_runner_group.foreach_env_runner(
            lambda r: sum(int(e.agent_steps()) for e in r.sample(num_timesteps=40)), local_env_runner=False)
        assert sampled and all(n > 0 for n in sampled)
    finally:
        algo.stop()


@pytest.mark.parametrize("overrides", [
    ["env.name=brawl_v0", "env.num_players=[3]", "env.reward=rank", "opponents.weights_start={random: 1, heuristic: 1}"],
    ["env.name=fifth_earth_v0", "env.reward=outcome", "opponents.weights_start={random: 1, heuristic: 1}"],
    ["env.name=fight_klub_v0", "env.reward=outcome", "opponents.weights_start={random: 1, heuristic: 1}"],
    ["ray.env_api=aec", "env.num_players=[3]"],
], ids=["brawl-3p", "fifth_earth", "fight_klub", "fight5-aec-3p"])
def test_every_game_samples_through_rllibs_env_runner(local_ray, overrides):
    """Each game, turn-based ones included, through RLlib's own sampling loop with the league's mapping."""
    from fight_envs.train.rllib import league
    from fight_envs.train.rllib.trainer import build_algorithm_config, register_fight_env

    config = load_rllib_config(None, TINY + ["ray.num_env_runners=0", "opponents.weights_end={random: 1}", *overrides])
    register_fight_env(config.env.name, config.ray.env_api, config.env.env_options(), config.env.num_players)
    algo = build_algorithm_config(config).build_algo()
    try:
        league.sync({name: 1.0 for name in config.opponents.weights_start})
        episodes = algo.env_runner.sample(num_timesteps=400)
        done = [e for e in episodes if e.is_done]
        modules = {e.module_for(a) for e in episodes for a in e.agent_ids}
        assert league.LEARNER in modules and modules - {league.LEARNER}
        assert sum(e.env_steps() for e in episodes) >= 400  # RLlib counts env steps here
        results = league.sync({"random": 1.0})
        assert len(results) == len(done) and all(0.0 <= credit <= 1.0 for _, credit in results)
    finally:
        algo.stop()


def test_a_run_resumes_from_its_checkpoint(trained_run):
    """resume=<run> continues the counters, the league's snapshots and the evaluation history."""
    import shutil

    from fight_envs.train.rllib.trainer import train_rllib

    run = trained_run.parent / "tiny_resumed"
    shutil.copytree(trained_run, run)
    before = [json.loads(x) for x in (run / "progress.jsonl").read_text().splitlines()]
    league_before = json.loads((run / "league_state.json").read_text())
    assert league_before["snapshots"], "the tiny run took a snapshot"
    config = load_rllib_config(None, [f"resume={run}", "total_timesteps=768"])
    assert config.run_name == "tiny" and config.ppo.net_arch == [32]  # the run's own config is the base
    with pytest.raises(ConfigError, match="with pickle; unpickling runs any code"):
        train_rllib(config)  # RLlib's algorithm checkpoint is pickled: resuming needs trust
    train_rllib(config, trust_checkpoint=True)
    after = [json.loads(x) for x in (run / "progress.jsonl").read_text().splitlines()]
    assert len(after) == len(before) + 1
    assert after[-1]["learner_steps"] > before[-1]["learner_steps"] >= 512
    assert after[-1]["iteration"] == before[-1]["iteration"] + 1
    league_after = json.loads((run / "league_state.json").read_text())
    assert league_after["snapshots"][: len(league_before["snapshots"])] == league_before["snapshots"]
    assert json.loads((run / "summary.json").read_text())["resumed_from"] == before[-1]["learner_steps"]
    with pytest.raises(ConfigError, match="cannot change the game or the network"):
        train_rllib(load_rllib_config(None, [f"resume={run}", "ppo.net_arch=[64]", "total_timesteps=2000"]), trust_checkpoint=True)
    saved = (run / "config.yaml").read_text()
    with pytest.raises(ConfigError, match="pass a larger total_timesteps"):
        train_rllib(load_rllib_config(None, [f"resume={run}", "total_timesteps=600"]), trust_checkpoint=True)
    assert (run / "config.yaml").read_text() == saved, "a refused resume leaves the run as it was"
    with pytest.raises(ConfigError, match="resume takes a run directory"):
        load_rllib_config(None, [f"resume={run / 'nope'}"])
