"""``fight_klub_pointer``: the answer features value every Enhance play exactly as the heuristic does
(its choice is their arg-max on every Enhance decision of heuristic games); the pointer head scores
each slot action from its own slot, one scorer for every slot; the policy is what the config's
features name, saves data-only, loads and plays the same logits; a short fit clones the heuristic
closely."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from gymnasium import spaces

from fight_envs.agents.checkpoint import PolicyAgent, checkpoint_metadata, load_checkpoint_agent, save_checkpoint
from fight_envs.games.fight_klub.observe import OBS_SIZE
from fight_envs.games.fight_klub.rules import DECISION_KINDS, HAND0, NUM_ACTIONS, PASS, ROTATE
from fight_envs.testing import random_play_observations
from fight_envs.train.config import load_config
from fight_envs.train.features import FEATURES, policy_class
from fight_envs.train.features_fight_klub import (
    SLOT_ANSWER,
    SLOT_DIM,
    SLOT_EMBED,
    FightKlubPointerExtractor,
    FightKlubPointerPolicy,
    K,
    answer_features,
)
from fight_envs.train.imitation import Demonstrations, agreement, collect, fit

SPACE = spaces.Box(-100.0, 100.0, (OBS_SIZE,), np.float32)
ENHANCE = DECISION_KINDS.index("enhance")
KIND0 = 6


def heuristic_decisions(games: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(observations, masks, the heuristic's actions, game numbers) of every decision of heuristic
    self-play: behaviour cloning's own collection (both seats are the teacher, so both are recorded)."""
    data = collect("fight_klub_v0", {}, [2], games, "heuristic", {"heuristic": 1.0}, seed=seed, gamma=1.0)
    return data.observations, data.masks, data.actions, data.game


@pytest.fixture(scope="module")
def decisions() -> tuple[np.ndarray, ...]:
    return heuristic_decisions(30, seed=100)


def test_the_heuristics_enhance_choice_is_the_argmax_of_the_answer_gains(decisions) -> None:
    obs, masks, actions, _ = decisions
    enhance = np.flatnonzero(obs[:, KIND0 + ENHANCE] > 0.5)
    assert len(enhance) > 200
    slot, rotate = answer_features(torch.as_tensor(obs[enhance]))
    assert slot.shape == (len(enhance), 24, SLOT_ANSWER) and rotate.shape[0] == len(enhance)
    chosen_not_pass = 0
    for j, i in enumerate(enhance):
        best, best_gain = PASS, 0.0  # the heuristic's scan: the first legal action of the highest gain above 0
        for a in np.flatnonzero(masks[i]):
            if HAND0 <= a < HAND0 + 24 and slot[j, a - HAND0, 1] > 0.5:
                gain = float(slot[j, a - HAND0, 0])
            elif a == ROTATE and rotate[j, 1] > 0.5:
                gain = float(rotate[j, 0])
            else:
                continue
            if gain > best_gain:
                best, best_gain = int(a), gain
        assert best == actions[i], f"decision {i}: answers choose {best}, the heuristic {actions[i]}"
        chosen_not_pass += best != PASS
    assert chosen_not_pass > 20  # plays, not only passes, are checked


def test_an_empty_slot_and_a_decision_outside_a_fight_answer_zero(decisions) -> None:
    obs = decisions[0]
    slot, _ = answer_features(torch.as_tensor(obs))
    hand = obs[:, 87:87 + 16 * 417].reshape(len(obs), 16, 417)
    empty = np.abs(hand).sum(-1) == 0
    assert empty.any() and (slot[:, :16][torch.as_tensor(empty)] == 0).all()
    setup = obs[:, KIND0 + DECISION_KINDS.index("setup")] > 0.5
    assert setup.any() and (slot[torch.as_tensor(setup)] == 0).all()  # no current fight during Setup


