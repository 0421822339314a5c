"""The batched Fight 5 engine as a Gymnasium ``VectorEnv``: ``gymnasium.make_vec("fight_envs/Fight5-v0", 1024)``.

``Fight5VectorEnv`` is the vector form of ``SingleAgentEnv`` on Fight 5: each of ``num_envs``
games has one learner seat (``learner_seat``, default 0) and uniform-random opponents in the
others, as ``gymnasium.make("fight_envs/Fight5-v0")`` has; but all games are stepped together by
:class:`~fight_envs.games.fight5.batched.Fight5Batch` (one numpy call per step for every game),
not one env object per game. The games run in lockstep, so after the learners' actions the
opponents act for every game at once until the learner seat is to act again.

Observations follow ``SingleAgentEnv``: ``obs_format="vector"`` (default) gives the (num_envs, 627)
float32 observations, with the masks in ``info["action_mask"]`` and :meth:`action_masks`;
``obs_format="dict"`` gives ``{"observation", "action_mask"}`` arrays. Rewards are the learner's
(``reward="outcome"`` or ``"score"``, as the env), summed over the opponents' moves.

**Autoreset**: a game that ends starts again in its slot within the same step (Gymnasium's
``AutoresetMode.SAME_STEP``): that step returns ``terminated[i] = True``, the new game's first
observation, and ``info["final_obs"]`` / ``info["_final_obs"]`` with the learner's last
observation of the game that ended. Episodes never truncate. Seeds: ``reset(seed=s)`` plays
seeds ``s, s + 1, ...`` in slots 0, 1, ...; the same seed gives the same games.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from fight_envs.core.errors import ConfigError
from fight_envs.games.fight5.batched import Fight5Batch, random_legal_actions
from fight_envs.games.fight5.observe import OBS_HIGH, OBS_SIZE
from fight_envs.games.fight5.rules import NUM_ACTIONS

OBS_FORMATS = ("vector", "dict")


class Fight5VectorEnv(VectorEnv):
    """``num_envs`` single-agent Fight 5 games on the batched engine (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1, env: str = "fight5_v0", num_players: int = 2, learner_seat: int = 0,
                 obs_format: str = "vector", opponent_seed: int | None = None, **options: Any) -> None:
        if env != "fight5_v0":
            raise ConfigError(f"the batched engine plays fight5_v0 only, got env={env!r}")
        if obs_format not in OBS_FORMATS:
            raise ConfigError(f"obs_format must be one of {OBS_FORMATS}, got {obs_format!r}")
        if isinstance(learner_seat, bool) or not isinstance(learner_seat, int) or not 0 <= learner_seat < num_players:
            raise ConfigError(f"learner_seat must be a seat in 0..{num_players - 1}, got {learner_seat!r}")
        unknown = sorted(set(options) - {"num_bouts", "target_score", "reward", "cards"})
        if unknown:
            raise ConfigError(f"unknown option(s) {unknown} for the batched Fight 5 engine; allowed: num_bouts, "
                              "target_score, reward, cards (and num_players, learner_seat, obs_format, opponent_seed)")
        self.batch = Fight5Batch(num_envs, num_players=num_players, **options)
        self.num_envs = int(num_envs)
        self.num_players = num_players
        self.learner_seat = learner_seat
        self.obs_format = obs_format
        self._opponent_rng = np.random.default_rng(opponent_seed)
        obs_box = spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32)
        mask_box = spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)
        self.single_observation_space = (obs_box if obs_format == "vector"
                                         else spaces.Dict({"observation": obs_box, "action_mask": mask_box}))
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._mask = np.zeros((self.num_envs, NUM_ACTIONS), dtype=np.int8)
        self._started = False

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None):
        if options:
            raise ConfigError(f"Fight5VectorEnv.reset takes no options, got {sorted(options)}")
        if seed is not None and not isinstance(seed, (int, np.integer)):
            seed = [int(s) for s in seed]
        if seed is not None:
            self._opponent_rng = np.random.default_rng([int(np.asarray(seed).ravel()[0]), 1])
        step = self.batch.reset(seed)
        self._started = True
        rewards = np.zeros(self.num_envs)
        terminated = np.zeros(self.num_envs, dtype=bool)
        final: list[Any] = []
        step = self._play_opponents(step, rewards, terminated, final)
        return self._obs(step), self._info(final)

    def step(self, actions: Any):
        if not self._started:
            raise ConfigError("call reset() before step()")
        step = self.batch.step(np.asarray(actions, dtype=np.int64).reshape(self.num_envs))
        rewards = step.rewards[:, self.learner_seat].astype(np.float64).copy()
        terminated = step.terminated.copy()
        final: list[Any] = [step] if len(step.final_index) else []
        step = self._play_opponents(step, rewards, terminated, final)
        truncated = np.zeros(self.num_envs, dtype=bool)
        return self._obs(step), rewards, terminated, truncated, self._info(final)

    def action_masks(self) -> np.ndarray:
        """(num_envs, 13) bool: the learner's legal actions now (what sb3-contrib's MaskablePPO reads)."""
        return self._mask.astype(bool)

    # ------------------------------------------------------------------ internals
    def _play_opponents(self, step: Any, rewards: np.ndarray, terminated: np.ndarray, final: list[Any]) -> Any:
        """Opponent seats act (all games at once: they are in lockstep) until the learner's seat is to act."""
        while int(step.seat[0]) != self.learner_seat:
            step = self.batch.step(random_legal_actions(step.action_mask, self._opponent_rng))
            rewards += step.rewards[:, self.learner_seat]
            terminated |= step.terminated
            if len(step.final_index):
                final.append(step)
        return step

    def _obs(self, step: Any) -> Any:
        self._mask = np.array(step.action_mask, dtype=np.int8)
        obs = np.array(step.obs, dtype=np.float32)
        if self.obs_format == "dict":
            return {"observation": obs, "action_mask": self._mask.copy()}
        return obs

    def _info(self, final: list[Any]) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self._mask.copy()}
        if final:
            ended = np.zeros(self.num_envs, dtype=bool)
            final_obs = np.zeros((self.num_envs, OBS_SIZE), dtype=np.float32)
            final_scores = np.zeros((self.num_envs, self.num_players), dtype=np.int64)
            for step in final:
                ended[step.final_index] = True
                if step.final_obs is not None:
                    final_obs[step.final_index] = step.final_obs[:, self.learner_seat]
                # egocentric scores: the learner first, as the AEC env's info["scores"]
                final_scores[step.final_index] = np.roll(step.final_scores, -self.learner_seat, axis=1)
            if self.obs_format == "dict":
                info["final_obs"] = {"observation": final_obs,
                                     "action_mask": np.zeros((self.num_envs, NUM_ACTIONS), dtype=np.int8)}
            else:
                info["final_obs"] = final_obs
            info["_final_obs"] = ended
            info["final_scores"] = final_scores
            info["_final_scores"] = ended
        return info


__all__ = ["Fight5VectorEnv", "OBS_FORMATS"]
