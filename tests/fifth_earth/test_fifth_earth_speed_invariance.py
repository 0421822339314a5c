"""The speed work's caches and shortcuts change nothing (issue 14).

The env keeps the seat-independent part of the observation per ``game.table_version`` (updated in
place across a plain fight step: ``observe.PublicView``, compared with a fresh ``public_part``
array by array at every step), reuses an
agent's info dict while it is unchanged; the engine builds the mask from bytes, keeps hand sizes
per version, and rolls its dice as ``Generator.integers`` does (``rules._die_faces``). These tests compare each against a
fresh computation at every step of seeded games (the dice against ``Generator.integers``), so a state change that forgets to bump a version (or a shortcut that drifts from the rule)
fails here. ``benchmarks/check_identical_fifth_earth.py`` pins the same against the code before
the speed work.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from fight_envs import fifth_earth_v0
from fight_envs.games.fifth_earth import rules
from fight_envs.games.fifth_earth.cards import NUM_CARDS, NUM_CHARACTERS, NUM_STAGES
from fight_envs.games.fifth_earth.observe import PublicView, encode, public_part
from fight_envs.games.fifth_earth.rules import (
    DESTINATION_BASE,
    NUM_ACTIONS,
    PHASE_LAY,
    RUN_BASE,
    FifthEarthConfig,
    FifthEarthGame,
)

CASES = [
    {"num_players": 2},
    {"num_players": 3, "rules": "classic"},
    {"num_players": 4, "format": "royale"},
    {"num_players": 6, "num_destinations": 1},
    {"num_players": 3, "won_cards": "spoils", "out_of_cards": "hand_and_rest", "max_fights": 6, "ties": "rolloff"},
]


def reference_mask(game: FifthEarthGame, seat: int) -> np.ndarray:
    """The lay mask as the rule states it: any card of a usable character, and stages 1..k of one."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    grid = game.hands[seat].reshape(NUM_CHARACTERS, NUM_STAGES).astype(bool)
    held = grid.any(axis=1)
    fight = game.battle.fight if game.battle is not None else 1
    usable = held & (fight >= game.last_used[seat] + game.cards.rest_fights)
    if not usable.any():  # "unless that is the only option left"
        usable = held
    mask[:NUM_CARDS] = (grid & usable[:, None]).reshape(-1)
    prefix = np.cumprod(grid, axis=1).sum(axis=1)
    for c in np.flatnonzero(usable):
        for length in range(2, int(prefix[c]) + 1):
            mask[RUN_BASE + 3 * c + length - 2] = 1
    return mask


def assert_public_is_fresh(env) -> None:
    """The env's public part (as its last ``get`` left it, brought up to date) equals a fresh one."""
    view: PublicView = env._public
    kept = view.get(env.game)
    for name, a, b in zip(("vector", "player rows", "rest rows"), kept, public_part(env.game)):
        np.testing.assert_array_equal(a, b, err_msg=f"public {name}")


def expected_info(env, agent: str) -> dict:
    g, n, s = env.game, env.config.num_players, env.seat[agent]
    rel = [(s + k) % n for k in range(n)]
    return {"destinations_won": int(g.destinations_won[s]), "destinations": g.destinations_won[rel],
            "phase": int(g.phase), "knockout_round": int(g.knockout_round),
            "fight": int(g.battle.fight if g.battle is not None else 0), "hand_size": int(g.hands[s].sum())}


