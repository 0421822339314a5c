"""The batched engine against the reference engine, game for game (issue 4's differential test).

Every game slot of a :class:`Fight5Batch` is shadowed by a reference game: the PettingZoo AEC
env (``raw_env``, for rewards and termination) around ``Fight5Game``, whose observations come
from ``observe.encode``. Both play the same seeds with the same random legal actions, and after
every step the test compares, for every game: the acting seat, its observation (bit for bit),
its action mask, every seat's reward, the terminal flag; and for each game that ends, the final
scores and every seat's final observation. When a slot's game ends, its shadow restarts with
the slot's next seed (``seed + num_envs``), which also checks the auto-reset.

The default run plays a few hundred games over 2..5 players and both reward modes; the long
run (``-m slow``) plays thousands of games per player count.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from fight_envs.envs.fight5 import raw_env
from fight_envs.games.fight5.batched import BatchStep, Fight5Batch, random_legal_actions
from fight_envs.games.fight5.observe import OBS_SLICES, encode
from fight_envs.games.fight5.rules import Fight5Config, Fight5Game


def _differing_features(got: np.ndarray, want: np.ndarray) -> list[str]:
    """Names of the observation features where two vectors differ, for failure messages."""
    return [name for name, sl in OBS_SLICES.items() if not np.array_equal(got[sl], want[sl])]


def play_against_reference(
    num_players: int, num_envs: int, games_per_slot: int, seed: int, policy_seed: int, **options: Any
) -> dict[str, int]:
    """Play until every slot has finished ``games_per_slot`` games, comparing at every step.

    ``options`` are the env's options, plus ``keep_final_obs`` and ``vectorised_deal`` for the
    batch alone (small test batches would otherwise always deal game by game).
    """
    batch_only = {key: options.pop(key) for key in ("keep_final_obs", "vectorised_deal") if key in options}
    batch = Fight5Batch(num_envs, num_players=num_players, **batch_only, **options)
    out = batch.reset(seed=seed)
    seeds = [seed + b for b in range(num_envs)]
    envs = [raw_env(num_players=num_players, **options) for _ in range(num_envs)]
    for env, s in zip(envs, seeds):
        env.reset(seed=s)
    rng = np.random.default_rng(policy_seed)
    finished = np.zeros(num_envs, dtype=np.int64)
    steps = 0
    while finished.min() < games_per_slot:
        for b, env in enumerate(envs):
            game = env.unwrapped.game
            seat = game.current_player()
            where = f"{num_players} players, slot {b}, seed {seeds[b]}, step {steps}"
            assert out.seat[b] == seat, f"{where}: acting seat {out.seat[b]}, reference {seat}"
            want = encode(game, seat)
            assert np.array_equal(out.obs[b], want), f"{where}: observation differs in {_differing_features(out.obs[b], want)}"
            assert np.array_equal(out.action_mask[b], game.legal_action_mask(seat)), f"{where}: action mask differs"
        actions = random_legal_actions(out.action_mask, rng)
        out = batch.step(actions)
        steps += 1
        assert out.rewards.shape == (num_envs, num_players) and out.terminated.shape == (num_envs,)
        ended = []
        for b, env in enumerate(envs):
            env.step(int(actions[b]))
            where = f"{num_players} players, slot {b}, seed {seeds[b]}, step {steps}"
            rewards = np.array([env.rewards[a] for a in env.possible_agents])
            assert np.array_equal(out.rewards[b], rewards), f"{where}: rewards {out.rewards[b]} != {rewards}"
            done = all(env.terminations.values())
            assert bool(out.terminated[b]) == done, f"{where}: terminated {out.terminated[b]}, reference {done}"
            if done:
                ended.append(b)
        assert out.final_index.tolist() == ended
        for k, b in enumerate(ended):
            game = envs[b].unwrapped.game
            where = f"{num_players} players, slot {b}, seed {seeds[b]}"
            assert np.array_equal(out.final_scores[k], game.scores), f"{where}: final scores differ"
            if out.final_obs is not None:
                for s in range(num_players):
                    want = encode(game, s)
                    assert np.array_equal(out.final_obs[k, s], want), (
                        f"{where}: final observation of seat {s} differs in {_differing_features(out.final_obs[k, s], want)}"
                    )
            finished[b] += 1
            seeds[b] += num_envs  # the documented next seed of the slot
            envs[b].reset(seed=seeds[b])
    assert batch.seeds.tolist() == seeds
    assert batch.games_finished == int(finished.sum())
    return {"games": int(finished.sum()), "steps": steps}


SHORT_CASES = [
    *({"num_players": n, "vectorised_deal": True} for n in (2, 3, 4, 5)),
    *({"num_players": n, "vectorised_deal": False} for n in (2, 5)),
    {"num_players": 2, "reward": "score", "vectorised_deal": True},
    {"num_players": 5, "reward": "score", "num_bouts": 2, "target_score": None, "vectorised_deal": True},
    # a low target ends some games after one bout while others play on: slots drift apart in bouts
    {"num_players": 3, "target_score": 90, "vectorised_deal": True},
    {"num_players": 4, "num_bouts": 1, "target_score": None},
]


@pytest.mark.parametrize("options", SHORT_CASES, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_batched_matches_reference(options: dict[str, Any]) -> None:
    result = play_against_reference(num_envs=16, games_per_slot=2, seed=1000, policy_seed=7, **options)
    assert result["games"] >= 32


def test_batched_matches_reference_without_final_observations() -> None:
    result = play_against_reference(3, num_envs=8, games_per_slot=1, seed=50, policy_seed=3, keep_final_obs=False,
                                    vectorised_deal=True)
    assert result["games"] >= 8


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_batched_matches_reference_long(num_players: int) -> None:
    # thousands of games per player count, over both reward modes and an early-ending target
    total = 0
    for options, seed in (
        ({}, 10_000),
        ({"reward": "score"}, 20_000),
        ({"target_score": 100 + 20 * num_players}, 30_000),
    ):
        total += play_against_reference(num_players, num_envs=256, games_per_slot=4, seed=seed, policy_seed=seed + 1,
                                        vectorised_deal=True, **options)["games"]
    assert total >= 3000


def test_auto_reset_restarts_only_finished_games_with_their_next_seed() -> None:
    num_envs, seed = 16, 4242
    config = Fight5Config(num_players=2, target_score=70)
    batch = Fight5Batch(num_envs, num_players=2, target_score=70, vectorised_deal=True)
    out = batch.reset(seed=seed)
    shadows = []
    for b in range(num_envs):
        game = Fight5Game(config)
        game.new_game(np.random.default_rng(seed + b))
        shadows.append(game)
        assert np.array_equal(out.obs[b], encode(game, 0)), f"slot {b} does not start with seed {seed + b}"
    rng = np.random.default_rng(5)
    for _ in range(batch.decisions_per_bout - 1):  # up to the last placement of the first bout
        actions = random_legal_actions(out.action_mask, rng)
        out = batch.step(actions)
        for b, game in enumerate(shadows):
            game.apply_action(game.current_player(), int(actions[b]))
        assert not out.terminated.any()
    before = {name: getattr(batch, name).copy() for name in ("seeds", "scores", "bout")}
    actions = random_legal_actions(out.action_mask, rng)
    out = batch.step(actions)
    for b, game in enumerate(shadows):
        game.apply_action(game.current_player(), int(actions[b]))
    ended = np.flatnonzero(out.terminated)
    # the target is low enough to end some games after one bout, and high enough not to end all
    assert 0 < ended.size < num_envs, f"the test needs some games to end and some to go on; {ended.size} ended"
    assert ended.tolist() == [b for b, g in enumerate(shadows) if g.is_terminal()]
    for b, game in enumerate(shadows):
        if game.is_terminal():
            k = out.final_index.tolist().index(b)
            assert np.array_equal(out.final_scores[k], game.scores)
            assert batch.seeds[b] == before["seeds"][b] + num_envs
            assert batch.bout[b] == 0 and not batch.scores[b].any()
            fresh = Fight5Game(config)
            fresh.new_game(np.random.default_rng(seed + b + num_envs))
            assert np.array_equal(out.obs[b], encode(fresh, 0)), f"slot {b} did not restart with seed {seed + b + num_envs}"
            assert np.array_equal(out.action_mask[b], fresh.legal_action_mask(0))
        else:
            # the others go on to their second bout with their own seed, score and deals
            assert batch.seeds[b] == before["seeds"][b]
            assert batch.bout[b] == 1 and np.array_equal(batch.scores[b], game.scores)
            assert np.array_equal(out.obs[b], encode(game, 0))
            assert not out.rewards[b].any()


def test_reset_result_matches_step_result_type() -> None:
    batch = Fight5Batch(3, num_players=4)
    out = batch.reset(seed=0)
    assert isinstance(out, BatchStep)
    assert out.obs.shape == (3, 627) and out.obs.dtype == np.float32
    assert out.action_mask.shape == (3, 13) and out.action_mask.dtype == np.int8
    assert out.seat.tolist() == [0, 0, 0] and not out.terminated.any() and not out.rewards.any()
