"""Trained checkpoints as agents: the data-only checkpoint format, its metadata sidecar, loading, and play.

A checkpoint is a zip plus a JSON sidecar beside it (``final.zip`` -> ``final.json``) saying what
it was trained on: game, env, player counts, observation shape, action count, env options.

The zip is **data only**: ``fight_envs_policy.json`` names the network (policy class, layer
sizes, activation, feature extractor, each from an allow-list) and ``policy.pt`` holds its
weights, read with ``torch.load(weights_only=True)`` (tensors, numbers and containers; no
object of the file's choosing is built). A training checkpoint (``checkpoints/step_*.zip``,
``final.zip``) adds ``optimizer.pt`` (the optimizer's state, the same way) and
``training.json`` (the step counters); :func:`save_policy` writes a policy-only one (opponent
pools keep many). Every write is atomic (``fight_envs.core.atomic``).

An SB3 model zip (``MaskablePPO.save``) stores the policy's class and spaces *pickled*:
unpickling it runs whatever code the file's author chose. Such a file is refused unless the
caller passes ``trust=True`` (``--trust-checkpoint`` on the command line), and the refusal comes
before any byte of it is unpickled; :func:`convert_checkpoint` turns a trusted one into the
data-only format. See ``docs/security.md``.

An **ensemble** (:func:`save_ensemble`, ``fight-envs ensemble``) is one such zip holding several
policies of the same env, each under ``member_<k>/`` (its own policy header and weights), with
``fight_envs_ensemble.json`` listing them: it plays as one agent (:class:`EnsembleAgent`, the mean of
the members' logits) wherever a checkpoint path is taken, but it is not one network, so a warm start,
a resume or a weight average refuses it with a message naming its members.

:func:`load_checkpoint_agent` reads both files and refuses, with a message naming the difference, a
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

import io
import json
import math
import zipfile
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from fight_envs.agents.base import Agent
from fight_envs.core.atomic import atomic_write

CHECKPOINT_FORMAT = "fight-envs-checkpoint"
CHECKPOINT_FORMAT_VERSION = 1
METADATA_SUFFIX = ".json"
REQUIRED_METADATA = ("format", "format_version", "game", "env", "num_players", "observation_shape", "num_actions", "env_options")
POLICY_FORMAT = "fight-envs-policy"
POLICY_FORMAT_VERSION = 1
POLICY_ENTRY = "fight_envs_policy.json"
WEIGHTS_ENTRY = "policy.pt"
OPTIMIZER_ENTRY = "optimizer.pt"
TRAINING_ENTRY = "training.json"
ENSEMBLE_FORMAT = "fight-envs-ensemble"
ENSEMBLE_FORMAT_VERSION = 1
ENSEMBLE_ENTRY = "fight_envs_ensemble.json"
MAX_MEMBERS = 16
POLICY_SPEC_FIELDS = ("class", "net_arch", "activation", "features", "ortho_init", "share_features_extractor",
                      "normalize_images", "optimizer", "optimizer_kwargs", "observation_shape", "observation_low",
                      "observation_high", "num_actions")
OPTIMIZER_KWARGS = ("eps", "weight_decay", "lr", "amsgrad")
EPISODE_KEYS = ("r", "l", "t")
MAX_PLAYERS = 64
MAX_OBSERVATION_SIZE = 1_000_000
MAX_ACTIONS = 100_000
MAX_LAYERS = 16
MAX_LAYER_WIDTH = 65_536
MAX_PARAMETERS = 50_000_000
MAX_JSON_BYTES = 1 << 20
MAX_ENTRY_BYTES = 1 << 30
"""A checkpoint's zip unpacks to at most this much (a zip bomb is refused before it is read)."""
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
    """Write the sidecar of checkpoint ``path`` (atomically); returns the sidecar's path."""
    side = metadata_path(path)
    atomic_write(side, json.dumps(metadata, indent=2, sort_keys=True) + "\n")
    return side


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The sidecar of checkpoint ``path``, checked for the fields every checkpoint has."""
    side = metadata_path(path)
    if not side.is_file():
        raise CheckpointError(
            f"{path} has no metadata sidecar {side.name}: checkpoints written by fight-envs training have "
            "one beside the .zip (it names the game, player counts and observation shape)"
        )
    meta = _parse_json(_read_limited(side, MAX_JSON_BYTES), str(side))
    if not isinstance(meta, dict) or meta.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{side} is not a fight-envs checkpoint sidecar (its 'format' is not {CHECKPOINT_FORMAT!r})")
    missing = [k for k in REQUIRED_METADATA if k not in meta]
    if missing:
        raise CheckpointError(f"metadata sidecar {side} lacks {missing}; required fields: {list(REQUIRED_METADATA)}")
    _check_metadata_types(meta, side)
    return meta


def _check_metadata_types(meta: dict[str, Any], side: Path) -> None:
    version = meta["format_version"]
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise CheckpointError(f"{side}: format_version must be a positive integer, got {version!r}")
    if version > CHECKPOINT_FORMAT_VERSION:
        raise CheckpointError(f"{side} has format_version {version}; this fight-envs reads format_version 1.."
                              f"{CHECKPOINT_FORMAT_VERSION} only (a newer fight-envs wrote it?)")
    for key in ("game", "env"):
        if not isinstance(meta[key], str) or not meta[key]:
            raise CheckpointError(f"{side}: {key!r} must be a non-empty string, got {meta[key]!r}")
    if not isinstance(meta["env_options"], dict):
        raise CheckpointError(f"{side}: 'env_options' must be a mapping of option names to values, got {meta['env_options']!r}")
    players = meta["num_players"]
    if not isinstance(players, list) or not players or not all(_small_int(n, 1, MAX_PLAYERS) for n in players):
        raise CheckpointError(f"{side}: 'num_players' must be a non-empty list of integers in 1..{MAX_PLAYERS}, got {players!r}")
    shape = meta["observation_shape"]
    if not isinstance(shape, list) or not 1 <= len(shape) <= 4 or not all(_small_int(d, 1, MAX_OBSERVATION_SIZE) for d in shape):
        raise CheckpointError(f"{side}: 'observation_shape' must be a list of 1 to 4 positive integers, got {shape!r}")
    if not _small_int(meta["num_actions"], 1, MAX_ACTIONS):
        raise CheckpointError(f"{side}: 'num_actions' must be an integer in 1..{MAX_ACTIONS}, got {meta['num_actions']!r}")


def _small_int(value: Any, lo: int, hi: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi


# ------------------------------------------------------------------ the data-only policy format
def _read_limited(path: Path, limit: int) -> bytes:
    try:
        size = path.stat().st_size
        if size > limit:
            raise CheckpointError(f"{path} is {size:,} bytes; a checkpoint's JSON is at most {limit:,}")
        return path.read_bytes()
    except OSError as e:
        raise CheckpointError(f"cannot read {path}: {e}") from e


def _parse_json(raw: bytes, where: str) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise CheckpointError(f"{where} is not UTF-8 text: {e}") from e
    except json.JSONDecodeError as e:
        raise CheckpointError(f"{where} is not valid JSON: {e}") from e
    except RecursionError as e:
        raise CheckpointError(f"{where} nests JSON too deeply (a checkpoint's JSON is a few levels deep)") from e


def _policy_classes() -> dict[str, Any]:
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from fight_envs.train.features import FastMaskablePolicy, FightKlubPointerPolicy, PrivilegedCriticPolicy

    return {"MaskableActorCriticPolicy": MaskableActorCriticPolicy, "FastMaskablePolicy": FastMaskablePolicy,
            "FightKlubPointerPolicy": FightKlubPointerPolicy, "PrivilegedCriticPolicy": PrivilegedCriticPolicy}


def _activations() -> dict[str, Any]:
    from torch import nn

    return {"Tanh": nn.Tanh, "ReLU": nn.ReLU}


def _extractors() -> dict[str, Any]:
    from fight_envs.train.features import FEATURES

    return dict(FEATURES)


def _optimizers() -> dict[str, Any]:
    import torch

    return {"Adam": torch.optim.Adam}


def _name_of(value: Any, table: dict[str, Any], what: str) -> str:
    for name, cls in table.items():
        # the same class, or the same class imported under the pre-``fight_envs.train`` name (``train.features``)
        if value is cls or (isinstance(value, type) and value.__qualname__ == cls.__qualname__
                            and value.__module__.rsplit(".", 1)[-1] == cls.__module__.rsplit(".", 1)[-1]):
            return name
    raise CheckpointError(
        f"cannot save {what} {getattr(value, '__name__', value)!r} in the data-only format; it knows {', '.join(table)}"
    )


def policy_spec(policy: Any) -> dict[str, Any]:
    """The JSON description that rebuilds ``policy``: class, network and extractor by name, spaces."""
    kwargs = policy_constructor_kwargs(policy)
    extractor_kwargs = kwargs.get("features_extractor_kwargs") or {}
    if extractor_kwargs:
        raise CheckpointError(f"cannot save features_extractor_kwargs {extractor_kwargs!r} in the data-only format")
    optimizer_kwargs = {k: v for k, v in (kwargs.get("optimizer_kwargs") or {}).items()}
    if not all(isinstance(v, (int, float, bool)) for v in optimizer_kwargs.values()):
        raise CheckpointError(f"cannot save optimizer_kwargs {optimizer_kwargs!r} in the data-only format (numbers only)")
    net_arch = kwargs.get("net_arch")
    space = policy.observation_space
    privileged = kwargs.get("privileged_columns")
    return {
        "class": _name_of(type(policy), _policy_classes(), "policy class"),
        "net_arch": dict(net_arch) if isinstance(net_arch, dict) else [int(n) for n in net_arch or []],
        "activation": _name_of(kwargs.get("activation_fn"), _activations(), "activation"),
        "features": _name_of(kwargs.get("features_extractor_class"), _extractors(), "features extractor"),
        "ortho_init": bool(kwargs.get("ortho_init", True)),
        "share_features_extractor": bool(kwargs.get("share_features_extractor", True)),
        "normalize_images": bool(kwargs.get("normalize_images", True)),
        "optimizer": _name_of(kwargs.get("optimizer_class"), _optimizers(), "optimizer"),
        "optimizer_kwargs": optimizer_kwargs,
        "observation_shape": [int(d) for d in space.shape],
        "observation_low": float(np.min(space.low)),
        "observation_high": float(np.max(space.high)),
        "num_actions": int(policy.action_space.n),
        # a privileged critic's hidden-state columns (the observation's last ones; the actor never reads them)
        **({"privileged_columns": int(privileged)} if privileged else {}),
    }


def privileged_columns(policy: Any) -> int:
    """How many trailing columns of ``policy``'s observations only its critic reads (0 for most policies)."""
    return int(getattr(policy, "privileged_columns", 0) or 0)


