"""Self-play on Ray RLlib (new API stack): multi-agent PPO with action masking, one shared learning
policy across seats, frozen past selves and scripted baselines as opponents through the policy
mapping (``fight_envs.train.rllib.league``), on an embedded local Ray or on an existing cluster.

A run lives in ``<runs_dir>/<run_name>/``::

    config.yaml             the resolved config (``fight_envs.train.rllib.config.load_rllib_config`` reads it)
    progress.jsonl          one line per iteration: steps, throughput, returns, league results
    tb/                     the same figures for TensorBoard (``rllib/...``, ``selfplay/...``)
    eval_history.jsonl      every evaluation's win rates (``fight_envs.train.callbacks.Evaluator``'s format)
    checkpoints/algo/       the newest full RLlib algorithm checkpoint (``Algorithm.from_checkpoint``)
    checkpoints/learner_<steps>/  the learning module at that step, exported as a suite agent
    final/                  the trained learner (``agents.make_agent("runs/<run>/final")``)
    summary.json            wall time, learner steps/s, env steps/s, the last evaluation

Every ``opponents.snapshot_every`` learner steps the learner's weights are copied into the next
snapshot slot (``self_0``.. ``self_{max_snapshots-1}``, oldest first out), and after every
iteration the opponent weights are recomputed from the learner's recent results against each
opponent and pushed to every env runner. Evaluation plays the learner as a suite agent against
the scripted baselines with ``fight_envs.agents.evaluate`` (duplicate deals, seats rotated), exactly as the
SB3 trainer does, so the two trainers' figures compare.
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

from fight_envs.agents.rllib_agent import save_rllib_module
from fight_envs.core.atomic import atomic_directory, atomic_write, existing_directory
from fight_envs.core.errors import ConfigError
from fight_envs.train.config import SELF, TrainingDiverged
from fight_envs.train.rllib.config import RLlibConfig, load_rllib_config, save_rllib_config

ENV_NAME = "fight_envs_rllib"
EMBEDDED_NODE_IP = "127.0.0.2"
METADATA_NAME = "fight_envs_agent.json"


def say(message: str) -> None:
    print(message, flush=True)


def game_of(env_name: str) -> str:
    return env_name.rsplit("_v", 1)[0]


# ---------------------------------------------------------------- Ray
def init_ray(config: RLlibConfig) -> bool:
    """Start an embedded Ray (on loopback, no dashboard) or join ``ray.address``; True if this call started it."""
    import ray

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no phoning home from a research box
    if ray.is_initialized():
        return False
    r = config.ray
    common = {"include_dashboard": False, "log_to_driver": True, "logging_level": "warning", "configure_logging": True}
    if r.address:
        ray.init(address=r.address, _node_ip_address=r.node_ip_address, **common)
    else:
        ray.init(num_cpus=r.num_cpus, object_store_memory=r.object_store_memory,
                 _node_ip_address=r.node_ip_address or embedded_node_ip(), **common)
    return True


def embedded_node_ip() -> str | None:
    """The address an embedded Ray registers, connects to and advertises: loopback.

    Ray replaces 127.0.0.1 by the machine's outward address (so that other nodes could reach
    it), which would send the trainer's own traffic through that interface. On Linux every
    127.x.y.z address is loopback and Ray keeps 127.0.0.2 as given; elsewhere Ray already uses
    127.0.0.1 for a single machine (None: its default).
    """
    return EMBEDDED_NODE_IP if sys.platform.startswith("linux") else None


def register_fight_env(env_name: str, api: str, env_options: dict[str, Any], player_counts: list[int]) -> None:
    """Register the suite env with Ray Tune's registry; env runner ``i`` plays ``player_counts[i % k]``."""
    from ray.tune.registry import register_env

    from fight_envs.wrappers.rllib import FightMultiAgentEnv

    def creator(ctx: Any) -> FightMultiAgentEnv:
        index = int(getattr(ctx, "worker_index", 0) or 0)
        count = player_counts[max(index - 1, 0) % len(player_counts)]
        return FightMultiAgentEnv({"env": env_name, "api": api, **env_options, "num_players": count})

    register_env(ENV_NAME, creator)


