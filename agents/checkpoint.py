"""Trained checkpoints as agents: the checkpoint format's metadata sidecar, loading, and play.

A checkpoint is an SB3 zip (a full ``MaskablePPO.save`` file, or a policy-only zip written by
:func:`save_policy`; both hold ``data`` with the policy's class, kwargs and spaces, and the
``policy`` state dict) plus a JSON sidecar beside it (``final.zip`` -> ``final.json``) saying
what it was trained on: game, env, player counts, observation shape, action count, env options.
:func:`load_checkpoint_agent` reads both and refuses, with a message naming the difference, a
missing file, a file that is not a checkpoint, a checkpoint of another game, or one whose
observation shape or action count no longer matches the game's env.

:class:`PolicyAgent` plays a masked actor-critic policy through the ``fight_envs.agents.base.Agent``
protocol. A plain MLP actor (SB3's default ``MlpPolicy``) is copied out of its modules and
evaluated as bare matrix products: a single decision in numpy, about four times faster than a
torch call of the same network, which matters for opponents stepped one decision at a time
inside rollout workers; a batch of decisions (self-play on the batched engine) with torch's
matrix product on the same arrays, since numpy's OpenBLAS runs products of that size on worker
threads that, on a machine with busy cores, made a batch of 128 decisions 20 times slower than
one thread does. Other policies run through torch. Sampling (``deterministic=False``) uses the agent's own generator,
so ``seed()`` reproduces a game.

Torch, stable-baselines3 and sb3-contrib (the ``train`` extra) are imported only when a
checkpoint is loaded or saved, so ``import agents`` stays light.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from fight_envs.agents.base import Agent

CHECKPOINT_FORMAT = "fight-envs-checkpoint"
CHECKPOINT_FORMAT_VERSION = 1
METADATA_SUFFIX = ".json"
REQUIRED_METADATA = ("format", "format_version", "game", "env", "num_players", "observation_shape", "num_actions", "env_options")
MASKED_LOGIT = -1e9  # finite, so a row's softmax stays defined; never chosen over a legal action


_PLAY_ONLY: dict[str, Any] = {"learning_rate": 0.0, "lr_schedule": None, "clip_range": None, "clip_range_vf": None}


class CheckpointError(ValueError):
    """A file that cannot be loaded as a checkpoint of the game asked for."""


def metadata_path(path: str | Path) -> Path:
    """The sidecar of checkpoint ``path``: the same name with ``.json``."""
    return Path(path).with_suffix(METADATA_SUFFIX)


def checkpoint_metadata(
    game: str,
    env: str,
    num_players: list[int],
    observation_shape: tuple[int, ...],
    num_actions: int,
    env_options: dict[str, Any],
    **extra: Any,
) -> dict[str, Any]:
    """The sidecar's content; ``extra`` adds fields such as ``num_timesteps`` or ``run``."""
    return {
        "format": CHECKPOINT_FORMAT,
        "format_version": CHECKPOINT_FORMAT_VERSION,
        "game": game,
        "env": env,
        "num_players": [int(n) for n in num_players],
        "observation_shape": [int(d) for d in observation_shape],
        "num_actions": int(num_actions),
        "env_options": dict(env_options),
        **extra,
    }