def played_shape(policy: Any) -> tuple[int, ...]:
    """The observation shape ``policy`` plays from: its observation space less a privileged critic's columns."""
    shape = tuple(int(d) for d in policy.observation_space.shape)
    return (shape[0] - privileged_columns(policy), *shape[1:])


def _spec_error(path: Path, key: str, value: Any, allowed: str) -> CheckpointError:
    return CheckpointError(f"{path}: {POLICY_ENTRY} field {key!r} is {value!r}; allowed: {allowed}")


def _layer_sizes(value: Any) -> bool:
    return isinstance(value, list) and len(value) <= MAX_LAYERS and all(_small_int(n, 1, MAX_LAYER_WIDTH) for n in value)


def _check_size(path: Path, inputs: int, net_arch: Any, num_actions: int) -> None:
    """Refuse a description whose network would not fit in memory (checked before anything is allocated)."""
    nets = list(net_arch.values()) if isinstance(net_arch, dict) else [net_arch, net_arch]
    total = 0
    for layers in nets:
        widths = [inputs * 2, *layers]  # twice the inputs: room for a feature extractor's additions
        total += sum(a * b for a, b in zip(widths, widths[1:])) + (widths[-1] * num_actions)
    if total > MAX_PARAMETERS:
        raise CheckpointError(f"{path}: {POLICY_ENTRY} fields net_arch and observation_shape describe a network of "
                              f"about {total:,} parameters; at most "
                              f"{MAX_PARAMETERS:,} are allowed")