# ---------------------------------------------------------------- RLlib config
def module_ids(config: RLlibConfig) -> tuple[list[str], list[str], list[str]]:
    """(all module ids, the baselines', the snapshot slots')."""
    from fight_envs.train.rllib.league import LEARNER, snapshot_slot

    baselines = [n for n in config.opponents.names() if n != SELF]
    slots = [snapshot_slot(k) for k in range(config.opponents.max_snapshots)] if SELF in config.opponents.names() else []
    return [LEARNER, *baselines, *slots], baselines, slots


def learner_spec(config: RLlibConfig) -> Any:
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from fight_envs.train.rllib.modules import MaskedPPOTorchRLModule

    model = {**dataclasses.asdict(DefaultModelConfig(
        fcnet_hiddens=list(config.ppo.net_arch), fcnet_activation=config.ppo.activation, head_fcnet_hiddens=[],
        vf_share_layers=False)), "features": config.ppo.features_for(config.env.name)}
    return RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=model)


def build_algorithm_config(config: RLlibConfig) -> Any:
    """The RLlib ``PPOConfig`` for ``config`` (the env must be registered first)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from fight_envs.train.rllib.league import LEARNER, LeagueCallback, agent_to_module
    from fight_envs.train.rllib.modules import ScriptedAgentRLModule

    ids, baselines, slots = module_ids(config)
    game = game_of(config.env.name)
    specs = {LEARNER: learner_spec(config)}
    for k, name in enumerate(baselines):
        specs[name] = RLModuleSpec(module_class=ScriptedAgentRLModule,
                                   model_config={"game": game, "agent": name, "seed": config.seed * 1000 + k,
                                                 # the env's rules (Fifth-Earth's cards) for the baseline to judge by
                                                 "env": config.env.name,
                                                 "env_options": {**config.env.env_options(),
                                                                 "num_players": config.env.num_players[0]}})
    for slot in slots:
        specs[slot] = learner_spec(config)
    r, p = config.ray, config.ppo
    learners = max(1, r.num_learners)
    return (
        PPOConfig()
        .framework("torch")
        .environment(env=ENV_NAME, disable_env_checking=True)  # the suite's tests run RLlib's checker
        .env_runners(
            num_env_runners=r.num_env_runners,
            num_envs_per_env_runner=r.num_envs_per_env_runner,
            num_cpus_per_env_runner=r.num_cpus_per_env_runner,
            rollout_fragment_length=r.rollout_fragment_length or "auto",
        )
        .learners(num_learners=r.num_learners, num_cpus_per_learner=r.num_cpus_per_learner,
                  num_gpus_per_learner=r.num_gpus_per_learner)
        .training(
            lr=learning_rate(config), train_batch_size_per_learner=max(p.train_batch_size // learners, p.batch_size),
            minibatch_size=p.batch_size, num_epochs=p.n_epochs, gamma=p.gamma, lambda_=p.gae_lambda,
            clip_param=p.clip_range, entropy_coeff=p.ent_coef, vf_loss_coeff=p.vf_coef, vf_clip_param=p.vf_clip,
            grad_clip=p.max_grad_norm, grad_clip_by="global_norm",
        )
        .multi_agent(policies=set(ids), policy_mapping_fn=agent_to_module, policies_to_train=[LEARNER])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .callbacks(LeagueCallback)
        .debugging(seed=config.seed, log_level="WARN")
    )


def learning_rate(config: RLlibConfig) -> Any:
    """A constant rate, or RLlib's piecewise-linear schedule ``[[env_step, lr], ...]`` down to ~0 at the end."""
    from fight_envs.registry import spec

    lr = config.ppo.learning_rate
    if config.ppo.lr_schedule == "constant":
        return lr
    parallel = spec(config.env.name).native_parallel and config.ray.env_api != "aec"
    env_steps = config.total_timesteps * (1 if parallel else max(config.env.num_players))
    return [[0, lr], [env_steps, lr * 1e-3]]


