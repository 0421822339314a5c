"""Self-play training with sb3-contrib's MaskablePPO, readable top to bottom (``train_main``).

A run lives in ``<runs_dir>/<run_name>/``::

    config.yaml          the resolved config (``fight_envs.train.config.load_config`` reads it back)
    tb/                  TensorBoard events (SB3's own scalars, and ``selfplay/...``)
    checkpoints/         step_<timesteps>.zip training checkpoints (resume points) + .json sidecars
    pool/                the opponent pool: snapshots, manifest.json, state.json
    pretrain.json        with ``pretrain.games`` > 0: the behaviour cloning's data size and agreement (imitation)
    eval_history.jsonl   every evaluation's win rates (the rating is fitted on them)
    summary.json         wall time and steps/s over all sessions, the last evaluation
    final.zip            the trained model + final.json (its sidecar; see fight_envs.agents.checkpoint)

Every checkpoint is in fight-envs' data-only format (network by name in JSON, tensors read with
``torch.load(weights_only=True)``): resuming and loading run no code from the files. Every file is
written atomically (``fight_envs.core.atomic``), except the append-only logs (TensorBoard events).

The learner is one network for every player count in ``env.num_players``: ``n_envs`` envs per
count, each a ``SingleAgentEnv`` whose opponents come from the pool, and whose observation is
padded to the largest game by the env itself; or, with ``vec_env: batched`` (Fight 5), one
``fight_envs.train.batched_vec_env.BatchedFight5VecEnv`` stepping ``n_envs`` games per count as arrays.
``resume=<run dir>`` continues from the newest
checkpoint: the timestep counter, the TensorBoard directory, the pool and the evaluation
history carry on. ``init_from=<model>`` starts a new run from a trained model's weights instead
of a fresh network (``load_init_policy`` checks that it fits, before the run directory exists).
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.logger import configure
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

from fight_envs.agents.checkpoint import (
    CheckpointError,
    checkpoint_kind,
    checkpoint_metadata,
    load_policy,
    load_training_state,
    played_shape,
    policy_spec,
    read_metadata,
    save_checkpoint,
    untrusted_error,
)
from fight_envs.core.atomic import atomic_write
from fight_envs.core.errors import ConfigError
from fight_envs.train.callbacks import (
    CheckpointCallback,
    EvalCallback,
    Evaluator,
    PoolCallback,
    ProgressLogCallback,
    checkpoint_name,
    list_checkpoints,
)
from fight_envs.train.config import SELF, Config, TrainingDiverged, load_config, save_config
from fight_envs.train.fast_ppo import FastMaskablePPO
from fight_envs.train.features import (
    FastMaskableRolloutBuffer,
    PrivilegedCriticPolicy,
    features_kwargs,
    load_weights,
    policy_class,
)
from fight_envs.train.opponents import OpponentPool, PoolOpponentSampler
from fight_envs.wrappers.single_agent import SingleAgentEnv

ACTIVATION_FNS: dict[str, type[torch.nn.Module]] = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}
SUBPROC_MIN_CPUS = 4
MODEL_SECTIONS = ("env", "ppo")
"""Config sections that define the learning problem and the network: fixed for a run's life."""


def game_of(env_name: str) -> str:
    """``fight5_v0`` -> ``fight5``: the game name agents and checkpoints are tagged with."""
    return env_name.rsplit("_v", 1)[0]