def build_policy(spec: Any, path: Path, device: str = "cpu") -> Any:
    """The untrained policy ``spec`` describes (every field checked against an allow-list)."""
    from gymnasium import spaces

    if not isinstance(spec, dict):
        raise CheckpointError(f"{path}: {POLICY_ENTRY} must hold a JSON object, got {type(spec).__name__}")
    missing = [k for k in POLICY_SPEC_FIELDS if k not in spec]
    if missing:
        raise CheckpointError(f"{path}: {POLICY_ENTRY} lacks {missing}; required fields: {list(POLICY_SPEC_FIELDS)}")
    tables = {"class": _policy_classes(), "activation": _activations(), "features": _extractors(), "optimizer": _optimizers()}
    chosen = {}
    for key, table in tables.items():
        if not isinstance(spec[key], str) or spec[key] not in table:
            raise _spec_error(path, key, spec[key], ", ".join(table))
        chosen[key] = table[spec[key]]
    net_arch = spec["net_arch"]
    if isinstance(net_arch, dict):
        if set(net_arch) - {"pi", "vf"} or not all(_layer_sizes(v) for v in net_arch.values()):
            raise _spec_error(path, "net_arch", net_arch, f"a list of up to {MAX_LAYERS} layer sizes in 1..{MAX_LAYER_WIDTH}, "
                              "or {'pi': [...], 'vf': [...]}")
    elif not _layer_sizes(net_arch):
        raise _spec_error(path, "net_arch", net_arch, f"a list of up to {MAX_LAYERS} layer sizes in 1..{MAX_LAYER_WIDTH}")
    for key in ("ortho_init", "share_features_extractor", "normalize_images"):
        if not isinstance(spec[key], bool):
            raise _spec_error(path, key, spec[key], "true or false")
    opt = spec["optimizer_kwargs"]
    if not isinstance(opt, dict) or not all(k in OPTIMIZER_KWARGS and isinstance(v, (int, float)) and math.isfinite(v)
                                            for k, v in opt.items()):
        raise _spec_error(path, "optimizer_kwargs", opt, f"a mapping of {', '.join(OPTIMIZER_KWARGS)} to finite numbers")
    shape = spec["observation_shape"]
    if not isinstance(shape, list) or not 1 <= len(shape) <= 4 or not all(_small_int(d, 1, MAX_OBSERVATION_SIZE) for d in shape) \
            or math.prod(shape) > MAX_OBSERVATION_SIZE:
        raise _spec_error(path, "observation_shape", shape, f"1 to 4 positive integers, at most {MAX_OBSERVATION_SIZE:,} values")
    if not _small_int(spec["num_actions"], 1, MAX_ACTIONS):
        raise _spec_error(path, "num_actions", spec["num_actions"], f"an integer in 1..{MAX_ACTIONS}")
    _check_size(path, math.prod(shape), net_arch, int(spec["num_actions"]))
    bounds = (spec["observation_low"], spec["observation_high"])
    if not all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in bounds) or not bounds[0] <= bounds[1]:
        raise _spec_error(path, "observation_low/high", bounds, "two numbers, low <= high")
    obs_space = spaces.Box(float(bounds[0]), float(bounds[1]), tuple(shape), np.float32)
    action_space = spaces.Discrete(int(spec["num_actions"]))
    extra: dict[str, Any] = {}
    privileged = spec.get("privileged_columns")
    if (privileged is not None) != (spec["class"] == "PrivilegedCriticPolicy"):
        raise _spec_error(path, "privileged_columns", privileged, "present exactly when class is PrivilegedCriticPolicy")
    if privileged is not None:
        if not _small_int(privileged, 1, shape[0] - 1) or len(shape) != 1:
            raise _spec_error(path, "privileged_columns", privileged,
                              f"an integer in 1..{shape[0] - 1} (fewer than the observation's columns)")
        extra["privileged_columns"] = int(privileged)
    try:
        policy = chosen["class"](
            obs_space, action_space, lambda _: 0.0, net_arch=net_arch, activation_fn=chosen["activation"],
            features_extractor_class=chosen["features"], ortho_init=spec["ortho_init"],
            share_features_extractor=spec["share_features_extractor"], normalize_images=spec["normalize_images"],
            optimizer_class=chosen["optimizer"], optimizer_kwargs=dict(opt), **extra,
        )
    except (ValueError, TypeError) as e:
        raise CheckpointError(f"{path}: {POLICY_ENTRY} describes a policy that cannot be built: {e}") from e
    return policy.to(device)


