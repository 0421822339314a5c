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
from pathlib import Path
from typing import Any

import numpy as np

from fight_envs.agents.base import Agent

METADATA_NAME = "fight_envs_agent.json"
MODULE_IN_ALGO_CHECKPOINT = ("learner_group", "learner", "rl_module")
DEFAULT_MODULE_ID = "learner"


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
                return json.loads(candidate.read_text())
            except json.JSONDecodeError as e:
                raise RLlibCheckpointError(f"{candidate} is not valid JSON: {e}") from e
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


def load_rllib_agent(path: str | Path, game: str | None = None, deterministic: bool = True, seed: int | None = None,
                     module_id: str = DEFAULT_MODULE_ID, name: str | None = None) -> RLlibModuleAgent:
    """Load an RLlib checkpoint directory (exported learner or algorithm checkpoint) as an agent.

    ``game`` (``fight5``...), when given and recorded in the metadata, must match. The module's
    observation and action spaces must match what the game's env gives today.
    """
    path = Path(path)
    if not path.is_dir():
        raise RLlibCheckpointError(f"no RLlib checkpoint directory at {path}")
    module_dir = _module_dir(path, module_id)
    try:
        from ray.rllib.core.rl_module.rl_module import RLModule
    except ImportError as e:  # pragma: no cover - depends on the install
        raise RLlibCheckpointError(f"loading {path} needs Ray RLlib: pip install 'fight-envs[rllib]' ({e})") from e
    meta = read_rllib_metadata(module_dir)
    if game is not None and meta.get("game") and meta["game"] != game:
        raise RLlibCheckpointError(f"{path} was trained on {meta['game']!r}, not {game!r}")
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
