"""The trainer's policy and rollout buffer (``fight_envs.train.features.FastMaskablePolicy``,
``FastMaskableRolloutBuffer``) compute what sb3-contrib's stock classes compute, on the same inputs:
the same log-probabilities, entropies and values (1e-5), the same gradients, the same masked
distribution bit for bit, the same sampled actions, the same minibatches, and an Adam step that
moves the parameters as the stock Adam does."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
from sb3_contrib.common.maskable.distributions import MaskableCategorical
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from fight_envs.agents.checkpoint import PolicyAgent, load_policy
from fight_envs.games.fight5.observe import OBS_SIZE
from fight_envs.train.batched_vec_env import BatchedFight5VecEnv
from fight_envs.train.config import load_config
from fight_envs.train.features import FastMaskablePolicy, FastMaskableRolloutBuffer, Fight5SlotExtractor, masked_log_probs
from fight_envs.train.selfplay import train_main

OBS_SPACE = spaces.Box(0.0, 100.0, (OBS_SIZE,), np.float32)
ACTIONS = spaces.Discrete(13)
TOL = 1e-5
ARCHS = {
    "default": {"net_arch": [128, 128], "activation_fn": nn.Tanh, "features_extractor_class": Fight5SlotExtractor},
    "flat_relu": {"net_arch": [64], "activation_fn": nn.ReLU},
    "uneven": {"net_arch": {"pi": [32], "vf": [16, 24]}, "activation_fn": nn.Tanh,
               "features_extractor_class": Fight5SlotExtractor},
}


def game_states(count: int, seed: int = 0, num_players: tuple[int, ...] = (2,)) -> tuple[np.ndarray, np.ndarray]:
    """Learner observations and masks of seeded batched games (random opponents, random learner)."""
    env = BatchedFight5VecEnv(16, num_players, seed=seed)
    rng = np.random.default_rng(seed)
    obs, masks = [env.reset()], [env.action_masks()]
    while sum(len(o) for o in obs) < count:
        legal = masks[-1]
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in legal])
        o, _, _, _ = env.step(actions)
        obs.append(o)
        masks.append(env.action_masks())
    return np.concatenate(obs)[:count], np.concatenate(masks)[:count]


def twins(arch: str) -> tuple[MaskableActorCriticPolicy, FastMaskablePolicy]:
    torch.manual_seed(0)
    stock = MaskableActorCriticPolicy(OBS_SPACE, ACTIONS, lambda _: 1e-3, **ARCHS[arch])
    fast = FastMaskablePolicy(OBS_SPACE, ACTIONS, lambda _: 1e-3, **ARCHS[arch])
    fast.load_state_dict(stock.state_dict())  # the same parameters under the same names
    assert list(fast.state_dict()) == list(stock.state_dict())
    return stock, fast


def legal_actions(masks: np.ndarray, seed: int) -> torch.Tensor:
    rng = np.random.default_rng(seed)
    return torch.as_tensor([rng.choice(np.flatnonzero(row)) for row in masks])


@pytest.mark.parametrize("arch", list(ARCHS))
@pytest.mark.parametrize("players", [(2,), (2, 3, 4, 5)])
def test_evaluate_actions_and_gradients_match_the_stock_policy(arch: str, players: tuple[int, ...]) -> None:
    stock, fast = twins(arch)
    obs, masks = game_states(512, seed=len(players), num_players=players)
    columns = (obs != 0).any(axis=0).sum()
    assert columns < 0.8 * OBS_SIZE  # padded observations: the nonzero-columns product is what runs here
    actions = legal_actions(masks, 1)
    obs_t, masks_t = torch.as_tensor(obs), torch.as_tensor(masks.astype(np.float32))  # as the rollout buffer holds them
    outs = []
    for policy in (stock, fast):
        policy.zero_grad()
        values, log_prob, entropy = policy.evaluate_actions(obs_t, actions, action_masks=masks_t)
        (values.square().mean() - log_prob.mean() - 0.01 * entropy.mean()).backward()
        outs.append((values.detach(), log_prob.detach(), entropy.detach(),
                     [p.grad.clone() for p in policy.parameters()]))
    (v0, lp0, e0, g0), (v1, lp1, e1, g1) = outs
    torch.testing.assert_close(v1, v0, rtol=0, atol=TOL)
    torch.testing.assert_close(lp1, lp0, rtol=0, atol=TOL)
    torch.testing.assert_close(e1, e0, rtol=0, atol=TOL)
    for a, b in zip(g0, g1):
        torch.testing.assert_close(b, a, rtol=1e-4, atol=1e-6)
    # a dense batch (no zero column) takes the plain product, with the same outputs
    dense = torch.rand(64, OBS_SIZE)
    few = torch.ones(64, 13)
    with torch.no_grad():
        for x, y in zip(stock.evaluate_actions(dense, actions[:64], few), fast.evaluate_actions(dense, actions[:64], few)):
            torch.testing.assert_close(y, x, rtol=0, atol=TOL)


def test_masked_distribution_is_the_stock_one_bit_for_bit() -> None:
    obs, masks = game_states(300, seed=3)
    masks[0] = 0
    masks[0, 4] = 1  # a single legal action
    logits = torch.randn(300, 13) * 3
    actions = legal_actions(masks, 2)
    stock = MaskableCategorical(logits=logits, masks=masks)
    bool_masks, log_p = masked_log_probs(logits, masks)
    assert torch.equal(bool_masks, stock.masks)
    assert torch.equal(log_p, stock.logits)
    assert torch.equal(log_p.gather(-1, actions.unsqueeze(-1)).squeeze(-1), stock.log_prob(actions))
    p_log_p = log_p * torch.softmax(log_p, dim=-1)
    assert torch.equal(-torch.where(bool_masks, p_log_p, torch.tensor(0.0)).sum(-1), stock.entropy())


@pytest.mark.parametrize("deterministic", [False, True])
def test_rollout_forward_draws_the_same_actions(deterministic: bool) -> None:
    stock, fast = twins("default")
    obs, masks = game_states(128, seed=4)
    results = []
    for policy in (stock, fast):
        torch.manual_seed(7)
        with torch.no_grad():
            results.append(policy(torch.as_tensor(obs), deterministic=deterministic, action_masks=masks))
    (a0, v0, lp0), (a1, v1, lp1) = results
    assert torch.equal(a1, a0) and a1.dtype == a0.dtype and a1.shape == a0.shape == (128,)
    assert masks[np.arange(128), a1.numpy()].all()
    torch.testing.assert_close(v1, v0, rtol=0, atol=TOL)
    torch.testing.assert_close(lp1, lp0, rtol=0, atol=TOL)
    # without masks: the stock code path
    torch.manual_seed(7)
    with torch.no_grad():
        a2, _, _ = fast(torch.as_tensor(obs), deterministic=deterministic)
        torch.manual_seed(7)
        a3, _, _ = stock(torch.as_tensor(obs), deterministic=deterministic)
    assert torch.equal(a2, a3)


def test_fused_adam_steps_like_the_stock_adam() -> None:
    stock, fast = twins("default")
    assert fast.optimizer.defaults["fused"] and not stock.optimizer.defaults.get("fused")
    assert fast.optimizer.defaults["eps"] == stock.optimizer.defaults["eps"] == 1e-5  # SB3's default kept
    assert fast.optimizer_kwargs == stock.optimizer_kwargs  # what a checkpoint records is unchanged
    obs, masks = game_states(256, seed=5)
    actions = legal_actions(masks, 3)
    for _ in range(5):
        for policy in (stock, fast):
            policy.optimizer.zero_grad()
            values, log_prob, entropy = MaskableActorCriticPolicy.evaluate_actions(
                policy, torch.as_tensor(obs), actions, action_masks=masks)
            (values.square().mean() - log_prob.mean() - 0.01 * entropy.mean()).backward()
            nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            policy.optimizer.step()
    for a, b in zip(stock.parameters(), fast.parameters()):
        torch.testing.assert_close(b, a, rtol=0, atol=1e-6)
    # an explicit choice of implementation is respected
    explicit = FastMaskablePolicy(OBS_SPACE, ACTIONS, lambda _: 1e-3, optimizer_kwargs={"eps": 1e-5, "foreach": False})
    assert not explicit.optimizer.defaults.get("fused")


def test_rollout_buffer_hands_out_the_same_minibatches() -> None:
    obs, masks = game_states(32 * 8, seed=6)
    buffers = [cls(32, OBS_SPACE, ACTIONS, "cpu", gamma=0.99, gae_lambda=0.95, n_envs=8)
               for cls in (MaskableRolloutBuffer, FastMaskableRolloutBuffer)]
    rng = np.random.default_rng(0)
    rows = [(obs[8 * t: 8 * t + 8], rng.integers(0, 13, (8, 1)), rng.random(8), rng.random(8) < 0.1,
             torch.as_tensor(rng.random(8), dtype=torch.float32), torch.as_tensor(rng.random(8), dtype=torch.float32),
             masks[8 * t: 8 * t + 8]) for t in range(32)]
    for buffer in buffers:
        for o, a, r, start, v, lp, m in rows:
            buffer.add(o, a, r, start, v, lp, action_masks=m)
        buffer.compute_returns_and_advantage(torch.zeros(8), np.zeros(8, dtype=bool))
    for epoch in range(2):
        np.random.seed(epoch)
        stock = list(buffers[0].get(100))  # a last, short minibatch too
        np.random.seed(epoch)
        fast = list(buffers[1].get(100))
        assert len(stock) == len(fast) == 3
        for s, f in zip(stock, fast):
            for name in s._fields:
                x, y = getattr(s, name), getattr(f, name)
                assert torch.equal(x, y) and x.dtype == y.dtype and x.shape == y.shape, name


def test_one_ppo_update_matches_the_stock_classes() -> None:
    def model(fast: bool) -> MaskablePPO:
        env = BatchedFight5VecEnv(32, [2], seed=1, reward="score")
        extra = {"rollout_buffer_class": FastMaskableRolloutBuffer} if fast else {}
        return MaskablePPO(FastMaskablePolicy if fast else "MlpPolicy", env, n_steps=16, batch_size=128, n_epochs=2,
                           policy_kwargs=dict(ARCHS["default"]), seed=0, **extra)

    stock, fast = model(False), model(True)
    fast.policy.load_state_dict(stock.policy.state_dict())
    for m in (stock, fast):  # the same rollout: the same games, the same torch draws of the learner's actions
        _, callback = m._setup_learn(512, None)
        torch.manual_seed(0)
        m.collect_rollouts(m.env, callback, m.rollout_buffer, m.n_steps)
    for name in ("observations", "actions", "action_masks", "rewards"):
        np.testing.assert_array_equal(getattr(fast.rollout_buffer, name), getattr(stock.rollout_buffer, name), name)
    fast.rollout_buffer = copy.deepcopy(stock.rollout_buffer)  # the very same rollout, into the fast buffer's class
    fast.rollout_buffer.__class__ = FastMaskableRolloutBuffer
    for m in (stock, fast):
        np.random.seed(3)
        m.train()
    for a, b in zip(stock.policy.parameters(), fast.policy.parameters()):
        torch.testing.assert_close(b, a, rtol=0, atol=TOL)


def test_training_uses_them_and_checkpoints_load_as_stock_policies(tmp_path: Path) -> None:
    tiny = Path(__file__).resolve().parents[2] / "configs" / "fight5_selfplay_tiny.yaml"
    run = train_main(load_config(tiny, [f"runs_dir={tmp_path}", "eval.games=0"]))
    policy, _ = load_policy(run / "final.zip")  # data-only: the policy class is recorded by name and rebuilt
    assert type(policy) is FastMaskablePolicy
    stock = MaskableActorCriticPolicy(policy.observation_space, policy.action_space, lambda _: 0.0,
                                      **{k: v for k, v in policy._get_constructor_parameters().items()
                                         if k not in ("observation_space", "action_space", "lr_schedule")})
    stock.load_state_dict(policy.state_dict())
    obs, masks = game_states(64, seed=8)
    np.testing.assert_allclose(PolicyAgent(policy).logits(obs), PolicyAgent(stock).logits(obs), rtol=0, atol=TOL)


@pytest.mark.parametrize("rows", [1, 2, 64])
def test_snapshot_agents_batches_give_the_torch_policys_logits(rows: int) -> None:
    """PolicyAgent runs a batch through torch's products and one row through numpy's: the same logits."""
    stock, _ = twins("default")
    obs, masks = game_states(rows, seed=9)
    agent = PolicyAgent(stock, deterministic=True)
    slow = PolicyAgent(stock, use_numpy=False)
    assert agent._numpy is not None
    logits = agent.logits(obs)
    np.testing.assert_allclose(logits, slow.logits(obs), rtol=0, atol=TOL)
    per_row = np.concatenate([agent.logits(o[None]) for o in obs])  # the numpy path, one row at a time
    np.testing.assert_allclose(logits, per_row, rtol=0, atol=TOL)
    assert logits.dtype == np.float32
    np.testing.assert_array_equal(agent.act_batch(obs, masks), [agent.act(o, m) for o, m in zip(obs, masks)])