def _tensor_bytes(obj: Any) -> bytes:
    import torch

    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def _load_tensors(raw: bytes, where: str, device: str) -> Any:
    """``torch.load`` with ``weights_only=True``: tensors, numbers, strings and containers only."""
    import pickle

    import torch

    try:
        return torch.load(io.BytesIO(raw), map_location=device, weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError, TypeError, KeyError, AttributeError,
            zipfile.BadZipFile, OSError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise CheckpointError(f"{where} is not a data-only tensor file (torch weights_only): {first[:300]}") from e


def _zip_bytes(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return buffer.getvalue()


def _checkpoint_entries(policy: Any) -> dict[str, bytes]:
    header = {"format": POLICY_FORMAT, "format_version": POLICY_FORMAT_VERSION, "policy": policy_spec(policy)}
    state = {k: v.detach().cpu() for k, v in policy.state_dict().items()}
    return {POLICY_ENTRY: json.dumps(header, indent=1).encode(), WEIGHTS_ENTRY: _tensor_bytes(state)}


def save_policy(policy: Any, path: str | Path, metadata: dict[str, Any]) -> Path:
    """Write a data-only policy checkpoint (weights, no optimizer state) and its sidecar, atomically.

    The zip holds ``fight_envs_policy.json`` (the network by name) and ``policy.pt`` (the
    weights, read back with ``torch.load(weights_only=True)``): loading it runs no stored code.
    Opponent pools keep many of them; ``fight_envs.agents.registry.make_agent`` plays them.
    """
    path = Path(path)
    atomic_write(path, _zip_bytes(_checkpoint_entries(policy)))
    write_metadata(path, metadata)
    return path


def save_checkpoint(model: Any, path: str | Path, metadata: dict[str, Any]) -> Path:
    """Write a data-only training checkpoint of a (Maskable)PPO ``model``: the policy, its optimizer
    state and the counters a resume needs (``training.json``), then the sidecar; all atomically."""
    path = Path(path)
    entries = _checkpoint_entries(model.policy)
    entries[OPTIMIZER_ENTRY] = _tensor_bytes(model.policy.optimizer.state_dict())
    episodes = [{k: float(v) for k, v in info.items() if k in EPISODE_KEYS} for info in (model.ep_info_buffer or [])]
    training = {"num_timesteps": int(model.num_timesteps), "n_updates": int(getattr(model, "_n_updates", 0)),
                "episode_num": int(getattr(model, "_episode_num", 0)), "ep_info_buffer": episodes}
    entries[TRAINING_ENTRY] = json.dumps(training).encode()
    atomic_write(path, _zip_bytes(entries))
    write_metadata(path, metadata)
    return path


def _open_zip(path: Path) -> zipfile.ZipFile:
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as e:
        raise CheckpointError(f"{path} is not a checkpoint: cannot read it as a zip ({e}); "
                              "a checkpoint is a .zip written by fight-envs training") from e
    total = 0
    for info in z.infolist():
        total += info.file_size
        if info.file_size > MAX_ENTRY_BYTES or total > MAX_ENTRY_BYTES:
            z.close()
            raise CheckpointError(f"{path}: entry {info.filename!r} unpacks to {info.file_size:,} bytes; "
                                  f"a checkpoint holds at most {MAX_ENTRY_BYTES:,}")
    return z


def _entry(z: zipfile.ZipFile, name: str, path: Path) -> bytes:
    try:
        return z.read(name)
    except KeyError as e:
        raise CheckpointError(f"{path} lacks {name!r}; a data-only checkpoint holds {POLICY_ENTRY} and {WEIGHTS_ENTRY}") from e
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, RuntimeError, NotImplementedError) as e:
        raise CheckpointError(f"{path}: entry {name!r} cannot be read ({e}); the file is damaged") from e


def checkpoint_kind(path: str | Path) -> str:
    """``"data"`` for a data-only checkpoint, ``"ensemble"`` for a data-only ensemble of policies,
    ``"pickle"`` for an SB3 zip (its ``data`` is pickled); CheckpointError for anything else."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path} is not a file; pass the checkpoint's .zip (for a run: runs/<name>/final.zip)")
    with _open_zip(path) as z:
        names = set(z.namelist())
    if ENSEMBLE_ENTRY in names:
        return "ensemble"
    if POLICY_ENTRY in names:
        return "data"
    if "data" in names:
        return "pickle"
    raise CheckpointError(f"{path} is not a checkpoint: a zip with {POLICY_ENTRY} and {WEIGHTS_ENTRY} "
                          "(fight-envs' data-only format) or an SB3 model zip was expected")


def ensemble_error(path: Path) -> CheckpointError:
    """The refusal of an ensemble where one policy is needed (a warm start, a resume, a weight average)."""
    try:
        labels = ", ".join(str(m.get("label")) for m in read_metadata(path).get("ensemble", []))
    except CheckpointError:
        labels = "see its sidecar"
    return CheckpointError(
        f"{path} is an ensemble of policies (fight-envs ensemble; members: {labels}): it plays as one agent "
        "(make_agent, load_checkpoint_agent, or any command that takes a checkpoint), but a warm start, a resume "
        "or a weight average needs one policy: use one of the checkpoints it was built from"
    )


def _ensemble_members(path: Path) -> list[str]:
    """The member folders (``member_<k>/``) an ensemble zip lists in ``fight_envs_ensemble.json``, checked."""
    with _open_zip(path) as z:
        header = _header(z, ENSEMBLE_ENTRY, path, ENSEMBLE_FORMAT, ENSEMBLE_FORMAT_VERSION, "ensemble")
    n = header.get("members")
    if not _small_int(n, 2, MAX_MEMBERS):
        raise CheckpointError(f"{path}: {ENSEMBLE_ENTRY} 'members' must be an integer from 2 to {MAX_MEMBERS}, got {n!r}")
    if header.get("combine") != "mean_logits":
        raise CheckpointError(f"{path}: {ENSEMBLE_ENTRY} 'combine' must be 'mean_logits', got {header.get('combine')!r}")
    return [f"member_{k}/" for k in range(n)]


def save_ensemble(members: list[str | Path], path: str | Path, label: str | None = None) -> Path:
    """Write the data-only checkpoints ``members`` (2 to ``MAX_MEMBERS`` policies of the same env: game,
    player counts, env options, observation shape and action count) as one ensemble checkpoint at
    ``path`` with its sidecar, atomically. Each member is loaded first (so a damaged or pickled one is
    refused before anything is written) and stored as it is, without its optimizer state.

    The sidecar is the first member's env fields plus ``label`` (default ``ensemble(<labels>)``),
    ``num_timesteps`` (the members' sum, what training the ensemble took, when every member has one) and
    ``ensemble``: per member its label, run, steps and file name."""
    path = Path(path)
    members = [Path(m) for m in members]
    if not 2 <= len(members) <= MAX_MEMBERS:
        raise CheckpointError(f"an ensemble takes 2 to {MAX_MEMBERS} checkpoints, got {len(members)}")
    metas: list[dict[str, Any]] = []
    for m in members:
        if not m.is_file():
            raise CheckpointError(f"ensemble member {m} is not a file (a data-only checkpoint .zip was expected)")
        kind = checkpoint_kind(m)
        if kind == "ensemble":
            raise CheckpointError(f"ensemble member {m} is itself an ensemble; give the checkpoints it was built from")
        if kind != "data":
            raise CheckpointError(f"ensemble member {m} is a pickled SB3 checkpoint; convert it first "
                                  "(fight_envs.agents.checkpoint.convert_checkpoint)")
        load_policy(m)  # the weights fit the network they name: refused here, not when the ensemble is played
        metas.append(read_metadata(m))
    for m, meta in zip(members[1:], metas[1:]):
        for key in ("game", "env", "num_players", "env_options", "observation_shape", "num_actions"):
            if meta[key] != metas[0][key]:
                raise CheckpointError(f"ensemble members must share the env: {members[0]} has {key}={metas[0][key]!r}, "
                                      f"{m} has {key}={meta[key]!r}")
    entries: dict[str, bytes] = {ENSEMBLE_ENTRY: json.dumps(
        {"format": ENSEMBLE_FORMAT, "format_version": ENSEMBLE_FORMAT_VERSION, "members": len(members),
         "combine": "mean_logits"}, indent=1).encode()}
    for k, m in enumerate(members):
        with _open_zip(m) as z:
            for name in (POLICY_ENTRY, WEIGHTS_ENTRY):
                entries[f"member_{k}/{name}"] = _entry(z, name, m)
    labels = [str(meta.get("label") or m.stem) for m, meta in zip(members, metas)]
    steps = [meta.get("num_timesteps") for meta in metas]
    metadata = {key: metas[0][key] for key in REQUIRED_METADATA}
    if all(isinstance(t, int) and not isinstance(t, bool) for t in steps):
        metadata["num_timesteps"] = sum(steps)  # type: ignore[arg-type]
    metadata.update(
        label=label or f"ensemble({'+'.join(labels)})",
        ensemble=[{"label": lab, "run": meta.get("run"), "num_timesteps": meta.get("num_timesteps"), "file": m.name}
                  for lab, meta, m in zip(labels, metas, members)],
    )
    if "algo" in metas[0]:
        metadata["algo"] = metas[0]["algo"]
    atomic_write(path, _zip_bytes(entries))
    write_metadata(path, metadata)
    return path


def load_ensemble(path: str | Path, device: str = "cpu") -> tuple[list[Any], dict[str, Any]]:
    """An ensemble checkpoint's member policies (in eval mode, data-only: nothing is unpickled) and its sidecar."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no checkpoint at {path} (expected a .zip written by fight-envs)")
    if checkpoint_kind(path) != "ensemble":
        raise CheckpointError(f"{path} is a single policy's checkpoint, not an ensemble (load it with load_policy)")
    meta = read_metadata(path)
    return [_read_data_checkpoint(path, device, prefix=prefix)[0] for prefix in _ensemble_members(path)], meta


def untrusted_error(path: Path) -> CheckpointError:
    return CheckpointError(
        f"{path} is a pickled SB3 checkpoint: loading it unpickles objects stored in the file, which can run "
        "any code its author put there. Load it only if you trust where it came from: pass trust=True "
        "(fight_envs.agents.registry.make_agent, load_checkpoint_agent) or --trust-checkpoint on the command "
        "line; or convert it once to the data-only format with fight_envs.agents.checkpoint.convert_checkpoint"
    )


def _header(z: zipfile.ZipFile, entry: str, path: Path, fmt: str, max_version: int, what: str) -> dict[str, Any]:
    """The JSON header ``entry`` of a checkpoint zip, checked for its ``format`` and ``format_version``."""
    header = _parse_json(_entry(z, entry, path), f"{path}:{entry}")
    if not isinstance(header, dict) or header.get("format") != fmt:
        raise CheckpointError(f"{path}: {entry} is not a fight-envs {what} header (format {fmt!r})")
    version = header.get("format_version")
    if not _small_int(version, 1, max_version):
        raise CheckpointError(f"{path}: {entry} has format_version {version!r}; this fight-envs reads 1..{max_version}")
    return header


def _read_data_checkpoint(path: Path, device: str, with_training: bool = False,
                          prefix: str = "") -> tuple[Any, dict[str, Any], Any, Any]:
    """A data-only policy (in eval mode) and its header's description; ``prefix``: an ensemble member's folder."""
    header_entry, weights_entry = prefix + POLICY_ENTRY, prefix + WEIGHTS_ENTRY
    with _open_zip(path) as z:
        header = _header(z, header_entry, path, POLICY_FORMAT, POLICY_FORMAT_VERSION, "policy")
        policy = build_policy(header.get("policy"), path, device)
        state = _load_tensors(_entry(z, weights_entry, path), f"{path}:{weights_entry}", device)
        optimizer = training = None
        if with_training:
            names = set(z.namelist())
            if OPTIMIZER_ENTRY not in names or TRAINING_ENTRY not in names:
                raise CheckpointError(f"{path} is a policy-only checkpoint; resuming needs a training checkpoint "
                                      f"({OPTIMIZER_ENTRY} and {TRAINING_ENTRY}: checkpoints/step_*.zip)")
            optimizer = _load_tensors(_entry(z, OPTIMIZER_ENTRY, path), f"{path}:{OPTIMIZER_ENTRY}", device)
            training = _parse_json(_entry(z, TRAINING_ENTRY, path), f"{path}:{TRAINING_ENTRY}")
            if not isinstance(training, dict) or not _small_int(training.get("num_timesteps"), 0, 2**62):
                raise CheckpointError(f"{path}: {TRAINING_ENTRY} must hold num_timesteps (an integer >= 0)")
    import torch

    if not isinstance(state, dict) or not all(isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()):
        raise CheckpointError(f"{path}: {prefix}{WEIGHTS_ENTRY} must hold a mapping of parameter names to tensors")
    try:
        policy.load_state_dict(state)
    except (RuntimeError, ValueError, TypeError) as e:
        raise CheckpointError(f"{path}: the stored weights do not fit the stored policy description (they must have "
                              f"the parameters and shapes of the network it describes): {str(e).splitlines()[0][:300]}") from e
    if not all(bool(torch.isfinite(v).all()) for v in state.values() if v.is_floating_point()):
        raise CheckpointError(f"{path}: the stored weights hold NaN or infinite values; a policy's weights must be finite")
    policy.set_training_mode(False)
    return policy, header["policy"], optimizer, training


def load_policy(path: str | Path, device: str = "cpu", trust: bool = False) -> tuple[Any, dict[str, Any]]:
    """Load a checkpoint's policy (in eval mode) and its metadata, without any env check.

    A data-only checkpoint loads without unpickling anything. A pickled SB3 zip (``MaskablePPO.save``)
    loads only with ``trust=True``: unpickling runs whatever code the file carries.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no checkpoint at {path} (expected a .zip written by fight-envs training)")
    kind = checkpoint_kind(path)
    if kind == "pickle" and not trust:
        raise untrusted_error(path)  # before anything else of the file is read
    if kind == "ensemble":
        raise ensemble_error(path)
    meta = read_metadata(path)
    if kind == "data":
        policy, _, _, _ = _read_data_checkpoint(path, device)
        return policy, meta
    return _load_pickled_policy(path, device), meta


def load_training_state(path: str | Path, device: str = "cpu") -> tuple[Any, Any, dict[str, Any]]:
    """A data-only training checkpoint's (policy, optimizer state dict, counters); CheckpointError if
    it is damaged, policy-only or pickled."""
    path = Path(path)
    kind = checkpoint_kind(path)
    if kind == "ensemble":
        raise ensemble_error(path)
    if kind != "data":
        raise untrusted_error(path)
    policy, _, optimizer, training = _read_data_checkpoint(path, device, with_training=True)
    return policy, optimizer, training


def _load_pickled_policy(path: Path, device: str) -> Any:
    """The pre-data-only loader (SB3's own, unpickling ``data``): only for trusted files."""
    import pickle

    from stable_baselines3.common.save_util import load_from_zip_file

    try:
        # Training-only callables (schedules) are not unpickled: playing does not need them, and
        # they may name classes of a ``train`` module this installation does not have.
        data, params, _ = load_from_zip_file(path, device=device, custom_objects=_PLAY_ONLY)
    except (ValueError, zipfile.BadZipFile, OSError, pickle.UnpicklingError, EOFError, TypeError, KeyError) as e:
        raise CheckpointError(f"{path} is not a checkpoint: cannot read it as an SB3 zip ({e})") from e
    needed = ("policy_class", "observation_space", "action_space")
    if data is None or any(k not in data for k in needed) or "policy" not in params:
        raise CheckpointError(
            f"{path} is not a checkpoint: an SB3 zip with 'data' ({', '.join(needed)}) and 'policy' weights was expected"
        )
    kwargs = dict(data.get("policy_kwargs") or {})
    try:
        policy = data["policy_class"](data["observation_space"], data["action_space"], lambda _: 0.0, **kwargs)
        policy.load_state_dict(params["policy"])
    except (RuntimeError, TypeError, ValueError) as e:
        raise CheckpointError(f"{path}: the stored weights do not fit the stored policy description: {e}") from e
    policy.to(device)
    policy.set_training_mode(False)
    return policy


def convert_checkpoint(source: str | Path, target: str | Path, trust: bool = False, device: str = "cpu") -> Path:
    """Rewrite checkpoint ``source`` (a pickled SB3 zip: needs ``trust=True``) as a data-only policy
    checkpoint at ``target``, sidecar included. Only the policy is kept (no optimizer state)."""
    policy, meta = load_policy(source, device=device, trust=trust)
    return save_policy(policy, target, meta)


def policy_constructor_kwargs(policy: Any) -> dict[str, Any]:
    """The keyword arguments that rebuild ``policy`` (SB3's own list, less spaces and schedule)."""
    kwargs = dict(policy._get_constructor_parameters())
    for key in ("observation_space", "action_space", "lr_schedule"):
        kwargs.pop(key, None)
    return kwargs


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
    stored_shape = played_shape(policy)  # a privileged critic's extra columns are not the env's
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


class EnsembleAgent(PolicyAgent):
    """Plays several policies of one env as one: their logits averaged (a product of experts: the
    masked softmax of the mean logits is the members' distributions multiplied and renormalised), then
    the most likely legal action, or a sample (``deterministic=False``, from the agent's own generator).
    ``policy`` is the first member's (what code that reads one network, such as its spaces, sees)."""

    def __init__(self, members: list[PolicyAgent], deterministic: bool = True, name: str | None = None,
                 seed: int | None = None, metadata: dict[str, Any] | None = None) -> None:
        if len(members) < 2:
            raise ValueError(f"an ensemble plays 2 or more policies, got {len(members)}")
        super().__init__(members[0].policy, deterministic=deterministic, name=name, seed=seed, metadata=metadata,
                         use_numpy=False)
        self.members = list(members)

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """The members' unmasked logits, averaged."""
        obs = np.asarray(observations, dtype=np.float32)
        total = self.members[0].logits(obs)
        for member in self.members[1:]:
            total = total + member.logits(obs)
        return total / len(self.members)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "members": len(self.members)}


def load_checkpoint_agent(
    path: str | Path,
    device: str = "cpu",
    deterministic: bool = True,
    game: str | None = None,
    seed: int | None = None,
    name: str | None = None,
    trust: bool = False,
) -> PolicyAgent:
    """Load checkpoint ``path`` (a ``.zip`` with its ``.json`` sidecar) as an agent.

    A data-only checkpoint (what fight-envs writes) loads without unpickling; a pickled SB3 zip
    only with ``trust=True`` (see :func:`load_policy`).

    ``game`` (e.g. ``"fight5"``), when given, must be the checkpoint's game. The policy's
    observation shape and action count must match both the sidecar and what the checkpoint's
    env gives today. ``deterministic=False`` samples from the masked policy.
    """
    path = Path(path)
    if path.is_file() and checkpoint_kind(path) == "ensemble":
        policies, meta = load_ensemble(path, device=device)
        for policy in policies:
            check_checkpoint(policy, meta, path, game)
        label = name or meta.get("label") or path.stem
        return EnsembleAgent([PolicyAgent(p, deterministic=deterministic, metadata=meta) for p in policies],
                             deterministic=deterministic, name=label, seed=seed, metadata=meta)
    policy, meta = load_policy(path, device=device, trust=trust)
    check_checkpoint(policy, meta, path, game)
    label = name or meta.get("label") or path.stem  # training writes "<run>@<timesteps>" as the label
    return PolicyAgent(policy, deterministic=deterministic, name=label, seed=seed, metadata=meta)
