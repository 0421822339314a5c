"""The RLlib trainer's configuration: the SB3 trainer's file format where the meaning is the same.

``env``, ``opponents`` and ``eval`` are the very sections of ``fight_envs.train.config`` (same keys, same
meaning: the game and its options; the opponent mix of baselines and ``self`` snapshots,
annealed and prioritised; periodic evaluation). ``ppo`` keeps the SB3 names for the same
hyper-parameters (``learning_rate``, ``batch_size`` = the minibatch, ``n_epochs``, ``gamma``,
``gae_lambda``, ``clip_range``, ``ent_coef``, ``vf_coef``, ``max_grad_norm``, ``net_arch``,
``activation``, ``features``) and adds ``train_batch_size`` (learner decisions per iteration, all env runners
together: SB3's ``n_envs x n_steps``). ``ray`` says where and how wide to run: ``address``
(None: an embedded local Ray on loopback, no dashboard; ``auto`` or ``host:port``: an
existing cluster), ``num_env_runners``, ``num_envs_per_env_runner``, ``num_learners``... Loading
and ``key=value`` overrides are ``fight_envs.train.config``'s, so errors name the key and what is allowed.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from fight_envs.core.errors import ConfigError
from fight_envs.train.config import (
    EnvConfig,
    EvalConfig,
    OpponentConfig,
    PPOHyperparameters,
    _number,
    _threads,
    load_config,
    validate_common,
)

APIS = ("auto", "aec", "parallel")
FEATURES = ("auto", "flat", "fight5_slot")


@dataclass
class RLlibPPOConfig(PPOHyperparameters):
    """PPO hyper-parameters: the SB3 trainer's (same names, same meaning), and RLlib's batch sizes.

    ``lr_schedule`` linear goes from ``learning_rate`` down to zero at ``total_timesteps`` learner
    decisions (RLlib schedules by sampled env steps; the trainer converts, exactly for Fight 5's
    parallel form, where each env step is one learner decision, and approximately, by
    ``num_players``, for turn-based games). ``batch_size`` is the minibatch (RLlib's ``minibatch_size``).
    """

    train_batch_size: int = 4096
    """Learner decisions per training iteration, all env runners together."""
    vf_clip: float = 10.0
    """RLlib's ``vf_clip_param`` (SB3 does not clip the value loss by default); set it above the return range."""
    features: str = "auto"
    """What the MLP sees (``fight_envs.train.features``): flat, fight5_slot, or auto (fight5_slot for Fight 5, else flat)."""

    def features_for(self, env_name: str) -> str:
        return ("fight5_slot" if env_name == "fight5_v0" else "flat") if self.features == "auto" else self.features


@dataclass
class RayConfig:
    """Where Ray runs and how many workers sample and learn."""

    address: str | None = None
    """None: start an embedded Ray on this machine (on loopback, 127.0.0.2 on Linux, no dashboard); 'auto' or
    'host:port': join an existing cluster (started with ``ray start --head``)."""
    node_ip_address: str | None = None
    """This machine's address as the cluster knows it (Ray's ``_node_ip_address``): needed when the
    nodes run on loopback addresses (the suite's two-node test: 127.0.0.2 and 127.0.0.3). For an
    embedded Ray, the address it registers (default: loopback)."""
    num_env_runners: int = 1
    """Sampling actors (each a process, 1 CPU each by default); 0 samples in the trainer process."""
    num_envs_per_env_runner: int = 8
    num_cpus_per_env_runner: float = 1.0
    rollout_fragment_length: int = 0
    """Env steps per env per sample call; 0: RLlib's 'auto' (train_batch_size split over the envs)."""
    num_learners: int = 0
    """0: the update runs in the trainer process; N: N learner actors (data-parallel, e.g. one per GPU)."""
    num_cpus_per_learner: float = 1.0
    num_gpus_per_learner: float = 0.0
    num_cpus: int | None = None
    """CPUs an embedded Ray may use (None: all of this machine's)."""
    object_store_memory: int | None = 300_000_000
    """Bytes of shared memory for an embedded Ray's object store (None: Ray's default, 30% of RAM)."""
    env_api: str = "auto"
    """``fight_envs.wrappers.rllib`` api: auto (parallel where simultaneous play is native), aec, parallel."""
    torch_threads: int = 1
    """torch threads in the trainer process (small networks update faster on one thread here)."""


@dataclass
class RLlibConfig:
    """Everything an RLlib self-play run needs; saved resolved as ``runs/<run_name>/config.yaml``."""

    run_name: str | None = None
    runs_dir: str = "runs"
    resume: str | None = None
    """A run directory to continue from its newest checkpoint (``checkpoints/algo``); its own
    ``config.yaml`` is then the base, and the overrides apply on top (``env`` and ``ppo`` may not change)."""
    seed: int = 0
    total_timesteps: int = 200_000
    """Learner decisions (the learning module's agent steps) to train for."""
    checkpoint_every: int = 100_000
    env: EnvConfig = field(default_factory=EnvConfig)
    ppo: RLlibPPOConfig = field(default_factory=RLlibPPOConfig)
    opponents: OpponentConfig = field(default_factory=OpponentConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    ray: RayConfig = field(default_factory=RayConfig)

    def validate(self) -> RLlibConfig:
        """Raise ConfigError naming the first bad value and what is allowed; returns self."""
        if self.ppo.features not in FEATURES:
            raise ConfigError(f"ppo.features must be one of {', '.join(FEATURES)}; got {self.ppo.features!r}")
        if self.ppo.features_for(self.env.name) == "fight5_slot" and self.env.name != "fight5_v0":
            raise ConfigError(f"ppo.features=fight5_slot reads the Fight 5 observation; env.name is {self.env.name!r}")
        if self.ray.env_api not in APIS:
            raise ConfigError(f"ray.env_api must be one of {', '.join(APIS)}; got {self.ray.env_api!r}")
        validate_common(self, {
            "total_timesteps": self.total_timesteps, "checkpoint_every": self.checkpoint_every,
            "ppo.train_batch_size": self.ppo.train_batch_size,
            "ray.num_envs_per_env_runner": self.ray.num_envs_per_env_runner, "ray.torch_threads": self.ray.torch_threads,
        })
        if self.ppo.batch_size > self.ppo.train_batch_size:
            raise ConfigError(
                f"ppo.batch_size ({self.ppo.batch_size}) must not exceed ppo.train_batch_size ({self.ppo.train_batch_size})"
            )
        if self.ray.num_env_runners < 0 or self.ray.num_learners < 0:
            raise ConfigError("ray.num_env_runners and ray.num_learners must be >= 0")
        _threads("ray.torch_threads", self.ray.torch_threads)
        if self.ppo.batch_size < 2:
            raise ConfigError(f"ppo.batch_size must be >= 2 (advantages are normalised over a minibatch), got {self.ppo.batch_size}")
        _number("ppo.vf_clip", self.ppo.vf_clip, 0.0, 1e9, low_open=True)
        for key in ("num_cpus_per_env_runner", "num_cpus_per_learner", "num_gpus_per_learner"):
            _number(f"ray.{key}", getattr(self.ray, key), 0.0, 1024.0)
        if self.ray.rollout_fragment_length < 0:
            raise ConfigError(f"ray.rollout_fragment_length must be >= 0 (0: auto), got {self.ray.rollout_fragment_length}")
        return self

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def load_rllib_config(path: str | Path | None = None, overrides: list[str] | None = None) -> RLlibConfig:
    """The config from YAML ``path`` (None: the defaults) with ``key=value`` ``overrides`` applied.

    With ``resume=<run dir>`` (in the overrides or the file), the run's saved ``config.yaml`` is
    the base instead of ``path``; the other overrides apply on top (e.g. a larger ``total_timesteps``).
    The SB3 trainer's loader (``fight_envs.train.config.load_config``), building this config instead.
    """
    return load_config(path, overrides, factory=RLlibConfig)


def save_rllib_config(config: RLlibConfig, path: str | Path) -> None:
    from fight_envs.core.atomic import atomic_write

    atomic_write(path, yaml.safe_dump(config.to_dict(), sort_keys=False))
