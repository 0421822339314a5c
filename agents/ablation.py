"""Ablation by decision kind: what each kind of decision is worth to an agent.

For every kind ``k`` of the game's ``DECISION_KINDS`` (``fight_envs/games/<game>/rules.py``; the
env names the kind of each decision it asks, ``env.unwrapped.decision_kind(agent)``), the agent
with its ``k`` decisions replaced by a uniformly random legal action (:class:`AblatedAgent`)
plays duplicate deals against ``n - 1`` copies of the unmodified agent
(``fight_envs.agents.evaluate``). The unmodified agent against its own copies wins ``1/n`` by
symmetry, so the **cost** of a kind is ``1/n`` minus the ablated agent's win rate, with the 95%
normal interval over deals of that win rate. A kind never asked of the agent, or always forced
(one legal action), costs nothing by construction; the table gives each kind's share of the
agent's decisions and how many of them had a choice.
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from fight_envs.agents.base import Agent
from fight_envs.agents.evaluate import AgentStats, evaluate


def decision_kinds(game: str) -> tuple[str, ...]:
    """The engine's ``DECISION_KINDS`` of ``game``; ValueError if its engine does not name its decisions."""
    from fight_envs.agents.registry import game_name

    base = game_name(game)
    rules = importlib.import_module(f"fight_envs.games.{base}.rules")
    kinds = getattr(rules, "DECISION_KINDS", None)
    if not kinds:
        raise ValueError(f"the {base} engine has no DECISION_KINDS yet (fight_envs/games/{base}/rules.py), so it cannot be ablated")
    return tuple(kinds)


class AblatedAgent(Agent):
    """``base`` except that every decision of kind ``kind`` is a uniformly random legal action."""

    needs_information_set = True  # the decision kind comes with the seat's information set

    def __init__(self, base: Agent, kind: str, seed: int | None = None) -> None:
        super().__init__(seed)
        self.base = base
        self.kind = kind
        self.game = base.game
        self.counts: dict[str, list[int]] = {}
        """Per kind: [decisions, decisions with more than one legal action]."""

    @property
    def label(self) -> str:
        return f"{self.base.label}-random@{self.kind}"

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        self.base.seed(None if seed is None else seed + 1)

    def reset(self) -> None:
        self.base.reset()

    def bind_rules(self, env: Any) -> None:
        self.base.bind_rules(env)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise TypeError("an ablated agent needs the decision kind: play it through fight_envs.agents.arena.play_game")

    def act_with_information(self, observation: np.ndarray, action_mask: np.ndarray, information: Any) -> int:
        kind = information.decision_kind()
        count = self.counts.setdefault(kind, [0, 0])
        count[0] += 1
        legal = np.flatnonzero(action_mask)
        count[1] += int(legal.size > 1)
        if kind == self.kind:
            return int(legal[self.rng.integers(legal.size)])
        if self.base.needs_information_set:
            return self.base.act_with_information(observation, action_mask, information)
        return self.base.act(observation, action_mask)


@dataclass
class KindCost:
    kind: str
    stats: AgentStats
    cost: float
    cost_ci: tuple[float, float]
    share: float
    """Share of the agent's decisions that were of this kind."""
    choice_share: float
    """Share of this kind's decisions that had more than one legal action."""


@dataclass
class AblationResult:
    game: str
    agent: str
    num_players: int
    num_deals: int
    seed: int
    rows: list[KindCost]

    def table(self, markdown: bool = False) -> str:
        base = 1.0 / self.num_players
        head = (f"{self.game}, {self.num_players} players: {self.agent} with one decision kind played at random, against "
                f"{self.num_players - 1} unmodified {self.agent}; {self.num_deals} deals x {self.num_players} rotations "
                f"per kind, seed {self.seed}; cost = {base:.3f} - win rate")
        if markdown:
            lines = [head, "", "| decision kind | share of decisions | with a choice | ablated win rate | 95% interval | cost | 95% interval |",
                     "| --- | --- | --- | --- | --- | --- | --- |"]
        else:
            lines = [head, "", f"{'kind':<20} {'share':>6} {'choice':>7} {'win rate':>9} {'95% CI':>16} {'cost':>7} {'95% CI':>17}"]
        for r in self.rows:
            s = r.stats
            if markdown:
                lines.append(f"| `{r.kind}` | {r.share:.2f} | {r.choice_share:.2f} | {s.win_rate:.3f} | "
                             f"[{s.win_ci[0]:.3f}, {s.win_ci[1]:.3f}] | {r.cost:+.3f} | [{r.cost_ci[0]:+.3f}, {r.cost_ci[1]:+.3f}] |")
            else:
                lines.append(f"{r.kind:<20} {r.share:>6.2f} {r.choice_share:>7.2f} {s.win_rate:>9.3f} "
                             f"{f'[{s.win_ci[0]:.3f}, {s.win_ci[1]:.3f}]':>16} {r.cost:>+7.3f} "
                             f"{f'[{r.cost_ci[0]:+.3f}, {r.cost_ci[1]:+.3f}]':>17}")
        return "\n".join(lines) + "\n"


