"""PettingZoo plumbing that every game's front door shares, and nothing game-specific.

Owns: the per-agent space accessors and ``close``, the AEC reset bookkeeping (rewards,
cumulative rewards, end flags) and dead-step handling, the spaces of a dict observation with an
action mask, the render-mode, viewer and flag checks, rendering (text, or a picture for ``rgb_array``), and ``wrap_aec`` (PettingZoo's standard
wrappers, fused into one layer: ``StandardWrapper``). Each env module keeps its own rules, observations, infos and rewards.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from fight_envs.core.errors import ConfigError

RENDER_MODES = ["human", "ansi", "rgb_array"]
ILLEGAL_ACTION_MODES = ("raise", "terminate")


class SpacesMixin:
    """``observation_space`` / ``action_space`` read from the per-agent dicts, and a no-op ``close``.

    Listed before ``AECEnv`` / ``ParallelEnv`` in the bases, so PettingZoo's defaults (which warn)
    are overridden.
    """

    observation_spaces: dict[str, spaces.Space]
    action_spaces: dict[str, spaces.Space]

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def close(self) -> None:
        pass


class AECMixin(SpacesMixin):
    """The AEC bookkeeping every game does the same way at reset and on a step after the end."""

    possible_agents: list[str]
    agent_selection: str

    def _start_episode(self) -> None:
        """Every agent live, with no rewards and no end flags (infos are each game's own)."""
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}

    def _dead_step(self, action: Any) -> bool:
        """If the selected agent has ended, let PettingZoo remove it and say so (True)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)  # type: ignore[attr-defined]  # AECEnv's
            return True
        return False


def dict_spaces(
    agents: list[str], low: float, high: float, obs_size: int, num_actions: int
) -> tuple[dict[str, spaces.Space], dict[str, spaces.Space]]:
    """Per-agent observation spaces (``observation`` box + ``action_mask``) and Discrete action spaces."""
    obs_space = spaces.Dict({
        "observation": spaces.Box(low, high, (obs_size,), np.float32),
        "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
    })
    return {a: obs_space for a in agents}, {a: spaces.Discrete(num_actions) for a in agents}


def check_render_mode(render_mode: str | None) -> None:
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ConfigError(f"render_mode must be None or one of {RENDER_MODES}, got {render_mode!r}")


def check_viewer(viewer: Any, num_players: int) -> int | None:
    """``viewer`` checked, as every env's constructor takes it: None (a render shows every hand) or the
    seat whose view a render shows, a Python or numpy int in ``0..num_players - 1`` (not a bool, which
    is an int to Python but no seat). Returns it as a plain int; ConfigError names what is allowed."""
    if viewer is None:
        return None
    if (isinstance(viewer, (bool, np.bool_)) or not isinstance(viewer, (int, np.integer))
            or not 0 <= viewer < num_players):
        raise ConfigError(f"viewer must be None or a seat in 0..{num_players - 1}, got {viewer!r}")
    return int(viewer)


def check_flag(name: str, value: Any) -> bool:
    """A True/False option (``mask_in_info`` ...): a Python or numpy bool, returned as a plain bool."""
    if not isinstance(value, (bool, np.bool_)):
        raise ConfigError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_illegal_action(illegal_action: str) -> None:
    if illegal_action not in ILLEGAL_ACTION_MODES:
        raise ConfigError(f"illegal_action must be 'raise' or 'terminate', got {illegal_action!r}")


def render_text_mode(render_mode: str | None, text: Callable[[], str], stacklevel: int,
                     picture: Callable[[], np.ndarray] | None = None) -> str | np.ndarray | None:
    """Render per ``render_mode``: the text (``"ansi"``), printed (``"human"``), the ``picture()``
    frame (``"rgb_array"``: an H x W x 3 uint8 card table), or a warning (None).

    ``stacklevel`` is counted from the caller, as if it called ``warnings.warn`` itself.
    """
    if render_mode is None:
        warnings.warn("render() called without a render_mode; pass render_mode='ansi', 'human' or 'rgb_array'",
                      stacklevel=stacklevel + 1)
        return None
    if render_mode == "rgb_array":
        if picture is None:
            raise ConfigError("this env draws no pictures; use render_mode='ansi' or 'human'")
        return picture()
    out = text()
    if render_mode == "human":
        print(out)
        return None
    return out


def _forwarded(name: str, before_reset: bool = False) -> property:
    """A property reading and writing ``self.env.<name>``; before reset, unless ``before_reset``,
    reading raises ``AttributeError`` as ``OrderEnforcingWrapper`` does."""

    def get(self: StandardWrapper) -> Any:
        if not (before_reset or self._has_reset):
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    def set_(self: StandardWrapper, value: Any) -> None:
        setattr(self.env, name, value)

    return property(get, set_)


class StandardWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's standard AEC stack, ``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(
    TerminateIllegalWrapper(raw)))``, fused into one layer with the same behaviour.

    Why: each of the three layers forwards every attribute read (``agent_selection``, ``rewards``,
    ``terminations`` ...) through ``__getattr__``, so a plain ``last()`` + ``step()`` loop paid for
    about thirty forwarding calls a decision, more than some of our engines take to play the move.
    Here the hot attributes are properties one hop from the raw env, ``agent_iter``'s iterator reads
    the raw env itself, ``step`` checks an int against a Discrete space's range kept as Python ints
    (per agent, from reset on), and ``step`` runs the three wrappers' checks in their order:

    * OrderEnforcing: ``step``/``observe``/``render``/``state``/``agent_iter`` before ``reset`` are
      errors, reading ``rewards``, ``agents`` ... before ``reset`` raises ``AttributeError``, a step
      with no agents left warns and does nothing;
    * AssertOutOfBounds: an action outside the action space (``None`` only for an ended agent)
      fails the same ``assert``;
    * TerminateIllegal: the mask of the current agent's last observation (observed now if it was
      not) judges the action; an illegal one ends the game for everyone with ``illegal_reward`` to
      the mover, 0 to the others, and PettingZoo's warning.

    It subclasses ``OrderEnforcingWrapper`` so ``agent_iter``'s order check and ``isinstance``
    tests hold. ``tests/library/test_standard_wrapper.py`` plays every env through this and through
    PettingZoo's three wrappers side by side (illegal, out-of-range and after-the-end actions
    included) and requires the same observations, rewards, flags, infos, warnings and errors.
    """

    def __init__(self, env: AECEnv, illegal_reward: float):
        super().__init__(env)
        self._illegal_value = illegal_reward
        self._prev_obs: Any = None
        self._terminated = False  # ended by an illegal move
        self._bounds: dict[Any, tuple[int, int] | None] = {}  # per agent: a Discrete space's range as ints, else None

    # the attributes a loop reads every decision, one hop from the raw env (see _forwarded)
    agent_selection = _forwarded("agent_selection")
    agents = _forwarded("agents")
    rewards = _forwarded("rewards")
    terminations = _forwarded("terminations")
    truncations = _forwarded("truncations")
    infos = _forwarded("infos")
    _cumulative_rewards = _forwarded("_cumulative_rewards", before_reset=True)

    @property
    def num_agents(self) -> int:
        return len(self.agents)

    def __str__(self) -> str:
        return str(self.env)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._has_reset = True
        self._has_updated = True
        self._terminated = False
        self._prev_obs = None
        self._bounds = {}
        self.env.reset(seed=seed, options=options)

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _StandardIterable(self, max_iter)

    def observe(self, agent: str) -> Any:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self._observe(agent)

    def _observe(self, agent: str) -> Any:
        """TerminateIllegal's observe: remember what the current agent was shown."""
        raw = self.env
        obs = raw.observe(agent)
        if agent == raw.agent_selection:
            self._prev_obs = obs
        return obs

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        raw = self.env
        agent = raw.agent_selection
        observation = self._observe(agent) if observe else None
        return (observation, raw._cumulative_rewards[agent], raw.terminations[agent],
                raw.truncations[agent], raw.infos[agent])

    def step(self, action: Any) -> None:
        # OrderEnforcingWrapper
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        raw = self.env
        if not raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        # AssertOutOfBoundsWrapper
        agent = raw.agent_selection
        ended = raw.terminations[agent] or raw.truncations[agent]
        bounds = self._bounds.get(agent, False)
        if bounds is False:  # the agent's first step since reset: its space's range, read once
            space = raw.action_space(agent)
            bounds = self._bounds[agent] = (
                (int(space.start), int(space.start + space.n)) if type(space) is spaces.Discrete else None)
        if type(action) is int and bounds is not None:  # Discrete.contains, without numpy scalars
            assert bounds[0] <= action < bounds[1], "action is not in action space"
        else:
            assert (action is None and ended) or raw.action_space(agent).contains(action), "action is not in action space"
        # TerminateIllegalWrapper
        if self._prev_obs is None:
            self._observe(agent)
        # the mask of what the mover was shown: in the observation dict, else in its info
        shown = self._prev_obs if isinstance(self._prev_obs, dict) else raw.infos.get(agent, {})
        assert "action_mask" in shown, "`action_mask` not found in the observation dict or the mover's info"
        mask = shown["action_mask"]
        self._prev_obs = None
        if self._terminated and ended:
            raw._was_dead_step(action)
        elif not ended and not mask[action]:
            EnvLogger.warn_on_illegal_move()
            raw._cumulative_rewards[agent] = 0
            raw.terminations = dict.fromkeys(raw.agents, True)
            raw.truncations = dict.fromkeys(raw.agents, True)
            raw.rewards = dict.fromkeys(raw.truncations, 0)
            raw.rewards[agent] = float(self._illegal_value)
            raw._accumulate_rewards()
            raw._deads_step_first()
            self._terminated = True
        else:
            raw.step(action)