@pytest.mark.parametrize("options", CASES, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_cached_observations_masks_and_infos_equal_fresh_ones(options: dict) -> None:
    env = fifth_earth_v0.raw_env(**options, mask_in_info=True)
    rng = np.random.default_rng(3)
    env.reset(seed=11)
    handed_out = []
    lays_checked = 0
    for agent in env.agent_iter(max_iter=3000):
        g = env.game
        assert_public_is_fresh(env)
        for a in env.agents:
            seat = env.seat[a]
            obs = env.observe(a)
            fresh = encode(g, seat)  # no cache: the public part recomputed from the state
            np.testing.assert_array_equal(obs["observation"], fresh)
            np.testing.assert_array_equal(obs["observation"], encode(g, seat, public_part(g)))
            info = env.infos[a]
            want = expected_info(env, a)
            assert list(info)[1:] == list(want) and info["destinations"].tolist() == want["destinations"].tolist()
            assert {k: v for k, v in info.items() if k not in ("action_mask", "destinations")} == {
                k: v for k, v in want.items() if k != "destinations"}
            np.testing.assert_array_equal(info["action_mask"], obs["action_mask"])
            assert g.hand_sizes() == g.hands.sum(axis=1).tolist()
            handed_out.append((obs, info, copy.deepcopy((obs, info))))
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        mask = env.observe(agent)["action_mask"]
        if g.phase == PHASE_LAY:
            np.testing.assert_array_equal(mask, reference_mask(g, env.seat[agent]))
            lays_checked += 1
        else:
            assert not mask[:DESTINATION_BASE].any()
        legal = np.flatnonzero(mask)
        env.step(int(legal[rng.integers(len(legal))]))
    assert lays_checked > 20
    # the in-place path was taken (and checked above), except under hand_and_rest (never: see rules)
    assert (env._public.updates > 10) == (options.get("out_of_cards") != "hand_and_rest")
    # nothing handed out (observation arrays, info dicts, the arrays in them) was changed afterwards
    for obs, info, snapshot in handed_out:
        np.testing.assert_array_equal(obs["observation"], snapshot[0]["observation"])
        np.testing.assert_array_equal(obs["action_mask"], snapshot[0]["action_mask"])
        assert list(info) == list(snapshot[1])
        for key, value in info.items():
            np.testing.assert_array_equal(value, snapshot[1][key])


def test_mask_from_bytes_follows_the_rule_on_random_hands() -> None:
    """Random hands, rest states and fights: the bytes-built mask equals the rule's formulation."""
    rng = np.random.default_rng(0)
    game = FifthEarthGame(FifthEarthConfig(num_players=2, rules="classic"))
    game.new_game(np.random.default_rng(0))
    while game.phase != PHASE_LAY:
        game.apply_action(game.to_act, int(np.flatnonzero(game.legal_action_mask(game.to_act))[0]))
    seat = game.to_act
    for trial in range(300):
        game.hands[seat] = rng.random(NUM_CARDS) < rng.choice([0.05, 0.15, 0.4])
        game.last_used[seat] = np.where(rng.random(NUM_CHARACTERS) < 0.3,
                                        rng.integers(1, 12, NUM_CHARACTERS), -10**6)
        game.battle.fight = int(rng.integers(1, 14))
        game.version += 1  # the state was changed by hand: the mask cache keys on the version
        np.testing.assert_array_equal(game.legal_action_mask(seat), reference_mask(game, seat), err_msg=f"trial {trial}")


@pytest.mark.parametrize("seed", range(40))
def test_dice_are_generator_integers(seed: int) -> None:
    """The engine's dice are ``Generator.integers(1, 7)``'s faces, interleaved with other draws from
    the same generator (deals, shuffles), and ``game.rng``'s state at any point is exactly the one
    numpy alone would have left: records and seeded games replay by that stream."""
    plan = np.random.default_rng(1000 + seed)
    game = FifthEarthGame(FifthEarthConfig(num_players=2))
    game.new_game(np.random.default_rng(seed))
    twin = copy.deepcopy(game.rng)  # the same state, drawn from by numpy alone
    for step in range(120):
        kind = plan.random()
        if kind < 0.75:
            k = int(plan.integers(1, 8))
            assert game._faces(k) == twin.integers(1, 7, size=k).tolist(), f"step {step}"
        elif kind < 0.85:
            clone = game.clone()  # a clone draws from its own copy of the generator
            k = int(plan.integers(1, 8))
            assert clone._faces(k) == copy.deepcopy(twin).integers(1, 7, size=k).tolist()
        elif kind < 0.95:
            n = int(plan.choice([3, 14, 25, 100]))
            assert game.rng.permutation(n).tolist() == twin.permutation(n).tolist(), f"step {step}"
        else:
            assert game.rng.bit_generator.state == twin.bit_generator.state, f"step {step}"
    assert game.rng.bit_generator.state == twin.bit_generator.state


@pytest.mark.parametrize("num_players", [2, 3])
def test_public_view_follows_power_deck_refills(num_players: int) -> None:
    """Every roll a double: the power deck runs out and is refilled from the discards within a
    battle, across the in-place updates of the public part."""
    env = fifth_earth_v0.raw_env(num_players=num_players, rules="classic")
    rng = np.random.default_rng(1)
    env.reset(seed=2, options={"dice": [i % 6 + 1 for i in range(1500) for _ in (0, 1)]})  # 1-1, 2-2, ...
    refills = 0  # refills the in-place path followed
    discard = env.game.power_discard
    for agent in env.agent_iter(max_iter=1000):
        g = env.game
        before = env._public.updates
        env.observe(agent)
        if env._public.updates > before and g.power_discard is not discard:
            refills += 1
        discard = g.power_discard
        assert_public_is_fresh(env)
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    assert env._public.updates > 10 and refills >= 1


def test_public_view_rebuilds_after_other_changes() -> None:
    """The in-place path only for one plain fight step since the last ``get``; any other change
    of the table (a new game here) rebuilds."""
    env = fifth_earth_v0.raw_env(num_players=2)
    env.reset(seed=4)
    view = env._public
    g = env.game
    view.get(g)
    kept = view.public
    env.reset(seed=5)
    assert g.fight_step_version != g.table_version
    assert view.get(g) is not kept  # built afresh
    assert_public_is_fresh(env)


def test_die_faces_is_numpys_bounded_draw_with_its_rejection() -> None:
    """``_die_faces`` on chosen 32-bit words: the face is 1 + (word * 6 >> 32), and a word whose
    product's low half is below numpy's threshold (4) is drawn again, as numpy's Lemire draw does."""
    assert rules._DIE_REJECT == (2**32 - 1 - 5) % 6 == 4
    # w * 6 = k * 2**32 + r: r 0, 2, 2 are below 4 (drawn again), r = 4 is kept (the threshold)
    assert [(w * 6) & 0xFFFFFFFF for w in (0, 715827883, 2863311531, 1431655766)] == [0, 2, 2, 4]
    words = iter([0, 715827883, 2863311531, 1431655766, 123456789])
    faces = rules._die_faces(lambda state: next(words), None, 2)
    assert faces == [1 + (1431655766 * 6 >> 32), 1 + (123456789 * 6 >> 32)] == [3, 1]
    # on a real generator: Generator.integers' faces and state, every bit generator numpy ships
    for bit_generator in (np.random.PCG64, np.random.MT19937, np.random.Philox, np.random.SFC64):
        game = FifthEarthGame(FifthEarthConfig(num_players=2))
        game.new_game(np.random.Generator(bit_generator(9)))
        twin = copy.deepcopy(game.rng)
        for k in (1, 2, 3, 4, 7, 12, 13):
            assert game._faces(k) == twin.integers(1, 7, size=k).tolist()
            assert game.rng.random() == twin.random()  # the same state after
