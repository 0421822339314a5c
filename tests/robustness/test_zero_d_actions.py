"""A 0-d integer numpy array is an action wherever a Python int is (Gymnasium's ``Discrete``
accepts one and SB3's ``predict`` returns one): the same game, step for step, in every game's
raw and wrapped AEC env, Fight 5's parallel env, and the single-agent training view."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fight_envs.registry import make

from .env_cases import GAMES
from .harness import legal_actions

DTYPES = (np.int64, np.int32, np.uint8, np.int16)


def play(env, wrap, seed: int = 2, max_steps: int = 5000) -> dict:  # noqa: ANN001
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for k in range(max_steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
        else:
            a = int(rng.choice(legal_actions(env.observe(agent)["action_mask"])))
            env.step(wrap(a, k))
        if not env.agents:
            break
    return json.loads(json.dumps(env.unwrapped.game_record()))


@pytest.mark.parametrize("api", ["raw", "aec"])
@pytest.mark.parametrize("game", list(GAMES))
def test_zero_d_arrays_play_the_same_game_as_ints(game: str, api: str) -> None:
    ints = play(make(GAMES[game], api=api), lambda a, k: a)
    arrays = play(make(GAMES[game], api=api), lambda a, k: np.array(a, dtype=DTYPES[k % len(DTYPES)]))
    assert arrays == ints


def test_fight5_parallel_env_takes_zero_d_arrays() -> None:
    from fight_envs import fight5_v0

    records = []
    for wrap in (int, lambda a: np.array(a)):
        env = fight5_v0.parallel_raw_env()
        obs, _ = env.reset(seed=3)
        while env.agents:
            obs, *_ = env.step({ag: wrap(legal_actions(o["action_mask"])[-1]) for ag, o in obs.items()})
        records.append(env.game_record())
    assert records[0] == records[1]


def test_the_single_agent_view_takes_what_sb3_predict_returns() -> None:
    from fight_envs.wrappers import SingleAgentEnv

    env = SingleAgentEnv(seed=0)
    obs, _ = env.reset(seed=0)
    done, steps = False, 0
    while not done:
        action = np.array(int(np.flatnonzero(env.action_masks())[0]))  # predict's shape for one env
        assert env.action_space.contains(action)
        obs, _, terminated, truncated, _ = env.step(action)
        done, steps = terminated or truncated, steps + 1
    assert steps > 0
