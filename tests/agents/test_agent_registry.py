"""Agents by name or checkpoint path, and the registry's errors."""

from __future__ import annotations

import sys
import types

import pytest

from fight_envs.agents.base import Agent, RandomAgent
from fight_envs.agents.fight5 import GreedyAgent, HeuristicAgent
from fight_envs.agents.human import HumanAgent
from fight_envs.agents.registry import list_agents, make_agent


def test_list_and_make_every_baseline():
    assert list_agents() == ["random", "greedy", "heuristic", "human"]
    assert list_agents("fight5_v0") == list_agents("fight5")
    kinds = {"random": RandomAgent, "greedy": GreedyAgent, "heuristic": HeuristicAgent, "human": HumanAgent}
    for name, cls in kinds.items():
        agent = make_agent(name, seed=3)
        assert type(agent) is cls and agent.name == name
    a, b = make_agent("random", seed=3), make_agent("random", seed=3)
    assert a.rng.integers(1 << 30) == b.rng.integers(1 << 30)


def test_unknown_names_list_what_exists():
    with pytest.raises(ValueError, match="available: random, greedy, heuristic, human"):
        make_agent("alphazero")
    with pytest.raises(ValueError, match="unknown game 'chess'.*fight5"):
        make_agent("random", game="chess")
    with pytest.raises(ValueError, match="unknown game"):
        list_agents("no_such_game")
    with pytest.raises(ValueError, match="non-empty string"):
        make_agent("  ")
    with pytest.raises(ValueError, match="no checkpoint file at 'runs/missing/model.zip'"):
        make_agent("runs/missing/model.zip")


def test_checkpoint_paths_go_to_the_checkpoint_loader(tmp_path, monkeypatch):
    path = tmp_path / "model.zip"
    path.write_bytes(b"not really a model")
    calls = []

    class Loaded(Agent):
        name = "ppo"

        def act(self, observation, action_mask):
            return 0

    def load_checkpoint_agent(p, **kw):
        calls.append((p, kw))
        agent = Loaded()
        agent.seed(kw.get("seed"))
        return agent

    fake = types.ModuleType("fight_envs.agents.checkpoint")
    fake.load_checkpoint_agent = load_checkpoint_agent
    monkeypatch.setitem(sys.modules, "fight_envs.agents.checkpoint", fake)
    agent = make_agent(str(path), seed=5)
    assert isinstance(agent, Loaded)
    assert calls == [(str(path), {"game": "fight5", "seed": 5, "trust": False})]  # the game is checked by the loader
    make_agent(str(path), seed=5, trust=True)
    assert calls[-1] == (str(path), {"game": "fight5", "seed": 5, "trust": True})  # pickled files only when asked