def train_main(config: Config, trust_checkpoint: bool = False) -> Path:
    """Train (or resume) a self-play run as ``config`` says; returns the run directory.

    Everything that can be checked is checked before the run directory is touched
    (:func:`preflight`). Resuming takes the newest readable checkpoint (an unreadable one is
    reported and skipped); a pickled SB3 checkpoint of an older fight-envs resumes only with
    ``trust_checkpoint=True`` (``--trust-checkpoint``).
    """
    config.validate()
    preflight(config)
    # a warm start's model, read and checked against the run's env and network before anything is written
    init_policy = load_init_policy(config, trust_checkpoint) if config.init_from and not config.resume else None

    # ---- Seeding and threads: the only global state a run sets (torch, and SB3's own seeding).
    torch.set_num_threads(config.torch_threads)
    torch.manual_seed(config.seed)

    run_dir, resume_from, resume_state = prepare_run_dir(config, trust_checkpoint)
    game = game_of(config.env.name)
    say(f"[selfplay] run {run_dir}" + (f", resuming from {resume_from.name}" if resume_from else ""))

    # ---- Opponent pool: written before the envs exist, since their first reset reads it.
    pool = OpponentPool(run_dir / "pool", config.opponents, game, config.total_timesteps)
    start_steps = checkpoint_steps(resume_from)
    if resume_from is not None:
        pool.load_state(up_to_step=start_steps, warn=say)
    pool.write_manifest(start_steps)

    # ---- Rollout envs: n_envs per player count, one learner seat each, opponents from the pool.
    vec_env = make_vec_env(config, pool.manifest_path)
    if getattr(vec_env, "worker_cpus", None) is not None:
        say(f"[selfplay] {config.workers} worker processes, pinned to CPUs {vec_env.worker_cpus} "
            f"(pin_workers: {config.pin_workers})")
    # the env's observation (a privileged critic's hidden-state columns, appended in training, are not part of it)
    obs_shape = (int(getattr(vec_env, "observation_size", vec_env.observation_space.shape[0])),
                 *vec_env.observation_space.shape[1:])
    num_actions = int(vec_env.action_space.n)
    privileged_columns = int(vec_env.observation_space.shape[0]) - obs_shape[0]

    def metadata(step: int, label: str | None = None) -> dict[str, Any]:
        return checkpoint_metadata(
            game=game, env=config.env.name, num_players=config.env.num_players, observation_shape=obs_shape,
            num_actions=num_actions, env_options=config.env.env_options(), algo="MaskablePPO",
            num_timesteps=step, run=run_dir.name, label=label or f"{run_dir.name}@{step}",
        )

    # ---- The learner.
    if resume_from is not None and resume_state is None:  # a trusted pickled checkpoint of an older fight-envs
        model = FastMaskablePPO.load(resume_from, env=vec_env, device=config.device)
    else:
        # sb3-contrib's MaskablePPO, MlpPolicy and rollout buffer, computed with fewer operations
        # (same math; fight_envs.train.fast_ppo, fight_envs.train.features).
        model = FastMaskablePPO(
            policy_class(config.ppo.features, config.ppo.critic),
            vec_env,
            rollout_buffer_class=FastMaskableRolloutBuffer,
            learning_rate=learning_rate_schedule(config.ppo.learning_rate, config.ppo.lr_schedule),
            n_steps=config.ppo.n_steps,
            batch_size=config.ppo.batch_size,
            n_epochs=config.ppo.n_epochs,
            gamma=config.ppo.gamma,
            gae_lambda=config.ppo.gae_lambda,
            clip_range=config.ppo.clip_range,
            ent_coef=config.ppo.ent_coef,
            vf_coef=config.ppo.vf_coef,
            max_grad_norm=config.ppo.max_grad_norm,
            target_kl=config.ppo.target_kl,
            policy_kwargs={"net_arch": list(config.ppo.net_arch), "activation_fn": ACTIVATION_FNS[config.ppo.activation],
                           **features_kwargs(config.ppo.features, privileged_columns)},
            seed=config.seed,
            device=config.device,
            verbose=0,
        )
        if resume_state is not None:
            restore_training_state(model, resume_state, resume_from)
    dagger = config.pretrain.mode == "dagger"
    if init_policy is not None and resume_from is None:
        load_weights(model.policy, init_policy)  # the same network (or its privileged-critic form): load_init_policy checked it
        say(f"[selfplay] starting from the weights of {config.init_from} (a fresh optimizer"
            + ("; DAgger on its games next)" if dagger and config.pretrain.games > 0 else "; no pretraining)"))
    if resume_from is None and config.pretrain.games > 0 and (init_policy is None or dagger):
        # Behaviour cloning of a teacher before the first rollout, or DAgger on the warm start's own games
        # (fight_envs.train.imitation).
        from fight_envs.train.imitation import pretrain

        result = pretrain(model, config, log=say, student_metadata=metadata(0, f"{config.init_from} (DAgger student)"))
        atomic_write(run_dir / "pretrain.json", json.dumps(result, indent=2) + "\n")
    if resume_from is not None:
        # Reseed from the run seed and the step reached, so a resume is reproducible too.
        model.set_random_seed(config.seed + model.num_timesteps)
    # One TensorBoard directory per run: a resumed run appends a new events file to it.
    model.set_logger(configure(str(run_dir / "tb"), ["tensorboard"]))

    # ---- Callbacks: pool upkeep, checkpoints, evaluation, progress.
    pool_cb = PoolCallback(pool, config.opponents.snapshot_every, metadata)
    evaluator = Evaluator(config.eval, config.env.name, config.env.env_options(), game,
                          seed=config.seed, history_path=run_dir / "eval_history.jsonl")
    if resume_from is not None:  # evaluations after the checkpoint resumed (a skipped newer one) are dropped
        kept = [row for row in evaluator.history if row["step"] <= start_steps]
        if len(kept) != len(evaluator.history) and (run_dir / "eval_history.jsonl").is_file():
            atomic_write(run_dir / "eval_history.jsonl", "".join(json.dumps(row) + "\n" for row in kept))
        evaluator.history = kept
    eval_cb = EvalCallback(evaluator, config.eval.every) if config.eval.games > 0 and config.eval.baselines else None
    ckpt_cb = CheckpointCallback(run_dir / "checkpoints", config.checkpoint_every, config.keep_checkpoints,
                                 metadata, on_save=pool.save_state)
    callbacks: list[BaseCallback] = [DivergenceCallback(), pool_cb, ckpt_cb] + ([eval_cb] if eval_cb else [])
    progress = config.progress
    if progress == "auto":
        progress = "bar" if sys.stderr.isatty() else "log"
    if progress == "log":
        callbacks.append(ProgressLogCallback(config.total_timesteps, config.log_every_s, pool_cb, eval_cb, say))

    # ---- Train.
    remaining = config.total_timesteps - model.num_timesteps
    t0 = time.monotonic()
    if remaining > 0:
        try:
            model.learn(remaining, callback=CallbackList(callbacks), reset_num_timesteps=resume_from is None,
                        progress_bar=progress == "bar")
        except KeyboardInterrupt:
            ckpt_cb.save()
            say(f"[selfplay] interrupted; saved a checkpoint at {model.num_timesteps:,} steps (resume={run_dir})")
            raise
        except TrainingDiverged as e:
            newest = list_checkpoints(run_dir / "checkpoints")
            where = f"; the last good checkpoint is {newest[-1][1].name}" if newest else ""
            raise TrainingDiverged(f"{e}{where}. Lower ppo.learning_rate or ppo.max_grad_norm, then start "
                                   f"again or resume={run_dir}") from None
        finally:
            vec_env.close()
    else:
        vec_env.close()
        say(f"[selfplay] already at {model.num_timesteps:,} >= total_timesteps {config.total_timesteps:,}; nothing to train")
    elapsed = time.monotonic() - t0

    # ---- Final evaluation, checkpoint and model.
    if eval_cb is not None and remaining > 0:
        eval_cb.evaluate_now()  # no-op when the last evaluation was at this very step
        model.logger.dump(model.num_timesteps)
    last = None
    if remaining > 0 and not (run_dir / "checkpoints" / checkpoint_name(model.num_timesteps)).exists():
        last = ckpt_cb.save()  # the end is always a resume point
    final = run_dir / "final.zip"
    save_checkpoint(model, final, metadata(model.num_timesteps))  # data-only, atomic
    pool.save_state()
    trained = max(remaining, 0)
    write_summary(run_dir, model.num_timesteps, trained, elapsed, config, eval_cb)
    say(f"[selfplay] done: {model.num_timesteps:,} steps, {trained / max(elapsed, 1e-9):,.0f} steps/s over "
        f"{elapsed / 60:.1f} min; model {final}" + (f", checkpoint {last.name}" if last else ""))
    if eval_cb is not None and eval_cb.last:
        say("[selfplay] final eval: " + ", ".join(f"vs {k} {v:.2f}" for k, v in eval_cb.last.items())
            + (f"; rating {eval_cb.last_rating:.0f}" if eval_cb.last_rating is not None else ""))
    return run_dir


