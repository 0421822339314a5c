"""RLlib-trained policies as suite agents, so they play in ``fight_envs.agents.evaluate``, tournaments and ratings
beside the SB3 checkpoints and the scripted baselines.

A checkpoint is a directory. ``fight-envs train-rllib`` exports the learning module of each
checkpoint as ``<run>/checkpoints/<name>/`` (RLlib's ``RLModule.save_to_path`` layout) with a
``fight_envs_agent.json`` beside its files naming the game, the env options, the step and the
observation key; ``load_rllib_agent`` also accepts a whole RLlib *algorithm* checkpoint
directory (it then loads the module ``learner`` under ``learner_group/learner/rl_module/``, or
the one ``module_id`` names). Loading needs the ``rllib`` extra (ray, torch) but no running Ray.

The agent acts from the observation vector and the mask (the suite's Agent protocol): one
``forward_inference`` per batch, logits masked, then argmax (``deterministic=True``, the
default, as in evaluation) or a sample from the masked softmax with the agent's own generator.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from fight_envs.agents.base import Agent

METADATA_NAME = "fight_envs_agent.json"
MODULE_IN_ALGO_CHECKPOINT = ("learner_group", "learner", "rl_module")
DEFAULT_MODULE_ID = "learner"
DATA_FORMAT = "fight-envs rllib learner 2"
"""The data-only export (format 1 was RLlib's own pickled ``save_to_path`` layout)."""


class RLlibCheckpointError(ValueError):
    """A directory that is not a loadable RLlib checkpoint of this suite, with the reason."""


def is_rllib_checkpoint(path: str | Path) -> bool:
    """True for a directory exported by the RLlib trainer or an RLlib algorithm checkpoint."""
    p = Path(path)
    return p.is_dir() and ((p / METADATA_NAME).is_file() or (p / Path(*MODULE_IN_ALGO_CHECKPOINT)).is_dir()
                           or (p / "rllib_checkpoint.json").is_file())


def _module_dir(path: Path, module_id: str) -> Path:
    if (path / METADATA_NAME).is_file():
        return path
    modules = path / Path(*MODULE_IN_ALGO_CHECKPOINT)
    if modules.is_dir():
        chosen = modules / module_id
        if not chosen.is_dir():
            found = sorted(p.name for p in modules.iterdir() if p.is_dir())
            raise RLlibCheckpointError(f"{path}: no module {module_id!r} in this algorithm checkpoint; modules: {found}")
        return chosen
    raise RLlibCheckpointError(
        f"{path} is not an RLlib checkpoint of this suite: expected {METADATA_NAME} (an exported learner) "
        f"or {'/'.join(MODULE_IN_ALGO_CHECKPOINT)}/ (an algorithm checkpoint)"
    )


def read_rllib_metadata(path: str | Path) -> dict[str, Any]:
    """The exported module's metadata (game, env options, step...), or {} for a bare RLlib checkpoint."""
    p = Path(path)
    for candidate in (p / METADATA_NAME, p.parent / METADATA_NAME):
        if candidate.is_file():
            try:
                if candidate.stat().st_size > 1 << 20:
                    raise RLlibCheckpointError(f"{candidate} is over 1 MiB; an agent's metadata is a few hundred bytes")
                meta = json.loads(candidate.read_text(encoding="utf-8"))
            except (json.JSONDecodeError, UnicodeDecodeError) as e:
                raise RLlibCheckpointError(f"{candidate} is not valid JSON: {e}") from e
            except RecursionError as e:
                raise RLlibCheckpointError(f"{candidate} nests JSON too deeply") from e
            except OSError as e:
                raise RLlibCheckpointError(f"cannot read {candidate}: {e}") from e
            if not isinstance(meta, dict):
                raise RLlibCheckpointError(f"{candidate} must hold a JSON object (game, env, env_options...), "
                                           f"got {type(meta).__name__}")
            if not isinstance(meta.get("env_options", {}), dict):
                raise RLlibCheckpointError(f"{candidate}: 'env_options' must be a mapping, got {meta['env_options']!r}")
            return meta
    return {}


class RLlibModuleAgent(Agent):
    """A torch RLModule with a masked policy head (``fight_envs.train.rllib.modules.MaskedPPOTorchRLModule``) as an Agent."""

    name = "rllib"
    version = 0

    def __init__(self, module: Any, deterministic: bool = True, name: str | None = None, seed: int | None = None,
                 obs_key: str = "observations", metadata: dict[str, Any] | None = None) -> None:
        super().__init__(seed)
        import torch

        self._torch = torch
        self.module = module
        self.module.eval()
        self.deterministic = deterministic
        self.obs_key = obs_key
        self.metadata = dict(metadata or {})
        self.game = self.metadata.get("game")
        if name:
            self.name = name
        # A numpy copy of the actor (features, MLP, policy head), as for SB3 checkpoints: evaluation
        # acts one observation at a time, where torch's per-call overhead and threading dominate.
        self._numpy = numpy_actor(module)

    def logits(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Masked action logits (illegal actions at RLlib's FLOAT_MIN), one row per observation."""
        if self._numpy is not None:
            raw = self._numpy.logits(np.asarray(observations, dtype=np.float32)).astype(np.float64)
            return np.where(np.asarray(action_masks) > 0, raw, FLOAT_MIN)
        return self.torch_logits(observations, action_masks)

    def torch_logits(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The same logits through the module's own ``forward_inference``."""
        from ray.rllib.core.columns import Columns

        torch = self._torch
        obs = torch.as_tensor(np.asarray(observations, dtype=np.float32))
        mask = torch.as_tensor(np.asarray(action_masks, dtype=np.float32))
        with torch.no_grad():
            out = self.module.forward_inference({Columns.OBS: {self.obs_key: obs, "action_mask": mask}})
        return out[Columns.ACTION_DIST_INPUTS].cpu().numpy().astype(np.float64)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        observations = np.asarray(observations)
        masks = np.asarray(action_masks)
        if observations.ndim != 2 or masks.ndim != 2 or observations.shape[0] != masks.shape[0]:
            raise ValueError(f"act_batch needs (B, obs) and (B, actions) arrays; got {observations.shape} and {masks.shape}")
        if np.any(masks.sum(axis=1) == 0):
            raise ValueError("no legal action: an action mask row is all zeros")
        logits = self.logits(observations, masks)
        legal = masks > 0
        if self.deterministic:
            return np.where(legal, logits, -np.inf).argmax(axis=1).astype(np.int64)
        z = np.where(legal, logits, -np.inf)
        z = z - z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        u = self.rng.random((p.shape[0], 1))
        return np.minimum((p.cumsum(axis=1) < u).sum(axis=1), p.shape[1] - 1).astype(np.int64)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "deterministic": self.deterministic, "checkpoint": self.metadata}


FLOAT_MIN = -3.4e38
"""RLlib's ``FLOAT_MIN``: what the masked module adds to an illegal action's logit."""


def numpy_actor(module: Any) -> Any:
    """``fight_envs.agents.checkpoint``'s numpy actor over an RLlib default PPO module's actor, or None if its
    shape is not a plain MLP (the agent then calls the module itself)."""
    from fight_envs.agents.checkpoint import _NumpyActor

    try:
        encoder = list(module.encoder.actor_encoder.net.mlp)
        head = list(module.pi.net.mlp)
        extractor = module.features
    except AttributeError:
        return None
    features = getattr(extractor, "numpy_features", None)
    if (type(extractor).__name__ != "FlattenExtractor" and features is None) or len(head) != 1:
        return None
    return _NumpyActor.from_mlp(encoder, head[0], features)


MODULE_STATE_NAME = "module_state.pt"
"""The data-only export's weights: the module's state dict, read with ``torch.load(weights_only=True)``."""
MODULE_CLASSES = ("MaskedPPOTorchRLModule",)
RLLIB_ACTIVATIONS = ("tanh", "relu", "linear", "swish", "silu", "elu")
MAX_LAYERS = 16
MAX_LAYER_WIDTH = 65_536
MAX_SIZE = 1_000_000
MAX_PARAMETERS = 50_000_000


def is_data_only(path: str | Path) -> bool:
    """True for a directory in the data-only export layout (``module_state.pt`` + metadata with ``module``)."""
    p = Path(path)
    return (p / MODULE_STATE_NAME).is_file() and (p / METADATA_NAME).is_file()


def untrusted_error(path: Path) -> RLlibCheckpointError:
    return RLlibCheckpointError(
        f"{path} is a pickled RLlib checkpoint (class_and_ctor_args.pkl, module_state.pkl): loading it unpickles "
        "objects stored in the files, which can run any code their author put there. Load it only if you trust "
        "where it came from: pass trust=True (fight_envs.agents.registry.make_agent, load_rllib_agent) or "
        "--trust-checkpoint on the command line; or convert it once with "
        "fight_envs.agents.rllib_agent.convert_rllib_checkpoint"
    )


def module_spec(module: Any, obs_key: str = "observations") -> dict[str, Any]:
    """The JSON description that rebuilds a ``MaskedPPOTorchRLModule`` (class by name, spaces, model config)."""
    name = type(module).__name__
    if name not in MODULE_CLASSES:
        raise RLlibCheckpointError(f"cannot export module class {name!r} in the data-only format; it knows {MODULE_CLASSES}")
    space = module.observation_space
    vec = space[obs_key]
    config = {k: v for k, v in dict(module.model_config or {}).items() if _json_scalar_or_list(v)}
    return {"class": name, "obs_key": obs_key, "observation_size": int(vec.shape[0]),
            "observation_low": float(np.min(vec.low)), "observation_high": float(np.max(vec.high)),
            "num_actions": int(module.action_space.n), "model_config": config}


def _json_scalar_or_list(v: Any) -> bool:
    if v is None or isinstance(v, (bool, str)):
        return True
    if isinstance(v, (int, float)):
        return math.isfinite(v)
    return isinstance(v, list) and len(v) <= MAX_LAYERS and all(isinstance(x, (int, float, str)) and not isinstance(x, bool)
                                                               for x in v)


def _spec_error(path: Path, key: str, value: Any, allowed: str) -> RLlibCheckpointError:
    return RLlibCheckpointError(f"{path}: {METADATA_NAME} field module.{key} is {value!r}; allowed: {allowed}")


def _small_int(value: Any, lo: int, hi: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi


def build_module(spec: Any, path: Path) -> Any:
    """The untrained module ``spec`` describes, every field checked against an allow-list."""
    import gymnasium as gym

    from fight_envs.train.features import FEATURES

    if not isinstance(spec, dict):
        raise RLlibCheckpointError(f"{path}: {METADATA_NAME} must have a 'module' object describing the network "
                                   "(the data-only export writes one)")
    for key in ("class", "obs_key", "observation_size", "observation_low", "observation_high", "num_actions", "model_config"):
        if key not in spec:
            raise RLlibCheckpointError(f"{path}: {METADATA_NAME} 'module' lacks {key!r}")
    if spec["class"] not in MODULE_CLASSES:
        raise _spec_error(path, "class", spec["class"], ", ".join(MODULE_CLASSES))
    if spec["obs_key"] not in ("observations", "observation"):
        raise _spec_error(path, "obs_key", spec["obs_key"], "observations, observation")
    if not _small_int(spec["observation_size"], 1, MAX_SIZE):
        raise _spec_error(path, "observation_size", spec["observation_size"], f"an integer in 1..{MAX_SIZE}")
    if not _small_int(spec["num_actions"], 1, MAX_SIZE):
        raise _spec_error(path, "num_actions", spec["num_actions"], f"an integer in 1..{MAX_SIZE}")
    low, high = spec["observation_low"], spec["observation_high"]
    if not all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in (low, high)) or not low <= high:
        raise _spec_error(path, "observation_low/high", (low, high), "two numbers, low <= high")
    mc = spec["model_config"]
    if not isinstance(mc, dict) or not all(isinstance(k, str) and _json_scalar_or_list(v) for k, v in mc.items()):
        raise _spec_error(path, "model_config", mc, "a mapping of names to numbers, strings, booleans, null or short lists")
    for key in ("fcnet_hiddens", "head_fcnet_hiddens"):
        sizes = mc.get(key, [])
        if not isinstance(sizes, list) or not all(_small_int(n, 1, MAX_LAYER_WIDTH) for n in sizes):
            raise _spec_error(path, f"model_config.{key}", sizes, f"a list of up to {MAX_LAYERS} sizes in 1..{MAX_LAYER_WIDTH}")
    for key in ("fcnet_activation", "head_fcnet_activation"):
        if key in mc and mc[key] not in RLLIB_ACTIVATIONS:
            raise _spec_error(path, f"model_config.{key}", mc[key], ", ".join(RLLIB_ACTIVATIONS))
    if mc.get("features", "flat") not in FEATURES:
        raise _spec_error(path, "model_config.features", mc.get("features"), ", ".join(FEATURES))
    if any(k.endswith(("_initializer", "_initializer_kwargs")) and v is not None for k, v in mc.items()):
        raise _spec_error(path, "model_config initializers", {k: v for k, v in mc.items() if k.endswith("initializer")},
                          "null (the weights are loaded, so initializers play no part)")
    if mc.get("use_lstm"):
        raise _spec_error(path, "model_config.use_lstm", True, "false (the suite's modules are MLPs)")
    widths = [2 * int(spec["observation_size"]), *mc.get("fcnet_hiddens", [])]
    params = 2 * (sum(a * b for a, b in zip(widths, widths[1:])) + widths[-1] * int(spec["num_actions"]))
    if params > MAX_PARAMETERS:
        raise _spec_error(path, "model_config.fcnet_hiddens", mc.get("fcnet_hiddens"),
                          f"a network of at most {MAX_PARAMETERS:,} parameters (this one: about {params:,})")
    from fight_envs.train.rllib.modules import MaskedPPOTorchRLModule

    n = int(spec["num_actions"])
    space = gym.spaces.Dict({"action_mask": gym.spaces.Box(0, 1, (n,), np.int8),
                             spec["obs_key"]: gym.spaces.Box(float(low), float(high), (int(spec["observation_size"]),), np.float32)})
    try:
        return MaskedPPOTorchRLModule(observation_space=space, action_space=gym.spaces.Discrete(n),
                                      model_config=dict(mc), inference_only=False)
    except (ValueError, TypeError, KeyError) as e:
        raise RLlibCheckpointError(f"{path}: the 'module' description cannot be built: {e}") from e


def save_rllib_module(module: Any, path: str | Path, metadata: dict[str, Any]) -> Path:
    """Export ``module`` as a data-only agent directory (``fight_envs_agent.json`` with the network's
    description, ``module_state.pt`` with its weights), swapped in atomically."""
    import torch

    from fight_envs.core.atomic import atomic_directory

    obs_key = metadata.get("obs_key", "observations")
    meta = {**metadata, "format": DATA_FORMAT, "module": module_spec(module, obs_key)}
    state = {k: v.detach().cpu() for k, v in module.state_dict().items()}
    with atomic_directory(path) as tmp:
        torch.save(state, tmp / MODULE_STATE_NAME)
        (tmp / METADATA_NAME).write_text(json.dumps(meta, indent=1))
    return Path(path)


def _load_data_module(path: Path) -> tuple[Any, dict[str, Any]]:
    import pickle

    import torch

    meta = read_rllib_metadata(path)
    module = build_module(meta.get("module"), path)
    try:
        state = torch.load(path / MODULE_STATE_NAME, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError, TypeError, KeyError, AttributeError, OSError) as e:
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise RLlibCheckpointError(f"{path / MODULE_STATE_NAME} is not a data-only tensor file (torch weights_only): "
                                   f"{first[:300]}") from e
    if not isinstance(state, dict) or not all(isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()):
        raise RLlibCheckpointError(f"{path / MODULE_STATE_NAME} must hold a mapping of parameter names to tensors")
    try:
        module.load_state_dict(state, strict=True)
    except (RuntimeError, ValueError, TypeError) as e:
        raise RLlibCheckpointError(f"{path}: the stored weights do not fit the described module (they must have its "
                                   "parameters and shapes): "
                                   f"{str(e).splitlines()[0][:300]}") from e
    if not all(bool(torch.isfinite(v).all()) for v in state.values() if v.is_floating_point()):
        raise RLlibCheckpointError(f"{path}: the stored weights hold NaN or infinite values; a module's weights are finite")
    return module, meta


def convert_rllib_checkpoint(source: str | Path, target: str | Path, trust: bool = False,
                             module_id: str = DEFAULT_MODULE_ID) -> Path:
    """Rewrite a pickled RLlib checkpoint (needs ``trust=True``) as a data-only agent directory."""
    agent = load_rllib_agent(source, trust=trust, module_id=module_id)
    meta = {k: v for k, v in agent.metadata.items() if k != "module"}
    meta.setdefault("obs_key", agent.obs_key)
    return save_rllib_module(agent.module, target, meta)


def load_rllib_agent(path: str | Path, game: str | None = None, deterministic: bool = True, seed: int | None = None,
                     module_id: str = DEFAULT_MODULE_ID, name: str | None = None, trust: bool = False) -> RLlibModuleAgent:
    """Load an RLlib checkpoint directory (exported learner or algorithm checkpoint) as an agent.

    A data-only export (``module_state.pt``, what the trainer writes) loads without unpickling;
    RLlib's own pickled layouts only with ``trust=True``, and the refusal comes before any file
    of the directory is unpickled.

    ``game`` (``fight5``...), when given and recorded in the metadata, must match. The module's
    observation and action spaces must match what the game's env gives today.
    """
    path = Path(path)
    if not path.is_dir():
        raise RLlibCheckpointError(f"no RLlib checkpoint directory at {path}")
    data_only = is_data_only(path)
    module_dir = path if data_only else _module_dir(path, module_id)
    if not data_only and not trust:
        raise untrusted_error(path)
    try:
        from ray.rllib.core.rl_module.rl_module import RLModule
    except ImportError as e:  # pragma: no cover - depends on the install
        raise RLlibCheckpointError(f"loading {path} needs Ray RLlib: pip install 'fight-envs[rllib]' ({e})") from e
    meta = read_rllib_metadata(module_dir)
    if game is not None and meta.get("game") and meta["game"] != game:
        raise RLlibCheckpointError(f"{path} was trained on {meta['game']!r}, not {game!r}; only a {game} agent can play here")
    if data_only:
        module, meta = _load_data_module(path)
    else:
        try:
            module = RLModule.from_checkpoint(str(module_dir.resolve()))  # pyarrow wants an absolute path
        except Exception as e:
            raise RLlibCheckpointError(f"{module_dir}: RLlib could not load the module: {type(e).__name__}: {e}") from e
    obs_key = meta.get("obs_key", "observations")
    space = getattr(module, "observation_space", None)
    if meta.get("env") and hasattr(space, "spaces"):
        from fight_envs.registry import make

        env = make(meta["env"], api="raw", **meta.get("env_options", {}))
        want = env.observation_space(env.possible_agents[0])
        have_vec, have_mask = space[obs_key].shape, space["action_mask"].shape
        if (have_vec, have_mask) != (want["observation"].shape, want["action_mask"].shape):
            raise RLlibCheckpointError(
                f"{path}: the module expects observations {have_vec} and masks {have_mask}, but {meta['env']} "
                f"gives {want['observation'].shape} and {want['action_mask'].shape} today"
            )
    label = name or meta.get("label") or path.name
    return RLlibModuleAgent(module, deterministic=deterministic, name=label, seed=seed, obs_key=obs_key, metadata=meta)
