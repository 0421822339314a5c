"""The batched engine's API: illegal actions, seeds, reward modes, buffers, memory, sampling."""

from __future__ import annotations

import numpy as np
import pytest

from fight_envs.core.errors import ConfigError, IllegalActionError
from fight_envs.games.fight5.batched import MAX_SEED, Fight5Batch, random_legal_actions
from fight_envs.games.fight5.observe import OBS_SIZE

STATE = ("seeds", "stacks", "stack_left", "clash_card", "pot", "pile", "decks", "hands", "committed", "last_plays",
         "unrevealed", "clash_unseen", "scores", "bout_points", "bout")


def _snapshot(batch: Fight5Batch) -> dict[str, object]:
    snap: dict[str, object] = {name: getattr(batch, name).copy() for name in STATE}
    snap["obs"] = batch.obs.copy()
    snap["mask"] = batch.action_mask.copy()
    snap["point"] = (batch.round, batch.seat, batch.slot)
    snap["rng"] = [batch.rng.state(b) for b in range(batch.num_envs)]
    return snap


def _assert_same(a: dict[str, object], b: dict[str, object]) -> None:
    for name, value in a.items():
        if isinstance(value, np.ndarray):
            assert np.array_equal(value, b[name]), f"{name} changed"
        else:
            assert value == b[name], f"{name} changed"


