"""The learner's view of a multi-agent AEC env as a single-agent Gymnasium env, opponents inside.

``SingleAgentEnv`` owns the loop that turns a PettingZoo AEC game into a Gymnasium episode for
one seat (the learner): ``reset`` plays the opponents until the learner must act, and ``step``
applies the learner's action, then the opponents' actions, until the learner acts again or its
game is over. Opponents are duck-typed policies (anything with ``act(observation, action_mask)
-> int``; ``seed(int)``, ``reset()`` and ``label`` are used when present), so this module never
imports ``agents``; the default opponent is :class:`UniformRandomPolicy`, written here.

Reward attribution follows PettingZoo's AEC semantics. ``_cumulative_rewards[learner]`` holds
everything the learner earned since it last acted, including rewards produced by the opponents'
moves, and the env zeroes it when the learner steps. So the reward of one Gymnasium transition
is the learner's cumulative reward read when its next decision (or its game end) comes: its own
reward, never the next player's, summed over every opponent move in between, and the terminal
reward is delivered even when an opponent's move ends the game. ``terminated`` is True only
when the learner's game ends (so no value is bootstrapped across seats), ``truncated`` only
when the AEC env truncates the learner.

Observations: ``obs_format="vector"`` (default) gives the ``observation`` vector, with the mask
through ``action_masks()`` (what sb3-contrib's MaskablePPO uses) and ``info["action_mask"]``;
``obs_format="dict"`` gives the AEC dict ``{"observation", "action_mask"}`` unchanged.

Illegal learner actions: ``illegal_action="terminate"`` (default) ends the episode with
``illegal_reward`` for the learner and ``info["illegal_action"] = True`` without touching the
game, the convention of PettingZoo's ``TerminateIllegalWrapper`` (env checkers step random
actions, so this must not raise); ``"raise"`` raises ``IllegalActionError``.

Episode-end info adds ``result`` (the learner's win credit: 1 sole win, 1/k for a win shared
by k players, 0 loss; from the egocentric ``scores`` info when the env gives one, else 1, 0.5
or 0 by the sign of the episode's reward), ``episode_reward`` and ``opponents`` (their labels). Every info has
``action_mask``, ``learner_seat`` and ``num_players``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Protocol, runtime_checkable

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from fight_envs.core.errors import ConfigError, IllegalActionError
from fight_envs.core.outcome import RESULT_LOSS, win_credit

OBS_FORMATS = ("vector", "dict")
ILLEGAL_ACTION_MODES = ("terminate", "raise")
LEARNER_SEAT_RANDOM = "random"
SEED_BOUND = 2**31 - 1  # seeds handed to the AEC env and to opponents are drawn below this


@runtime_checkable
class Policy(Protocol):
    """What an opponent must offer: one legal action for an observation vector and its mask."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...


OpponentSampler = Callable[[np.random.Generator, int], Sequence[Policy]]
"""Called at every reset with the env's generator and the number of opponent seats; returns one
policy per opponent seat (seat order: clockwise from the learner)."""


