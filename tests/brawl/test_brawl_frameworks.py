"""Brawl's parallel form under RLlib's ``ParallelPettingZooEnv`` and TorchRL's ``PettingZooWrapper``,
unmodified: every live agent has a non-empty mask (PASS, the wait action, for those not deciding),
so both libraries can sample (or check) an action for every agent at every step."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from fight_envs import brawl_v0


@pytest.mark.parametrize("n", [2, 5])
def test_rllib_parallel_pettingzoo_env_runs_whole_games(n: int) -> None:
    pytest.importorskip("ray.rllib")
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv

    env = ParallelPettingZooEnv(brawl_v0.parallel_env(num_players=n))
    rng = np.random.default_rng(0)
    games = 0
    obs, _ = env.reset(seed=3)
    for _ in range(3000):
        if games == 2:
            break
        for agent, o in obs.items():
            assert env.observation_space[agent].contains(o) and o["action_mask"].any(), agent
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # an illegal action would warn and end the game
            obs, rewards, terms, truncs, _ = env.step(actions)
        if terms["__all__"] or truncs["__all__"]:
            games += 1
            assert sum(rewards.values()) == pytest.approx(0.0)
            obs, _ = env.reset(seed=3 + games)
    assert games == 2


@pytest.mark.parametrize("n", [2, 5])
def test_torchrl_pettingzoo_wrapper_checks_specs_and_rolls_out_the_parallel_form(n: int) -> None:
    torch = pytest.importorskip("torch")
    envs = pytest.importorskip("torchrl.envs")
    from torchrl.envs.utils import check_env_specs

    torch.manual_seed(0)
    env = envs.PettingZooWrapper(brawl_v0.parallel_env(num_players=n), use_mask=False, seed=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env_specs(env)
        td = env.rollout(1500, break_when_any_done=False)
    assert not [w for w in caught if "must send PASS" in str(w.message) or "illegal" in str(w.message)]
    assert td["next", "done"].any()
    for group in env.group_map:
        assert td[group, "action_mask"].any(-1).all()  # every agent, every step: a legal action
