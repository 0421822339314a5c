"""Agents by name: ``make_agent("heuristic")``, ``make_agent("runs/x/model.zip")``, ``list_agents()``.

A spec is either a baseline name of the game (``random``, ``greedy``, ``heuristic``, ``human``
for Fight 5), the path of a trained SB3 checkpoint (a ``.zip``), loaded by ``fight_envs.agents.checkpoint``
(imported only then, since it needs the ``train`` extra), or an RLlib checkpoint directory,
loaded by ``fight_envs.agents.rllib_agent`` (the ``rllib`` extra). Game names may carry an env version
(``fight5_v0`` is ``fight5``). Every game also has ``search`` (``fight_envs.agents.search``, options
after a colon: ``search:sims=200,rollout=greedy``); it needs the game's engine to implement the
search vocabulary of ``fight_envs.core.information``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

from fight_envs.agents.base import Agent, RandomAgent

CHECKPOINT_SUFFIXES = (".zip", ".pt", ".pth")
SEARCH = "search"
"""Every game's search agent (``fight_envs.agents.search``), with options: ``search:sims=200,rollout=greedy``."""


def _fight5_factories() -> dict[str, Callable[[int | None], Agent]]:
    from fight_envs.agents.fight5 import GreedyAgent, HeuristicAgent
    from fight_envs.agents.human import HumanAgent

    return {
        "random": lambda seed: RandomAgent(seed),
        "greedy": lambda seed: GreedyAgent(seed),
        "heuristic": lambda seed: HeuristicAgent(seed),
        "human": lambda seed: HumanAgent(seed=seed, game="fight5"),
    }


def _brawl_factories() -> dict[str, Callable[[int | None], Agent]]:
    from fight_envs.agents.brawl import FirstLegalAgent, NeverPassAgent
    from fight_envs.agents.brawl import HeuristicAgent as BrawlHeuristicAgent

    return {
        "random": lambda seed: RandomAgent(seed),
        "heuristic": lambda seed: BrawlHeuristicAgent(seed),
        "first_legal": lambda seed: FirstLegalAgent(seed),
        "never_pass": lambda seed: NeverPassAgent(seed),
    }


def _fight_klub_factories() -> dict[str, Callable[[int | None], Agent]]:
    from fight_envs.agents.fight_klub import HeuristicAgent as FightKlubHeuristicAgent
    from fight_envs.agents.fight_klub import PlayAnythingAgent

    return {
        "random": lambda seed: RandomAgent(seed),
        "heuristic": lambda seed: FightKlubHeuristicAgent(seed),
        "play_anything": lambda seed: PlayAnythingAgent(seed),
    }


def _fifth_earth_factories() -> dict[str, Callable[[int | None], Agent]]:
    from fight_envs.agents.fifth_earth import CheapestBeatAgent, StrongestSingleAgent
    from fight_envs.agents.fifth_earth import HeuristicAgent as FifthEarthHeuristicAgent

    return {
        "random": lambda seed: RandomAgent(seed),
        "heuristic": lambda seed: FifthEarthHeuristicAgent(seed),
        "strongest_single": lambda seed: StrongestSingleAgent(seed),
        "cheapest_beat": lambda seed: CheapestBeatAgent(seed),
    }


GAMES: dict[str, Callable[[], dict[str, Callable[[int | None], Agent]]]] = {"fight5": _fight5_factories}
"""Per game, a function returning its baselines by name (deferred so listing imports little)."""
GAMES["fifth_earth"] = _fifth_earth_factories
GAMES["fight_klub"] = _fight_klub_factories
GAMES["brawl"] = _brawl_factories


def game_name(game: str) -> str:
    """The registry's name of ``game`` ('fight5_v0' -> 'fight5'); ValueError if unknown."""
    base = re.sub(r"_v\d+$", "", game)
    if base not in GAMES:
        raise ValueError(f"unknown game {game!r}; games with agents: {', '.join(GAMES)}")
    return base


def list_agents(game: str = "fight5") -> list[str]:
    """Baseline names of ``game`` (any checkpoint path is accepted as well)."""
    return list(GAMES[game_name(game)]())


def is_checkpoint_spec(spec: str) -> bool:
    """A spec names a checkpoint when it looks like a path (a separator or a model suffix) or is a file."""
    return os.sep in spec or "/" in spec or spec.endswith(CHECKPOINT_SUFFIXES) or os.path.isfile(spec)


def make_agent(spec: str, game: str = "fight5", seed: int | None = None, trust: bool = False, env: Any = None) -> Agent:
    """Build the agent named by ``spec`` for ``game``, seeded with ``seed``.

    Checkpoints load in the data-only format; a pickled one (an SB3 zip, an RLlib directory with
    ``.pkl`` files) only with ``trust=True``, since unpickling runs code the file carries.
    ``env``: the env the agent will play; it takes the env's public rules now (``Agent.bind_rules``,
    e.g. Fifth-Earth's card data), as the arena has it do before every game.
    """
    agent = _build_agent(spec, game, seed, trust)
    if env is not None:
        agent.bind_rules(env)
    return agent


def _build_agent(spec: str, game: str, seed: int | None, trust: bool) -> Agent:
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec must be a non-empty string, got {spec!r}")
    spec = spec.strip()
    if spec.partition(":")[0] == SEARCH:  # every game: "search" or "search:sims=200,rollout=greedy"
        from fight_envs.agents.search import make_search_agent

        return make_search_agent(game_name(game), seed=seed, options=spec.partition(":")[2])
    factories = GAMES[game_name(game)]()
    if spec in factories:
        return factories[spec](seed)
    if os.path.isdir(spec):
        from fight_envs.agents.rllib_agent import is_rllib_checkpoint, load_rllib_agent  # needs the rllib extra

        if not is_rllib_checkpoint(spec):
            raise ValueError(f"{spec!r} is a directory but not an RLlib checkpoint (no fight_envs_agent.json or learner_group/)")
        return load_rllib_agent(spec, game=game_name(game), seed=seed, trust=trust)
    if is_checkpoint_spec(spec):
        if not os.path.isfile(spec):
            raise ValueError(f"no checkpoint file at {spec!r}")
        from fight_envs.agents.checkpoint import load_checkpoint_agent  # needs the train extra; loaded on demand

        return load_checkpoint_agent(spec, game=game_name(game), seed=seed, trust=trust)
    raise ValueError(
        f"unknown agent {spec!r} for {game_name(game)}; available: {', '.join(factories)}, or a checkpoint path "
        f"(a file ending in {', '.join(CHECKPOINT_SUFFIXES)})"
    )
