"""The one agent protocol of the suite, and the uniform-random baseline every game shares.

An agent acts from an observation vector and its action mask, one at a time (``act``) or in
batches (``act_batch``, one row per game). It owns its random generator, seeded through
``seed()``, so a match is reproduced by its seed.

**Agents that plan with the game state** (the ``search`` agent) set ``needs_information_set =
True`` and implement ``act_with_information(observation, action_mask, information)``. The arena
(``fight_envs.agents.arena.play_game``, which evaluation, tournaments, the ladder and the command
line all use) then passes ``env.unwrapped.information_set(agent_id)``: an
``fight_envs.core.information.InformationSet``, which holds a determinization (a full game
equal to the true one in everything that seat observed, every hidden part resampled) and never
the true game, so an agent cannot reach hidden information through it. This is the only way an
agent is given more of the game's state than its observation.

**Agents that judge by the game's rules** (the Fifth-Earth baselines read each card's power from the
card data, which ``fifth_earth_v0.env(cards=...)`` configures) override ``bind_rules(env)``. The
arena calls it before every game, and the training opponents when they are attached to an env, so
an agent built by name plays by the rules of the env it meets. What it reads there is public rules
(the card data), never the game's state, so it does not break the rule that an agent sees only its
observation.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class Agent:
    """Base class. Subclasses override ``act`` (scripted agents) or ``act_batch`` (networks).

    ``name`` identifies the agent in tables and logs; ``version`` changes whenever the
    strategy of a scripted agent changes, so old results are not confused with new ones.
    """

    name: str = "agent"
    version: int = 1
    game: str | None = None
    """The game this agent is written for (None: any game)."""
    needs_information_set: bool = False
    """True: the arena calls ``act_with_information`` with the seat's ``InformationSet`` instead of ``act``."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        """Reseed the agent's own generator (the arena does this before every game)."""
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Called at the start of every game; agents with per-game memory clear it here."""

    def bind_rules(self, env: Any) -> None:
        """Take the public rules of the game ``env`` plays (its card data) that this agent judges by.

        Called by the arena before every game and by the training opponents when attached to an
        env (see the module docstring); by default it does nothing. Never read the game's state here.
        """

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Return one legal action for one observation."""
        if type(self).act_batch is Agent.act_batch:
            raise NotImplementedError(f"{type(self).__name__} must override act() or act_batch()")
        return int(self.act_batch(observation[None], action_mask[None])[0])

    def act_with_information(self, observation: np.ndarray, action_mask: np.ndarray, information: Any) -> int:
        """Return one legal action, given also the seat's ``InformationSet`` (see the module docstring).

        Called instead of ``act`` for agents with ``needs_information_set``; by default it ignores
        the information set and calls ``act``.
        """
        return self.act(observation, action_mask)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Return one legal action per row of ``observations`` / ``action_masks``."""
        return np.array([self.act(o, m) for o, m in zip(observations, action_masks)], dtype=np.int64)

    @property
    def label(self) -> str:
        return f"{self.name}-v{self.version}" if self.version else self.name

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.label}>"

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "game": self.game, "class": type(self).__name__}


class RandomAgent(Agent):
    """Uniform over the legal actions: the floor every other agent must beat."""

    name = "random"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("no legal action: the action mask is all zeros")
        return int(legal[self.rng.integers(legal.size)])

    reads_mask_only = True
    """It never looks at the observation: a search's rollouts hand it the engine's
    ``legal_action_mask`` (what every env's mask is) and skip encoding the observation. A subclass
    whose ``act`` reads the observation must set this to False."""

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(action_masks, dtype=np.float64)
        if np.any(masks.sum(axis=1) == 0):
            raise ValueError("no legal action: an action mask row is all zeros")
        # Gumbel-free uniform choice among legal actions: random keys, masked argmax.
        keys = self.rng.random(masks.shape) * masks - (1 - masks)
        return keys.argmax(axis=1).astype(np.int64)
