"""PettingZoo plumbing that every game's front door shares, and nothing game-specific.

Owns: the per-agent space accessors and ``close``, the AEC reset bookkeeping (rewards,
cumulative rewards, end flags) and dead-step handling, the spaces of a dict observation with an
action mask, the render-mode check and rendering (text, or a picture for ``rgb_array``), and ``wrap_aec`` (PettingZoo's standard
wrappers). Each env module keeps its own rules, observations, infos and rewards.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

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


def wrap_aec(raw: AECEnv, illegal_reward: float) -> AECEnv:
    """``raw`` with PettingZoo's standard wrappers: an illegal move ends the game with ``illegal_reward``."""
    aec = wrappers.TerminateIllegalWrapper(raw, illegal_reward=illegal_reward)
    aec = wrappers.AssertOutOfBoundsWrapper(aec)
    return wrappers.OrderEnforcingWrapper(aec)
