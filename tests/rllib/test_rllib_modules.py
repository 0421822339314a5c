"""The RLlib modules: the learner's mask is applied in every forward pass; scripted baselines act as
the suite's agents do; the RLlib agent wrapper acts legally."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pytest
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.utils.torch_utils import FLOAT_MIN

from fight_envs.agents.registry import make_agent
from fight_envs.agents.rllib_agent import RLlibModuleAgent
from fight_envs.wrappers.rllib import FightMultiAgentEnv
from fight_envs.train.rllib.modules import MaskedPPOTorchRLModule, ScriptedAgentRLModule


def observations(config: dict, n: int = 64, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` real (vector, mask) pairs from random games."""
    env = FightMultiAgentEnv(dict(config))
    rng = np.random.default_rng(seed)
    vecs, masks = [], []
    obs, _ = env.reset(seed=seed)
    while len(vecs) < n:
        for o in obs.values():
            vecs.append(o["observations"])
            masks.append(o["action_mask"])
        obs, _, terms, truncs, _ = env.step({a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()})
        if terms["__all__"] or truncs["__all__"]:
            obs, _ = env.reset(seed=len(vecs))
    return np.stack(vecs[:n]), np.stack(masks[:n])


def learner(config: dict, features: str = "flat") -> MaskedPPOTorchRLModule:
    env = FightMultiAgentEnv(dict(config))
    agent = env.possible_agents[0]
    model = {**asdict(DefaultModelConfig(fcnet_hiddens=[32, 32], head_fcnet_hiddens=[], vf_share_layers=False)),
             "features": features}
    spec = RLModuleSpec(module_class=MaskedPPOTorchRLModule, observation_space=env.observation_spaces[agent],
                        action_space=env.action_spaces[agent], model_config=model)
    torch.manual_seed(0)
    return spec.build()


def batch(vecs: np.ndarray, masks: np.ndarray) -> dict:
    return {Columns.OBS: {"observations": torch.as_tensor(vecs), "action_mask": torch.as_tensor(masks)}}


@pytest.mark.parametrize("config, features", [({"env": "fight5_v0", "num_players": 3}, "fight5_slot"),
                                              ({"env": "fight5_v0"}, "flat"), ({"env": "fight_klub_v0"}, "flat")])
def test_masked_actions_get_no_probability_in_any_forward_pass(config, features):
    module = learner(config, features)
    vecs, masks = observations(config)
    legal = masks.astype(bool)
    for forward in (module.forward_inference, module.forward_exploration, module.forward_train):
        logits = forward(batch(vecs, masks))[Columns.ACTION_DIST_INPUTS].detach().numpy()
        assert np.all(logits[~legal] <= FLOAT_MIN / 2), forward.__name__
        assert np.all(logits[legal] > -1e6), forward.__name__
        probs = torch.softmax(torch.as_tensor(logits), dim=1).numpy()
        assert np.allclose(probs[~legal], 0.0) and np.allclose(probs.sum(axis=1), 1.0)
    draws = torch.distributions.Categorical(
        logits=module.forward_exploration(batch(vecs, masks))[Columns.ACTION_DIST_INPUTS]).sample((50,)).numpy()
    assert legal[np.arange(len(vecs))[None, :].repeat(50, 0), draws].all()


def test_the_mask_does_not_leak_into_the_network_input():
    """Only the vector goes through the network: the logits of legal actions do not depend on the mask."""
    config = {"env": "fight5_v0"}
    module = learner(config)
    vecs, masks = observations(config, 16)
    full = np.ones_like(masks)
    a = module.forward_inference(batch(vecs, masks))[Columns.ACTION_DIST_INPUTS].detach().numpy()
    b = module.forward_inference(batch(vecs, full))[Columns.ACTION_DIST_INPUTS].detach().numpy()
    legal = masks.astype(bool)
    np.testing.assert_allclose(a[legal], b[legal], rtol=1e-6)


def test_fight5_slot_features_feed_the_network():
    from fight_envs.train.features import Fight5SlotExtractor

    config = {"env": "fight5_v0"}
    module = learner(config, "fight5_slot")
    vecs, masks = observations(config, 8)
    width = Fight5SlotExtractor(FightMultiAgentEnv(config).observation_spaces["player_0"]["observations"]).features_dim
    first = next(m for m in module.modules() if isinstance(m, torch.nn.Linear))
    assert first.in_features == width > vecs.shape[1]
    with pytest.raises(ValueError, match="features'\\] must be one of"):
        learner(config, "conv")


def test_values_are_computed_from_the_dict_observation():
    config = {"env": "fight5_v0"}
    module = learner(config)
    vecs, masks = observations(config, 8)
    values = module.compute_values(batch(vecs, masks))
    assert tuple(values.shape) == (8,)
    plain = module.compute_values({Columns.OBS: torch.as_tensor(vecs)})
    np.testing.assert_allclose(values.detach().numpy(), plain.detach().numpy(), rtol=1e-6)


