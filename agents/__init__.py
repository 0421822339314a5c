"""Agents that play the suite's games: one protocol for scripted baselines, trained
checkpoints and humans, plus the arena that plays them against each other.

``agents`` stands on ``fight_envs`` only through observations and action masks; it never reads
engine internals. It ships in the wheel beside ``fight_envs`` and ``train``.
"""

from agents.base import Agent, RandomAgent

__all__ = ["Agent", "RandomAgent"]
