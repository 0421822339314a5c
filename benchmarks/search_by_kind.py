"""A trained model with search deciding one kind of decision: where does lookahead beat the model?

    python benchmarks/search_by_kind.py MODEL KINDS DEALS SEED [--margin M] [--search SPEC] [--baseline NAME]
    python benchmarks/search_by_kind.py models/fight_klub_2p.zip enhance 150 7 --margin 0.2

The agent plays ``MODEL`` (its most likely legal action), except on decisions of ``KINDS`` (comma-separated
names of the env's ``decision_kind``, read from the seat's ``raw_env``; ``none``: the model alone), where
``--search`` (default ``search:sims=32``) values every legal action from the seat's information set. With
no ``--margin`` it plays the search's choice; with ``--margin M`` it keeps the model's choice unless the
search's best action beats it by at least ``M`` in mean rollout value (win credit). It plays ``DEALS``
duplicate deals against ``--baseline`` (default ``heuristic``) with ``versus_baseline`` and prints one JSON
line: the win rate and its 95% interval. The results page (Fight Klub, session 22) uses it: search on
Fight Klub's Enhance decisions turned the model's 0.567 into 0.75 against the heuristic on the same deals.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's packages

import numpy as np

from fight_envs.agents.ablation import decision_kinds
from fight_envs.agents.base import Agent
from fight_envs.agents.checkpoint import load_checkpoint_agent
from fight_envs.agents.evaluate import versus_baseline
from fight_envs.agents.registry import make_agent
from fight_envs.core.information import InformationSet
from fight_envs.registry import make


class SearchByKind(Agent):
    """``model`` plays; ``search`` decides (or, with a margin, may overrule) the decisions of ``kinds``."""

    name = "search_by_kind"
    needs_information_set = True

    def __init__(self, model: Agent, search: Agent, kinds: set[str], margin: float | None, seed: int | None = None) -> None:
        super().__init__(seed)
        self.model, self.search, self.kinds, self.margin = model, search, kinds, margin
        self.searched = self.overruled = 0

    @property
    def label(self) -> str:
        extra = "" if self.margin is None else f",margin={self.margin:g}"
        return f"{self.model.label}+{self.search.label}[{','.join(sorted(self.kinds))}{extra}]"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.model.act(observation, action_mask))

    def act_with_information(self, observation: np.ndarray, action_mask: np.ndarray, information: InformationSet) -> int:
        own = int(self.model.act(observation, action_mask))
        legal = np.flatnonzero(action_mask)
        if legal.size < 2 or information.decision_kind() not in self.kinds:
            return own
        self.searched += 1
        if self.margin is None:
            choice = int(self.search.act_with_information(observation, action_mask, information))
        else:
            values = self.search.action_values(information, legal)
            best = int(np.argmax(values))
            mine = int(np.flatnonzero(legal == own)[0])
            choice = int(legal[best]) if values[best] - values[mine] >= self.margin else own
        self.overruled += int(choice != own)
        return choice


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("kinds", help="comma-separated decision kinds search decides, or none")
    parser.add_argument("deals", type=int)
    parser.add_argument("seed", type=int)
    parser.add_argument("--margin", type=float, default=None)
    parser.add_argument("--search", default="search:sims=32")
    parser.add_argument("--baseline", default="heuristic")
    args = parser.parse_args()
    model = load_checkpoint_agent(args.model, seed=3)
    game, env_name = model.metadata["game"], model.metadata["env"]
    options = model.metadata.get("env_options", {})
    kinds = set() if args.kinds == "none" else set(args.kinds.split(","))
    allowed = decision_kinds(env_name)
    if kinds - set(allowed):
        raise SystemExit(f"unknown decision kinds {sorted(kinds - set(allowed))}; {env_name} has {', '.join(allowed)}")
    agent = SearchByKind(model, make_agent(args.search, game=game, seed=11), kinds, args.margin)
    baseline = make_agent(args.baseline, game=game, seed=5)
    start = time.perf_counter()
    stats = versus_baseline(lambda: make(env_name, **options), agent, baseline, args.deals, seed=args.seed)
    print(json.dumps({"agent": agent.label, "baseline": args.baseline, "deals": args.deals, "seed": args.seed,
                      "win_rate": stats.win_rate, "ci": list(stats.win_ci), "searched": agent.searched,
                      "overruled": agent.overruled, "seconds": round(time.perf_counter() - start, 1)}))


if __name__ == "__main__":
    main()
