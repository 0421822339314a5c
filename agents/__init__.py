"""Agents that play the suite's games: one protocol for scripted baselines, trained
checkpoints and humans, plus the arena that plays them against each other.

``agents`` stands on ``fight_envs`` through observations and action masks; planning agents
(``search``) also through an ``InformationSet`` and the engine vocabulary of
``fight_envs.core.information`` (never the true hidden state). It ships in the wheel beside
``fight_envs`` and ``train``.
"""

from fight_envs.agents.base import Agent, RandomAgent
from fight_envs.agents.evaluate import evaluate, format_table, versus_baseline
from fight_envs.agents.fight5 import Fight5View, GreedyAgent, HeuristicAgent
from fight_envs.agents.registry import list_agents, make_agent
from fight_envs.agents.tournament import round_robin

__all__ = [
    "Agent",
    "Fight5View",
    "GreedyAgent",
    "HeuristicAgent",
    "RandomAgent",
    "evaluate",
    "format_table",
    "list_agents",
    "make_agent",
    "round_robin",
    "versus_baseline",
]