# ---------------------------------------------------------------- the learner's weights
def learner_module(algo: Any, config: RLlibConfig) -> Any:
    """A fresh copy of the learning module, built here from the learner group's current state."""
    from fight_envs.train.rllib.league import LEARNER

    state = algo.learner_group.get_state(components=f"learner/rl_module/{LEARNER}")
    weights = state["learner"]["rl_module"][LEARNER]
    spec = learner_spec(config)
    spec.observation_space, spec.action_space = _spaces(config)
    module = spec.build()
    module.set_state(weights)
    return module


def _spaces(config: RLlibConfig) -> tuple[Any, Any]:
    from fight_envs.wrappers.rllib import FightMultiAgentEnv

    env = FightMultiAgentEnv(_adapter_options(config, config.env.num_players[0]))
    agent = env.possible_agents[0]
    return env.observation_spaces[agent], env.action_spaces[agent]


def _adapter_options(config: RLlibConfig, num_players: int) -> dict[str, Any]:
    return {"env": config.env.name, "api": config.ray.env_api, **config.env.env_options(), "num_players": num_players}


def export_learner(algo: Any, config: RLlibConfig, path: Path, step: int, label: str) -> Path:
    """Write the learner as a suite agent directory (module files + ``fight_envs_agent.json``)."""
    module = learner_module(algo, config)
    meta = {
        "game": game_of(config.env.name), "env": config.env.name,
        "env_options": {**config.env.env_options(), "num_players": config.env.num_players[0]},
        "num_players": config.env.num_players, "obs_key": "observations", "algo": "RLlib PPO",
        "num_timesteps": step, "label": label, "net_arch": config.ppo.net_arch, "activation": config.ppo.activation,
        "features": config.ppo.features_for(config.env.name),
    }
    return save_rllib_module(module, path, meta)  # data-only (no pickle), swapped in atomically


def copy_learner_to_slot(algo: Any, slot: str) -> None:
    """Freeze the learner's current weights into snapshot module ``slot`` (learner and env runners)."""
    from fight_envs.train.rllib.league import LEARNER

    state = algo.learner_group.get_state(components=f"learner/rl_module/{LEARNER}")
    weights = state["learner"]["rl_module"][LEARNER]
    algo.set_state({"learner_group": {"learner": {"rl_module": {slot: weights}}}})


# ---------------------------------------------------------------- the run
FIXED_SECTIONS = ("env", "ppo")
"""Config sections that define the learning problem and the network: a resumed run keeps them."""
LEAGUE_STATE = "league_state.json"


def prepare_run_dir(config: RLlibConfig) -> Path:
    if config.resume:
        run_dir = Path(config.resume)
        if existing_directory(run_dir / "checkpoints" / "algo") is None or not (run_dir / LEAGUE_STATE).is_file():
            raise ConfigError(f"resume={config.resume!r}: no checkpoints/algo and {LEAGUE_STATE} in it to resume from")
        saved = load_rllib_config(run_dir / "config.yaml")
        changed = [f"{section}.{key}: {getattr(getattr(saved, section), key)!r} -> {value!r}"
                   for section in FIXED_SECTIONS for key, value in vars(getattr(config, section)).items()
                   if getattr(getattr(saved, section), key) != value]
        if changed:
            raise ConfigError(f"resume={config.resume!r} cannot change the game or the network: {'; '.join(changed)}")
        done = int(json.loads((run_dir / LEAGUE_STATE).read_text())["learner_steps"])
        if done >= config.total_timesteps:
            raise ConfigError(f"resume={config.resume!r}: the run is at {done:,} learner steps already; "
                              f"pass a larger total_timesteps (now {config.total_timesteps:,})")
        save_rllib_config(dataclasses.replace(config, resume=None, run_name=run_dir.name), run_dir / "config.yaml")
        return run_dir
    name = config.run_name or f"{game_of(config.env.name)}_rllib_s{config.seed}_{time.strftime('%Y%m%d_%H%M%S')}"
    run_dir = Path(config.runs_dir) / name
    if run_dir.exists() and any(run_dir.iterdir()):
        raise ConfigError(f"run directory {run_dir} already exists and is not empty; choose another run_name")
    run_dir.mkdir(parents=True, exist_ok=True)
    save_rllib_config(config, run_dir / "config.yaml")
    return run_dir


