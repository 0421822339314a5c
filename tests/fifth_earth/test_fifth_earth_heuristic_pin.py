"""The Fifth-Earth heuristic's actions, pinned: a SHA-256 of every action it takes in self-play over fixed
games (2, 3 and 5 players; ``ties="rolloff"``; a short campaign with ``keep_runs`` and ``rest_power``),
recorded before its answer tables (``_Answers``, ``_Miss``: what a rival's answer chance reads that
does not depend on the lay's power, built once per decision) and the kept power swings. A speed-up of
the heuristic must leave every decision as it was; a deliberate change of its play rewrites the file::

    python tests/fifth_earth/test_fifth_earth_heuristic_pin.py --write
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from fight_envs import fifth_earth_v0
from fight_envs.agents.fifth_earth import HeuristicAgent

PIN = Path(__file__).parent / "heuristic_actions_pin.json"


def digest(num_players: int, env_options: dict[str, Any], agent_options: dict[str, Any], games: int) -> tuple[str, int]:
    env = fifth_earth_v0.raw_env(num_players=num_players, **env_options)
    agents = {a: HeuristicAgent(seed=i, **agent_options) for i, a in enumerate(env.possible_agents)}
    h, decisions = hashlib.sha256(), 0
    for g in range(games):
        env.reset(seed=g)
        for agent in agents.values():
            agent.seed(g)
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = agents[name].act(obs["observation"], obs["action_mask"])
            h.update(int(action).to_bytes(2, "little"))
            decisions += 1
            env.step(action)
    return h.hexdigest(), decisions


PINNED = json.loads(PIN.read_text())


@pytest.mark.parametrize("case", PINNED["cases"], ids=lambda c: f"{c['num_players']}p-{c['env_options']}-{c['agent_options']}")
def test_the_heuristic_plays_as_pinned(case: dict[str, Any]) -> None:
    sha, decisions = digest(case["num_players"], case["env_options"], case["agent_options"], PINNED["games_per_case"])
    assert decisions == case["decisions"]
    assert sha == case["sha256"]


if __name__ == "__main__" and "--write" in sys.argv:
    for case in PINNED["cases"]:
        case["sha256"], case["decisions"] = digest(case["num_players"], case["env_options"], case["agent_options"],
                                                   PINNED["games_per_case"])
    PIN.write_text(json.dumps(PINNED, indent=1) + "\n")
