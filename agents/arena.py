"""The arena: plays agents against each other on any PettingZoo AEC env of the suite.

One function, ``play_game``, is used by the tests, the training callbacks, evaluation,
tournaments and the command line, so every figure comes from the same loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fight_envs.agents.base import Agent


@dataclass
class GameResult:
    """The outcome of one game, seat by seat (seat i = ``player_i``)."""

    seed: int | None
    agent_labels: list[str]
    returns: np.ndarray
    """Each seat's total reward over the game (for Fight 5's outcome reward: +1 / 0 / -1)."""
    scores: np.ndarray
    """Each seat's final game score where the env reports ``info['score']`` (else zeros)."""
    num_steps: int
    record: dict[str, Any] | None = field(default=None, repr=False)

    def winners(self) -> list[int]:
        best = self.returns.max()
        return [int(s) for s in np.flatnonzero(self.returns == best)]


def agent_seed(game_seed: int | None, seat: int) -> int | None:
    """The seed an agent gets for one game: derived from the game's seed and its seat."""
    if game_seed is None:
        return None
    return int(np.random.SeedSequence([game_seed, seat]).generate_state(1)[0])


def information_set(env: Any, agent_id: str, agent: Agent) -> Any:
    """The ``InformationSet`` of ``agent_id`` in ``env`` (``env.unwrapped.information_set``), for an
    agent with ``needs_information_set``; a clear error when the env's engine cannot give one."""
    fn = getattr(env.unwrapped, "information_set", None)
    if fn is None:
        raise TypeError(
            f"agent {agent.label} plans with the game's information set, but {type(env.unwrapped).__name__} "
            f"has no information_set() (its engine lacks clone/determinize); play it on a game that has one"
        )
    return fn(agent_id)


def play_game(
    env: Any,
    agents: Sequence[Agent],
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    keep_record: bool = False,
    on_step: Callable[[str, dict[str, Any], int], None] | None = None,
) -> GameResult:
    """Play one game on AEC ``env`` with ``agents[i]`` in seat ``player_i``.

    Agents take the env's public rules (``Agent.bind_rules``, e.g. Fifth-Earth's card data) and are
    reseeded from ``seed`` and their seat, so the same call gives the same game.
    Agents with ``needs_information_set`` act through ``act_with_information`` with the seat's
    ``env.unwrapped.information_set(agent_id)`` (a determinization, never the true state).
    ``on_step(agent_name, observation, action)`` sees each decision (for logging or display).
    """
    agent_ids = list(env.possible_agents)
    if len(agents) != len(agent_ids):
        raise ValueError(f"this env has {len(agent_ids)} seats but {len(agents)} agents were given")
    for seat, agent in enumerate(agents):
        agent.bind_rules(env)
        agent.seed(agent_seed(seed, seat))
        agent.reset()
    env.reset(seed=seed, options=options)
    totals = {a: 0.0 for a in agent_ids}
    final_scores = np.zeros(len(agent_ids))
    steps = 0
    for agent_id in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        totals[agent_id] += reward
        if "score" in info:
            final_scores[agent_ids.index(agent_id)] = info["score"]
        if terminated or truncated:
            env.step(None)
            continue
        seat = agent_ids.index(agent_id)
        agent = agents[seat]
        if agent.needs_information_set:
            action = agent.act_with_information(obs["observation"], obs["action_mask"], information_set(env, agent_id, agent))
        else:
            action = agent.act(obs["observation"], obs["action_mask"])
        if on_step is not None:
            on_step(agent_id, obs, action)
        env.step(action)
        steps += 1
    record = env.unwrapped.game_record() if keep_record and hasattr(env.unwrapped, "game_record") else None
    return GameResult(
        seed=seed,
        agent_labels=[a.label for a in agents],
        returns=np.array([totals[a] for a in agent_ids]),
        scores=final_scores,
        num_steps=steps,
        record=record,
    )
