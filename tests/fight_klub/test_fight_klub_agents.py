"""Fight Klub baselines: the heuristic plays only legal actions and beats random in duplicate matches."""

from __future__ import annotations

import numpy as np
import pytest

from fight_envs.agents.base import RandomAgent
from fight_envs.agents.evaluate import evaluate
from fight_envs.agents.fight_klub import HeuristicAgent, PlayAnythingAgent
from fight_envs.agents.registry import list_agents, make_agent
from fight_envs import fight_klub_v0


def test_registry_lists_the_baselines() -> None:
    assert {"random", "heuristic", "play_anything"} <= set(list_agents("fight_klub_v0"))
    assert isinstance(make_agent("heuristic", game="fight_klub", seed=0), HeuristicAgent)
    assert isinstance(make_agent("play_anything", game="fight_klub", seed=0), PlayAnythingAgent)


@pytest.mark.parametrize("agent", [HeuristicAgent(0), PlayAnythingAgent(0)], ids=["heuristic", "play_anything"])
def test_baselines_play_legal_actions_only(agent) -> None:
    env = fight_klub_v0.raw_env()  # raw: an illegal action would raise
    for seed in range(3):
        env.reset(seed=seed)
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = agent.act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][action] == 1
            env.step(action)


def test_heuristic_beats_random_in_duplicate_matches() -> None:
    result = evaluate(lambda: fight_klub_v0.env(), [HeuristicAgent(0), RandomAgent(1)], num_deals=30, seed=3)
    heuristic = result.stats[0]
    assert heuristic.win_rate > 0.6, result.table()
    assert np.isfinite(heuristic.win_rate)