def write_summary(run_dir: Path, num_timesteps: int, trained: int, elapsed: float, config: Config,
                  eval_cb: EvalCallback | None) -> None:
    """``summary.json``: wall time and throughput over every session of the run, last evaluation."""
    path = run_dir / "summary.json"
    try:
        before = json.loads(path.read_text()) if path.is_file() else {}
        if not isinstance(before, dict):
            before = {}
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        say(f"[selfplay] {path} is unreadable; the totals start again from this session")
        before = {}
    wall = before.get("wall_seconds", 0.0) + elapsed
    steps = before.get("trained_steps", 0) + trained
    summary = {
        "num_timesteps": num_timesteps,
        "trained_steps": steps,
        "wall_seconds": round(wall, 3),  # ms: short benchmark runs divide by it
        "steps_per_second": round(steps / wall, 1) if wall > 0 else 0.0,
        "sessions": before.get("sessions", 0) + 1,
        "machine": f"{platform.machine()}, {_cpus()} CPU cores, torch threads {config.torch_threads}, {config.device}",
        "config_path": str(run_dir / "config.yaml"),
        "final_eval": eval_cb.last if eval_cb is not None else {},
        "rating": eval_cb.last_rating if eval_cb is not None else None,
    }
    atomic_write(path, json.dumps(summary, indent=2) + "\n")


