"""The training configuration: one typed object, loaded from YAML, overridable from the command line.

``load_config(path, overrides)`` reads a YAML file (or starts from the defaults below when
``path`` is None) and applies ``key=value`` / ``section.key=value`` strings on top, e.g.
``total_timesteps=200000``, ``ppo.learning_rate=1e-4``, ``env.num_players=[2,3]``,
``opponents.weights_end.self=0.5``. Values are parsed as YAML and converted to the field's
type; an unknown key raises ``ConfigError`` listing the allowed ones. The dataclass defaults
are the tuned 2-player Fight 5 recipe; ``configs/fight5_selfplay.yaml`` spells them out (a
test keeps the two equal).

Resuming: when ``resume`` names a run directory (in the file or the overrides), the run's own
``config.yaml`` is the base instead of ``path``, and the other overrides apply on top (e.g.
``resume=runs/x total_timesteps=2000000`` extends run x). The environment and network sections
must then still match the run (checked by ``fight_envs.train.selfplay``).
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from fight_envs.core.errors import ConfigError

VEC_ENV_KINDS = ("auto", "dummy", "subproc", "batched", "multi")
BATCHED_ENVS = ("fight5_v0",)
"""Envs with a batched engine behind ``vec_env: batched`` (``fight_envs.train.batched_vec_env``)."""
PROGRESS_KINDS = ("auto", "bar", "log", "none")
ACTIVATIONS = ("tanh", "relu")
LR_SCHEDULES = ("constant", "linear")
FEATURE_EXTRACTORS = ("flat", "fight5_slot", "brawl_answer", "fight_klub_cards", "fight_klub_pointer")
RUN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$")
"""A run name is one directory name under ``runs_dir`` (no separators, no ``..``)."""
DEVICE = re.compile(r"^(cpu|auto|cuda(:\d{1,2})?)$")
MAX_STEPS = 10**12
MAX_ENVS = 4096
MAX_WORKERS = 64
MAX_LAYERS = 16
MAX_BATCH = 1 << 24
MAX_LAYER_WIDTH = 65_536
OPTIONAL_SECTIONS = ("pretrain",)
"""Sections a run's saved config may lack (runs saved before the section existed): their defaults apply."""
ADDED_KEYS = ("pin_workers", "ppo.critic")
"""Keys a run's saved config may lack (runs saved before the key existed): their defaults apply. Only keys
whose default changes no result belong here (``pin_workers`` places processes on CPUs, nothing more;
``ppo.critic``'s default, ``shared``, is the network every run had before the key)."""
CRITICS = ("shared", "privileged")


def check_pin_workers(value: Any) -> None:
    """``pin_workers`` is ``"auto"``, true or false (not 1 or 0); ConfigError otherwise."""
    if not (value is True or value is False or (isinstance(value, str) and value == "auto")):
        raise ConfigError(f"pin_workers must be 'auto', true or false, got {value!r}")
SELF = "self"
"""Opponent-mix key for the learner's own past snapshots (every other key is a baseline name)."""
PRETRAIN_MODES = ("clone", "dagger")
"""``pretrain.mode``: behaviour cloning of the teacher's own games, or DAgger on the run's policy's games."""


@dataclass
class EnvConfig:
    """The game the learner plays. One env per player count per ``n_envs``."""

    name: str = "fight5_v0"
    num_players: list[int] = field(default_factory=lambda: [2])
    reward: str = "score"
    num_bouts: int = 3
    target_score: int | None = 200
    options: dict[str, Any] = field(default_factory=dict)
    """Any other constructor options of the env (e.g. Fight Klub's ``decks``, Brawl's limits)."""

    def env_options(self) -> dict[str, Any]:
        """Options passed to the env constructor (``num_players`` is set per env).

        ``reward``, ``num_bouts`` and ``target_score`` are passed only to envs that take them
        (Fight 5 takes all three), so one config shape serves every game; ``options`` is passed
        as it is, and an option the env does not know fails there with the allowed list.
        """
        from fight_envs.registry import spec

        accepted = spec(self.name).options
        common = {"reward": self.reward, "num_bouts": self.num_bouts, "target_score": self.target_score}
        return {**{k: v for k, v in common.items() if k in accepted}, **self.options}


