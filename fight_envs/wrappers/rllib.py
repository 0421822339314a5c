"""Any of the suite's games as a Ray RLlib ``MultiAgentEnv`` (RLlib's new API stack).

``FightMultiAgentEnv(config)`` takes an RLlib ``env_config`` dict: ``env`` (a registry name,
default ``fight5_v0``), ``api`` (``auto`` | ``aec`` | ``parallel``), ``obs_key``, and every other
key is passed to the game's constructor (``num_players``, ``reward``, ...; an unknown one fails
there with the allowed list). Needs ``pip install "fight-envs[rllib]"``; importing this module
imports ``ray``.

What RLlib sees, and why:

* **Agents** are the PettingZoo agent names (``player_0``...). Each step's observation dict holds
  exactly the agents that must act next: the one ``agent_selection`` of a turn-based (AEC) game,
  or every player of a game whose parallel form is native (Fight 5: every player fills one slot
  at once, so one env step is one forward pass over all seats). ``api="auto"`` picks the
  parallel form where the registry marks it native (``EnvSpec.native_parallel``), else the AEC
  form; forcing ``parallel`` on a game without a native one is refused, since its idle players
  would get all-zero masks.
* **Observations** are the env's dict with the vector renamed to ``obs_key`` (default
  ``"observations"``, the key of RLlib's own action-masking example, so its
  ``ActionMaskingTorchRLModule`` runs unchanged) beside ``action_mask`` (int8 0/1, exactly the
  legal set). ``obs_key="observation"`` keeps PettingZoo's name.
* **Rewards** are reported for every agent at every step, acting or not (zeros included: RLlib
  requires a reward for an agent whose next observation arrives): RLlib
  credits a non-acting agent's reward to its next transition (its "hanging" reward), so no reward
  is lost or given to the wrong seat (RLlib's stock ``PettingZooEnv`` reports only the next
  actor's reward).
* **The end**: every agent stays in the episode until the game ends, and then all end together:
  ``terminateds`` (or ``truncateds``, when a step limit cut the game) is True for every agent and
  ``__all__``; the last step carries every agent's final observation (all-zero mask) and reward.
* **Infos** are empty while the game runs (the mask is in the observation; RLlib stores infos
  with every step). At the end each agent's info holds ``result`` (its win credit:
  1 sole win, 1/k shared, 0 loss; judged by the env's final ``scores`` where it reports them,
  else by every player's episode return) and ``episode_return``.
* **Seeding**: ``reset(seed=s)`` reproduces a game exactly (the env is the suite's env);
  ``reset(options=...)`` passes options (a fixed deal) through.
* **Illegal actions** (an action outside the agent's mask, or an action for an agent not asked)
  are handled the PettingZoo way by default (``illegal_action="terminate"``): a warning, and the
  game ends with -1 for the offender and 0 for the others, the game itself untouched (RLlib's
  env checker steps unmasked random actions, so this must not raise). ``illegal_action="raise"``
  raises the suite's ``IllegalActionError`` instead, for debugging a policy that ignores its mask.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from fight_envs.core.errors import ConfigError, IllegalActionError
from fight_envs.core.outcome import win_credit
from fight_envs.registry import make, spec

APIS = ("auto", "aec", "parallel")
OBS_KEYS = ("observations", "observation")
ILLEGAL_ACTION_MODES = ("terminate", "raise")
ADAPTER_KEYS = ("env", "api", "obs_key", "illegal_action")
DEFAULT_ENV = "fight5_v0"
ILLEGAL_REWARD = -1.0


def resolve_api(env_name: str, api: str) -> str:
    """The form ``api`` means for ``env_name``: 'aec' or 'parallel' (ConfigError when not allowed)."""
    if api not in APIS:
        raise ConfigError(f"api must be one of {', '.join(APIS)}; got {api!r}")
    native = spec(env_name).native_parallel
    if api == "auto":
        return "parallel" if native else "aec"
    if api == "parallel" and not native:
        raise ConfigError(
            f"{env_name} has no native parallel form (its idle players would get all-zero masks); use api='aec' or 'auto'"
        )
    return api


class FightMultiAgentEnv(MultiAgentEnv):
    """A suite env behind RLlib's ``MultiAgentEnv`` API (see the module docstring)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        self.env_name = str(config.pop("env", DEFAULT_ENV))
        self.api = resolve_api(self.env_name, str(config.pop("api", "auto")))
        self.obs_key = str(config.pop("obs_key", OBS_KEYS[0]))
        if self.obs_key not in OBS_KEYS:
            raise ConfigError(f"obs_key must be one of {', '.join(OBS_KEYS)}; got {self.obs_key!r}")
        self.illegal_action = str(config.pop("illegal_action", ILLEGAL_ACTION_MODES[0]))
        if self.illegal_action not in ILLEGAL_ACTION_MODES:
            raise ConfigError(f"illegal_action must be one of {', '.join(ILLEGAL_ACTION_MODES)}; got {self.illegal_action!r}")
        # RLlib adds its own bookkeeping attributes to env_config (worker_index...); they are not options.
        options = {k: v for k, v in config.items() if not k.startswith("_")}
        self.env_options = options
        self.game_env = make(self.env_name, api="parallel_raw" if self.api == "parallel" else "raw", **options)
        self.possible_agents = list(self.game_env.possible_agents)
        self.agents = list(self.possible_agents)
        first = self.possible_agents[0]
        inner = self.game_env.observation_space(first)
        self._vector_space = inner["observation"]
        self._mask_space = inner["action_mask"]
        space = gym.spaces.Dict({self.obs_key: self._vector_space, "action_mask": self._mask_space})
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: self.game_env.action_space(a) for a in self.possible_agents}
        self.max_episode_steps = int(getattr(self.game_env, "max_episode_steps", 0) or 0)
        self._returns = dict.fromkeys(self.possible_agents, 0.0)
        self._zero_mask = np.zeros(self._mask_space.shape, dtype=self._mask_space.dtype)
        self._asked: dict[str, np.ndarray] = {}  # the agents asked to act now, with their masks
        self._done = True  # until reset()

    # ------------------------------------------------------------------ helpers
    def _format(self, obs: dict[str, np.ndarray], live: bool = True) -> dict[str, np.ndarray]:
        mask = np.asarray(obs["action_mask"], dtype=self._mask_space.dtype) if live else self._zero_mask.copy()
        return {self.obs_key: np.asarray(obs["observation"], dtype=self._vector_space.dtype), "action_mask": mask}

    def _final_infos(self, last_infos: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        # Judged by the env's final scores where it reports them, else by every player's return
        # (rank and win/loss rewards: the best return is first place).
        n = len(self.possible_agents)
        returns = [self._returns[a] for a in self.possible_agents]
        infos = {}
        for i, a in enumerate(self.possible_agents):
            scores = last_infos.get(a, {}).get("scores")
            if scores is None or len(scores) != n:
                scores = returns[i:] + returns[:i]  # egocentric: me first
            infos[a] = {"result": win_credit(scores, num_players=n), "episode_return": self._returns[a]}
        return infos

    def _ask(self, obs: dict[str, dict[str, np.ndarray]]) -> dict[str, dict[str, np.ndarray]]:
        self._asked = {a: o["action_mask"] for a, o in obs.items()}
        return obs

    def _illegal(self, action_dict: dict[str, Any]) -> list[str]:
        """Agents whose action is not in their mask, or who were not asked; raises in 'raise' mode."""
        offenders = []
        for agent, action in action_dict.items():
            mask = self._asked.get(agent)
            ok = (mask is not None and isinstance(action, (int, np.integer)) and not isinstance(action, bool)
                  and 0 <= action < mask.shape[0] and bool(mask[action]))
            if not ok:
                offenders.append(agent)
        missing = sorted(set(self._asked) - set(action_dict))
        if missing:
            raise ValueError(f"step() needs an action for each agent asked to act: {sorted(self._asked)}; missing {missing}")
        if offenders and self.illegal_action == "raise":
            agent = offenders[0]
            legal = np.flatnonzero(self._asked[agent]).tolist() if agent in self._asked else []
            raise IllegalActionError(
                f"illegal action {action_dict[agent]!r} for {agent}; "
                + (f"legal actions: {legal}" if agent in self._asked else f"agents asked to act: {sorted(self._asked)}")
            )
        return offenders

    def _end_illegal(self, offenders: list[str]):
        import warnings

        warnings.warn(f"illegal action by {offenders}; the game ends with {ILLEGAL_REWARD} for them", stacklevel=3)
        rewards = {a: (ILLEGAL_REWARD if a in offenders else 0.0) for a in self.possible_agents}
        for a, r in rewards.items():
            self._returns[a] += r
        obs = {a: {self.obs_key: np.zeros(self._vector_space.shape, self._vector_space.dtype), "action_mask": self._zero_mask.copy()}
               for a in self.possible_agents}
        return self._end(obs, rewards, False, {})

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self._returns = dict.fromkeys(self.possible_agents, 0.0)
        self._done = False
        if self.api == "parallel":
            obs, _ = self.game_env.reset(seed=seed, options=options)
            return self._ask({a: self._format(o) for a, o in obs.items()}), {a: {} for a in obs}
        self.game_env.reset(seed=seed, options=options)
        actor = self.game_env.agent_selection
        return self._ask({actor: self._format(self.game_env.observe(actor))}), {actor: {}}

    def step(self, action_dict: dict[str, Any]):
        if self._done:
            raise IllegalActionError("the game is over; call reset() before step()")
        offenders = self._illegal(action_dict)
        if offenders:
            return self._end_illegal(offenders)
        if self.api == "parallel":
            return self._step_parallel(action_dict)
        return self._step_aec(action_dict)

    def _step_parallel(self, action_dict: dict[str, Any]):
        actions = {a: int(v) for a, v in action_dict.items()}
        obs, rewards, terms, truncs, infos = self.game_env.step(actions)
        for a, r in rewards.items():
            self._returns[a] += float(r)
        done = not self.game_env.agents
        if not done:
            return (self._ask({a: self._format(o) for a, o in obs.items()}), {a: float(r) for a, r in rewards.items()},
                    {"__all__": False}, {"__all__": False}, {a: {} for a in obs})
        truncated = any(truncs.values()) and not any(terms.values())
        return self._end({a: self._format(o, live=False) for a, o in obs.items()},
                         {a: float(r) for a, r in rewards.items()}, truncated, infos)

    def _step_aec(self, action_dict: dict[str, Any]):
        env = self.game_env
        actor = env.agent_selection
        env.step(int(action_dict[actor]))
        rewards = {a: float(env.rewards.get(a, 0.0)) for a in self.possible_agents}
        for a, r in rewards.items():
            self._returns[a] += r
        live = [a for a in env.agents if not (env.terminations[a] or env.truncations[a])]
        if live:
            nxt = env.agent_selection
            # Every agent's reward, zeros included: RLlib requires a reward for an agent whose
            # next observation arrives, and keeps the others' as hanging rewards.
            return (self._ask({nxt: self._format(env.observe(nxt))}), rewards, {"__all__": False}, {"__all__": False}, {nxt: {}})
        truncated = any(env.truncations.values()) and not any(env.terminations.values())
        obs = {a: self._format(env.observe(a), live=False) for a in self.possible_agents}
        return self._end(obs, rewards, truncated, dict(env.infos))

    def _end(self, obs, rewards, truncated: bool, last_infos: dict[str, dict[str, Any]]):
        flags = {a: True for a in self.possible_agents}
        not_flags = {a: False for a in self.possible_agents}
        terminateds = {**(not_flags if truncated else flags), "__all__": not truncated}
        truncateds = {**(flags if truncated else not_flags), "__all__": truncated}
        self._done = True  # ``agents`` keeps every agent: RLlib checks the last step's dicts against it
        self._asked = {}
        return obs, rewards, terminateds, truncateds, self._final_infos(last_infos)

    # ------------------------------------------------------------------ extras
    def render(self) -> Any:
        return self.game_env.render()

    def close(self) -> None:
        self.game_env.close()

    def game_record(self) -> dict[str, Any]:
        """The current game as the suite's JSON record (replayable with the game's ``record.replay``)."""
        return self.game_env.game_record()
