"""Who plays whom in RLlib self-play: the policy mapping, run in every env runner, and its feed.

Module ids: ``learner`` (the one shared learning policy, whatever seat it takes), each
scripted baseline by its registry name (``random``, ``greedy``, ``heuristic``...), and the
snapshot slots ``self_0`` .. ``self_{K-1}`` (frozen copies of the learner, refreshed in turn).

Per episode, :func:`agent_to_module` puts the learner in one seat, drawn uniformly, and draws an
opponent module for every other seat from the current weights. The draws come from a generator
seeded by the episode id, so every agent of an episode gets the same table whichever agent RLlib
maps first. The weights live in this module, once per process (:func:`set_weights`): the trainer
computes them with ``fight_envs.train.opponents.OpponentPool`` (the SB3 trainer's mix, annealing and
prioritised fictitious self-play) and pushes them to every env runner after each iteration,
through :func:`sync`, which also hands back the results the runner recorded since the last call
(:class:`LeagueCallback` records the learner's win credit and its opponents at every episode end).
"""

from __future__ import annotations

import random
import zlib
from typing import Any

from ray.rllib.callbacks.callbacks import RLlibCallback

LEARNER = "learner"
SNAPSHOT_PREFIX = "self_"

_WEIGHTS: dict[str, float] = {"random": 1.0}
_RESULTS: list[tuple[list[str], float]] = []
_SAMPLED = {"env_steps": 0, "episodes": 0}


def snapshot_slot(k: int) -> str:
    return f"{SNAPSHOT_PREFIX}{k}"


def set_weights(weights: dict[str, float]) -> None:
    """Replace this process's opponent weights (module id -> weight; need not sum to 1)."""
    positive = {k: float(v) for k, v in weights.items() if v > 0}
    if not positive:
        raise ValueError(f"the opponent weights give every module weight 0: {weights}")
    _WEIGHTS.clear()
    _WEIGHTS.update(positive)


def current_weights() -> dict[str, float]:
    return dict(_WEIGHTS)


def sync(weights: dict[str, float]) -> list[tuple[list[str], float]]:
    """Set the weights and drain the results recorded here: ``[(opponent module ids, learner credit)]``."""
    set_weights(weights)
    drained = list(_RESULTS)
    _RESULTS.clear()
    return drained


def sampled() -> dict[str, Any]:
    """What this process's env runner has sampled so far, and where it runs (Ray node id and IP)."""
    import ray

    context = ray.get_runtime_context()
    node = next((n for n in ray.nodes() if n["NodeID"] == context.get_node_id()), {})
    return {**_SAMPLED, "node_id": context.get_node_id(), "node_ip": node.get("NodeManagerAddress")}


def _agent_order(episode: Any) -> list[str]:
    agents = list(getattr(episode, "observation_space", None) or [])
    if not agents:
        agents = list(getattr(episode, "agent_ids", []))
    return sorted(agents, key=lambda a: (len(a), a))  # player_2 before player_10


def seating(episode_id: str, agents: list[str], weights: dict[str, float]) -> dict[str, str]:
    """The episode's table: agent -> module id (one learner seat, opponents drawn by weight)."""
    rng = random.Random(zlib.crc32(str(episode_id).encode()))
    ids = sorted(weights)
    probs = [weights[i] for i in ids]
    learner_seat = rng.randrange(len(agents))
    table = {}
    for seat, agent in enumerate(agents):
        pick = rng.choices(ids, probs)[0]  # drawn for every seat, so seats keep their draws
        table[agent] = LEARNER if seat == learner_seat else pick
    return table


def agent_to_module(agent_id: str, episode: Any, **kwargs: Any) -> str:
    """RLlib's ``policy_mapping_fn`` (new API stack signature)."""
    agents = _agent_order(episode)
    if agent_id not in agents:
        agents = sorted(set(agents) | {agent_id}, key=lambda a: (len(a), a))
    return seating(episode.id_, agents, _WEIGHTS)[agent_id]


class LeagueCallback(RLlibCallback):
    """Records, at every episode end in an env runner, the learner's win credit and its opponents
    (and counts what the runner sampled, for :func:`sampled`)."""

    def on_sample_end(self, *, samples: Any, **kwargs: Any) -> None:
        _SAMPLED["env_steps"] += sum(int(e.env_steps()) for e in samples)

    def on_episode_end(self, *, episode: Any, **kwargs: Any) -> None:
        _SAMPLED["episodes"] += 1
        infos = episode.get_infos(-1)
        for agent in episode.agent_ids:
            if episode.module_for(agent) != LEARNER:
                continue
            info = infos.get(agent) or {}
            if "result" not in info:
                continue
            opponents = sorted({episode.module_for(a) for a in episode.agent_ids if a != agent} - {LEARNER})
            _RESULTS.append((opponents, float(info["result"])))