def write_metadata(path: str | Path, metadata: dict[str, Any]) -> Path:
    """Write the sidecar of checkpoint ``path``; returns the sidecar's path."""
    side = metadata_path(path)
    side.write_text(json.dumps(metadata, indent=2, sort_keys=True) + "\n")
    return side


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The sidecar of checkpoint ``path``, checked for the fields every checkpoint has."""
    side = metadata_path(path)
    if not side.is_file():
        raise CheckpointError(
            f"{path} has no metadata sidecar {side.name}: checkpoints written by fight-envs training have "
            "one beside the .zip (it names the game, player counts and observation shape)"
        )
    try:
        meta = json.loads(side.read_text())
    except json.JSONDecodeError as e:
        raise CheckpointError(f"metadata sidecar {side} is not valid JSON: {e}") from e
    if not isinstance(meta, dict) or meta.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{side} is not a fight-envs checkpoint sidecar (its 'format' is not {CHECKPOINT_FORMAT!r})")
    missing = [k for k in REQUIRED_METADATA if k not in meta]
    if missing:
        raise CheckpointError(f"metadata sidecar {side} lacks {missing}; required fields: {list(REQUIRED_METADATA)}")
    if meta["format_version"] > CHECKPOINT_FORMAT_VERSION:
        raise CheckpointError(
            f"{side} has format_version {meta['format_version']}; this fight-envs reads up to {CHECKPOINT_FORMAT_VERSION}"
        )
    return meta


def save_policy(policy: Any, path: str | Path, metadata: dict[str, Any]) -> Path:
    """Write a policy-only checkpoint (weights, no optimizer state) and its sidecar.

    The zip has the layout of an SB3 model file restricted to what playing needs, so it is a
    third of a full ``MaskablePPO.save`` file; opponent pools keep many of them.
    """
    from stable_baselines3.common.save_util import save_to_zip_file

    path = Path(path)
    data = {
        "policy_class": type(policy),
        "policy_kwargs": policy_constructor_kwargs(policy),
        "observation_space": policy.observation_space,
        "action_space": policy.action_space,
    }
    save_to_zip_file(path, data=data, params={"policy": policy.state_dict()})
    write_metadata(path, metadata)
    return path


def policy_constructor_kwargs(policy: Any) -> dict[str, Any]:
    """The keyword arguments that rebuild ``policy`` (SB3's own list, less spaces and schedule)."""
    kwargs = dict(policy._get_constructor_parameters())
    for key in ("observation_space", "action_space", "lr_schedule"):
        kwargs.pop(key, None)
    return kwargs


def load_policy(path: str | Path, device: str = "cpu") -> tuple[Any, dict[str, Any]]:
    """Load a checkpoint's policy (in eval mode) and its metadata, without any env check."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no checkpoint at {path} (expected a .zip written by fight-envs training)")
    if not path.is_file():
        raise CheckpointError(f"{path} is not a file; pass the checkpoint's .zip (for a run: runs/<name>/final.zip)")
    meta = read_metadata(path)
    from stable_baselines3.common.save_util import load_from_zip_file

    try:
        # Training-only callables (schedules) are not unpickled: playing does not need them, and
        # they may name classes of a ``train`` module this installation does not have.
        data, params, _ = load_from_zip_file(path, device=device, custom_objects=_PLAY_ONLY)
    except (ValueError, zipfile.BadZipFile, OSError) as e:
        raise CheckpointError(f"{path} is not a checkpoint: cannot read it as an SB3 zip ({e})") from e
    needed = ("policy_class", "observation_space", "action_space")
    if data is None or any(k not in data for k in needed) or "policy" not in params:
        raise CheckpointError(
            f"{path} is not a checkpoint: an SB3 zip with 'data' ({', '.join(needed)}) and 'policy' weights was expected"
        )
    kwargs = dict(data.get("policy_kwargs") or {})
    policy = data["policy_class"](data["observation_space"], data["action_space"], lambda _: 0.0, **kwargs)
    try:
        policy.load_state_dict(params["policy"])
    except RuntimeError as e:
        raise CheckpointError(f"{path}: the stored weights do not fit the stored policy description: {e}") from e
    policy.to(device)
    policy.set_training_mode(False)
    return policy, meta


def _expected_spaces(meta: dict[str, Any]) -> tuple[tuple[int, ...], int]:
    """Observation shape and action count the metadata's env gives today."""
    from fight_envs.registry import make

    options = {k: v for k, v in meta["env_options"].items() if k != "render_mode"}
    env = make(meta["env"], api="raw", num_players=int(meta["num_players"][0]), **options)
    agent = env.possible_agents[0]
    space = env.observation_space(agent)
    obs_space = space["observation"] if hasattr(space, "spaces") else space
    return tuple(obs_space.shape), int(env.action_space(agent).n)


def check_checkpoint(policy: Any, meta: dict[str, Any], path: Path, game: str | None) -> None:
    """Raise CheckpointError if the checkpoint does not fit ``game`` or the game's current env."""
    if game is not None and meta["game"] != game:
        raise CheckpointError(f"{path} is a {meta['game']!r} checkpoint, not a {game!r} one")
    stored_shape = tuple(policy.observation_space.shape)
    stored_actions = int(policy.action_space.n)
    if tuple(meta["observation_shape"]) != stored_shape or int(meta["num_actions"]) != stored_actions:
        raise CheckpointError(
            f"{path} and its sidecar disagree: the policy takes observations {stored_shape} and {stored_actions} "
            f"actions, the sidecar says {tuple(meta['observation_shape'])} and {meta['num_actions']}"
        )
    env_shape, env_actions = _expected_spaces(meta)
    if stored_shape != env_shape:
        raise CheckpointError(
            f"{path} was trained on observations of shape {stored_shape}, but {meta['env']} now gives {env_shape}: "
            "the observation encoder changed since training; retrain the checkpoint"
        )
    if stored_actions != env_actions:
        raise CheckpointError(f"{path} chooses among {stored_actions} actions, but {meta['env']} now has {env_actions}")


class _NumpyActor:
    """An SB3 MLP actor evaluated in numpy: flatten (or an extractor's ``numpy_features``), then
    Linear + activation layers, then the action head."""

    ACTIVATIONS: ClassVar[dict[str, Any]] = {"Tanh": np.tanh, "ReLU": lambda x: np.maximum(x, 0.0), "Identity": lambda x: x}
    TORCH_ACTIVATIONS: ClassVar[dict[str, str | None]] = {"Tanh": "tanh", "ReLU": "relu", "Identity": None}
    TORCH_ROWS = 2
    """Batches of at least this many rows go through torch's matrix product (see the module docstring)."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray, Any]], head: tuple[np.ndarray, np.ndarray],
                 features: Any = None, activations: list[str] | None = None) -> None:
        import torch

        self.layers = layers
        self.head = head
        self.features = features
        names = activations if activations is not None else [_activation_name(act) for _, _, act in layers]
        # torch views of the same arrays (no copies): weights, biases, activation
        self._torch = [(torch.from_numpy(w), torch.from_numpy(b), None if self.TORCH_ACTIVATIONS[name] is None
                        else getattr(torch, self.TORCH_ACTIVATIONS[name])) for (w, b, _), name in zip(layers, names)]
        self._torch_head = (torch.from_numpy(head[0]), torch.from_numpy(head[1]))

    @classmethod
    def from_policy(cls, policy: Any) -> _NumpyActor | None:
        """The numpy copy of ``policy``'s actor, or None when it is not a plain MLP."""
        from stable_baselines3.common.torch_layers import FlattenExtractor

        extractor = policy.pi_features_extractor
        features = getattr(extractor, "numpy_features", None)  # an extractor with a numpy twin
        if len(policy.observation_space.shape) != 1 or not (isinstance(extractor, FlattenExtractor) or features):
            return None
        return cls.from_mlp(list(policy.mlp_extractor.policy_net), policy.action_net, features)

    @classmethod
    def from_mlp(cls, modules: list[Any], head: Any, features: Any = None) -> _NumpyActor | None:
        """The numpy copy of ``modules`` (Linear, activation, Linear, activation...) then ``head`` (a
        Linear), with ``features`` (a numpy feature function) first; None for any other shape."""
        from torch import nn

        layers: list[tuple[np.ndarray, np.ndarray, Any]] = []
        names: list[str] = []
        for i in range(0, len(modules), 2):
            linear = modules[i]
            act = modules[i + 1] if i + 1 < len(modules) else nn.Identity()
            if not isinstance(linear, nn.Linear) or type(act).__name__ not in cls.ACTIVATIONS:
                return None
            layers.append((_np(linear.weight).T.copy(), _np(linear.bias), cls.ACTIVATIONS[type(act).__name__]))
            names.append(type(act).__name__)
        if not isinstance(head, nn.Linear):
            return None
        return cls(layers, (_np(head.weight).T.copy(), _np(head.bias)), features, names)

    def logits(self, obs: np.ndarray) -> np.ndarray:
        x = obs.reshape(obs.shape[0], -1).astype(np.float32, copy=False)
        if self.features is not None:
            x = self.features(x)
        if x.shape[0] >= self.TORCH_ROWS:
            return self._torch_logits(x)
        for w, b, act in self.layers:
            x = act(x @ w + b)
        w, b = self.head
        return x @ w + b

    def _torch_logits(self, x: np.ndarray) -> np.ndarray:
        """The same products, sums and activations with torch's CPU kernels (its own thread setting)."""
        import torch

        with torch.no_grad():
            t = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))
            for w, b, act in self._torch:
                t = torch.addmm(b, t, w)
                if act is not None:
                    t = act(t)
            w, b = self._torch_head
            return torch.addmm(b, t, w).numpy()