def _advance(batch: Fight5Batch, steps: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    out = None
    for _ in range(steps):
        out = batch.step(random_legal_actions(batch.action_mask, rng))
    return out


def test_illegal_actions_raise_naming_games_and_change_nothing() -> None:
    batch = Fight5Batch(6, num_players=3)
    batch.reset(seed=11)
    _advance(batch, 7)  # seat 1, slot 2: some cards already placed
    legal = random_legal_actions(batch.action_mask, np.random.default_rng(1))
    actions = legal.copy()
    not_held = [int(np.flatnonzero(batch.action_mask[b] == 0)[0]) for b in (1, 4)]
    actions[1], actions[4] = not_held
    before = _snapshot(batch)
    with pytest.raises(IllegalActionError) as err:
        batch.step(actions)
    message = str(err.value)
    assert "2 of 6 games" in message and "seat 1 at slot 2" in message
    assert f"game 1: action {not_held[0]}" in message and f"game 4: action {not_held[1]}" in message
    assert "game 0:" not in message and "legal cards" in message
    _assert_same(before, _snapshot(batch))
    # the batch plays on exactly as one that never saw the illegal step
    twin = Fight5Batch(6, num_players=3)
    twin.reset(seed=11)
    _advance(twin, 7)
    assert np.array_equal(batch.step(legal).obs, twin.step(legal).obs)


@pytest.mark.parametrize(
    "actions,match",
    [
        (np.full(4, 13), "action 13"),
        (np.full(4, -1), "action -1"),
        (np.zeros(3, dtype=np.int64), "shape"),
        (np.zeros((4, 1), dtype=np.int64), "shape"),
        (np.zeros(4, dtype=np.float64), "dtype"),
        (np.zeros(4, dtype=bool), "dtype"),
    ],
)
def test_malformed_actions_are_refused(actions: np.ndarray, match: str) -> None:
    batch = Fight5Batch(4, num_players=2)
    batch.reset(seed=0)
    before = _snapshot(batch)
    with pytest.raises(IllegalActionError, match=match):
        batch.step(actions)
    _assert_same(before, _snapshot(batch))


def test_step_before_reset_is_refused() -> None:
    with pytest.raises(IllegalActionError, match="reset"):
        Fight5Batch(2).step(np.zeros(2, dtype=np.int64))


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"num_envs": 0}, "num_envs"),
        ({"num_envs": 2, "num_players": 6}, "num_players"),
        ({"num_envs": 2, "reward": "points"}, "reward"),
        ({"num_envs": 2, "num_bouts": 0}, "num_bouts"),
        ({"num_envs": 2, "target_score": 0}, "target_score"),
    ],
)
def test_bad_options_raise_config_error(kwargs: dict, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        Fight5Batch(**kwargs)


def test_seeds_int_sequence_and_none() -> None:
    batch = Fight5Batch(4, num_players=2)
    batch.reset(seed=100)
    assert batch.seeds.tolist() == [100, 101, 102, 103]
    batch.reset(seed=[5, 5, 9, 0])
    assert batch.seeds.tolist() == [5, 5, 9, 0]
    # two slots with one seed play the same game
    assert np.array_equal(batch.obs[0], batch.obs[1]) and not np.array_equal(batch.obs[0], batch.obs[2])
    batch.reset()
    assert int(batch.seeds[1]) == int(batch.seeds[0]) + 1 and int(batch.seeds[3]) < MAX_SEED


@pytest.mark.parametrize("seed", [-1, MAX_SEED, [1, 2, 3], [1.5, 2, 3, 4], [0, 1, 2, -4], "7", True])
def test_bad_seeds_raise_config_error(seed: object) -> None:
    with pytest.raises(ConfigError, match="seed"):
        Fight5Batch(4).reset(seed=seed)


def test_score_rewards_add_up_to_the_score_difference() -> None:
    num_envs, n = 8, 3
    batch = Fight5Batch(num_envs, num_players=n, reward="score")
    batch.reset(seed=77)
    rng = np.random.default_rng(4)
    totals = np.zeros((num_envs, n))
    ended = np.zeros(num_envs, dtype=bool)
    final = np.zeros((num_envs, n))
    while not ended.all():
        out = batch.step(random_legal_actions(batch.action_mask, rng))
        if out.rewards.any():  # only the last placement of a bout earns anything
            assert (batch.round, batch.seat, batch.slot) == (0, 0, 0)
        totals[~ended] += out.rewards[~ended]
        for k, b in enumerate(out.final_index.tolist()):
            if not ended[b]:
                final[b] = out.final_scores[k]
                ended[b] = True
        # every seat's reward in a bout sums to zero across the table
        assert np.allclose(out.rewards.sum(axis=1), 0.0)
    others = (final.sum(axis=1, keepdims=True) - final) / (n - 1)
    assert np.allclose(totals, (final - others) / 100.0)


def test_outcome_rewards_only_at_the_end() -> None:
    batch = Fight5Batch(16, num_players=2, num_bouts=1, target_score=None)
    batch.reset(seed=3)
    out = _advance(batch, batch.decisions_per_bout - 1)
    assert not out.rewards.any() and not out.terminated.any()
    out = _advance(batch, 1)
    assert out.terminated.all() and out.final_index.tolist() == list(range(16))
    for k in range(16):
        scores = out.final_scores[k]
        winners = np.flatnonzero(scores == scores.max())
        want = np.full(2, -1.0)
        want[winners] = 1.0 if winners.size == 1 else 0.0
        assert out.rewards[k].tolist() == want.tolist()


def test_output_buffers_are_read_only_views_updated_in_place() -> None:
    batch = Fight5Batch(3, num_players=2)
    out = batch.reset(seed=1)
    with pytest.raises(ValueError):
        out.obs[0, 0] = 1.0
    with pytest.raises(ValueError):
        out.action_mask[0, 0] = 1
    first = out.obs.copy()
    nxt = batch.step(random_legal_actions(out.action_mask, np.random.default_rng(0)))
    assert nxt.obs is out.obs  # the same buffer, now holding the next observations
    assert not np.array_equal(first, out.obs)


def test_keep_final_obs_off_reports_none() -> None:
    batch = Fight5Batch(4, num_players=2, num_bouts=1, target_score=None, keep_final_obs=False)
    batch.reset(seed=0)
    out = _advance(batch, batch.decisions_per_bout)
    assert out.terminated.all() and out.final_obs is None and out.final_scores.shape == (4, 2)


def test_memory_of_a_large_batch_is_a_few_tens_of_megabytes() -> None:
    batch = Fight5Batch(4096, num_players=5)
    batch.reset(seed=0)
    memory = batch.memory_bytes()
    assert memory["total"] == memory["state"] + memory["buffers"]
    assert memory["buffers"] >= batch.obs.nbytes == 4096 * OBS_SIZE * 4
    assert memory["total"] < 64 * 2**20, memory


def test_random_legal_actions_are_legal_uniform_and_seeded() -> None:
    rng = np.random.default_rng(0)
    masks = (rng.random((5000, 13)) < 0.4).astype(np.int8)
    masks[:7] = 0
    actions = random_legal_actions(masks, np.random.default_rng(1))
    assert (actions[:7] == -1).all()
    has = masks.any(axis=1)
    assert masks[np.flatnonzero(has), actions[has]].all()
    assert np.array_equal(actions, random_legal_actions(masks, np.random.default_rng(1)))
    three = np.zeros((30000, 13), dtype=np.int8)
    three[:, [0, 6, 12]] = 1
    counts = np.bincount(random_legal_actions(three, np.random.default_rng(2)), minlength=13)
    assert counts[[0, 6, 12]].sum() == 30000 and np.all(np.abs(counts[[0, 6, 12]] - 10000) < 500)
    with pytest.raises(ValueError, match="shape"):
        random_legal_actions(np.zeros((4, 12)), rng)
