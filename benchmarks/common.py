"""What the benchmark scripts share: the random-legal policy and the timed loop of whole games.

Imported as ``common`` by the scripts in this folder (run as ``python benchmarks/<script>.py``,
so this folder is on ``sys.path``). Each script keeps its own lines, tables and output.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

Timing = tuple[int, float, float, int]
"""(decisions, wall seconds, CPU seconds of this process, games) of one measurement."""


def sample(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A uniform legal action; the same sampler for every env so only the envs differ.

    Kept cheap (two numpy calls) so that it does not hide the envs' own cost.
    """
    legal = mask.nonzero()[0]
    return int(legal[int(rng.random() * len(legal))])


def play_aec_game(
    env: Any,
    rng: np.random.Generator,
    seed: int,
    policy: Callable[[np.ndarray, np.random.Generator], int] = sample,
) -> int:
    """Reset ``env`` with ``seed`` and play one whole AEC game with ``policy``; return its decisions.

    Ended agents are stepped with None (PettingZoo's convention), which is not a decision.
    """
    env.reset(seed=seed)
    decisions = 0
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
        else:
            env.step(policy(obs["action_mask"], rng))
            decisions += 1
    return decisions


def time_engine(game: Any, seconds: float, seed: int) -> Timing:
    """Random play on a bare rules engine (``new_game``, ``is_terminal``, ``current_player``,
    ``legal_action_mask``, ``apply_action``): no observation, info or reward is built.

    Game ``i`` is dealt from ``default_rng(seed + i)``; actions come from ``default_rng(seed)``.
    """
    rng = np.random.default_rng(seed)

    def one(games: int) -> int:
        decisions = 0
        game.new_game(np.random.default_rng(seed + games))
        while not game.is_terminal():
            seat = game.current_player()
            game.apply_action(seat, sample(game.legal_action_mask(seat), rng))
            decisions += 1
        return decisions

    return time_games(seconds, one)


def time_games(seconds: float, play_one: Callable[[int], int]) -> Timing:
    """Play games ``play_one(0)``, ``play_one(1)``, ... (each returns its decisions) until ``seconds``
    of wall time have passed after a finished game; at least one game is played."""
    decisions = games = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while True:
        decisions += play_one(games)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return decisions, elapsed, time.process_time() - cpu_start, games