class _StandardIterator(AECOrderEnforcingIterator):
    """``AECOrderEnforcingIterator`` (stop when no agent is left or at ``max_iter``; a ``step`` or
    ``reset`` between two agents) reading the raw env's ``agents`` and ``agent_selection`` directly
    rather than through the wrapper's properties: it runs once a decision."""

    def __init__(self, env: StandardWrapper, max_iter: int) -> None:
        super().__init__(env, max_iter)
        self._raw = env.env

    def __next__(self) -> Any:
        raw = self._raw
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        env = self.env
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"  # type: ignore[attr-defined]
        env._has_updated = False  # type: ignore[attr-defined]
        return raw.agent_selection


class _StandardIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> _StandardIterator:
        return _StandardIterator(self.env, self.max_iter)  # type: ignore[arg-type]


def pettingzoo_stack(raw: AECEnv, illegal_reward: float) -> AECEnv:
    """PettingZoo's own three wrappers, the reference ``StandardWrapper`` is tested against."""
    aec = wrappers.TerminateIllegalWrapper(raw, illegal_reward=illegal_reward)
    aec = wrappers.AssertOutOfBoundsWrapper(aec)
    return wrappers.OrderEnforcingWrapper(aec)


def wrap_aec(raw: AECEnv, illegal_reward: float) -> AECEnv:
    """``raw`` behind PettingZoo's standard wrappers, fused (``StandardWrapper``): an illegal move
    ends the game with ``illegal_reward``."""
    return StandardWrapper(raw, illegal_reward)