def _activation_name(fn: Any) -> str:
    return next(name for name, f in _NumpyActor.ACTIVATIONS.items() if f is fn)


def _np(t: Any) -> np.ndarray:
    return t.detach().cpu().numpy().astype(np.float32)


class PolicyAgent(Agent):
    """Plays a masked actor-critic policy: the most likely legal action, or a sample."""

    name = "ppo"
    version = 0  # the label is the name alone: a checkpoint is identified by its name

    def __init__(
        self,
        policy: Any,
        deterministic: bool = True,
        name: str | None = None,
        seed: int | None = None,
        metadata: dict[str, Any] | None = None,
        use_numpy: bool = True,
    ) -> None:
        super().__init__(seed)
        self.policy = policy
        self.deterministic = deterministic
        self.metadata = dict(metadata or {})
        self.game = self.metadata.get("game")
        if name is not None:
            self.name = name
        self._numpy = _NumpyActor.from_policy(policy) if use_numpy else None

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """Unmasked action logits, one row per observation."""
        obs = np.asarray(observations, dtype=np.float32)
        if self._numpy is not None:
            return self._numpy.logits(obs)
        import torch

        with torch.no_grad():
            obs_t = torch.as_tensor(obs, device=self.policy.device)
            features = self.policy.extract_features(obs_t, self.policy.pi_features_extractor)
            latent = self.policy.mlp_extractor.forward_actor(features)
            return self.policy.action_net(latent).cpu().numpy()

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(action_masks).astype(bool)
        if masks.ndim != 2 or not masks.any(axis=1).all():
            raise ValueError("no legal action: an action mask row is all zeros (or the masks are not a 2-D batch)")
        logits = np.where(masks, self.logits(observations), MASKED_LOGIT)
        if not self.deterministic:
            # Gumbel-max: argmax of logits + Gumbel noise samples from the masked softmax.
            logits = logits + self.rng.gumbel(size=logits.shape)
            logits = np.where(masks, logits, MASKED_LOGIT)
        return logits.argmax(axis=1).astype(np.int64)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "deterministic": self.deterministic, "checkpoint": self.metadata}


def load_checkpoint_agent(
    path: str | Path,
    device: str = "cpu",
    deterministic: bool = True,
    game: str | None = None,
    seed: int | None = None,
    name: str | None = None,
) -> PolicyAgent:
    """Load checkpoint ``path`` (a ``.zip`` with its ``.json`` sidecar) as an agent.

    ``game`` (e.g. ``"fight5"``), when given, must be the checkpoint's game. The policy's
    observation shape and action count must match both the sidecar and what the checkpoint's
    env gives today. ``deterministic=False`` samples from the masked policy.
    """
    path = Path(path)
    policy, meta = load_policy(path, device=device)
    check_checkpoint(policy, meta, path, game)
    label = name or meta.get("label") or path.stem  # training writes "<run>@<timesteps>" as the label
    return PolicyAgent(policy, deterministic=deterministic, name=label, seed=seed, metadata=meta)