def run_ablation(
    game: str,
    agent: str = "heuristic",
    num_players: int = 2,
    num_deals: int = 100,
    seed: int = 0,
    kinds: tuple[str, ...] | None = None,
    progress: Callable[[str], None] | None = None,
    env_options: dict[str, Any] | None = None,
) -> AblationResult:
    """Ablate every decision kind of ``game`` (or ``kinds``) from ``agent`` (a spec); see the module docstring."""
    from fight_envs.agents.ladder import env_name
    from fight_envs.agents.registry import game_name, make_agent
    from fight_envs.registry import make

    base = game_name(game)
    all_kinds = decision_kinds(base)
    kinds = all_kinds if kinds is None else kinds
    unknown = [k for k in kinds if k not in all_kinds]
    if unknown:
        raise ValueError(f"unknown decision kinds {unknown} for {base}; kinds: {', '.join(all_kinds)}")
    env_fn = lambda: make(env_name(base), api="raw", num_players=num_players, **(env_options or {}))  # noqa: E731
    rows: list[KindCost] = []
    for i, kind in enumerate(kinds):
        reference = make_agent(agent, game=base, seed=seed)
        ablated = AblatedAgent(make_agent(agent, game=base, seed=seed), kind, seed=seed)
        field_ = [ablated] + [copy.deepcopy(reference) for _ in range(num_players - 1)]

        def report(done: int, total: int, _i: int = i, _k: str = kind) -> None:
            if progress is not None and (done == total or done % max(1, total // 5) == 0):
                progress(f"kind {_i + 1}/{len(kinds)} {_k}: game {done}/{total}")

        stats = evaluate(env_fn, field_, num_deals, seed, progress=report).stats[0]
        total = sum(c[0] for c in ablated.counts.values())
        mine = ablated.counts.get(kind, [0, 0])
        even = 1.0 / num_players
        rows.append(KindCost(kind, stats, even - stats.win_rate, (even - stats.win_ci[1], even - stats.win_ci[0]),
                             mine[0] / max(total, 1), mine[1] / max(mine[0], 1)))
    return AblationResult(base, agent, num_players, num_deals, seed, rows)


def ablate_command(game: str, agent: str, players: int, deals: int, out: str | None, seed: int,
                   env_options: dict[str, Any] | None = None) -> int:
    """``fight-envs ablate``: run, print the table, optionally write it as markdown; returns the exit code.

    ``env_options`` (``--env-opt KEY=VALUE``) are passed to the game's env; the env is built once first,
    so a bad option is reported (naming what is allowed) before any game is played."""
    import sys

    from fight_envs.agents.ladder import env_name
    from fight_envs.agents.registry import game_name
    from fight_envs.registry import make

    if deals < 1:
        raise ValueError(f"--deals must be >= 1, got {deals}")
    options = dict(env_options or {})
    make(env_name(game_name(game)), api="raw", num_players=players, **options).close()  # ConfigError naming the option

    def progress(message: str) -> None:
        print("  " + message, file=sys.stderr, flush=True)

    result = run_ablation(game, agent, players, deals, seed, progress=progress, env_options=options)
    print(result.table())
    if out:
        flags = "".join(f" --env-opt {k}={v!r}" for k, v in options.items())
        with open(out, "w", encoding="utf-8") as fh:
            fh.write(f"# Ablation: {result.game}, {players} players\n\n```\nfight-envs ablate {game} --agent {agent} "
                     f"--players {players} --deals {deals} --seed {seed}{flags}\n```\n\n" + result.table(markdown=True))
        print(f"wrote {out}")
    return 0