LOSS_KEYS = ("total_loss", "policy_loss", "vf_loss")


def check_losses(result: dict[str, Any], steps: int) -> None:
    """Stop the run (TrainingDiverged) when an update's loss is NaN or infinite."""
    import math

    for module_id, stats in (result.get("learners") or {}).items():
        for key in LOSS_KEYS:
            value = stats.get(key) if isinstance(stats, dict) else None
            try:
                bad = value is not None and not math.isfinite(float(value))
            except (TypeError, ValueError):
                bad = False
            if bad:
                raise TrainingDiverged(f"the PPO {key} of module {module_id!r} became {value} after {steps:,} learner "
                                       "steps; lower ppo.learning_rate or ppo.max_grad_norm, then start again or resume "
                                       "from the last checkpoint")


def learner_steps(result: dict[str, Any]) -> int:
    """The learning module's lifetime sampled steps, from an RLlib result dict."""
    from fight_envs.train.rllib.league import LEARNER

    runners = result.get("env_runners", {})
    per_module = runners.get("num_module_steps_sampled_lifetime", {})
    if LEARNER in per_module:
        return int(per_module[LEARNER])
    raise KeyError(f"no learner step count in the result; env_runners keys: {sorted(runners)}")


def train_rllib(config: RLlibConfig, trust_checkpoint: bool = False) -> Path:
    """Train a self-play run on RLlib as ``config`` says; returns the run directory.

    Resuming restores RLlib's own algorithm checkpoint, which RLlib writes with pickle: it needs
    ``trust_checkpoint=True`` (``--trust-checkpoint``), checked before anything of the run is read.
    """
    import torch

    from fight_envs.agents.rllib_agent import RLlibModuleAgent
    from fight_envs.train.callbacks import Evaluator
    from fight_envs.train.opponents import OpponentPool, PoolEntry
    from fight_envs.train.rllib import league

    config.validate()
    if config.resume and not trust_checkpoint:
        raise ConfigError(
            f"resume={config.resume!r}: an RLlib run resumes from RLlib's algorithm checkpoint, which RLlib writes "
            "with pickle; unpickling runs any code the files carry. Resume only a run you trust: pass "
            "--trust-checkpoint (train_rllib(config, trust_checkpoint=True))"
        )
    if len(config.env.num_players) > max(1, config.ray.num_env_runners):
        raise ConfigError(
            f"env.num_players lists {len(config.env.num_players)} player counts but there are "
            f"{config.ray.num_env_runners} env runners; the RLlib trainer plays one count per env runner"
        )
    torch.set_num_threads(config.ray.torch_threads)
    torch.manual_seed(config.seed)
    run_dir = prepare_run_dir(config)
    game = game_of(config.env.name)
    say(f"[rllib] run {run_dir}")

    pool = OpponentPool(run_dir / "pool", config.opponents, game, config.total_timesteps)
    _, baselines, slots = module_ids(config)
    slot_of: dict[str, str] = {}  # pool entry id (self@<step>) -> module id
    start_steps = 0
    if config.resume:
        start_steps = load_league_state(run_dir / LEAGUE_STATE, pool)
        slot_of = {entry.id: entry.spec for entry in pool.active_snapshots()}
        say(f"[rllib] resuming from {start_steps:,} learner steps, {len(slot_of)} snapshots in the pool")

    def module_weights(step: int) -> dict[str, float]:
        return {slot_of.get(k, k): w for k, w in pool.weights(step).items()}

    started_ray = init_ray(config)
    algo = None
    try:
        register_fight_env(config.env.name, config.ray.env_api, config.env.env_options(), config.env.num_players)
        algo = build_algorithm_config(config).build_algo()
        if config.resume:
            algo_dir = existing_directory(run_dir / "checkpoints" / "algo")
            assert algo_dir is not None  # prepare_run_dir checked it
            algo.restore_from_path(str(algo_dir.resolve()))
        league.set_weights(module_weights(start_steps))
        algo.env_runner_group.foreach_env_runner(lambda runner, w=module_weights(start_steps): league.sync(w),
                                                 local_env_runner=True)
        evaluator = Evaluator(config.eval, config.env.name, config.env.env_options(), game, config.seed,
                              run_dir / "eval_history.jsonl")
        progress = (run_dir / "progress.jsonl").open("a")
        board = tensorboard_writer(run_dir / "tb")
        t0 = time.perf_counter()
        steps, env_steps = start_steps, 0
        last_snapshot = max((e.step for e in pool.snapshots), default=0)
        next_snapshot = last_snapshot + config.opponents.snapshot_every
        next_checkpoint = steps + config.checkpoint_every
        next_eval = (max((r["step"] for r in evaluator.history), default=0) + config.eval.every
                     if evaluator.history else config.eval.every)
        last_eval: dict[str, float] = {}
        iteration = 0
        start_env_steps = None
        offset = None  # RLlib restores its step counters with the checkpoint; if not, count on from the saved steps
        while steps < config.total_timesteps:
            result = algo.train()
            check_losses(result, steps)
            iteration = int(getattr(algo, "iteration", iteration + 1))  # restored with a resumed checkpoint
            if offset is None:
                offset = start_steps if learner_steps(result) < start_steps else 0
            steps = offset + learner_steps(result)
            env_steps = int(result["env_runners"].get("num_env_steps_sampled_lifetime", 0))
            if start_env_steps is None:  # this session's first iteration: what the restored counter held before it
                start_env_steps = env_steps - int(result["env_runners"].get("num_env_steps_sampled", 0))
            weights = module_weights(steps)
            reports = algo.env_runner_group.foreach_env_runner(lambda runner, w=weights: league.sync(w),
                                                               local_env_runner=True)
            recorded = [r for batch in reports for r in batch]
            for opponents, credit in recorded:
                ids = [next((e for e, s in slot_of.items() if s == o), o) for o in opponents]
                pool.record(ids, credit)
            if slots and steps >= next_snapshot:
                entry_id = f"self@{steps}"
                slot = slots[len(pool.snapshots) % len(slots)]
                copy_learner_to_slot(algo, slot)
                for old_id in [e for e, s in slot_of.items() if s == slot]:
                    del slot_of[old_id]
                slot_of[entry_id] = slot
                pool.snapshots.append(PoolEntry(entry_id, "snapshot", slot, steps))
                next_snapshot = steps + config.opponents.snapshot_every
            wall = time.perf_counter() - t0
            line = {
                "iteration": iteration, "learner_steps": steps, "env_steps": env_steps, "wall_s": round(wall, 2),
                "learner_steps_per_s": round((steps - start_steps) / wall, 1), "games": len(recorded),
                # this iteration's seconds sampling (all env runners, in parallel) and updating
                "sample_s": round(float(result.get("timers", {}).get("env_runner_sampling_timer", 0.0)), 3),
                "update_s": round(float(result.get("timers", {}).get("learner_update_timer", 0.0)), 3),
                "train_winrate": round(sum(c for _, c in recorded) / len(recorded), 4) if recorded else None,
                "weights": {k: round(v, 4) for k, v in weights.items()},
            }
            if config.eval.games and steps >= next_eval:
                agent = RLlibModuleAgent(learner_module(algo, config), deterministic=config.eval.deterministic,
                                         name=f"learner@{steps}")
                last_eval = evaluator.run_agent(agent, steps)
                line["eval"] = last_eval
                next_eval = steps + config.eval.every
            progress.write(json.dumps(line) + "\n")
            log_scalars(board, line, result, steps)
            progress.flush()
            say(f"[rllib] iter {iteration}: {steps:,} learner steps, {line['learner_steps_per_s']:,.0f}/s"
                + (f", train win rate {line['train_winrate']:.2f}" if recorded else "")
                + (f", eval {last_eval}" if "eval" in line else ""))
            if steps >= next_checkpoint:
                save_checkpoint(algo, config, run_dir, steps, pool)
                next_checkpoint = steps + config.checkpoint_every
        progress.close()
        if board is not None:
            board.close()
        wall = time.perf_counter() - t0
        # Where the samples came from: one entry per env runner (its node and what it sampled).
        runners = algo.env_runner_group.foreach_env_runner(lambda runner: league.sampled(), local_env_runner=False)
        save_checkpoint(algo, config, run_dir, steps, pool)
        export_learner(algo, config, run_dir / "final", steps, f"{run_dir.name}@{steps}")
        summary = {
            "learner_steps": steps, "env_steps": env_steps, "iterations": iteration, "wall_s": round(wall, 1),
            "learner_steps_per_s": round((steps - start_steps) / wall, 1),
            "env_steps_per_s": round((env_steps - (start_env_steps or 0)) / wall, 1), "resumed_from": start_steps,
            "num_env_runners": config.ray.num_env_runners, "num_learners": config.ray.num_learners,
            "env_runners": runners, "last_eval": last_eval, "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
            "ray_address": config.ray.address or f"embedded ({config.ray.node_ip_address or embedded_node_ip() or 'loopback'})",
        }
        atomic_write(run_dir / "summary.json", json.dumps(summary, indent=1))
        say(f"[rllib] done: {steps:,} learner steps in {wall:.0f} s; final learner in {run_dir / 'final'}")
        return run_dir
    finally:
        if algo is not None:
            algo.stop()
        if started_ray:
            import ray

            ray.shutdown()


