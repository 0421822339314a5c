"""Agents that play the suite's games: one protocol for scripted baselines, trained
checkpoints and humans, plus the arena that plays them against each other.

``agents`` stands on ``fight_envs`` only through observations and action masks; it never reads
engine internals. It ships in the wheel beside ``fight_envs`` and ``train``.
"""

from agents.base import Agent, RandomAgent
from agents.evaluate import evaluate, format_table, versus_baseline
from agents.fight5 import Fight5View, GreedyAgent, HeuristicAgent
from agents.registry import list_agents, make_agent
from agents.tournament import round_robin

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