def test_each_slot_action_is_scored_from_its_own_slot_by_one_scorer() -> None:
    torch.manual_seed(0)
    policy = FightKlubPointerPolicy(SPACE, spaces.Discrete(NUM_ACTIONS), lambda _: 1e-3, net_arch=[32],
                                    features_extractor_class=FightKlubPointerExtractor)
    torch.nn.init.normal_(policy.action_net.out.weight)  # a scorer that is not near zero
    obs = torch.as_tensor(random_play_observations("fight_klub_v0", 8, 2))
    with torch.no_grad():
        features = policy.extract_features(obs)
        latent = policy.mlp_extractor.forward_actor(features)
        logits = policy.action_net(latent)
        base = policy.action_net.base(latent[:, :32])
        # the two hand slots swapped in the latent: their scores swap, the base logits stay
        head = policy.action_net
        slots = latent[:, 32:].reshape(8, 24, -1).clone()
        slots[:, [0, 1]] = slots[:, [1, 0]]
        swapped = head(torch.cat([latent[:, :32], slots.reshape(8, -1)], 1))
    np.testing.assert_allclose((logits - base)[:, HAND0:HAND0 + 2].numpy(),
                               (swapped - base)[:, [HAND0 + 1, HAND0]].numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(logits[:, :HAND0].numpy(), base[:, :HAND0].numpy(), atol=1e-6)
    np.testing.assert_allclose(logits[:, ROTATE:].numpy(), base[:, ROTATE:].numpy(), atol=1e-6)


def test_the_config_chooses_the_pointer_policy_and_bad_setups_are_refused() -> None:
    assert FEATURES["fight_klub_pointer"] is FightKlubPointerExtractor
    assert policy_class("fight_klub_pointer") is FightKlubPointerPolicy and policy_class("flat") is not FightKlubPointerPolicy
    config = load_config(None, ["env.name=fight_klub_v0", "ppo.features=fight_klub_pointer"])
    assert config.ppo.features == "fight_klub_pointer"
    with pytest.raises(ValueError, match=r"fight_klub_pointer features need the Fight Klub observation \(20274,\)"):
        FightKlubPointerExtractor(spaces.Box(0.0, 1.0, (10,), np.float32))
    with pytest.raises(ValueError, match="needs features_extractor_class=FightKlubPointerExtractor"):
        FightKlubPointerPolicy(SPACE, spaces.Discrete(NUM_ACTIONS), lambda _: 1e-3, net_arch=[8])


def test_a_pointer_checkpoint_saves_data_only_and_plays_the_same_logits(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    from fight_envs.wrappers import SingleAgentEnv

    env = SingleAgentEnv("fight_klub_v0", seed=0)
    model = MaskablePPO(FightKlubPointerPolicy, env, seed=0, n_steps=32, batch_size=32, n_epochs=1,
                        policy_kwargs={"net_arch": [16], "features_extractor_class": FightKlubPointerExtractor})
    model.learn(64)  # the update runs through the head, the scorer and the extractor
    path = tmp_path / "pointer.zip"
    save_checkpoint(model, path, checkpoint_metadata(game="fight_klub", env="fight_klub_v0", num_players=[2],
                                                     observation_shape=(OBS_SIZE,), num_actions=NUM_ACTIONS,
                                                     env_options={}, label="pointer@64"))
    agent = load_checkpoint_agent(path, game="fight_klub")  # data-only: no trust needed
    obs = random_play_observations("fight_klub_v0", 16, 3)
    want = PolicyAgent(model.policy, use_numpy=False).logits(obs)
    np.testing.assert_allclose(agent.logits(obs), want, rtol=1e-5, atol=1e-6)


def test_a_short_fit_clones_the_heuristic_closely(decisions) -> None:
    obs, masks, actions, games = decisions
    data = Demonstrations(obs, masks, actions, np.zeros(len(obs), np.float32), games)
    held = games >= games.max() - 2
    train, test = data.subset(np.flatnonzero(~held)), data.subset(np.flatnonzero(held))
    torch.manual_seed(0)
    policy = FightKlubPointerPolicy(SPACE, spaces.Discrete(NUM_ACTIONS), lambda _: 1e-3, net_arch=[64],
                                    features_extractor_class=FightKlubPointerExtractor)
    fit(policy, train, epochs=6, batch_size=128, learning_rate=1e-3, vf_coef=0.0, seed=0)
    enhance = np.flatnonzero(test.observations[:, KIND0 + ENHANCE] > 0.5)
    # measured here: 0.87 and 0.76 (seed 0). Over 180 games (six times these) and 12 epochs, the
    # card-embedding network (fight_klub_cards) agreed on 0.59 of Enhance decisions (0.80 overall), a
    # pointer head without the answer features on 0.65
    overall, on_enhance = agreement(policy, test), agreement(policy, test.subset(enhance))
    assert overall > 0.8 and on_enhance > 0.7, (overall, on_enhance)


def test_only_the_cards_present_go_through_the_card_network_with_the_dense_result(decisions) -> None:
    """The extractor embeds the cards present alone (``index_select``/``index_copy``): the same slot
    embeddings as the card network over all 40 slots with the empty ones zeroed, and the gradient
    reaches the card network through them."""
    obs = torch.as_tensor(decisions[0][:256])
    torch.manual_seed(3)
    ex = FightKlubPointerExtractor(SPACE)
    out = ex(obs)
    b, ssz, n_hand = obs.shape[0], K["support"], K["max_hand"]
    hand = obs[:, K["hand"]].reshape(b, n_hand, ssz)
    hand = torch.cat([hand, hand.new_zeros(b, n_hand, 1)], 2)
    areas = obs[:, K["support_me"].start:K["support_opp"].stop].reshape(b, -1, ssz + 1)
    rows = torch.cat([hand, areas], 1)
    present = rows.abs().sum(-1, keepdim=True) > 0
    assert 0 < present.float().mean() < 1  # both kinds of slot are met
    dense = ex.card(rows) * present.to(obs.dtype)
    slots = out[:, ex.context_dim:].reshape(b, K["slots"], SLOT_DIM)[:, :, :SLOT_EMBED]
    torch.testing.assert_close(slots, dense[:, :K["slots"]], rtol=1e-5, atol=1e-6)
    out.sum().backward()
    assert ex.card[0].weight.grad is not None and ex.card[0].weight.grad.abs().sum() > 0


def test_the_training_forward_matches_the_actor_and_critic_with_the_same_gradients(decisions) -> None:
    """``_PointerNets.forward`` (one product for both first layers, the context's parameter-free columns
    detached) computes what ``forward_actor`` and ``forward_critic`` compute, with the same gradient
    in every parameter; and the columns it detaches are exactly those no parameter reaches."""
    obs = torch.as_tensor(decisions[0][:256])
    torch.manual_seed(5)
    policy = FightKlubPointerPolicy(SPACE, spaces.Discrete(NUM_ACTIONS), lambda _: 1e-3, net_arch=[64, 32],
                                    features_extractor_class=FightKlubPointerExtractor)
    nets = policy.mlp_extractor

    def run(fused: bool) -> tuple[torch.Tensor, torch.Tensor, dict[str, torch.Tensor]]:
        policy.zero_grad()
        features = policy.extract_features(obs)
        actor, critic = nets(features) if fused else (nets.forward_actor(features), nets.forward_critic(features))
        (policy.action_net(actor).logsumexp(1).sum() + 0.7 * policy.value_net(critic).sum()).backward()
        return actor.detach(), critic.detach(), {n: q.grad.clone() for n, q in policy.named_parameters()}

    a0, c0, g0 = run(False)
    a1, c1, g1 = run(True)
    torch.testing.assert_close(a1, a0, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(c1, c0, rtol=1e-5, atol=1e-6)
    assert g0.keys() == g1.keys()
    for name in g0:
        torch.testing.assert_close(g1[name], g0[name], rtol=1e-4, atol=1e-6, msg=name)
    # the detached blocks are those no parameter feeds: differentiating one reaches nothing, while
    # differentiating a learned block reaches some parameter
    features = policy.extract_features(obs)
    params = list(policy.features_extractor.parameters())
    at = 0
    for width, learned in nets.parts:
        block = features[:, at:at + width]
        grads = [g for g in torch.autograd.grad(block.sum(), params, allow_unused=True, retain_graph=True)
                 if g is not None]
        assert any(g.abs().sum() > 0 for g in grads) == learned, (at, width, learned)
        at += width
    assert at == nets.context_dim


def test_the_observations_gradient_is_whole_when_it_is_asked_for(decisions) -> None:
    """With observations that require a gradient (a saliency map), the nets do not detach the parameter-free
    blocks: the observation's gradient is the one ``forward_actor`` and ``forward_critic`` give."""
    torch.manual_seed(6)
    policy = FightKlubPointerPolicy(SPACE, spaces.Discrete(NUM_ACTIONS), lambda _: 1e-3, net_arch=[32],
                                    features_extractor_class=FightKlubPointerExtractor)
    nets = policy.mlp_extractor

    def saliency(fused: bool) -> torch.Tensor:
        obs = torch.as_tensor(decisions[0][:64]).clone().requires_grad_(True)
        features = policy.extract_features(obs)
        actor, critic = nets(features) if fused else (nets.forward_actor(features), nets.forward_critic(features))
        (policy.action_net(actor).logsumexp(1).sum() + policy.value_net(critic).sum()).backward()
        return obs.grad

    want, got = saliency(False), saliency(True)
    rest = torch.as_tensor(K["rest"])
    assert want[:, rest].abs().sum() > 0  # the table numbers and piles have a gradient of their own
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-7)


def test_the_fight_cards_embed_as_the_dense_network_over_all_six(decisions) -> None:
    """The six Fight cards are embedded block by block from views of the observation: the same numbers as
    the fight network over the six 940-number rows gathered."""
    obs = torch.as_tensor(decisions[0][:128])
    torch.manual_seed(4)
    ex = FightKlubPointerExtractor(SPACE)
    b, fc = obs.shape[0], K["fight_card"]
    fights = obs[:, K["fights_at"]].reshape(b, K["fights"], K["fight_size"])
    dense = ex.fight(fights[:, :, :2 * fc].reshape(b, 2 * K["fights"], fc)).reshape(b, -1)
    at = 4 * SLOT_EMBED
    torch.testing.assert_close(ex(obs)[:, at:at + dense.shape[1]], dense, rtol=1e-5, atol=1e-6)
    assert (dense != 0).any()


def test_a_card_row_is_present_exactly_when_its_type_one_hot_is_set(decisions) -> None:
    """``_present`` reads four columns for ``rows.abs().sum(-1) > 0``: every support card's features
    carry exactly one type, and on real observations both readings agree on every slot."""
    from fight_envs.games.fight_klub.cards import DEFAULT_POOL
    from fight_envs.games.fight_klub.observe import support_features
    from fight_envs.train.features_fight_klub import _present

    for cid, card in DEFAULT_POOL.support.items():
        assert support_features(card)[:4].sum() == 1.0, cid
    obs = torch.as_tensor(decisions[0])
    b, ssz = obs.shape[0], K["support"]
    for block, width in ((obs[:, K["hand"]], ssz), (obs[:, K["support_me"].start:K["support_opp"].stop], ssz + 1)):
        rows = block.reshape(b, -1, width)
        torch.testing.assert_close(_present(rows), rows.abs().sum(-1) > 0)


def test_prepared_row_indices_embed_each_distinct_card_once_with_the_same_numbers_and_gradients(decisions) -> None:
    """``prepare``'s indices into the registries of distinct rows: a slot's index names a row equal to its
    own byte for byte (hand rows with a zero "used" flag), equal rows share one, empty slots read -1; the
    extractor then embeds each distinct card once and gathers: the features and every parameter's
    gradient are the row-by-row ones."""
    obs = torch.as_tensor(decisions[0][:512])
    torch.manual_seed(7)
    policy = FightKlubPointerPolicy(SPACE, spaces.Discrete(NUM_ACTIONS), lambda _: 1e-3, net_arch=[64, 32],
                                    features_extractor_class=FightKlubPointerExtractor)
    ex = policy.features_extractor
    first, second = ex.prepare(obs[:256]), ex.prepare(obs[256:])  # two chunks: one lasting numbering
    ids = torch.cat([first[2], second[2]])
    b, ssz, n_hand, n_slots, fc = obs.shape[0], K["support"], K["max_hand"], K["slots"] + K["max_support"], K["fight_card"]
    hand = torch.cat([obs[:, K["hand"]].reshape(b, n_hand, ssz), obs.new_zeros(b, n_hand, 1)], 2)
    areas = obs[:, K["support_me"].start:K["support_opp"].stop].reshape(b, -1, ssz + 1)
    rows = torch.cat([hand, areas], 1)
    present = rows.abs().sum(-1) > 0
    card_ids = ids[:, :n_slots]
    assert ((card_ids >= 0) == present).all()
    assert torch.equal(ex._cards.table[card_ids[present]], rows[present])
    fights = obs[:, K["fights_at"]].reshape(b, K["fights"], K["fight_size"])[:, :, :2 * fc].reshape(b, -1, fc)
    assert torch.equal(ex._fights.table[ids[:, n_slots:]], fights)
    assert len(ex._cards.index) == ex._cards.table.shape[0] < int(present.sum()) // 10  # few distinct cards
    assert torch.unique(ex._cards.table, dim=0).shape[0] == ex._cards.table.shape[0]  # each row once

    answers = [torch.cat([first[k], second[k]]) for k in range(2)]

    def run(row_ids: torch.Tensor | None) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        policy.zero_grad()
        features = ex(obs, *answers, row_ids)
        actor, critic = policy.mlp_extractor(features)
        (policy.action_net(actor).logsumexp(1).sum() + 0.7 * policy.value_net(critic).sum()).backward()
        return features.detach(), {n: q.grad.clone() for n, q in policy.named_parameters()}

    f0, g0 = run(None)
    f1, g1 = run(ids)
    torch.testing.assert_close(f1, f0, rtol=1e-6, atol=1e-6)
    for name in g0:  # summed in another order: equal to float32 rounding of the gradient's own scale
        scale = g0[name].abs().max().item()
        torch.testing.assert_close(g1[name], g0[name], rtol=1e-4, atol=1e-6 * max(scale, 1.0), msg=name)
    assert g1["features_extractor.card.0.weight"].abs().sum() > 0
    # an observation that asks for its own gradient gets it whole, indices or not
    grads = []
    for ids_given in (None, ids):
        leaf = obs[:64].clone().requires_grad_(True)
        ex(leaf, *(a[:64] for a in answers), None if ids_given is None else ids_given[:64]).sum().backward()
        grads.append(leaf.grad)
    assert grads[0][:, K["hand"]].abs().sum() > 0
    torch.testing.assert_close(grads[1], grads[0])


def test_the_row_registry_is_exact_and_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows are told apart by their bytes, whatever the projection that groups them (a probe that maps
    every row to one number falls back to the bytes), -0.0 and 0.0 included; past ``MAX_DISTINCT_ROWS``
    nothing is registered and the extractor embeds row by row."""
    import fight_envs.train.features_fight_klub as fk

    reg = fk._RowRegistry(3)
    rows = np.array([[1, 2, 3], [0, 0, 0], [1, 2, 3], [-0.0, 0, 0], [3, 2, 1]], dtype=np.float32)
    ids = reg.ids(rows)
    assert [ids.tolist().index(i) for i in ids.tolist()] == [0, 1, 0, 3, 4]  # equal bytes, equal index
    assert len(set(ids.tolist())) == 4 and reg.table.shape == (4, 3)
    assert torch.equal(reg.table[torch.as_tensor(ids)], torch.as_tensor(rows))
    reg.ids(np.array([[1, 2, 3]], dtype=np.float32))
    assert reg.table.shape == (4, 3)  # met before: nothing added
    flat = fk._RowRegistry(3)
    flat._probe = np.zeros(3)  # every row one number: grouped by bytes instead
    got = flat.ids(rows)
    assert [got.tolist().index(i) for i in got.tolist()] == [0, 1, 0, 3, 4]
    assert torch.equal(flat.table[torch.as_tensor(got)], torch.as_tensor(rows))

    monkeypatch.setattr(fk, "MAX_DISTINCT_ROWS", 4)
    full = fk._RowRegistry(3)
    assert full.ids(rows) is not None
    assert full.ids(np.array([[9, 9, 9]], dtype=np.float32)) is None and full.table.shape == (4, 3)
    ex = FightKlubPointerExtractor(SPACE)
    obs = torch.as_tensor(random_play_observations("fight_klub_v0", 40, seed=2))
    with torch.no_grad():
        prepared = ex.prepare(obs)
        assert (prepared[2] == -1).all()  # more than 4 distinct cards: no indices
        assert torch.equal(ex(obs, *prepared), ex(obs))