def say(message: str) -> None:
    print(message, flush=True)


def learning_rate_schedule(lr: float, kind: str) -> Any:
    """A constant rate, or one decaying linearly to 0 over training (SB3 passes progress 1 -> 0)."""
    if kind == "constant":
        return lr
    return LinearSchedule(lr)


class LinearSchedule:
    """``lr * progress_remaining``; a class, not a closure, so checkpoints pickle it plainly."""

    def __init__(self, initial: float) -> None:
        self.initial = initial

    def __call__(self, progress_remaining: float) -> float:
        return self.initial * progress_remaining


def prepare_run_dir(config: Config, trust_checkpoint: bool = False) -> tuple[Path, Path | None, Any]:
    """Create (or, for ``resume``, check) the run directory; returns it, the checkpoint to resume and
    its loaded training state (None for a trusted pickled checkpoint)."""
    if config.resume:
        run_dir = Path(config.resume)
        saved = load_config(run_dir / "config.yaml")
        changed = [
            f"{section}.{key}: {getattr(getattr(saved, section), key)!r} -> {value!r}"
            for section in MODEL_SECTIONS
            for key, value in vars(getattr(config, section)).items()
            if getattr(getattr(saved, section), key) != value
        ]
        if changed:
            raise ConfigError(f"resume={config.resume!r} cannot change the game or the network: {'; '.join(changed)}")
        resume_from, state = pick_checkpoint(run_dir, config.device, trust_checkpoint)
        resolved = Config(**{**vars(config), "resume": None, "run_name": run_dir.name})
        save_config(resolved, run_dir / "config.yaml")
        return run_dir, resume_from, state
    name = config.run_name or f"{game_of(config.env.name)}_selfplay_s{config.seed}_{time.strftime('%Y%m%d_%H%M%S')}"
    run_dir = Path(config.runs_dir) / name
    if run_dir.exists() and any(run_dir.iterdir()):
        raise ConfigError(f"run directory {run_dir} already exists; pass resume={run_dir} to continue it, "
                          "or choose another run_name")
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    save_config(Config(**{**vars(config), "run_name": name}), run_dir / "config.yaml")
    return run_dir, None, None


