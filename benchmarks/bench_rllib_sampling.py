"""RLlib sampling and training throughput on this machine, with 1 and 2 env runners (issue 8).

Lines, all in one run on an embedded local Ray (on loopback):

* ``reference``: one Python loop stepping the same ``FightMultiAgentEnv`` with uniformly random
  legal actions, no Ray, no network: what the env alone costs.
* ``sample, R runners``: ``configs/rllib_fight5.yaml`` with ``ray.num_env_runners=R``; every
  remote env runner samples ``--steps`` env steps at once (``EnvRunner.sample``, the learner and
  the opponents acting through their RLModules, the opponent mix at its start weights), timed
  from the driver: env steps and agent steps per second, all runners together.
* ``train, R runners``: ``algo.train()`` iterations (sampling plus the PPO update, in the driver
  process since ``num_learners=0``): learner decisions per second; and the update alone
  (``train_batch_size`` over RLlib's ``learner_update_timer``, the median iteration): how many
  learner decisions one CPU learner digests per second.

The ratio column divides by ``reference``. Run from the repository root::

    python benchmarks/bench_rllib_sampling.py [--steps 4000] [--iterations 2] [--runners 1 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's packages

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "configs" / "rllib_fight5.yaml"


def reference(config, steps: int) -> dict[str, float]:
    from fight_envs.wrappers.rllib import FightMultiAgentEnv
    from fight_envs.train.rllib.trainer import _adapter_options

    env = FightMultiAgentEnv(_adapter_options(config, config.env.num_players[0]))
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    env_steps = agent_steps = 0
    t0 = time.perf_counter()
    while env_steps < steps:
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        agent_steps += len(actions)
        obs, _, term, trunc, _ = env.step(actions)
        env_steps += 1
        if term["__all__"] or trunc["__all__"]:
            obs, _ = env.reset(seed=env_steps)
    wall = time.perf_counter() - t0
    return {"env_steps_per_s": env_steps / wall, "agent_steps_per_s": agent_steps / wall}


def measure(config, runners: int, steps: int, iterations: int) -> dict[str, float]:
    from fight_envs.train.rllib import league
    from fight_envs.train.rllib.trainer import build_algorithm_config, learner_steps

    config.ray.num_env_runners = runners
    algo = build_algorithm_config(config).build_algo()
    try:
        from fight_envs.train.opponents import OpponentPool  # the start mix, as a run's first iteration has it
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            weights = OpponentPool(tmp, config.opponents, "fight5", config.total_timesteps).weights(0)
        group = algo.env_runner_group
        group.foreach_env_runner(lambda r, w=weights: league.sync(w), local_env_runner=True)

        def sample(r, n=steps):
            episodes = r.sample(num_timesteps=n)
            return sum(int(e.env_steps()) for e in episodes), sum(int(e.agent_steps()) for e in episodes)

        group.foreach_env_runner(lambda r: sample(r, 200), local_env_runner=False)  # warm-up
        t0 = time.perf_counter()
        counts = group.foreach_env_runner(sample, local_env_runner=False)
        wall = time.perf_counter() - t0
        env_steps = sum(c[0] for c in counts)
        agent_steps = sum(c[1] for c in counts)
        algo.train()  # warm-up iteration
        before = learner_steps(algo.train())
        t1 = time.perf_counter()
        after = before
        update_s = []
        for _ in range(iterations):
            result = algo.train()
            update_s.append(float(result["timers"]["learner_update_timer"]))
            after = learner_steps(result)
        train_wall = time.perf_counter() - t1
        return {"env_steps_per_s": env_steps / wall, "agent_steps_per_s": agent_steps / wall,
                "train_learner_steps_per_s": (after - before) / train_wall,
                "update_learner_steps_per_s": config.ppo.train_batch_size / float(np.median(update_s))}
    finally:
        algo.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=4000, help="env steps each runner samples (default 4000)")
    parser.add_argument("--iterations", type=int, default=2, help="timed training iterations (default 2)")
    parser.add_argument("--runners", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--json", default=None)
    args = parser.parse_args()

    import ray
    import torch

    from fight_envs.train.rllib.config import load_rllib_config
    from fight_envs.train.rllib.trainer import init_ray, register_fight_env

    torch.set_num_threads(1)
    config = load_rllib_config(CONFIG, ["eval.games=0"])
    init_ray(config)
    register_fight_env(config.env.name, config.ray.env_api, config.env.env_options(), config.env.num_players)
    rows = {"reference": reference(config, args.steps)}
    for r in args.runners:
        rows[f"{r} runner" + ("s" if r > 1 else "")] = measure(config, r, args.steps, args.iterations)
    ray.shutdown()

    ref = rows["reference"]["env_steps_per_s"]
    print(f"RLlib sampling, {config.env.name} {config.env.num_players[0]} players, "
          f"{config.ray.num_envs_per_env_runner} envs per runner; {platform.machine()}, {os.cpu_count()} CPUs, "
          f"load {open('/proc/loadavg').read().split()[0]}")
    print(f"{'line':<12} {'env steps/s':>12} {'agent steps/s':>14} {'x reference':>12} {'train learner steps/s':>22} "
          f"{'update learner steps/s':>23}")
    for name, row in rows.items():
        train, update = row.get("train_learner_steps_per_s"), row.get("update_learner_steps_per_s")
        print(f"{name:<12} {row['env_steps_per_s']:>12,.0f} {row['agent_steps_per_s']:>14,.0f} "
              f"{row['env_steps_per_s'] / ref:>12.2f} {'' if train is None else f'{train:,.0f}':>22} "
              f"{'' if update is None else f'{update:,.0f}':>23}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
