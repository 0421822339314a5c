"""The privileged critic (``ppo.critic: privileged``): Brawl's hidden-state block, the vec env that appends it to
the learner's observations, the asymmetric policy (the actor never reads it, the critic does), its data-only
checkpoints and play, the warm start from a shared critic, pretraining and the trainer (the fast PPO update:
``test_fast_ppo.py``)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
from gymnasium import spaces
from torch import nn

from fight_envs.agents.checkpoint import (
    CheckpointError,
    PolicyAgent,
    build_policy,
    checkpoint_metadata,
    load_checkpoint_agent,
    load_policy,
    played_shape,
    policy_spec,
    save_policy,
)
from fight_envs.core.errors import ConfigError
from fight_envs.games.brawl.cards import NUM_CARD_TYPES
from fight_envs.games.brawl.observe import (
    OBS_SIZE,
    OBS_SLICES,
    PRIVILEGED_DRAWS,
    PRIVILEGED_SIZE,
    PRIVILEGED_SLICES,
    encode,
    encode_privileged,
)
from fight_envs.registry import make
from fight_envs.testing import random_decisions
from fight_envs.train.config import load_config
from fight_envs.train.features import (
    BrawlAnswerExtractor,
    FastMaskablePolicy,
    PrivilegedCriticPolicy,
    load_weights,
    policy_class,
)
from fight_envs.train.multi_vec_env import MultiGameVecEnv
from fight_envs.train.selfplay import train_main

ROOT = Path(__file__).resolve().parents[2]
KWARGS = {"net_arch": [32, 32], "activation_fn": nn.Tanh, "features_extractor_class": BrawlAnswerExtractor}


def brawl_states(players: int = 3, seed: int = 5, steps: int = 120) -> list[tuple[object, str, np.ndarray, np.ndarray]]:
    """(engine clone, deciding agent, its observation, its privileged block) along a random game."""
    env = make("brawl_v0", api="raw", num_players=players)
    env.reset(seed=seed)
    return [(env.game.clone(), agent, obs["observation"].copy(), env.privileged_observation(agent))
            for agent, obs, _ in random_decisions(env, seed, steps)]


def privileged_policy(cls: type = PrivilegedCriticPolicy) -> PrivilegedCriticPolicy:
    space = spaces.Box(0.0, 200.0, (OBS_SIZE + PRIVILEGED_SIZE,), np.float32)
    return cls(space, spaces.Discrete(16), lambda _: 1e-3, privileged_columns=PRIVILEGED_SIZE, **KWARGS)


def shared_policy() -> FastMaskablePolicy:
    return FastMaskablePolicy(spaces.Box(0.0, 200.0, (OBS_SIZE,), np.float32), spaces.Discrete(16), lambda _: 1e-3, **KWARGS)


def batch(players: int = 3) -> tuple[torch.Tensor, torch.Tensor, np.ndarray]:
    states = brawl_states(players)
    obs = torch.as_tensor(np.stack([s[2] for s in states]))
    priv = torch.as_tensor(np.stack([s[3] for s in states]))
    masks = np.stack([s[0].legal_action_mask(int(s[1].split("_")[1])).astype(bool) for s in states])
    return obs, priv, masks


# ----------------------------------------------------------------------------- the hidden-state block
def test_the_privileged_block_holds_the_other_hands_and_the_draw_pile_egocentric() -> None:
    for game, agent, obs, priv in brawl_states(players=3):
        seat, n = int(agent.split("_")[1]), game.num_players
        hands = priv[PRIVILEGED_SLICES["hands"]].reshape(-1, NUM_CARD_TYPES)
        assert not hands[0].any()  # my own hand is in the observation, not here
        for k in range(1, n):
            np.testing.assert_array_equal(hands[k], game.hands[(seat + k) % n])
        assert not hands[n:].any()
        nxt = priv[PRIVILEGED_SLICES["draw_next"]].reshape(PRIVILEGED_DRAWS, NUM_CARD_TYPES)
        top = list(reversed(game.draw_pile))[:PRIVILEGED_DRAWS]  # the pile's top is the list's end
        for k in range(PRIVILEGED_DRAWS):
            if k < len(top):
                assert nxt[k].sum() == 1 and nxt[k, top[k]] == 1
            else:
                assert not nxt[k].any()
        np.testing.assert_array_equal(priv[PRIVILEGED_SLICES["draw_pile"]],
                                      np.bincount(game.draw_pile, minlength=NUM_CARD_TYPES))
        np.testing.assert_array_equal(encode_privileged(game, seat), priv)
        np.testing.assert_array_equal(encode(game, seat), obs)  # the observation is the standard one, unchanged


def test_the_env_offers_its_space_and_other_envs_have_none() -> None:
    env = make("brawl_v0", api="raw", num_players=2)
    env.reset(seed=0)
    space = env.privileged_observation_space("player_1")
    assert space.shape == (PRIVILEGED_SIZE,) and space.contains(env.privileged_observation("player_1"))
    assert not hasattr(make("fight5_v0", api="raw"), "privileged_observation")


# ----------------------------------------------------------------------------- the vec env
def test_the_vec_env_appends_the_block_to_the_learner_observations_of_the_same_games() -> None:
    plain = MultiGameVecEnv("brawl_v0", 4, [3], seed=3)
    priv = MultiGameVecEnv("brawl_v0", 4, [3], seed=3, privileged=True)
    assert priv.observation_space.shape == (OBS_SIZE + PRIVILEGED_SIZE,) and priv.observation_size == OBS_SIZE
    a, b = plain.reset(), priv.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(150):
        np.testing.assert_array_equal(b[:, :OBS_SIZE], a)  # the same games, the same observations
        for i, env in enumerate(priv.envs):
            np.testing.assert_array_equal(b[i, OBS_SIZE:], env.privileged_observation(priv._learner[i]))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in plain.action_masks()])
        a, _, done_a, info_a = plain.step(actions)
        b, _, done_b, info_b = priv.step(actions)
        np.testing.assert_array_equal(done_a, done_b)
        for i in np.flatnonzero(done_b):
            ended += 1
            terminal = info_b[i]["terminal_observation"]
            assert terminal.shape == (OBS_SIZE + PRIVILEGED_SIZE,)
            np.testing.assert_array_equal(terminal[:OBS_SIZE], info_a[i]["terminal_observation"])
    assert ended > 0


def test_an_env_without_the_block_is_refused_by_name() -> None:
    with pytest.raises(ConfigError, match="fight5_v0 has no privileged_observation"):
        MultiGameVecEnv("fight5_v0", 2, [2], privileged=True)
    with pytest.raises(ConfigError, match="privileged must be true or false"):
        MultiGameVecEnv("brawl_v0", 2, [2], privileged=1)


# ----------------------------------------------------------------------------- the policy
def test_the_actor_never_reads_the_block_and_the_critic_does() -> None:
    policy = privileged_policy()
    obs, priv, masks = batch()
    other = torch.roll(priv, 1, dims=0)
    assert not torch.equal(priv, other)
    with torch.no_grad():
        first = policy.get_distribution(torch.cat([obs, priv], 1), action_masks=masks).distribution.logits
        second = policy.get_distribution(torch.cat([obs, other], 1), action_masks=masks).distribution.logits
        alone = PolicyAgent(policy, use_numpy=False).logits(obs.numpy())  # play: the observation alone
        v1 = policy.predict_values(torch.cat([obs, priv], 1))
        v2 = policy.predict_values(torch.cat([obs, other], 1))
    torch.testing.assert_close(first, second)
    np.testing.assert_allclose(alone, policy.action_net(policy.mlp_extractor.policy_net(
        BrawlAnswerExtractor(spaces.Box(0.0, 200.0, (OBS_SIZE,), np.float32))(obs))).detach().numpy(), atol=1e-5)
    assert not torch.allclose(v1, v2)
    # no gradient reaches the actor's first layer from the hidden-state columns: it has none
    assert policy.mlp_extractor.policy_net[0].in_features == policy.features_extractor.actor_dim
    assert policy.mlp_extractor.value_net[0].in_features == policy.features_extractor.actor_dim + PRIVILEGED_SIZE


def test_its_checkpoint_is_data_only_and_plays_from_the_observation(tmp_path: Path) -> None:
    policy = privileged_policy()
    meta = checkpoint_metadata(game="brawl", env="brawl_v0", num_players=[3], observation_shape=(OBS_SIZE,),
                               num_actions=16, env_options={}, algo="MaskablePPO", num_timesteps=0, run="t", label="t")
    path = save_policy(policy, tmp_path / "p.zip", meta)
    spec = json.loads(zipfile.ZipFile(path).read("fight_envs_policy.json"))["policy"]
    assert spec["class"] == "PrivilegedCriticPolicy" and spec["privileged_columns"] == PRIVILEGED_SIZE
    assert spec["features"] == "brawl_answer" and spec["observation_shape"] == [OBS_SIZE + PRIVILEGED_SIZE]
    loaded, _ = load_policy(path)
    assert isinstance(loaded, PrivilegedCriticPolicy) and played_shape(loaded) == (OBS_SIZE,)
    for a, b in zip(policy.state_dict().values(), loaded.state_dict().values()):
        torch.testing.assert_close(a, b)
    agent = load_checkpoint_agent(path, game="brawl")  # checked against the env's observation shape
    obs, _, masks = batch()
    assert agent._numpy is not None  # the numpy actor: the extractor's twin on the observation
    np.testing.assert_allclose(agent.logits(obs.numpy()), PolicyAgent(policy, use_numpy=False).logits(obs.numpy()), atol=1e-5)
    np.testing.assert_allclose(agent.logits(obs.numpy()[:1]), PolicyAgent(policy, use_numpy=False).logits(obs.numpy()[:1]),
                               atol=1e-5)


@pytest.mark.parametrize(("change", "message"), [
    ({"privileged_columns": 0}, "privileged_columns"),
    ({"privileged_columns": OBS_SIZE + PRIVILEGED_SIZE}, "privileged_columns"),
    ({"privileged_columns": "221"}, "privileged_columns"),
    ({"class": "FastMaskablePolicy"}, "present exactly when class is PrivilegedCriticPolicy"),
])
def test_a_bad_privileged_spec_is_refused_by_name(change: dict, message: str) -> None:
    spec = {**policy_spec(privileged_policy()), **change}
    with pytest.raises(CheckpointError, match=message):
        build_policy(spec, Path("x.zip"))
    plain = {**policy_spec(shared_policy()), "class": "PrivilegedCriticPolicy"}
    with pytest.raises(CheckpointError, match="present exactly when"):
        build_policy(plain, Path("x.zip"))


def test_a_warm_start_from_a_shared_critic_keeps_its_actor_and_its_critic() -> None:
    source = shared_policy()
    with torch.no_grad():
        for p in source.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    target = privileged_policy()
    load_weights(target, source)
    obs, priv, masks = batch()
    with torch.no_grad():
        torch.testing.assert_close(target.get_distribution(torch.cat([obs, priv], 1), action_masks=masks).distribution.logits,
                                   source.get_distribution(obs, action_masks=masks).distribution.logits)
        # the hidden-state columns start at zero: the critic starts as the source's
        torch.testing.assert_close(target.predict_values(torch.cat([obs, priv], 1)), source.predict_values(obs))


def test_policy_class_choices() -> None:
    assert policy_class("brawl_answer", "privileged") is PrivilegedCriticPolicy
    assert policy_class("brawl_answer") is FastMaskablePolicy
    with pytest.raises(ConfigError, match="does not combine with ppo.features=fight_klub_pointer"):
        policy_class("fight_klub_pointer", "privileged")


# ----------------------------------------------------------------------------- the config and the trainer
def test_the_config_checks_the_critic() -> None:
    recipe = ROOT / "configs" / "brawl_selfplay_3p.yaml"
    assert load_config(recipe).ppo.critic == "shared"
    with pytest.raises(ConfigError, match="ppo.critic"):
        load_config(recipe, ["ppo.critic=oracle"])
    with pytest.raises(ConfigError, match="ppo.critic=privileged needs vec_env=multi"):
        load_config(recipe, ["ppo.critic=privileged", "vec_env=dummy"])


def small_run(tmp_path: Path, name: str, *extra: str) -> Path:
    config = load_config(ROOT / "configs" / "brawl_selfplay_3p.yaml", [
        "total_timesteps=512", "n_envs=8", "ppo.n_steps=32", "ppo.batch_size=128", "ppo.n_epochs=1",
        "pretrain.games=4", "pretrain.epochs=1", "eval.games=0", "progress=none", "opponents.snapshot_every=256",
        f"runs_dir={tmp_path}", f"run_name={name}", "seed=4", *extra])
    return train_main(config)


def test_a_privileged_run_pretrains_trains_and_ships_a_player(tmp_path: Path) -> None:
    run = small_run(tmp_path, "priv", "ppo.critic=privileged")
    meta = json.loads((run / "final.json").read_text())
    assert meta["observation_shape"] == [OBS_SIZE]  # the env's observation: what the model plays from
    assert (run / "pretrain.json").is_file()
    agent = load_checkpoint_agent(run / "final.zip", game="brawl")
    assert isinstance(agent.policy, PrivilegedCriticPolicy)
    assert sorted((run / "pool").glob("self_*.zip"))  # snapshots, played as opponents from their observations
    from fight_envs.agents.base import RandomAgent
    from fight_envs.agents.evaluate import evaluate

    result = evaluate(lambda: make("brawl_v0", num_players=3), [agent, RandomAgent(seed=1), RandomAgent(seed=2)], 2)
    assert len(result.games) == 6


def test_warm_starts_between_critics(tmp_path: Path) -> None:
    off = ("pretrain.games=0", "pretrain.epochs=0")
    shared = small_run(tmp_path, "shared", *off)
    run = small_run(tmp_path, "from_shared", *off, "ppo.critic=privileged", f"init_from={shared / 'final.zip'}")
    assert isinstance(load_policy(run / "final.zip")[0], PrivilegedCriticPolicy)
    with pytest.raises(ConfigError, match="has a privileged critic"):
        small_run(tmp_path, "back", *off, f"init_from={run / 'final.zip'}")


def test_pretraining_records_the_same_games_with_the_block_appended() -> None:
    from fight_envs.train.imitation import collect

    args = ("brawl_v0", {}, [3], 3, "heuristic", {"heuristic": 1.0})
    plain = collect(*args, seed=2, gamma=0.99)
    priv = collect(*args, seed=2, gamma=0.99, privileged=True)
    assert priv.observations.shape == (len(plain), OBS_SIZE + PRIVILEGED_SIZE)
    np.testing.assert_array_equal(priv.observations[:, :OBS_SIZE], plain.observations)
    np.testing.assert_array_equal(priv.actions, plain.actions)
    np.testing.assert_array_equal(priv.returns, plain.returns)
    hands = priv.observations[:, OBS_SIZE:][:, PRIVILEGED_SLICES["hands"]].reshape(len(plain), -1, NUM_CARD_TYPES)
    sizes = plain.observations[:, OBS_SLICES["hand_sizes"]]  # every relative seat's hand size, public
    np.testing.assert_array_equal(hands.sum(axis=2)[:, 1:], sizes[:, 1:])  # the other hands, card for card counted


def test_the_value_probe_runs(tmp_path: Path) -> None:
    import subprocess
    import sys

    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "brawl_value_probe.py"), "--games", "10",
                          "--epochs", "1"], capture_output=True, text=True, check=True, timeout=600).stdout
    lines = [line for line in out.splitlines() if "held-out R^2" in line]
    assert [line.split(" held-out")[0].strip() for line in lines] == [
        "observation", "observation + privileged", "privileged alone"]
    for line in lines:
        assert float(line.rsplit("last ", 1)[1]) <= 1.0


def test_a_privileged_run_resumes_where_it_stopped(tmp_path: Path) -> None:
    run = small_run(tmp_path, "priv", "pretrain.games=0", "pretrain.epochs=0", "ppo.critic=privileged",
                    "checkpoint_every=256")
    before = load_policy(run / "checkpoints" / "step_0000000512.zip")[0]
    resumed = train_main(load_config(None, [f"resume={run}", "total_timesteps=1024"]))
    # the checkpoint at 1,024 follows the update after 768 (the last update of a linear schedule has a rate of 0)
    after = load_policy(run / "checkpoints" / "step_0000001024.zip")[0]
    assert resumed == run
    assert isinstance(after, PrivilegedCriticPolicy) and after.privileged_columns == PRIVILEGED_SIZE
    assert any(not torch.equal(a, b) for a, b in zip(before.state_dict().values(), after.state_dict().values()))