def tensorboard_writer(path: Path) -> Any:
    """A TensorBoard writer for ``tb/`` (``tensorboard --logdir runs``), or None without tensorboard."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:  # pragma: no cover - tensorboard is in the train extra
        return None
    return SummaryWriter(str(path))


def log_scalars(board: Any, line: dict[str, Any], result: dict[str, Any], steps: int) -> None:
    """One iteration's figures under ``rllib/`` (the SB3 trainer's ``selfplay/`` names where they mean the same)."""
    if board is None:
        return
    scalars = {
        "rllib/learner_steps_per_s": line["learner_steps_per_s"], "rllib/sample_s": line["sample_s"],
        "rllib/update_s": line["update_s"],
    }
    returns = result.get("env_runners", {}).get("module_episode_returns_mean", {})
    if "learner" in returns:
        scalars["rllib/learner_episode_return"] = returns["learner"]
    if line.get("train_winrate") is not None:
        scalars["selfplay/train_winrate"] = line["train_winrate"]
    for name, weight in line["weights"].items():
        scalars[f"selfplay/weight_{name}"] = weight
    for name, winrate in line.get("eval", {}).items():
        scalars[f"selfplay/winrate_vs_{name}"] = winrate
    for key, value in scalars.items():
        board.add_scalar(key, float(value), steps)
    board.flush()


def save_checkpoint(algo: Any, config: RLlibConfig, run_dir: Path, steps: int, pool: Any) -> None:
    """The newest full algorithm checkpoint (replaced), the league's state, and the learner exported at this step."""
    with atomic_directory(run_dir / "checkpoints" / "algo") as tmp:  # the previous one stays until this is complete
        algo.save_to_path(str(tmp.resolve()))
    state = {"learner_steps": steps, "snapshots": [vars(s) for s in pool.snapshots],
             "results": {k: list(v) for k, v in pool.results.items()}}
    atomic_write(run_dir / LEAGUE_STATE, json.dumps(state, indent=1))  # never half-written next to a newer algo checkpoint
    export_learner(algo, config, run_dir / "checkpoints" / f"learner_{steps:010d}", steps, f"{run_dir.name}@{steps}")


def load_league_state(path: Path, pool: Any) -> int:
    """Restore the pool's snapshots (their module slots) and recent results; returns the saved learner steps."""
    from collections import deque

    from fight_envs.train.opponents import PoolEntry

    state = json.loads(path.read_text())
    pool.snapshots = [PoolEntry(**s) for s in state["snapshots"]]
    pool.results = {k: deque(v, maxlen=pool.config.winrate_window) for k, v in state["results"].items()}
    return int(state["learner_steps"])