def pick_checkpoint(run_dir: Path, device: str, trust: bool) -> tuple[Path, Any]:
    """The newest checkpoint of ``run_dir`` that loads, and its training state; each unreadable newer
    one (cut by a crash, damaged) is reported and skipped. A pickled one needs ``trust``."""
    checkpoints = list_checkpoints(run_dir / "checkpoints")
    if not checkpoints:
        raise ConfigError(f"resume={str(run_dir)!r}: no checkpoints/step_*.zip in it to resume from")
    skipped = []
    for _, path in reversed(checkpoints):
        try:
            read_metadata(path)
            if checkpoint_kind(path) == "pickle":
                if not trust:
                    raise ConfigError(f"resume={str(run_dir)!r}: {untrusted_error(path)}")
                return path, None
            return path, load_training_state(path, device=device)
        except CheckpointError as e:
            say(f"[selfplay] skipping checkpoint {path.name}: {e}")
            skipped.append(path.name)
    raise ConfigError(f"resume={str(run_dir)!r}: no readable checkpoint; skipped {', '.join(skipped)} "
                      "(each reported above)")


def restore_training_state(model: Any, state: Any, path: Path | None) -> None:
    """Put a data-only training checkpoint's weights, optimizer state and counters into ``model``."""
    from collections import deque

    policy, optimizer, training = state
    try:
        model.policy.load_state_dict(policy.state_dict())
        model.policy.optimizer.load_state_dict(optimizer)
    except (RuntimeError, ValueError, KeyError, TypeError) as e:
        raise CheckpointError(f"{path}: the checkpoint does not fit the run's network: {str(e).splitlines()[0][:300]}") from e
    model.num_timesteps = int(training["num_timesteps"])
    model._n_updates = int(training.get("n_updates", 0))
    model._episode_num = int(training.get("episode_num", 0))
    episodes = [e for e in training.get("ep_info_buffer", []) if isinstance(e, dict)]
    model.ep_info_buffer = deque(episodes, maxlen=model._stats_window_size)
    model.ep_success_buffer = deque(maxlen=model._stats_window_size)


class DivergenceCallback(BaseCallback):
    """Stops the run when an update left NaN or infinite weights (checked before each rollout)."""

    def _on_rollout_start(self) -> None:
        loss = self.model.logger.name_to_value.get("train/loss")
        if loss is not None and not np.isfinite(loss):
            raise TrainingDiverged(f"the PPO loss became {loss} at {self.num_timesteps:,} steps")
        for name, param in self.model.policy.named_parameters():
            if not bool(torch.isfinite(param).all()):
                raise TrainingDiverged(f"the policy's weights became NaN or infinite ({name}) at "
                                       f"{self.num_timesteps:,} steps")

    def _on_step(self) -> bool:
        return True


