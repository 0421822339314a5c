"""Custom card data with very large decks keeps every observation inside the observation space."""

from __future__ import annotations

import json
from importlib import resources

import numpy as np

from fight_envs import brawl_v0


def test_huge_custom_deck_observations_stay_in_the_space(tmp_path):
    data = json.loads(resources.files("fight_envs.games.brawl").joinpath("cards.json").read_text("utf-8"))
    data["specials"]["JUMP"] = 300
    path = tmp_path / "big.json"
    path.write_text(json.dumps(data))
    env = brawl_v0.raw_env(num_players=2, cards=str(path))
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter(max_iter=200):
        obs, _, term, trunc, _ = env.last()
        assert env.observation_space(agent).contains(obs)
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