@dataclass
class PPOHyperparameters:
    """The PPO hyper-parameters every trainer of the suite shares (sb3-contrib names) and the
    network shape; ``PPOConfig`` (SB3) and ``fight_envs.train.rllib.config.RLlibPPOConfig`` add their own."""

    learning_rate: float = 1e-3
    lr_schedule: str = "linear"
    batch_size: int = 512
    n_epochs: int = 8
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    net_arch: list[int] = field(default_factory=lambda: [128, 128])
    activation: str = "tanh"


@dataclass
class PPOConfig(PPOHyperparameters):
    """MaskablePPO hyperparameters (sb3-contrib names) and the network shape."""

    n_steps: int = 512
    target_kl: float | None = None
    features: str = "fight5_slot"
    """Feature extractor before the MLP: ``flat``, ``fight5_slot``, ``brawl_answer``, ``fight_klub_cards`` or
    ``fight_klub_pointer`` (see ``fight_envs.train.features``; the last trains with its own policy head,
    ``fight_envs.train.features_fight_klub``)."""
    critic: str = "shared"
    """``shared``: the value net reads what the policy reads. ``privileged``: it also reads the env's
    ``privileged_observation`` (the hidden state: other hands, the draw pile), appended to the learner's
    observations in training only (``vec_env: multi``); the policy still reads the observation alone and
    plays without it (``fight_envs.train.features.PrivilegedCriticPolicy``). Brawl has one."""


@dataclass
class OpponentConfig:
    """The opponent pool: scripted baselines by name plus the learner's past snapshots (``self``).

    The mix moves linearly from ``weights_start`` to ``weights_end`` over the first
    ``anneal_fraction`` of training. ``self`` weight is shared among the newest
    ``max_snapshots`` snapshots (one taken every ``snapshot_every`` steps); before the first
    snapshot it is left out. With ``prioritize``, each opponent's weight is multiplied by
    (1 - the learner's recent win rate against it) ** ``pfsp_power`` (prioritised fictitious
    self-play), win rates counted over the last ``winrate_window`` games against it.
    """

    weights_start: dict[str, float] = field(default_factory=lambda: {"random": 0.5, "greedy": 0.5})
    weights_end: dict[str, float] = field(
        default_factory=lambda: {"random": 0.1, "greedy": 0.2, "heuristic": 0.3, SELF: 0.4}
    )
    anneal_fraction: float = 0.5
    snapshot_every: int = 50_000
    max_snapshots: int = 10
    prioritize: bool = True
    pfsp_power: float = 1.0
    winrate_window: int = 100
    deterministic: bool = False

    def names(self) -> list[str]:
        """Every opponent key used by the mix, ``self`` included."""
        return sorted(set(self.weights_start) | set(self.weights_end))


@dataclass
class EvalConfig:
    """Periodic evaluation of the learner against baselines, seats rotated (duplicate format)."""

    every: int = 100_000
    games: int = 40
    baselines: list[str] = field(default_factory=lambda: ["random", "greedy", "heuristic"])
    deterministic: bool = True
    num_players: int = 2


