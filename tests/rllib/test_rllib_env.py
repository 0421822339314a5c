"""fight_envs.wrappers.rllib.FightMultiAgentEnv: RLlib's contract, and the same game as the suite's env."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from ray.rllib.utils.pre_checks.env import check_multiagent_environments

from fight_envs.core.errors import ConfigError, IllegalActionError
from fight_envs.registry import make
from fight_envs.wrappers.rllib import FightMultiAgentEnv

CONFIGS = [
    {"env": "fight5_v0"},
    {"env": "fight5_v0", "num_players": 4, "reward": "score"},
    {"env": "fight5_v0", "api": "aec", "num_players": 3},
    {"env": "fight5_v0", "api": "aec", "num_players": 3, "reward": "score"},  # mid-game rewards to every seat
    {"env": "brawl_v0", "num_players": 3},
    {"env": "fifth_earth_v0"},
    {"env": "fight_klub_v0"},
]
IDS = ["fight5", "fight5-4p-score", "fight5-aec-3p", "fight5-aec-3p-score", "brawl-3p", "fifth_earth", "fight_klub"]


def play(env: FightMultiAgentEnv, seed: int, action_seed: int):
    """One game with uniformly random legal actions; yields (obs, rewards, terminateds, truncateds, infos) per step."""
    rng = np.random.default_rng(action_seed)
    obs, infos = env.reset(seed=seed)
    yield obs, {}, {"__all__": False}, {"__all__": False}, infos
    for _ in range(100_000):
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        obs, rewards, terms, truncs, infos = env.step(actions)
        yield obs, rewards, terms, truncs, infos
        if terms["__all__"] or truncs["__all__"]:
            return
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_passes_rllibs_own_env_checker(config):
    env = FightMultiAgentEnv(dict(config))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checker steps unmasked random actions: an illegal-action warning
        check_multiagent_environments(env)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_same_game_as_the_suite_env(config):
    """Driven in lockstep with the PettingZoo env it wraps: the same observations and masks for the
    agents asked, the same return for every agent (rewards of non-acting agents included), and the
    same end, where every agent ends at once."""
    config = dict(config)
    env = FightMultiAgentEnv(dict(config))
    name = config.pop("env")
    config.pop("api", None)
    parallel = env.api == "parallel"
    ref = make(name, api="parallel_raw" if parallel else "raw", **config)
    rng = np.random.default_rng(3)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    ref_returns = dict.fromkeys(env.possible_agents, 0.0)
    obs, _ = env.reset(seed=7)
    if parallel:
        ref_obs, _ = ref.reset(seed=7)
    else:
        ref.reset(seed=7)
    for step in range(100_000):
        if parallel:
            assert set(obs) == set(ref_obs)
            expected = ref_obs
        else:
            assert list(obs) == [ref.agent_selection], "exactly the agent the rules call on is asked"
            expected = {ref.agent_selection: ref.observe(ref.agent_selection)}
        for a, o in obs.items():
            np.testing.assert_array_equal(o["observations"], expected[a]["observation"])
            np.testing.assert_array_equal(o["action_mask"], expected[a]["action_mask"])
            assert o["action_mask"].dtype == np.int8
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        obs, rewards, terms, truncs, infos = env.step(actions)
        assert set(obs) <= set(rewards), "RLlib needs a reward for every agent whose next observation arrives"
        for a, r in rewards.items():
            returns[a] += r
        if parallel:
            ref_obs, ref_rewards, *_ = ref.step(actions)
            for a, r in ref_rewards.items():
                ref_returns[a] += r
        else:
            (action,) = actions.values()
            ref.step(action)
            for a in env.possible_agents:
                ref_returns[a] += float(ref.rewards.get(a, 0.0))
        if terms["__all__"] or truncs["__all__"]:
            break
    else:
        raise AssertionError("the game did not end")
    assert set(obs) == set(env.possible_agents), "the last step carries every agent's observation"
    assert all(not o["action_mask"].any() for o in obs.values())
    assert all(terms[a] or truncs[a] for a in env.possible_agents)
    assert not ref.agents or all(ref.terminations[a] or ref.truncations[a] for a in ref.agents)
    assert returns == pytest.approx(ref_returns)
    assert step + 1 <= env.max_episode_steps


def test_final_infos_give_each_agent_its_win_credit():
    env = FightMultiAgentEnv({"env": "fight5_v0", "num_players": 3})
    *_, (obs, rewards, terms, truncs, infos) = list(play(env, seed=11, action_seed=1))
    credits = [infos[a]["result"] for a in env.possible_agents]
    assert sum(credits) == pytest.approx(1.0), "one win shared among the winners"
    assert all(c in (0.0, 1.0, 0.5, 1 / 3) for c in credits)
    scores = env.game_env.game.scores
    best = scores.max()
    for seat, agent in enumerate(env.possible_agents):
        assert (infos[agent]["result"] > 0) == (scores[seat] == best)


def test_seed_reproduces_the_game():
    a = [o for o, *_ in play(FightMultiAgentEnv({"env": "brawl_v0", "num_players": 4}), seed=5, action_seed=2)]
    b = [o for o, *_ in play(FightMultiAgentEnv({"env": "brawl_v0", "num_players": 4}), seed=5, action_seed=2)]
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.keys() == y.keys()
        for k in x:
            np.testing.assert_array_equal(x[k]["observations"], y[k]["observations"])


def test_illegal_action_ends_the_game_with_a_penalty_by_default():
    env = FightMultiAgentEnv({"env": "fight5_v0"})
    obs, _ = env.reset(seed=0)
    bad = {a: int(np.flatnonzero(o["action_mask"] == 0)[0]) for a, o in obs.items()}
    bad["player_1"] = int(np.flatnonzero(obs["player_1"]["action_mask"])[0])  # only player_0 cheats
    with pytest.warns(UserWarning, match="illegal action by \\['player_0'\\]"):
        obs, rewards, terms, truncs, infos = env.step(bad)
    assert rewards == {"player_0": -1.0, "player_1": 0.0}
    assert terms["__all__"] and not truncs["__all__"]
    assert infos["player_1"]["result"] == 1.0 and infos["player_0"]["result"] == 0.0
    with pytest.raises(IllegalActionError, match="call reset"):
        env.step(bad)


def test_illegal_action_raises_in_raise_mode_and_changes_nothing():
    env = FightMultiAgentEnv({"env": "brawl_v0", "illegal_action": "raise"})
    obs, _ = env.reset(seed=0)
    (agent, o), = obs.items()
    before = env.game_env.observe(agent)["observation"].copy()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match=f"illegal action {illegal} for {agent}; legal actions"):
        env.step({agent: illegal})
    np.testing.assert_array_equal(env.game_env.observe(agent)["observation"], before)
    other = next(a for a in env.possible_agents if a != agent)
    with pytest.raises(IllegalActionError, match="agents asked to act"):
        env.step({agent: int(np.flatnonzero(o["action_mask"])[0]), other: 0})


def test_obs_key_can_keep_pettingzoos_name():
    env = FightMultiAgentEnv({"env": "fight5_v0", "obs_key": "observation"})
    obs, _ = env.reset(seed=0)
    assert set(next(iter(obs.values()))) == {"observation", "action_mask"}


@pytest.mark.parametrize("config, message", [
    ({"env": "nope_v0"}, "unknown environment 'nope_v0'"),
    ({"env": "brawl_v0", "api": "parallel"}, "no native parallel form"),
    ({"env": "fight5_v0", "api": "both"}, "api must be one of auto, aec, parallel"),
    ({"env": "fight5_v0", "obs_key": "obs"}, "obs_key must be one of"),
    ({"env": "fight5_v0", "illegal_action": "ignore"}, "illegal_action must be one of"),
    ({"env": "fight5_v0", "num_playerz": 3}, "num_playerz"),
])
def test_bad_config_names_the_problem(config, message):
    with pytest.raises(ConfigError, match=message):
        FightMultiAgentEnv(config)
