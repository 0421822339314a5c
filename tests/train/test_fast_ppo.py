"""``fight_envs.train.fast_ppo.FastMaskablePPO.train`` does sb3-contrib's ``MaskablePPO.train`` update: from the
same parameters, rollout and seeds, one whole update leaves the same parameters and Adam state and
logs the same keys with the same values (1e-5), stops at the same minibatch under ``target_kl``,
and draws the same minibatch permutations, a privileged critic's too; its checkpoints load with
``MaskablePPO.load``."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.logger import Logger
from torch import nn

from fight_envs.train.batched_vec_env import BatchedFight5VecEnv
from fight_envs.train.fast_ppo import FastMaskablePPO
from fight_envs.train.features import (
    BrawlAnswerExtractor,
    FastMaskablePolicy,
    FastMaskableRolloutBuffer,
    Fight5SlotExtractor,
    PrivilegedCriticPolicy,
)
from fight_envs.train.multi_vec_env import MultiGameVecEnv

TOL = 1e-5
POLICY_KWARGS = {"net_arch": [64, 64], "activation_fn": nn.Tanh, "features_extractor_class": Fight5SlotExtractor}


def make(cls: type[MaskablePPO], **ppo: object) -> MaskablePPO:
    env = BatchedFight5VecEnv(32, [2], seed=1, reward="score")
    model = cls(FastMaskablePolicy, env, rollout_buffer_class=FastMaskableRolloutBuffer, n_steps=16, batch_size=128,
                n_epochs=4, learning_rate=3e-3, policy_kwargs=dict(POLICY_KWARGS), seed=0, **ppo)
    model.set_logger(Logger(folder=None, output_formats=[]))
    return model


def make_privileged(cls: type[MaskablePPO], **ppo: object) -> MaskablePPO:
    """A Brawl model with a privileged critic (``ppo.critic: privileged``) on the vec env that appends the hidden state."""
    env = MultiGameVecEnv("brawl_v0", 16, [3], seed=1, privileged=True)
    model = cls(PrivilegedCriticPolicy, env, rollout_buffer_class=FastMaskableRolloutBuffer, n_steps=16, batch_size=64,
                n_epochs=2, learning_rate=3e-3, seed=0, policy_kwargs={
                    "net_arch": [32, 32], "activation_fn": nn.Tanh, "features_extractor_class": BrawlAnswerExtractor,
                    "privileged_columns": env.observation_space.shape[0] - env.observation_size}, **ppo)
    model.set_logger(Logger(folder=None, output_formats=[]))
    return model


def updated_pair(maker: Any = make, **ppo: object) -> tuple[MaskablePPO, FastMaskablePPO, list[float]]:
    """The stock and the fast model (built by ``maker``) after one ``train()`` each from the same state and rollout."""
    stock, fast = maker(MaskablePPO, **ppo), maker(FastMaskablePPO, **ppo)
    fast.policy.load_state_dict(stock.policy.state_dict())
    _, callback = stock._setup_learn(4096, None)
    torch.manual_seed(0)
    stock.collect_rollouts(stock.env, callback, stock.rollout_buffer, stock.n_steps)
    fast._setup_learn(4096, None)
    fast.rollout_buffer = copy.deepcopy(stock.rollout_buffer)
    assert fast._fast_update()  # the fast update is what runs here
    after = []
    for model in (stock, fast):
        np.random.seed(3)
        model.train()
        after.append(float(np.random.random()))  # the same permutations drawn, no more, no fewer
    return stock, fast, after


def assert_same_update(stock: MaskablePPO, fast: MaskablePPO) -> None:
    for (name, a), b in zip(stock.policy.named_parameters(), fast.policy.parameters()):
        torch.testing.assert_close(b, a, rtol=TOL, atol=TOL, msg=name)
    for a, b in zip(stock.policy.optimizer.state.values(), fast.policy.optimizer.state.values()):
        for key in a:
            torch.testing.assert_close(b[key], a[key], rtol=TOL, atol=TOL, msg=key)
    logged_stock, logged_fast = stock.logger.name_to_value, fast.logger.name_to_value
    assert sorted(logged_fast) == sorted(logged_stock)
    for key, value in logged_stock.items():
        assert np.isclose(logged_fast[key], value, rtol=TOL, atol=TOL), (key, logged_fast[key], value)
    assert fast._n_updates == stock._n_updates


@pytest.mark.parametrize("ppo", [{}, {"clip_range_vf": 0.05, "normalize_advantage": False, "ent_coef": 0.01}],
                         ids=["default", "clip_vf"])
def test_one_update_matches_maskable_ppo(ppo: dict) -> None:
    stock, fast, after = updated_pair(**ppo)
    assert after[0] == after[1]
    assert stock._n_updates == 4
    assert_same_update(stock, fast)
    moved = make(MaskablePPO, **ppo).policy.state_dict()
    assert any(not torch.equal(moved[k], v) for k, v in fast.policy.state_dict().items())  # it did learn


def test_the_update_of_a_privileged_critic_matches_maskable_ppo() -> None:
    """The critic reads the hidden-state columns, the actor does not: the fast update still does the stock one."""
    stock, fast, after = updated_pair(make_privileged)
    assert after[0] == after[1]
    assert_same_update(stock, fast)


@pytest.mark.parametrize("target_kl", [0.0018, 0.0032, 0.006])  # 1.5x just under a KL reached
def test_target_kl_stops_at_the_same_minibatch(target_kl: float) -> None:
    stock, fast, after = updated_pair(target_kl=target_kl)
    assert after[0] == after[1]
    assert stock._n_updates < 4  # stopped early
    assert_same_update(stock, fast)


def test_checkpoints_load_with_maskable_ppo(tmp_path: Path) -> None:
    _, fast, _ = updated_pair()
    fast.save(tmp_path / "fast.zip")
    for cls in (MaskablePPO, FastMaskablePPO):
        loaded = cls.load(tmp_path / "fast.zip")
        assert type(loaded) is cls and type(loaded.policy) is FastMaskablePolicy
        assert loaded.rollout_buffer_class is FastMaskableRolloutBuffer
        for (name, a), b in zip(fast.policy.state_dict().items(), loaded.policy.state_dict().values()):
            assert torch.equal(a, b), name
        for a, b in zip(fast.policy.optimizer.state.values(), loaded.policy.optimizer.state.values()):
            assert all(torch.equal(a[k], b[k]) for k in a)


def test_other_policies_take_the_stock_update() -> None:
    model = FastMaskablePPO("MlpPolicy", BatchedFight5VecEnv(8, [2], seed=1), n_steps=16, batch_size=64, n_epochs=1)
    assert not model._fast_update()
    model.learn(128)  # the stock train() runs
    assert model._n_updates == 1


def _fight_klub_pair(**ppo: object) -> tuple[MaskablePPO, FastMaskablePPO, list[float], dict]:
    """The stock and the fast model (Fight Klub's pointer policy, an extractor with parameters and
    ``prepare``) after one ``train()`` each from the same state and rollout (4 envs x 32 steps)."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from fight_envs.train.features_fight_klub import FightKlubPointerExtractor, FightKlubPointerPolicy
    from fight_envs.wrappers import SingleAgentEnv

    def make_fk(cls: type[MaskablePPO]) -> MaskablePPO:
        env = DummyVecEnv([lambda i=i: SingleAgentEnv("fight_klub_v0", seed=i) for i in range(4)])
        model = cls(FightKlubPointerPolicy, env, rollout_buffer_class=FastMaskableRolloutBuffer, n_steps=32,
                    batch_size=48, n_epochs=3, learning_rate=1e-3, seed=0,
                    policy_kwargs={"features_extractor_class": FightKlubPointerExtractor, "net_arch": [32, 32]}, **ppo)
        model.set_logger(Logger(folder=None, output_formats=[]))
        return model

    stock, fast = make_fk(MaskablePPO), make_fk(FastMaskablePPO)
    fast.policy.load_state_dict(stock.policy.state_dict())
    before = copy.deepcopy(stock.policy.state_dict())
    _, callback = stock._setup_learn(4096, None)
    torch.manual_seed(0)
    stock.collect_rollouts(stock.env, callback, stock.rollout_buffer, stock.n_steps)
    fast._setup_learn(4096, None)
    fast.rollout_buffer = copy.deepcopy(stock.rollout_buffer)
    assert not fast._fast_update() and fast._prepared_update()  # the prepared update is what runs here
    after = []
    for model in (stock, fast):
        np.random.seed(3)
        model.train()
        after.append(float(np.random.random()))
    return stock, fast, after, before