@dataclass
class PretrainConfig:
    """Behaviour cloning before PPO (``fight_envs.train.imitation``); ``games: 0`` (the default) turns it off.

    ``games`` games are played with one ``teacher`` seat (a baseline) against opponents drawn from
    ``opponents`` (baseline -> weight); the new run's policy is fitted to the teacher's decisions for
    ``epochs`` passes (minibatches of ``batch_size``, Adam at ``learning_rate``). Only a new run
    pretrains: a resumed run carries on from its checkpoint.
    """

    games: int = 0
    epochs: int = 0
    teacher: str = "heuristic"
    opponents: dict[str, float] = field(default_factory=lambda: {"heuristic": 1.0})
    batch_size: int = 1024
    learning_rate: float = 1e-3
    max_gb: float = 4.0
    """Most memory the recorded observations may take, in GB (10^9 bytes): the collection stops with an
    error, before it runs out of memory, once they pass it or the first games project past it (a Fight
    Klub observation is 81 KB, so 2,000 games of two recorded seats would need about 16 GB)."""
    workers: int = 1
    """Processes playing the teacher's games (``fight_envs.train.imitation.collect_parallel``): worker
    ``w`` plays its block of the games with its own seed, so a search teacher's 40 minutes on one core
    take about half on two. The data are the same for a given seed and worker count; another count
    plays other games."""
    data: str | None = None
    """A demonstrations file (``.npz``) to reuse the recorded games across runs: when it exists, the run
    clones its rows instead of playing the games (after checking that it records what this config asks
    for: the env, its options and player counts, the teacher, the opponents, the number of games and
    ``ppo.gamma``; not the seed, so several seeds can clone the same search games); when it does not, the
    games are played as configured and saved there (atomically, data only) before cloning. None (the
    default): record every time, keep nothing (``fight_envs.train.imitation``, Demonstrations files)."""
    mode: str = "clone"
    """``clone``: the teacher plays its seat and its decisions are recorded (behaviour cloning). ``dagger``: the
    run's own policy (the ``init_from`` model, which dagger needs) plays the learner's seat, and the teacher
    labels the states it reaches (DAgger, Ross et al. 2011): the policy is fitted to the teacher's labels
    where it was asked, and to its own choices elsewhere (``kinds``)."""
    kinds: list[str] | None = None
    """dagger: the decision kinds the teacher labels (the env's ``decision_kind``, e.g. ``[enhance]`` in Fight
    Klub); the policy keeps its own play on every other kind. None: every decision."""
    beta: float = 0.5
    """dagger: the chance that a labelled decision plays the teacher's choice instead of the policy's, so the
    recorded states cover both (0: the policy's states alone)."""
    temperature: float | None = 0.1
    """dagger with a teacher that values every legal action (search): the label is softmax(value / temperature)
    over the legal actions, so actions the teacher values alike keep alike shares; None: the teacher's choice
    alone."""

    def validate(self) -> None:
        _int_range("pretrain.workers", self.workers, 1, MAX_WORKERS)
        if self.mode not in PRETRAIN_MODES:
            raise ConfigError(f"pretrain.mode must be one of {', '.join(PRETRAIN_MODES)}, got {self.mode!r}")
        if self.mode != "dagger" and (self.kinds is not None or self.beta != 0.5 or self.temperature != 0.1):
            raise ConfigError("pretrain.kinds, pretrain.beta and pretrain.temperature apply to pretrain.mode=dagger only "
                              f"(the mode is {self.mode!r}): set pretrain.mode=dagger, or leave them at their defaults")
        if self.kinds is not None and (not isinstance(self.kinds, list) or not self.kinds
                                       or not all(isinstance(k, str) and k for k in self.kinds)):
            raise ConfigError(f"pretrain.kinds must be null or a non-empty list of decision kinds, got {self.kinds!r}")
        _number("pretrain.beta", self.beta, 0.0, 1.0)
        if self.temperature is not None:
            _number("pretrain.temperature", self.temperature, 0.0, 100.0, low_open=True)
        if self.data is not None and (not isinstance(self.data, str) or not self.data.endswith(".npz")
                                      or os.path.basename(self.data) == ".npz"):
            raise ConfigError(f"pretrain.data must be null or a path ending in .npz (a demonstrations file), "
                              f"got {self.data!r}")
        if self.data is not None and self.games == 0:
            raise ConfigError(f"pretrain.data={self.data!r} is read only when the run pretrains: set pretrain.games "
                              f"and pretrain.epochs above 0 (games as recorded in the file), or pretrain.data=null")
        if isinstance(self.games, bool) or not isinstance(self.games, int) or not 0 <= self.games <= 10**7:
            raise ConfigError(f"pretrain.games must be an integer in [0, 10,000,000] (0: no pretraining), got {self.games!r}")
        if isinstance(self.epochs, bool) or not isinstance(self.epochs, int) or not 0 <= self.epochs <= 1000:
            raise ConfigError(f"pretrain.epochs must be an integer in [0, 1000], got {self.epochs!r}")
        if (self.games > 0) != (self.epochs > 0):
            raise ConfigError(f"pretrain needs both games and epochs above 0 (or both 0: off), got "
                              f"games={self.games}, epochs={self.epochs}")
        if not isinstance(self.teacher, str) or not self.teacher or self.teacher == SELF:
            raise ConfigError(f"pretrain.teacher must name a baseline of the game (e.g. heuristic), got {self.teacher!r}")
        if not self.opponents or SELF in self.opponents:
            raise ConfigError(f"pretrain.opponents must map baseline names to weights ('{SELF}' has no snapshots "
                              f"before training), got {self.opponents!r}")
        for name, weight in self.opponents.items():
            if not (isinstance(weight, (int, float)) and math.isfinite(weight) and 0 <= weight <= 1e6):
                raise ConfigError(f"pretrain.opponents weights must be finite numbers in [0, 1e6], got {name}: {weight!r}")
        if sum(self.opponents.values()) <= 0:
            raise ConfigError(f"pretrain.opponents needs a positive weight, got {self.opponents!r}")
        _int_range("pretrain.batch_size", self.batch_size, 1, MAX_BATCH)
        _number("pretrain.learning_rate", self.learning_rate, 0.0, 1.0, low_open=True)
        _number("pretrain.max_gb", self.max_gb, 0.0, 1024.0, low_open=True)

    def names(self) -> list[str]:
        """Every baseline the pretraining plays (teacher and opponents)."""
        return sorted({self.teacher, *self.opponents}) if self.games > 0 else []