def preflight(config: Config) -> None:
    """Check, before the run directory exists, what ``validate`` cannot see alone: the env builds with
    its options for every player count (and the evaluation's), every baseline exists for the game,
    the feature extractor fits the observation, the device exists."""
    from gymnasium import spaces

    from fight_envs.registry import make
    from fight_envs.train.features import FEATURES
    from fight_envs.train.opponents import make_baseline

    game = game_of(config.env.name)
    shapes = set()
    for n in sorted(set(config.env.num_players) | {config.eval.num_players}):
        try:
            env = make(config.env.name, api="raw", **{**config.env.env_options(), "num_players": n})
        except (ValueError, TypeError, KeyError) as e:
            what = "env.num_players" if n in config.env.num_players else "eval.num_players"
            raise ConfigError(f"env: {config.env.name} does not build with {what}={n} and options "
                              f"{config.env.env_options()}: {e}") from None
        space = env.observation_space(env.possible_agents[0])
        shapes.add(tuple((space["observation"] if hasattr(space, "spaces") else space).shape))
        if config.ppo.critic == "privileged" and not callable(getattr(env, "privileged_observation", None)):
            raise ConfigError(f"ppo.critic=privileged: {config.env.name} has no privileged_observation (the hidden "
                              "state a privileged critic reads; brawl_v0 has one); set ppo.critic=shared")
    for shape in shapes:
        try:
            FEATURES[config.ppo.features](spaces.Box(0.0, 1.0, shape, np.float32))
        except ValueError as e:
            raise ConfigError(f"ppo.features={config.ppo.features!r} does not fit {config.env.name}: {e}; "
                              f"use ppo.features=flat") from None
    names = set(config.opponents.names()) - {SELF}
    names |= set(config.eval.baselines) | set(config.pretrain.names())
    for name in sorted(names):
        try:
            make_baseline(name, game)
        except (KeyError, ValueError) as e:
            raise ConfigError(f"opponents/eval: unknown baseline {name!r} for {game}: {e}") from None


def _init_path(name: str) -> Path:
    """``init_from`` as a file: the path as given if it exists, else a shipped model of that name."""
    from fight_envs.resources import model_path

    path = Path(name)
    if path.is_file():
        return path
    try:
        return model_path(name)
    except ConfigError as e:
        raise ConfigError(f"init_from={name!r}: no such file, and {e}") from None


def load_init_policy(config: Config, trust: bool = False) -> Any:
    """The policy ``config.init_from`` names (``ConfigError`` unless it fits): its env must be the run's,
    with the observation shape and action count of the run's env, and its network the one the config
    builds (policy class, extractor, layers, activation), so that its weights load into the run's policy."""
    from fight_envs.agents.checkpoint import _activations, _name_of, _policy_classes
    from fight_envs.registry import make

    name = str(config.init_from)
    path = _init_path(name)
    try:
        # the sidecar's game first (a model of another game is refused as such, whatever its kind), then the policy
        env_name = read_metadata(path).get("env")
        if env_name != config.env.name:
            raise ConfigError(f"init_from={name!r} was trained on {env_name!r}; the run's env.name is "
                              f"{config.env.name!r} (a warm start needs the same game)")
        policy, meta = load_policy(path, device=config.device, trust=trust)
    except (CheckpointError, FileNotFoundError) as e:
        raise ConfigError(f"init_from={name!r}: {e}") from None
    env = make(config.env.name, api="raw", **{**config.env.env_options(), "num_players": max(config.env.num_players)})
    space = env.observation_space(env.possible_agents[0])
    shape = tuple((space["observation"] if hasattr(space, "spaces") else space).shape)
    num_actions = int(env.action_space(env.possible_agents[0]).n)
    spec = policy_spec(policy)
    if played_shape(policy) != shape or spec["num_actions"] != num_actions:
        raise ConfigError(f"init_from={name!r} reads observations of shape {played_shape(policy)} and "
                          f"{spec['num_actions']} actions; the run's env gives {shape} and {num_actions} (other "
                          f"player counts or options than the model's: env.num_players={meta.get('num_players')}, "
                          f"env.options={meta.get('env_options')})")
    ours_class = policy_class(config.ppo.features, config.ppo.critic)
    theirs_class = type(policy)
    if ours_class is PrivilegedCriticPolicy and theirs_class is not PrivilegedCriticPolicy:
        # a shared critic's model starts a privileged critic's run: every weight carries over, and the
        # critic's first layer reads the hidden state through new columns that start at zero
        ours_class = policy_class(config.ppo.features)
    wanted = {
        "features": ("ppo.features", config.ppo.features),
        "net_arch": ("ppo.net_arch", [int(n) for n in config.ppo.net_arch]),
        "activation": ("ppo.activation", _name_of(ACTIVATION_FNS[config.ppo.activation], _activations(), "activation")),
        "class": ("ppo.features", _name_of(ours_class, _policy_classes(), "policy class")),
    }
    if theirs_class is PrivilegedCriticPolicy and config.ppo.critic != "privileged":
        raise ConfigError(f"init_from={name!r} has a privileged critic (it reads the hidden state); set "
                          "ppo.critic=privileged to start from it")
    for key, (field, ours) in wanted.items():
        if spec[key] != ours:
            theirs = (spec[key].lower() if key == "activation" else
                      "[" + ",".join(map(str, spec[key])) + "]" if key == "net_arch" and isinstance(spec[key], list) else spec[key])
            raise ConfigError(f"init_from={name!r}: the model's network has {key} {spec[key]!r}, the config's "
                              f"{ours!r}; set {field}={theirs} (a warm start loads the weights into the same network)")
    return policy