@pytest.mark.parametrize("ppo", [{}, {"clip_range_vf": 0.05, "ent_coef": 0.01}], ids=["default", "clip_vf"])
def test_the_prepared_update_of_an_extractor_with_parameters_matches_maskable_ppo(ppo: dict) -> None:
    stock, fast, after, before = _fight_klub_pair(**ppo)
    moved = [k for k, v in fast.policy.state_dict().items() if not torch.equal(before[k], v)]
    assert any(k.startswith("features_extractor.card") for k in moved)  # the extractor's own layers learned too
    assert after[0] == after[1]  # the same minibatch permutations (128 rows: 3 minibatches, the last short)
    assert_same_update(stock, fast)
    assert stock._n_updates == 3


def test_an_extractor_prepare_gives_the_same_features() -> None:
    from fight_envs.train.features_fight_klub import FightKlubPointerExtractor
    from fight_envs.wrappers import SingleAgentEnv

    env = SingleAgentEnv("fight_klub_v0", seed=0)
    extractor = FightKlubPointerExtractor(env.observation_space)
    rows, rng = [], np.random.default_rng(0)
    obs, _ = env.reset(seed=1)
    for _ in range(64):
        rows.append(obs)
        obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if term or trunc:
            obs, _ = env.reset()
    x = torch.as_tensor(np.stack(rows))
    with torch.no_grad():
        prepared = extractor.prepare(x)
        assert torch.equal(extractor(x), extractor(x, *prepared[:2]))  # the answers: bit for bit
        # with the rows' indices in the registries of distinct cards (each card embedded once, then gathered)
        torch.testing.assert_close(extractor(x, *prepared), extractor(x), rtol=1e-6, atol=1e-6)
