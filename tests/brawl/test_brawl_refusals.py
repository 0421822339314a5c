"""Brawl's public memory of refusals (``refusals=True``): the engine's ``drawn``, ``declined`` and ``unable``,
the block ``observe.encode_refusals``, and the env option that appends it to the observation."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces

from fight_envs.core.errors import ConfigError
from fight_envs.games.brawl.cards import NUM_ATTACKS
from fight_envs.games.brawl.observe import MAX_PLAYERS, OBS_SIZE, REFUSALS_SIZE, encode, encode_refusals
from fight_envs.games.brawl.record import replay
from fight_envs.games.brawl.rules import PASS, Phase
from fight_envs.registry import make
from fight_envs.testing import random_decisions
from fight_envs.train.features import BrawlAnswerExtractor, brawl_answer_features


def played(players: int, seed: int, steps: int = 400, refusals: bool = True, rules: str = "standard"):
    """A raw env after ``steps`` random decisions, and every (phase, seat, action, attack faced, drawn before,
    engine before) it asked."""
    env = make("brawl_v0", api="raw", num_players=players, refusals=refusals, rules=rules)
    env.reset(seed=seed)
    seen = []
    for agent, _, action in random_decisions(env, seed, steps):
        g, seat = env.game, int(agent.split("_")[1])
        seen.append((g.phase, seat, action, g.battle.attack_card, int(g.drawn[seat]), g.clone()))
    return env, seen


@pytest.mark.parametrize(("players", "rules"), [(2, "standard"), (3, "standard"), (5, "standard"), (3, "classic")])
def test_each_decision_updates_the_memory_as_the_rules_say(players: int, rules: str) -> None:
    """One decision at a time (``_do``, no forced decision after it): a PASS as a defender records the draws
    before it for the attack faced, a PASS as the attacker records them in ``unable``, nothing else touches
    either; ``drawn`` grows by the cards taken from the draw pile."""
    _, seen = played(players, seed=players, rules=rules)
    checked = {"declined": 0, "unable": 0, "drawn": 0}
    for phase, seat, action, attack, drawn, before in seen:
        after = before.clone()
        after._do(seat, action)
        want_declined, want_unable = before.declined.copy(), before.unable.copy()
        if action == PASS and phase == Phase.DEFEND:
            want_declined[seat, attack] = drawn
            checked["declined"] += 1
        if action == PASS and phase == Phase.ATTACK:
            want_unable[seat] = drawn
            checked["unable"] += 1
        np.testing.assert_array_equal(after.declined, want_declined)
        np.testing.assert_array_equal(after.unable, want_unable)
        if after.reshuffles == before.reshuffles:
            assert int(after.drawn.sum() - before.drawn.sum()) == len(before.draw_pile) - len(after.draw_pile)
            checked["drawn"] += int(after.drawn.sum() > before.drawn.sum())
    assert checked["declined"] and checked["drawn"]
    assert checked["unable"] or rules == "standard"  # the standard rules apply a forced PASS without asking


def test_the_block_reads_one_over_one_plus_the_draws_since() -> None:
    env, _ = played(3, seed=4)
    g = env.game
    assert (g.declined >= 0).any()  # some refusal to read
    for seat in range(3):
        block = encode_refusals(g, seat).reshape(MAX_PLAYERS, NUM_ATTACKS + 1)
        for k in range(3):
            s = (seat + k) % 3
            for c in range(NUM_ATTACKS):
                want = 0.0 if g.declined[s, c] < 0 else 1.0 / (1.0 + g.drawn[s] - g.declined[s, c])
                assert block[k, c] == pytest.approx(want)
            want = 0.0 if g.unable[s] < 0 else 1.0 / (1.0 + g.drawn[s] - g.unable[s])
            assert block[k, NUM_ATTACKS] == pytest.approx(want)
        assert not block[3:].any()


def test_clones_and_determinizations_keep_the_memory_and_do_not_share_it() -> None:
    env, seen = played(3, seed=6)
    g = env.game
    twin = g.clone()
    other = g.determinize(0, np.random.default_rng(1))
    for copy in (twin, other):
        np.testing.assert_array_equal(copy.declined, g.declined)
        np.testing.assert_array_equal(copy.drawn, g.drawn)
        np.testing.assert_array_equal(encode_refusals(copy, 0), encode_refusals(g, 0))  # public: the same
    twin.declined[:] = 5
    twin.drawn[:] = 9
    assert not (g.declined == 5).all() and not (g.drawn == 9).all()


def test_a_replay_rebuilds_the_same_memory() -> None:
    env, _ = played(3, seed=8)
    again = replay(env.game_record())
    np.testing.assert_array_equal(again.declined, env.game.declined)
    np.testing.assert_array_equal(again.unable, env.game.unable)
    np.testing.assert_array_equal(again.drawn, env.game.drawn)


def test_the_env_option_appends_the_block_and_is_off_by_default() -> None:
    plain = make("brawl_v0", api="raw", num_players=3)
    assert plain.observation_space("player_0")["observation"].shape == (OBS_SIZE,)
    env, _ = played(3, seed=9)
    space = env.observation_space("player_1")["observation"]
    assert space.shape == (OBS_SIZE + REFUSALS_SIZE,)
    obs = env.observe("player_1")["observation"]
    assert space.contains(obs)
    np.testing.assert_array_equal(obs[:OBS_SIZE], encode(env.game, 1))
    np.testing.assert_array_equal(obs[OBS_SIZE:], encode_refusals(env.game, 1))
    with pytest.raises(ConfigError, match="refusals"):
        make("brawl_v0", api="raw", refusals="yes")


def test_the_answer_features_read_the_standard_part() -> None:
    env, _ = played(3, seed=10)
    obs = env.observe("player_2")["observation"]
    np.testing.assert_array_equal(brawl_answer_features(obs[None]), brawl_answer_features(obs[None, :OBS_SIZE]))
    extractor = BrawlAnswerExtractor(spaces.Box(0.0, 200.0, (OBS_SIZE + REFUSALS_SIZE,), np.float32))
    assert extractor.features_dim == OBS_SIZE + REFUSALS_SIZE + 29
    with pytest.raises(ValueError, match="refusals=True"):
        BrawlAnswerExtractor(spaces.Box(0.0, 200.0, (OBS_SIZE + 1,), np.float32))
