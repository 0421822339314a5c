"""Gymnasium ids for every game, and ``gymnasium.make_vec`` reaching the batched Fight 5 engine."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import fight_envs  # noqa: F401  (registers the ids)
from fight_envs.wrappers import FIGHT5_IDS, OTHER_IDS
from fight_envs.wrappers.batched import Fight5VectorEnv

GAMES = {"fight5_v0", "brawl_v0", "fifth_earth_v0", "fight_klub_v0"}


def test_every_game_has_an_id() -> None:
    assert {env for env, _ in OTHER_IDS.values()} | {"fight5_v0"} == GAMES
    assert {f"fight_envs/{name}" for name in ("Fight5-v0", "Brawl-v0", "FifthEarth-v0", "FightKlub-v0")} <= set(gym.registry)


@pytest.mark.parametrize("env_id", sorted(FIGHT5_IDS) + ["fight_envs/Brawl-v0", "fight_envs/Brawl-5p-v0",
                                                         "fight_envs/FifthEarth-v0", "fight_envs/FifthEarth-3p-v0",
                                                         "fight_envs/FightKlub-v0"])
def test_each_id_plays_a_whole_episode_with_legal_moves(env_id: str) -> None:
    env = gym.make(env_id)
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    for _ in range(5000):
        mask = env.unwrapped.action_masks()
        assert mask.any() and np.array_equal(mask, info["action_mask"].astype(bool))
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            break
    assert terminated or truncated


def test_make_vec_gives_the_batched_engine_as_a_vector_env() -> None:
    venv = gym.make_vec("fight_envs/Fight5-3p-v0", num_envs=16)
    assert isinstance(venv, Fight5VectorEnv) and isinstance(venv, gym.vector.VectorEnv)
    assert venv.num_envs == 16 and venv.num_players == 3 and venv.observation_space.shape == (16, 627)
    sync = gym.make_vec("fight_envs/Fight5-v0", num_envs=2, vectorization_mode="sync")
    assert isinstance(sync, gym.vector.SyncVectorEnv)
    assert sync.single_observation_space == venv.single_observation_space


def play(venv: Fight5VectorEnv, seed: int, steps: int) -> tuple[list[np.ndarray], np.ndarray, int]:
    obs, info = venv.reset(seed=seed)
    seen, returns, ended = [obs.copy()], np.zeros(venv.num_envs), 0
    for _ in range(steps):
        mask = venv.action_masks()
        assert mask.any(axis=1).all() and np.array_equal(mask, info["action_mask"].astype(bool))
        assert venv.observation_space.contains(obs)
        actions = np.array([np.flatnonzero(m)[-1] for m in mask])
        obs, rewards, terminated, truncated, info = venv.step(actions)
        assert not truncated.any()
        assert np.all(rewards[~terminated] == 0.0)  # outcome reward: only when a game ends
        assert set(np.unique(rewards[terminated])) <= {-1.0, 0.0, 1.0}
        if terminated.any():
            assert np.array_equal(info["_final_obs"], terminated)
            assert info["final_obs"].shape == (venv.num_envs, 627)
        returns += rewards
        ended += int(terminated.sum())
        seen.append(obs.copy())
    return seen, returns, ended


def test_vector_env_games_end_on_time_and_repeat_with_the_seed() -> None:
    venv = gym.make_vec("fight_envs/Fight5-v0", num_envs=8, num_bouts=1, target_score=None)
    # 2 players, 1 bout: each learner makes 25 placements per game, then the game restarts in place
    seen, returns, ended = play(venv, seed=5, steps=75)
    assert ended == 8 * 3
    again, returns2, _ = play(venv, seed=5, steps=75)
    assert all(np.array_equal(a, b) for a, b in zip(seen, again)) and np.array_equal(returns, returns2)
    other, _, _ = play(venv, seed=6, steps=75)
    assert not all(np.array_equal(a, b) for a, b in zip(seen, other))


def test_vector_env_learner_seat_and_dict_observations() -> None:
    venv = Fight5VectorEnv(4, num_players=3, learner_seat=2, obs_format="dict")
    obs, _ = venv.reset(seed=0)
    assert set(obs) == {"observation", "action_mask"} and venv.batch.seat == 2
    np.testing.assert_array_equal(obs["action_mask"].astype(bool), venv.action_masks())
    with pytest.raises(fight_envs.ConfigError, match="learner_seat"):
        Fight5VectorEnv(2, num_players=2, learner_seat=2)
    with pytest.raises(fight_envs.ConfigError, match="fight5_v0 only"):
        Fight5VectorEnv(2, env="brawl_v0")