def checkpoint_steps(path: Path | None) -> int:
    if path is None:
        return 0
    return int(path.stem.split("_")[1])


def make_vec_env(config: Config, manifest_path: Path) -> VecEnv:
    """``n_envs`` envs per player count; SubprocVecEnv, DummyVecEnv, the batched engine or the multi-game
    vec env as ``vec_env`` says."""
    if config.vec_env == "batched":
        # One process: the games are arrays stepped together, and opponents act in batches.
        from fight_envs.train.batched_vec_env import BatchedFight5VecEnv

        seed = int(np.random.SeedSequence([config.seed, 1]).generate_state(1)[0])
        return BatchedFight5VecEnv(config.n_envs, config.env.num_players, manifest_path=manifest_path, seed=seed,
                                   **config.env.env_options())
    if config.vec_env == "multi":
        # Any game: n_envs AEC games per count in one process, the opponents acting in batches.
        from fight_envs.train.multi_vec_env import MultiGameVecEnv

        seed = int(np.random.SeedSequence([config.seed, 1]).generate_state(1)[0])
        if config.workers > 1:
            # the same games split between worker processes (their env steps and opponents on several cores)
            from fight_envs.train.sharded_vec_env import ShardedMultiGameVecEnv

            return ShardedMultiGameVecEnv(config.env.name, config.n_envs, config.env.num_players,
                                          manifest_path=manifest_path, seed=seed, workers=config.workers,
                                          pin_workers=config.pin_workers, privileged=config.ppo.critic == "privileged",
                                          **config.env.env_options())
        return MultiGameVecEnv(config.env.name, config.n_envs, config.env.num_players, manifest_path=manifest_path,
                               seed=seed, privileged=config.ppo.critic == "privileged", **config.env.env_options())
    counts = [n for n in config.env.num_players for _ in range(config.n_envs)]
    seeds = np.random.SeedSequence([config.seed, 1]).generate_state(len(counts))
    fns = [_env_factory(config, n, int(s), manifest_path) for n, s in zip(counts, seeds)]
    kind = config.vec_env
    if kind == "auto":
        # On 2 cores one process stepping 8 envs ran 2x faster than 2 or 4 worker processes
        # (1,345 vs 597-654 steps/s): a Fight 5 step is cheap beside a pipe round trip, and the
        # trainer needs a core too. Workers pay off only with cores to spare.
        kind = "subproc" if len(fns) > 1 and _cpus() >= SUBPROC_MIN_CPUS else "dummy"
    if kind == "subproc" and len(fns) > 1:
        return SubprocVecEnv(fns)
    return DummyVecEnv(fns)


def _cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _env_factory(config: Config, num_players: int, seed: int, manifest_path: Path) -> Any:
    env_name, options = config.env.name, config.env.env_options()

    def make() -> Monitor:
        # Opponents run on the CPU inside the workers: single decisions of a small network.
        sampler = PoolOpponentSampler(manifest_path, device="cpu")
        env = SingleAgentEnv(env_name, learner_seat="random", opponents=sampler, seed=seed,
                             num_players=num_players, **options)
        return Monitor(env)

    return make