def test_a_non_dict_space_is_refused_with_the_reason():
    import gymnasium as gym

    with pytest.raises(ValueError, match="Dict observation space with 'action_mask'"):
        MaskedPPOTorchRLModule(observation_space=gym.spaces.Box(0, 1, (4,)), action_space=gym.spaces.Discrete(2),
                               model_config={})


@pytest.mark.parametrize("game, env, agent", [("fight5", "fight5_v0", "greedy"), ("fight5", "fight5_v0", "heuristic"),
                                              ("brawl", "brawl_v0", "heuristic")])
def test_scripted_module_plays_the_suite_baseline(game, env, agent):
    config = {"env": env}
    spec = FightMultiAgentEnv(dict(config))
    a0 = spec.possible_agents[0]
    module = RLModuleSpec(module_class=ScriptedAgentRLModule, observation_space=spec.observation_spaces[a0],
                          action_space=spec.action_spaces[a0], model_config={"game": game, "agent": agent, "seed": 5}).build()
    vecs, masks = observations(config, 40)
    actions = module.forward_exploration(batch(vecs, masks))[Columns.ACTIONS]
    assert masks[np.arange(40), actions].all()
    reference = make_agent(agent, game, seed=5)
    expected = [reference.act(v, m) for v, m in zip(vecs, masks) if not reference.reset()]
    np.testing.assert_array_equal(actions, expected)
    with pytest.raises(NotImplementedError, match="not trainable"):
        module.forward_train(batch(vecs, masks))


def test_rllib_agent_acts_legally_and_argmax_when_deterministic():
    config = {"env": "fight5_v0"}
    module = learner(config)
    vecs, masks = observations(config, 32)
    agent = RLlibModuleAgent(module, deterministic=True, name="t")
    logits = agent.logits(vecs, masks)
    np.testing.assert_array_equal(agent.act_batch(vecs, masks), np.where(masks > 0, logits, -np.inf).argmax(axis=1))
    sampler = RLlibModuleAgent(module, deterministic=False, seed=1)
    for _ in range(5):
        actions = sampler.act_batch(vecs, masks)
        assert masks[np.arange(32), actions].all()
    with pytest.raises(ValueError, match="all zeros"):
        agent.act_batch(vecs[:1], np.zeros_like(masks[:1]))


@pytest.mark.parametrize("features", ["flat", "fight5_slot"])
def test_the_agents_numpy_actor_computes_the_modules_logits(features):
    config = {"env": "fight5_v0", "num_players": 3}
    module = learner(config, features)
    vecs, masks = observations(config, 24)
    agent = RLlibModuleAgent(module)
    assert agent._numpy is not None, "a plain MLP module gets the numpy actor"
    legal = masks > 0
    fast, slow = agent.logits(vecs, masks), agent.torch_logits(vecs, masks)
    np.testing.assert_allclose(fast[legal], slow[legal], rtol=1e-5, atol=1e-5)
    assert np.all(fast[~legal] <= FLOAT_MIN / 2)
    one = agent.logits(vecs[:1], masks[:1])  # the single-row (pure numpy) path
    np.testing.assert_allclose(one[legal[:1]], slow[:1][legal[:1]], rtol=1e-5, atol=1e-5)


def test_scripted_module_takes_the_rules_of_the_env_it_is_given(tmp_path):
    """A Fifth-Earth baseline module built with the env's name and options (as the trainer builds it)
    judges by that env's card data (option ``cards``); without them, by the packaged cards."""
    import json

    from fight_envs.agents.fifth_earth import card_powers
    from fight_envs.core.data import load_json_data

    data, _ = load_json_data("fight_envs.games.fifth_earth", "cards.json", None, "fifth_earth/cards.json")
    for c in data["characters"]:
        c["stages"] = [13 - p for p in c["stages"]]  # the strongest cards become the weakest
    path = tmp_path / "inverted.json"
    path.write_text(json.dumps(data))
    spec = FightMultiAgentEnv({"env": "fifth_earth_v0"})
    a0 = spec.possible_agents[0]

    def build(model_config: dict) -> ScriptedAgentRLModule:
        return RLModuleSpec(module_class=ScriptedAgentRLModule, observation_space=spec.observation_spaces[a0],
                            action_space=spec.action_spaces[a0], model_config=model_config).build()

    base = {"game": "fifth_earth", "agent": "heuristic", "seed": 5}
    bound = build({**base, "env": "fifth_earth_v0", "env_options": {"cards": str(path), "num_players": 2}})
    plain = build(base)
    inverted, packaged = card_powers(str(path)), card_powers(None)
    assert not np.array_equal(inverted.power, packaged.power)
    np.testing.assert_array_equal(bound.agent.powers.power, inverted.power)
    np.testing.assert_array_equal(bound.agent.powers.lay_power, inverted.lay_power)
    np.testing.assert_array_equal(plain.agent.powers.power, packaged.power)
    with pytest.raises(ValueError, match="no env name"):
        build({**base, "env_options": {"cards": str(path)}})