@dataclass
class Config:
    """Everything a self-play run needs; saved resolved as ``runs/<run_name>/config.yaml``."""

    run_name: str | None = None
    runs_dir: str = "runs"
    resume: str | None = None
    init_from: str | None = None
    """A trained model (a checkpoint path, or a shipped model's name such as ``fight_klub_2p.zip``) whose
    weights start a new run: a warm start, for fine-tuning or training longer than a shipped model was.
    The network it describes must be the config's (``ppo.features``, ``ppo.net_arch``,
    ``ppo.activation``) and its env the config's; the optimizer and the step counter start afresh, and
    pretraining is skipped (the policy is already trained) unless ``pretrain.mode`` is ``dagger``, which
    labels that model's own games. A resumed run ignores it (it carries on
    from its own checkpoint, which holds the warm start already)."""
    seed: int = 0
    total_timesteps: int = 600_000
    n_envs: int = 8
    """Envs per player count (with ``vec_env: batched``, the games per player count in the batch)."""
    vec_env: str = "auto"
    """auto, dummy, subproc (SB3 vec envs over the PettingZoo env), batched (Fight 5 only:
    ``fight_envs.train.batched_vec_env``, the batched engine with the opponents acting in batches), or
    multi (any game: ``fight_envs.train.multi_vec_env``, many AEC games in one process, the opponents
    acting in batches)."""
    workers: int = 1
    """With ``vec_env: multi``: processes stepping the games (``n_envs`` per player count split between
    them; ``fight_envs.train.sharded_vec_env``). 1 steps them in the trainer's process; 2 on a 2-core
    machine runs the games' own work on both cores. A run is reproducible for a given seed and
    worker count; another count deals other games."""
    pin_workers: Any = "auto"
    """With ``workers`` > 1: pin each worker process to a CPU. ``auto`` pins when there are exactly as many
    workers as CPUs this process may use (a 2-core machine with ``workers: 2``), ``true`` always
    (round-robin), ``false`` never; the trainer's own process is never pinned
    (``fight_envs.train.sharded_vec_env``: a pinned worker keeps its caches between steps)."""
    torch_threads: int = 1
    device: str = "cpu"
    checkpoint_every: int = 100_000
    keep_checkpoints: int = 3
    progress: str = "auto"
    log_every_s: float = 30.0
    env: EnvConfig = field(default_factory=EnvConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    opponents: OpponentConfig = field(default_factory=OpponentConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    pretrain: PretrainConfig = field(default_factory=PretrainConfig)

    # ------------------------------------------------------------ validation
    def validate(self) -> Config:
        """Raise ConfigError naming the first bad value and what is allowed; returns self."""
        _choice("vec_env", self.vec_env, VEC_ENV_KINDS)
        if self.vec_env == "batched" and self.env.name not in BATCHED_ENVS:
            raise ConfigError(
                f"vec_env=batched needs a game with a batched engine ({', '.join(BATCHED_ENVS)}); "
                f"env.name is {self.env.name!r}: use vec_env=auto, dummy or subproc"
            )
        _choice("progress", self.progress, PROGRESS_KINDS)
        _choice("ppo.features", self.ppo.features, FEATURE_EXTRACTORS)
        _choice("ppo.critic", self.ppo.critic, CRITICS)
        if self.ppo.critic == "privileged" and self.vec_env != "multi":
            raise ConfigError(f"ppo.critic=privileged needs vec_env=multi (the vec env that appends the hidden state "
                              f"to the learner's observations); vec_env is {self.vec_env!r}")
        validate_common(self, {
            "total_timesteps": self.total_timesteps, "n_envs": self.n_envs, "torch_threads": self.torch_threads,
            "checkpoint_every": self.checkpoint_every, "keep_checkpoints": self.keep_checkpoints,
            "ppo.n_steps": self.ppo.n_steps,
        })
        _int_range("n_envs", self.n_envs, 1, MAX_ENVS)
        _int_range("workers", self.workers, 1, MAX_WORKERS)
        check_pin_workers(self.pin_workers)
        if self.workers > 1 and self.vec_env != "multi":
            raise ConfigError(f"workers={self.workers} needs vec_env=multi (the games split between processes); "
                              f"vec_env is {self.vec_env!r}: set workers=1, or vec_env=subproc for SB3's worker processes")
        if self.workers > self.n_envs:
            raise ConfigError(f"workers ({self.workers}) must be at most n_envs ({self.n_envs}): "
                              "every worker steps at least one game per player count")
        _int_range("ppo.n_steps", self.ppo.n_steps, 1, 10**7)
        _int_range("keep_checkpoints", self.keep_checkpoints, 1, 10_000)
        _threads("torch_threads", self.torch_threads)
        _number("log_every_s", self.log_every_s, 0.0, 86_400.0, low_open=True)
        if self.ppo.target_kl is not None:
            _number("ppo.target_kl", self.ppo.target_kl, 0.0, 100.0, low_open=True)
        # A minibatch of 1 has no spread to normalise advantages by (NaN); one beyond the rollout is the
        # whole rollout (SB3 cuts it), so the bound is only a sanity ceiling.
        _int_range("ppo.batch_size", self.ppo.batch_size, 2, MAX_BATCH)
        if self.init_from is not None and (not isinstance(self.init_from, str) or not self.init_from.strip()):
            raise ConfigError(f"init_from must be a checkpoint path or a shipped model's name (or null: a fresh "
                              f"network), got {self.init_from!r}")
        self.pretrain.validate()
        if self.pretrain.mode == "dagger" and self.pretrain.games > 0 and self.init_from is None:
            raise ConfigError("pretrain.mode=dagger labels the games the run's own policy plays, so it starts from a "
                              "trained model: set init_from (a checkpoint or a shipped model), or pretrain.mode=clone")
        return self

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class TrainingDiverged(RuntimeError):
    """The loss or the weights became NaN or infinite: the run stops (its last checkpoint stays a resume point)."""


def validate_common(config: Any, positive: dict[str, int]) -> None:
    """The checks every trainer's config shares: its ``seed``, ``env``, ``ppo`` (a
    :class:`PPOHyperparameters`), ``opponents`` and ``eval`` sections, and the trainer's own
    ``positive`` counts (key -> value, each must be >= 1). Raises ConfigError naming the first bad value."""
    _choice("ppo.activation", config.ppo.activation, ACTIVATIONS)
    _choice("ppo.lr_schedule", config.ppo.lr_schedule, LR_SCHEDULES)
    positive = {
        **positive, "ppo.batch_size": config.ppo.batch_size, "ppo.n_epochs": config.ppo.n_epochs,
        "opponents.snapshot_every": config.opponents.snapshot_every,
        "opponents.max_snapshots": config.opponents.max_snapshots,
        "opponents.winrate_window": config.opponents.winrate_window,
        "eval.every": config.eval.every,
    }
    for key, value in positive.items():
        _int_range(key, value, 1, MAX_STEPS)
    _int_range("seed", config.seed, 0, 2**32 - 1)
    _int_range("eval.games", config.eval.games, 0, 10**6)
    _int_range("eval.num_players", config.eval.num_players, 1, 64)
    _int_range("opponents.max_snapshots", config.opponents.max_snapshots, 1, 10_000)
    _int_range("opponents.winrate_window", config.opponents.winrate_window, 1, 10**6)
    _int_range("ppo.n_epochs", config.ppo.n_epochs, 1, 1000)
    for n in config.env.num_players:
        _int_range("env.num_players", n, 1, 64)
    _run_location(config)
    _device(getattr(config, "device", "cpu"))
    ppo = config.ppo
    _number("ppo.learning_rate", ppo.learning_rate, 0.0, 1.0, low_open=True)
    _number("ppo.clip_range", ppo.clip_range, 0.0, 10.0, low_open=True)
    _number("ppo.ent_coef", ppo.ent_coef, 0.0, 10.0)
    _number("ppo.vf_coef", ppo.vf_coef, 0.0, 100.0)
    _number("ppo.max_grad_norm", ppo.max_grad_norm, 0.0, 1e6, low_open=True)
    _number("ppo.gamma", ppo.gamma, 0.0, 1.0, low_open=True)
    _number("ppo.gae_lambda", ppo.gae_lambda, 0.0, 1.0)
    if not isinstance(ppo.net_arch, list) or not 1 <= len(ppo.net_arch) <= MAX_LAYERS:
        raise ConfigError(f"ppo.net_arch must list 1 to {MAX_LAYERS} hidden layer sizes, e.g. [128, 128]; got {ppo.net_arch!r}")
    for width in ppo.net_arch:
        _int_range("ppo.net_arch[...]", width, 1, MAX_LAYER_WIDTH)
    _number("opponents.anneal_fraction", config.opponents.anneal_fraction, 0.0, 1.0)
    _number("opponents.pfsp_power", config.opponents.pfsp_power, 0.0, 100.0)
    for key in ("weights_start", "weights_end"):
        for name, weight in getattr(config.opponents, key).items():
            if not (isinstance(weight, (int, float)) and math.isfinite(weight) and 0 <= weight <= 1e6):
                raise ConfigError(f"opponents.{key} weights must be >= 0 and <= 1e6 (finite numbers), got {name}: {weight!r}")
    if not config.env.num_players:
        raise ConfigError("env.num_players must list at least one player count, e.g. [2] or [2, 3, 4, 5]")
    if len(set(config.env.num_players)) != len(config.env.num_players):
        raise ConfigError(f"env.num_players lists a count twice: {config.env.num_players}")
    if not config.ppo.net_arch:
        raise ConfigError("ppo.net_arch must list at least one hidden layer size, e.g. [128, 128]")
    if not 0 < config.ppo.gamma <= 1 or not 0 <= config.ppo.gae_lambda <= 1:
        raise ConfigError(
            f"ppo.gamma must be in (0, 1] and ppo.gae_lambda in [0, 1], got {config.ppo.gamma}, {config.ppo.gae_lambda}"
        )
    opponents = config.opponents
    if not 0 <= opponents.anneal_fraction <= 1:
        raise ConfigError(f"opponents.anneal_fraction must be in [0, 1], got {opponents.anneal_fraction}")
    for key in ("weights_start", "weights_end"):
        weights = getattr(opponents, key)
        negative = {k: v for k, v in weights.items() if v < 0}
        if negative:
            raise ConfigError(f"opponents.{key} weights must be >= 0, got {negative}")
        if sum(v for k, v in weights.items() if k != SELF) <= 0:
            raise ConfigError(
                f"opponents.{key} needs a positive weight on at least one baseline (the '{SELF}' pool is empty "
                f"until the first snapshot), got {weights}"
            )
    if opponents.pfsp_power < 0:
        raise ConfigError(f"opponents.pfsp_power must be >= 0, got {opponents.pfsp_power}")


def _int_range(key: str, value: Any, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ConfigError(f"{key} must be >= {lo} and <= {hi:,} (an integer), got {value!r}")


def _number(key: str, value: Any, lo: float, hi: float, low_open: bool = False) -> None:
    """A finite number in [lo, hi] (or (lo, hi] with ``low_open``): NaN and infinities are refused."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if ok:
        ok = (lo < value if low_open else lo <= value) and value <= hi
    if not ok:
        interval = f"{'(' if low_open else '['}{lo:g}, {hi:g}]"
        raise ConfigError(f"{key} must be a finite number in {interval}, got {value!r}")


def _threads(key: str, value: Any) -> None:
    cpus = os.cpu_count() or 1
    _int_range(key, value, 1, max(4 * cpus, 4))


def _run_location(config: Any) -> None:
    """``run_name`` is one directory name under ``runs_dir``: nothing may be written outside it."""
    name = config.run_name
    if name is not None and (not isinstance(name, str) or not RUN_NAME.match(name) or name in (".", "..")):
        raise ConfigError(
            f"run_name must be one directory name under runs_dir (letters, digits, . _ @ + -, up to 128, not starting "
            f"with . or -), got {name!r}"
        )
    if not isinstance(config.runs_dir, str) or not config.runs_dir.strip() or "\x00" in config.runs_dir:
        raise ConfigError(f"runs_dir must be a directory path, got {config.runs_dir!r}")


def _device(device: Any) -> None:
    if not isinstance(device, str) or not DEVICE.match(device):
        raise ConfigError(f"device must be cpu, auto, cuda or cuda:<index>, got {device!r}")
    if device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise ConfigError(f"device={device} but torch finds no CUDA device here; use device=cpu (or auto)")
        index = int(device.split(":")[1]) if ":" in device else 0
        if index >= torch.cuda.device_count():
            raise ConfigError(f"device={device} but this machine has {torch.cuda.device_count()} CUDA device(s)")


def _choice(key: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ConfigError(f"{key} must be one of {', '.join(allowed)}; got {value!r}")


# ---------------------------------------------------------------- loading
def load_config(path: str | Path | None = None, overrides: list[str] | None = None, factory: Any = None) -> Any:
    """The config from YAML ``path`` (None: the defaults) with ``key=value`` ``overrides`` applied.

    When ``resume`` is set (in the overrides or the file), the resumed run's ``config.yaml``
    replaces ``path`` as the base; the overrides, ``resume`` included, apply on top.
    ``factory`` builds the empty config (default :class:`Config`; the RLlib trainer passes its own).
    """
    parsed = [_split_override(o) for o in overrides or []]
    resume = next((v for k, v in parsed if k == "resume"), None)
    base: dict[str, Any] = {}
    if path is not None:
        base = _read_yaml(Path(path))
    if resume is None and base.get("resume"):
        resume = str(base["resume"])
    if resume is not None:
        saved = Path(str(resume)) / "config.yaml"
        if not saved.is_file():
            raise ConfigError(f"resume={resume!r}: no {saved}; resume takes a run directory written by training (runs/<run_name>)")
        base = _read_yaml(saved)
        _check_complete(base, (factory or Config)(), saved)
    config = (factory or Config)()
    _fill(config, base, "")
    for key, value in parsed:
        set_value(config, key, value)
    if resume is not None:
        config.resume = str(resume)
    return config.validate()


def _check_complete(data: dict[str, Any], template: Any, path: Path, prefix: str = "") -> None:
    """A run's saved config lists every key (it is written resolved): a missing one means a damaged
    (cut) file, which must not resume silently with defaults."""
    missing = [f"{prefix}{f.name}" for f in dataclasses.fields(template)
               if f.name not in data and f"{prefix}{f.name}" not in (*OPTIONAL_SECTIONS, *ADDED_KEYS)]
    if missing:
        raise ConfigError(f"{path} lacks {', '.join(missing[:8])}{' ...' if len(missing) > 8 else ''}: a run's "
                          "config.yaml lists every key, so this one is damaged (cut short?); restore it or start a new run")
    for f in dataclasses.fields(template):
        sub = getattr(template, f.name)
        if dataclasses.is_dataclass(sub) and f.name in data:
            if not isinstance(data[f.name], dict):
                raise ConfigError(f"{path}: {prefix}{f.name} must be a section (a mapping), got {data[f.name]!r}")
            _check_complete(data[f.name], sub, path, f"{prefix}{f.name}.")


def _read_yaml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise ConfigError(f"config file {path} does not exist")
    try:
        text = path.read_text(encoding="utf-8")
        data = yaml.safe_load(text) or {}
    except (yaml.YAMLError, UnicodeDecodeError, RecursionError) as e:
        raise ConfigError(f"config file {path} is not valid YAML: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path} must hold a mapping of keys to values, got {type(data).__name__}")
    return data


def _split_override(text: str) -> tuple[str, Any]:
    if "=" not in text:
        raise ConfigError(f"override {text!r} must look like key=value or section.key=value")
    key, raw = text.split("=", 1)
    key = key.strip()
    if not key:
        raise ConfigError(f"override {text!r} has no key before '='")
    try:
        value = yaml.safe_load(raw) if raw.strip() else None
    except yaml.YAMLError as e:
        raise ConfigError(f"override {text!r}: the value is not valid YAML ({e})") from e
    return key, value


def _fill(obj: Any, data: dict[str, Any], prefix: str) -> None:
    if not isinstance(data, dict):
        raise ConfigError(f"{prefix.rstrip('.') or 'config'} must be a mapping, got {data!r}")
    for key, value in data.items():
        full = f"{prefix}{key}"
        ftype = _field_types(obj, full)[key]
        current = getattr(obj, key)
        if dataclasses.is_dataclass(current):
            if value is None:  # an empty section in YAML keeps its defaults
                continue
            if not isinstance(value, dict):
                raise ConfigError(f"{full} is a section; give it a mapping of its keys, got {value!r}")
            _fill(current, value, full + ".")
        else:
            setattr(obj, key, _coerce(value, ftype, full))


def _field_types(obj: Any, full_key: str) -> dict[str, Any]:
    hints = typing.get_type_hints(type(obj))
    key = full_key.rsplit(".", 1)[-1]
    if key not in hints:
        section = full_key.rsplit(".", 1)[0] + "." if "." in full_key else ""
        allowed = ", ".join(f"{section}{name}" for name in hints)
        raise ConfigError(f"unknown config key {full_key!r}; allowed: {allowed}")
    return hints


def set_value(config: Config, key: str, value: Any) -> None:
    """Set dotted ``key`` (``total_timesteps``, ``ppo.learning_rate``, ``opponents.weights_end.self``)."""
    parts = key.split(".")
    obj: Any = config
    value_type: Any = Any  # the value type of the dict field being descended into
    for i, part in enumerate(parts):
        full = ".".join(parts[: i + 1])
        if isinstance(obj, dict):
            if i != len(parts) - 1:
                raise ConfigError(f"config key {key!r} goes too deep: {'.'.join(parts[:i])} holds plain values")
            obj[part] = _coerce(value, value_type, full)
            return
        hints = _field_types(obj, full)
        current = getattr(obj, part)
        if i == len(parts) - 1:
            if dataclasses.is_dataclass(current):
                if not isinstance(value, dict):
                    raise ConfigError(f"{full} is a section; set its keys ({full}.<key>=value) or give a mapping")
                _fill(current, value, full + ".")
            else:
                setattr(obj, part, _coerce(value, hints[part], full))
            return
        if not (dataclasses.is_dataclass(current) or isinstance(current, dict)):
            raise ConfigError(f"config key {key!r}: {full} is a value, not a section")
        if isinstance(current, dict):
            args = typing.get_args(hints[part])
            value_type = args[1] if len(args) == 2 else Any
        obj = current


def _coerce(value: Any, ftype: Any, key: str) -> Any:
    """Convert ``value`` to ``ftype`` (int, float, bool, str, Optional, list[...], dict[str, ...])."""
    origin = typing.get_origin(ftype)
    args = typing.get_args(ftype)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _coerce(value, inner[0], key)
    if origin is list:
        if not isinstance(value, (list, tuple)):
            value = [value]  # ``env.num_players=3`` means [3]
        return [_coerce(v, args[0], f"{key}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{key} must be a mapping like {{name: value}}, got {value!r}")
        return {str(k): _coerce(v, args[1], f"{key}.{k}") for k, v in value.items()}
    if ftype is bool:
        if isinstance(value, bool):
            return value
        raise ConfigError(f"{key} must be true or false, got {value!r}")
    if ftype is int:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ConfigError(f"{key} must be an integer, got {value!r}")
        try:
            number = float(value)
        except (ValueError, OverflowError) as e:
            raise ConfigError(f"{key} must be an integer, got {value!r}") from e
        if not math.isfinite(number) or number != int(number):
            raise ConfigError(f"{key} must be an integer, got {value!r}")
        return int(number)
    if ftype is float:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ConfigError(f"{key} must be a number, got {value!r}")
        try:
            return float(value)  # also "1e-4", which YAML 1.1 reads as a string
        except ValueError as e:
            raise ConfigError(f"{key} must be a number, got {value!r}") from e
    if ftype is str:
        if value is None or isinstance(value, (dict, list)):
            raise ConfigError(f"{key} must be a string, got {value!r}")
        return str(value)
    return value


def save_config(config: Config, path: str | Path) -> None:
    """Write the resolved config as YAML (what ``load_config`` reads back)."""
    from fight_envs.core.atomic import atomic_write

    atomic_write(path, yaml.safe_dump(config.to_dict(), sort_keys=False))
