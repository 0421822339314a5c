"""``benchmarks/brawl_oracle.py`` (the cheating ceiling of ``docs/results_games.md``): its player acts legally,
leaves the true game as it found it, and keeps the heuristic's choice unless another action does better."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from fight_envs import brawl_v0
from fight_envs.agents.brawl import HeuristicAgent

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "brawl_oracle.py"
_spec = importlib.util.spec_from_file_location("brawl_oracle", _PATH)
oracle_script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oracle_script)


@pytest.mark.parametrize(("knows", "keep"), [("all", None), ("hands", None), ("hands", 1.0)])
def test_oracle_acts_legally_and_leaves_the_true_game_alone(knows: str, keep: float | None) -> None:
    env = brawl_v0.env(num_players=3)
    oracle = oracle_script.OracleAgent(sims=3, knows=knows, keep=keep)
    oracle.bind_rules(env)
    oracle.seed(0)
    env.reset(seed=5)
    game = env.unwrapped.game
    acted = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        before = (game.draw_pile.copy(), game.hands.copy(), game.rng.bit_generator.state, game.version)
        action = oracle.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action] == 1
        after = (game.draw_pile, game.hands, game.rng.bit_generator.state, game.version)
        assert before[0] == after[0] and np.array_equal(before[1], after[1])
        assert before[2] == after[2] and before[3] == after[3]
        env.step(action)
        acted += 1
    assert acted > 20 and oracle.decisions > 0
    assert 0 <= oracle.changed <= oracle.decisions


def test_oracle_keeps_the_heuristics_choice_when_it_is_among_the_best() -> None:
    """With every action worth the same (no copy finished differently), the heuristic's action is played."""
    env = brawl_v0.env(num_players=2)
    env.reset(seed=3)
    oracle = oracle_script.OracleAgent(sims=1)
    oracle.bind_rules(env)
    oracle.seed(1)
    game = env.unwrapped.game
    seat = game.current_player()
    assert len(game.legal_tuple(seat)) > 1  # a decision the oracle searches
    heuristic = HeuristicAgent()
    heuristic.seed(2)  # the oracle's own heuristic is seeded seed + 1
    expected = heuristic.act_game(game, seat)
    real = oracle_script.win_credit
    try:
        oracle_script.win_credit = lambda g, s: 0.5  # every copy worth the same
        obs = env.observe(env.agent_selection)
        assert oracle.act(obs["observation"], obs["action_mask"]) == expected
    finally:
        oracle_script.win_credit = real
    assert oracle.decisions == 1 and oracle.changed == 0
