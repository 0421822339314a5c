"""The RLModules of the RLlib trainer: the masked PPO learner (and its frozen snapshots), and the
suite's scripted baselines as non-trainable modules.

``MaskedPPOTorchRLModule`` is RLlib's default PPO torch module (an MLP encoder, a policy head and
a value head) that reads the dict observation of :class:`fight_envs.wrappers.rllib.FightMultiAgentEnv`:
the network sees the ``observations`` vector (``observation`` is accepted too) through the SB3
trainer's feature extractor named by ``model_config["features"]`` (``flat``, or ``fight5_slot``:
the Fight 5 observation plus the block of the clash being filled, ``fight_envs.train.features``), and the action
logits of every forward pass (inference, exploration, training) get ``log(mask)`` added (clamped
at RLlib's ``FLOAT_MIN``), so a masked action has probability zero, in sampling and in the PPO
loss alike. It is RLlib's action-masking example, written for the suite's keys and without
mutating the batch it is given.

``ScriptedAgentRLModule`` plays a baseline of ``fight_envs.agents.registry`` (``random``, ``greedy``,
``heuristic``...) from the same observation and mask, one ``act_batch`` call per forward pass,
and returns actions directly (RLlib then samples nothing). It has no parameters and refuses to
be trained: list only the learner in ``policies_to_train``. Its ``model_config`` names the
game, the baseline and a seed, and optionally the env it plays (``env``, a registered name, and
``env_options``, its constructor options): the agent then takes that env's public rules once
(``Agent.bind_rules``: Fifth-Earth's card data, option ``cards``), as the arena and the SB3 trainer
have it do; without them it judges by the game's packaged defaults. Scripted agents act from the observation alone: any per-game
memory an agent keeps (the Fight 5 heuristic caches its round plan) is cleared before each call,
since one batch mixes many games (the heuristic then re-plans from the same observation).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN

OBS_KEYS = ("observations", "observation")
MASK_KEY = "action_mask"


def _vector_key(space_or_batch: Any) -> str:
    for key in OBS_KEYS:
        if key in space_or_batch:
            return key
    raise ValueError(
        f"a masked module needs a dict observation with {MASK_KEY!r} and one of {OBS_KEYS}; "
        f"got keys {sorted(space_or_batch)}"
    )


def _split(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """(mask, a shallow copy of ``batch`` whose OBS is the plain vector)."""
    obs = batch[Columns.OBS]
    if not isinstance(obs, dict) or MASK_KEY not in obs:
        raise ValueError(f"expected a dict observation with {MASK_KEY!r}; got {type(obs).__name__}")
    out = dict(batch)
    out[Columns.OBS] = obs[_vector_key(obs)]
    return obs[MASK_KEY], out


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """PPO's default torch module over the vector part of a dict observation, logits masked."""

    def __init__(self, *, observation_space: gym.Space | None = None, model_config: Any = None, **kwargs: Any) -> None:
        if not isinstance(observation_space, gym.spaces.Dict) or MASK_KEY not in observation_space.spaces:
            raise ValueError(
                f"MaskedPPOTorchRLModule needs a Dict observation space with {MASK_KEY!r} and one of {OBS_KEYS} "
                f"(fight_envs.wrappers.rllib.FightMultiAgentEnv gives one); got {observation_space}"
            )
        self.observation_space_with_mask = observation_space
        self.vector_space = observation_space[_vector_key(observation_space.spaces)]
        features = (model_config or {}).get("features", "flat") if isinstance(model_config, dict) else "flat"
        from fight_envs.train.features import FEATURES  # the SB3 trainer's feature extractors, reused as they are

        if features not in FEATURES:
            raise ValueError(f"model_config['features'] must be one of {', '.join(FEATURES)}; got {features!r}")
        self.features_name = features
        width = FEATURES[features](self.vector_space).features_dim
        # The default networks are built for the features of the vector alone.
        super().__init__(observation_space=gym.spaces.Box(-np.inf, np.inf, (width,), np.float32),
                         model_config=model_config, **kwargs)

    def setup(self) -> None:
        from fight_envs.train.features import FEATURES

        super().setup()
        self.features = FEATURES[self.features_name](self.vector_space)
        self.observation_space = self.observation_space_with_mask

    def _split(self, batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        mask, plain = _split(batch)
        plain[Columns.OBS] = self.features(plain[Columns.OBS].float())
        return mask, plain

    @staticmethod
    def _mask_logits(outs: dict[str, Any], mask: Any) -> dict[str, Any]:
        inf_mask = torch.clamp(torch.log(mask.float()), min=FLOAT_MIN)
        outs[Columns.ACTION_DIST_INPUTS] = outs[Columns.ACTION_DIST_INPUTS] + inf_mask
        return outs

    def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, plain = self._split(batch)
        return self._mask_logits(super()._forward_inference(plain, **kwargs), mask)

    def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, plain = self._split(batch)
        return self._mask_logits(super()._forward_exploration(plain, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, plain = self._split(batch)
        return self._mask_logits(super()._forward_train(plain, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        if isinstance(batch[Columns.OBS], dict):
            _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)


def _to_numpy(x: Any) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().numpy()
    return np.asarray(x)


class ScriptedAgentRLModule(RLModule):
    """A suite baseline (``model_config``: ``game``, ``agent``, ``seed``) as a non-trainable module."""

    def setup(self) -> None:
        from fight_envs.agents.registry import make_agent

        config = dict(self.model_config or {})  # RLlib merges its own model defaults in; only these keys are read
        if "game" not in config or "agent" not in config:
            raise ValueError("ScriptedAgentRLModule needs model_config={'game': ..., 'agent': ..., 'seed': ...}")
        self.agent = make_agent(str(config["agent"]), game=str(config["game"]), seed=config.get("seed"),
                                env=self._rules_env(config))

    @staticmethod
    def _rules_env(config: dict[str, Any]) -> Any:
        """The raw env ``config`` names (``env`` and ``env_options``), whose public rules the agent takes; None
        when it names none. One env per module, built once: only its rules are read, no game is played."""
        name = config.get("env")
        if name is None:
            if config.get("env_options"):
                raise ValueError("ScriptedAgentRLModule: model_config has env_options but no env name to build them with")
            return None
        options = config.get("env_options") or {}
        if not isinstance(options, dict):
            raise ValueError(f"ScriptedAgentRLModule: model_config['env_options'] must be a dict of the env's options, "
                             f"got {type(options).__name__}")
        from fight_envs.registry import make

        return make(str(name), api="raw", **options)

    def _act(self, batch: dict[str, Any]) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        vectors = _to_numpy(obs[_vector_key(obs)])
        masks = _to_numpy(obs[MASK_KEY])
        self.agent.reset()
        actions = self.agent.act_batch(vectors, masks)
        return {Columns.ACTIONS: np.asarray(actions, dtype=np.int64)}

    def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._act(batch)

    def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._act(batch)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._act(batch)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError(
            f"ScriptedAgentRLModule ({self.agent.label}) is not trainable: list only learning modules in "
            "config.multi_agent(policies_to_train=[...])"
        )

    def get_state(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return {}

    def set_state(self, state: dict[str, Any]) -> None:
        pass

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """Nothing to compile (RLlib calls this on torch modules)."""