class UniformRandomPolicy:
    """Uniform over the legal actions; the default opponent of the registered Gymnasium envs."""

    name = "random"
    label = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """No per-game memory."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("no legal action: the action mask is all zeros")
        return int(legal[self.rng.integers(legal.size)])


def policy_label(policy: Any) -> str:
    """A short name for logs and info: ``label``, else ``name``, else the class name."""
    return str(getattr(policy, "label", None) or getattr(policy, "name", None) or type(policy).__name__)


def _build_aec(env: str | Callable[..., Any], options: dict[str, Any]) -> Any:
    if isinstance(env, str):
        # Imported here: the registry imports env modules lazily and this module is imported by
        # ``fight_envs/__init__`` (Gymnasium registration), so a top-level import would be circular.
        from fight_envs.registry import make

        # The raw AEC env: this wrapper checks the learner's mask itself, and opponents are
        # trusted policies, so PettingZoo's per-step wrapper checks would only cost time.
        return make(env, api="raw", **options)
    if callable(env):
        return env(**options)
    raise ConfigError(f"env must be a registered env name (see fight_envs.list_envs()) or a callable, got {env!r}")


class SingleAgentEnv(gym.Env):
    """One seat of an AEC game as a Gymnasium env; the other seats are played by ``opponents``.

    Args:
        env: a name from ``fight_envs.list_envs()`` (built as its raw AEC env) or a callable
            returning a PettingZoo AEC env; it is called with ``env_options``.
        learner_seat: ``"random"`` (drawn every episode from the env's generator) or a seat
            index.
        opponents: None (uniform-random legal play in every opponent seat), one policy (plays
            every opponent seat), a sequence with one policy per opponent seat (clockwise from
            the learner), or an :data:`OpponentSampler` called at every reset.
        seed: seeds the env's generator when ``reset`` is first called without a seed.
        obs_format: ``"vector"`` or ``"dict"`` (see the module docstring).
        illegal_action: ``"terminate"`` or ``"raise"`` (see the module docstring).
        illegal_reward: the learner's reward when ``illegal_action="terminate"`` ends the game.
        render_mode: passed to the AEC env; ``"rgb_array"`` frames show the learner's view
            (its hand) unless ``viewer`` is among ``env_options``.
        **env_options: options of the AEC env (``num_players``, ``reward``, ...).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        env: str | Callable[..., Any] = "fight5_v0",
        learner_seat: str | int = LEARNER_SEAT_RANDOM,
        opponents: Policy | Sequence[Policy] | OpponentSampler | None = None,
        seed: int | None = None,
        obs_format: str = "vector",
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        **env_options: Any,
    ) -> None:
        if obs_format not in OBS_FORMATS:
            raise ConfigError(f"obs_format must be one of {OBS_FORMATS}, got {obs_format!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ConfigError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
        options = dict(env_options)
        if render_mode is not None:
            options["render_mode"] = render_mode
        self.aec = _build_aec(env, options)
        self.env_name = env if isinstance(env, str) else getattr(self.aec, "metadata", {}).get("name", "custom")
        self.env_options = dict(env_options)
        self.agent_ids: list[str] = list(self.aec.possible_agents)
        self.num_players = len(self.agent_ids)
        if isinstance(learner_seat, str):
            if learner_seat != LEARNER_SEAT_RANDOM:
                raise ConfigError(f"learner_seat must be 'random' or a seat in 0..{self.num_players - 1}, got {learner_seat!r}")
        elif isinstance(learner_seat, bool) or not isinstance(learner_seat, (int, np.integer)) or not 0 <= learner_seat < self.num_players:
            raise ConfigError(f"learner_seat must be 'random' or a seat in 0..{self.num_players - 1}, got {learner_seat!r}")
        self.learner_seat_option = learner_seat
        self.opponents_option = opponents
        self._check_opponents_option(opponents)
        self.obs_format = obs_format
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode

        first = self.agent_ids[0]
        aec_space = self.aec.observation_space(first)
        if not isinstance(aec_space, spaces.Dict) or set(aec_space.spaces) != {"observation", "action_mask"}:
            raise ConfigError(
                f"SingleAgentEnv needs an AEC env whose observations are dicts with 'observation' and "
                f"'action_mask'; {self.env_name!r} has {aec_space}"
            )
        self.observation_space = aec_space["observation"] if obs_format == "vector" else aec_space
        self.action_space = self.aec.action_space(first)
        if not isinstance(self.action_space, spaces.Discrete):
            raise ConfigError(f"SingleAgentEnv needs a Discrete action space, {self.env_name!r} has {self.action_space}")
        self._num_actions = int(self.action_space.n)

        self._initial_seed = seed
        self.learner_seat = 0
        self.learner = first
        self.opponents: dict[str, Policy] = {}
        self._mask = np.ones(self._num_actions, dtype=bool)
        self._episode_reward = 0.0
        self._carry = 0.0
        self._done = True

    # ---------------------------------------------------------------- options
    def _check_opponents_option(self, opponents: Any) -> None:
        if opponents is None or isinstance(opponents, Policy) or callable(opponents):
            return
        if isinstance(opponents, Sequence) and not isinstance(opponents, str):
            if len(opponents) != self.num_players - 1:
                raise ConfigError(
                    f"opponents must hold one policy per opponent seat ({self.num_players - 1}), got {len(opponents)}"
                )
            bad = [i for i, p in enumerate(opponents) if not isinstance(p, Policy)]
            if bad:
                raise ConfigError(f"opponents[{bad[0]}] has no act(observation, action_mask) method")
            return
        raise ConfigError(
            "opponents must be None, a policy with act(observation, action_mask), a sequence of "
            f"{self.num_players - 1} policies, or a callable (rng, num_opponents) -> policies; got {opponents!r}"
        )

    def _draw_opponents(self) -> list[Policy]:
        n = self.num_players - 1
        option = self.opponents_option
        if option is None:
            return [UniformRandomPolicy() for _ in range(n)]
        if isinstance(option, Policy):
            return [option] * n
        if isinstance(option, Sequence):
            return list(option)
        drawn = list(option(self.np_random, n))
        if len(drawn) != n or not all(isinstance(p, Policy) for p in drawn):
            raise ConfigError(f"the opponent sampler must return {n} policies with act(), got {drawn!r}")
        return drawn

    # -------------------------------------------------------------- Gymnasium
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        if seed is None and self._initial_seed is not None:
            seed, self._initial_seed = self._initial_seed, None
        super().reset(seed=seed)
        rng = self.np_random
        if self.learner_seat_option == LEARNER_SEAT_RANDOM:
            self.learner_seat = int(rng.integers(self.num_players))
        else:
            self.learner_seat = int(self.learner_seat_option)
        self.learner = self.agent_ids[self.learner_seat]
        others = [self.agent_ids[(self.learner_seat + k) % self.num_players] for k in range(1, self.num_players)]
        self.opponents = dict(zip(others, self._draw_opponents()))
        for policy in dict.fromkeys(self.opponents.values()):  # a shared policy is seeded once
            if hasattr(policy, "bind_rules"):  # it judges by the game's public rules (fight_envs.agents.base.Agent)
                policy.bind_rules(self.aec)
            if hasattr(policy, "seed"):
                policy.seed(int(rng.integers(SEED_BOUND)))
            if hasattr(policy, "reset"):
                policy.reset()
        self.aec.reset(seed=int(rng.integers(SEED_BOUND)), options=options)
        self._episode_reward = 0.0
        self._done = False
        obs, reward, terminated, truncated, info = self._play_until_learner()
        if terminated or truncated:
            raise RuntimeError(f"the game ended before {self.learner} made a decision; nothing to learn from it")
        # Rewards earned before the learner's first decision belong to its first transition.
        self._carry = reward
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("the episode is over; call reset() before step()")
        is_int = isinstance(action, (int, np.integer)) and not isinstance(action, bool)
        if not is_int and isinstance(action, np.ndarray) and action.shape in ((), (1,)):
            action, is_int = action.reshape(()).item(), np.issubdtype(action.dtype, np.integer)
        if not (is_int and 0 <= action < self._num_actions and self._mask[action]):
            if self.illegal_action == "raise":
                raise IllegalActionError(
                    f"{self.learner} may not play {action!r}; legal actions: {np.flatnonzero(self._mask).tolist()}"
                )
            return self._end_illegal(action)
        self.aec.step(int(action))
        obs, reward, terminated, truncated, info = self._play_until_learner()
        reward += self._carry
        self._carry = 0.0
        self._episode_reward += reward
        if terminated or truncated:
            self._done = True
            info.update(self._episode_info(info))
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (bool), as sb3-contrib's MaskablePPO reads them.

        All True when no decision is pending (the episode is over): a vectorised env resets
        before the next mask is read, and an all-False mask would make a masked softmax NaN.
        """
        return self._mask.copy()

    def render(self) -> Any:
        if self.render_mode == "rgb_array" and self.env_options.get("viewer") is None:
            # the learner's view of the table (its seat changes between episodes), unless a viewer was given
            from fight_envs.drawing import rgb_array

            return rgb_array(self.aec.unwrapped.game, self.learner_seat)
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    # --------------------------------------------------------------- the loop
    def _play_until_learner(self) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step opponents until the learner must act or its game is over; read its reward."""
        aec, learner = self.aec, self.learner
        while True:
            if aec.terminations[learner] or aec.truncations[learner]:
                reward = float(aec._cumulative_rewards[learner])
                self._mask = np.ones(self._num_actions, dtype=bool)
                obs_dict = aec.observe(learner)
                return (self._format(obs_dict), reward, bool(aec.terminations[learner]),
                        bool(aec.truncations[learner]) and not aec.terminations[learner], self._info(obs_dict))
            agent = aec.agent_selection
            if agent == learner:
                obs_dict = aec.observe(learner)
                self._mask = np.asarray(obs_dict["action_mask"], dtype=bool)
                return self._format(obs_dict), float(aec._cumulative_rewards[learner]), False, False, self._info(obs_dict)
            if aec.terminations[agent] or aec.truncations[agent]:
                aec.step(None)  # an opponent left the game before the learner: PettingZoo's dead step
                continue
            obs_dict = aec.observe(agent)
            aec.step(int(self.opponents[agent].act(obs_dict["observation"], obs_dict["action_mask"])))

    def _format(self, obs_dict: dict[str, np.ndarray]) -> Any:
        if self.obs_format == "dict":
            return {"observation": np.array(obs_dict["observation"]), "action_mask": np.array(obs_dict["action_mask"])}
        return np.array(obs_dict["observation"])  # a copy: the env may reuse its arrays

    def _info(self, obs_dict: dict[str, np.ndarray]) -> dict[str, Any]:
        # Copies: Gymnasium requires new info data on every call, and the AEC env may keep its own.
        info = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in self.aec.infos.get(self.learner, {}).items()}
        info["action_mask"] = np.array(obs_dict["action_mask"])
        info["learner_seat"] = self.learner_seat
        info["num_players"] = self.num_players
        return info

    def _episode_info(self, info: dict[str, Any]) -> dict[str, Any]:
        result = win_credit(info.get("scores"), self._episode_reward, self.num_players)
        return {
            "result": result,
            "episode_reward": self._episode_reward,
            "opponents": [policy_label(p) for p in self.opponents.values()],
        }

    def _end_illegal(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        warnings.warn(
            f"illegal action {action!r} by the learner ({self.learner}); legal: {np.flatnonzero(self._mask).tolist()}. "
            f"The episode ends with reward {self.illegal_reward}",
            stacklevel=2,
        )
        obs_dict = self.aec.observe(self.learner)
        reward = self.illegal_reward + self._carry
        self._carry = 0.0
        self._episode_reward += reward
        self._done = True
        self._mask = np.ones(self._num_actions, dtype=bool)
        info = self._info(obs_dict)
        info["action_mask"] = np.zeros(self._num_actions, dtype=np.int8)
        info["illegal_action"] = True
        info.update({"result": RESULT_LOSS, "episode_reward": self._episode_reward,
                     "opponents": [policy_label(p) for p in self.opponents.values()]})
        return self._format(obs_dict), reward, True, False, info
