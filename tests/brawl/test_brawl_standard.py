"""The standard rule set's own choices (``seeds/brawl.md``, design choices 23-29) and the env's
robustness items: 0-d numpy actions, reset options checked before anything changes, copies and
pickles that continue identically, the mask in ``info`` only on request."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from brawl_scenario import new_game, play

from fight_envs import brawl_v0
from fight_envs.core.errors import ConfigError, DealError
from fight_envs.games.brawl.cards import CHAOS
from fight_envs.games.brawl.observe import OBS_SLICES, encode
from fight_envs.games.brawl.record import make_record, replay
from fight_envs.games.brawl.rules import RULE_SETS, BrawlConfig, BrawlGame, Phase


def _random_game(config: BrawlConfig, seed: int, check=None) -> BrawlGame:
    g = BrawlGame(config)
    g.new_game(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    while not g.is_over():
        if check is not None:
            check(g)
        s = g.current_player()
        g.apply_action(s, int(rng.choice(g.legal_actions(s))))
    return g


def test_rule_sets_fill_every_lever_and_single_levers_override() -> None:
    std, classic = BrawlConfig(), BrawlConfig(rules="classic")
    assert (std.chaos_windows, std.hit_draws, std.showdown, std.ask_noops, std.skip_forced) == \
        ("all", "one", "open", False, True)
    assert (classic.chaos_windows, classic.hit_draws, classic.showdown, classic.ask_noops, classic.skip_forced) == \
        (True, "one", "same", True, False)
    assert BrawlConfig(showdown="same").showdown == "same" and BrawlConfig(showdown="same").chaos_windows == "all"
    assert set(RULE_SETS) == {"standard", "classic"}
    for bad, message in [({"rules": "modern"}, "rules must be one of"), ({"hit_draws": "two"}, "hit_draws must be"),
                         ({"showdown": "closed"}, "showdown must be"), ({"skip_forced": 1}, "skip_forced must be"),
                         ({"ask_noops": "no"}, "ask_noops must be")]:
        with pytest.raises(ConfigError, match=message):
            BrawlConfig(**bad)


def test_direction_is_not_asked_when_only_two_fighters_are_left() -> None:
    g = new_game([["X", "FP"], ["FK", "J"]], rules="standard", chaos_windows=None, skip_forced=False)
    play(g, 0, "X")  # two fighters: clockwise and counter-clockwise lead to the same opponent
    assert g.phase == Phase.ATTACK and g.current_player() == 0 and g.direction == 1
    c = new_game([["X", "FP"], ["FK", "J"]])  # classic: the no-op question is still asked
    play(c, 0, "X")
    assert c.phase == Phase.CHAOS_DIRECTION
    three = new_game([["X", "FP"], ["FK", "J"], ["NK", "D"]], rules="standard", chaos_windows=None, skip_forced=False)
    play(three, 0, "X")  # three fighters: the direction matters and is asked
    assert three.phase == Phase.CHAOS_DIRECTION


@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_skip_forced_asks_only_real_choices_but_every_window(n: int) -> None:
    def check(g: BrawlGame) -> None:
        assert len(g.legal_actions(g.current_player())) > 1 or g.phase == Phase.WINDOW

    for seed in range(4):
        g = _random_game(BrawlConfig(num_players=n, skip_forced=True), seed, check)
        assert len(g.events) > len(g.actions)  # the forced ones were applied, not asked
        assert replay(make_record(g, seed)).finish_order == g.finish_order  # forced ones re-applied
    forced = []
    _random_game(BrawlConfig(num_players=n, skip_forced=False), 0,
                 lambda g: forced.append(len(g.legal_actions(g.current_player())) == 1 and g.phase != Phase.WINDOW))
    assert any(forced)  # without the option, single-action decisions are asked


def test_skip_forced_game_replays_from_its_record_with_a_seed() -> None:
    env = brawl_v0.raw_env(num_players=4, skip_forced=True)
    env.reset(seed=12)
    rng = np.random.default_rng(3)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    g = replay(env.game_record())
    assert g.finish_order == env.game.finish_order and g.events == env.game.events


def test_open_showdown_puts_both_hands_face_up() -> None:
    g = BrawlGame(BrawlConfig(num_players=2))
    g.new_game(np.random.default_rng(4))
    sl = OBS_SLICES["known"]
    for seat in (0, 1):
        row = encode(g, seat)[sl].reshape(8, -1)
        assert row[1].tolist() == g.hands[1 - seat].tolist() and not row[0].any()
    same = BrawlGame(BrawlConfig(num_players=2, showdown="same"))
    same.new_game(np.random.default_rng(4))
    assert not encode(same, 0)[sl].any()


def test_default_windows_ask_everyone_and_show_nobody_holds_a_chaos() -> None:
    g = new_game([["FP", "WP"], ["EK", "NK"], ["J", "D"], ["X", "NP"]], rules="standard", chaos_windows=None, skip_forced=False)
    play(g, 0, "FP")
    asked = []
    while g.phase == Phase.WINDOW:
        asked.append(g.current_player())
        play(g, g.current_player(), "PASS")
    assert asked == [2, 3] and not g.known.any()  # holder or not, both asked; nothing recorded


def test_public_memory_blocked_attack_and_chaos_played() -> None:
    g = new_game([["FP", "J", "WK"], ["B", "NK", "X"], ["D", "NP", "EP"]], chaos_windows=False)
    play(g, 0, "FP")
    play(g, 1, "B")  # FIRE PUNCH goes back to seat 0's hand, in front of everyone
    obs = encode(g, 2)[OBS_SLICES["known"]].reshape(8, -1)
    assert obs[1][g.cards.card_of("FIRE PUNCH")] == 1  # seat 0 is relative seat 1 of seat 2
    play(g, 1, "X")
    assert encode(g, 0)[OBS_SLICES["chaos_played"]][1] == 1 and g.chaos_played.tolist() == [0, 1, 0]
    assert g.known[1, CHAOS] == 0


def test_zero_d_numpy_actions_are_taken_as_ints() -> None:
    env = brawl_v0.env(num_players=3)
    env.reset(seed=2)
    p = brawl_v0.parallel_env(num_players=3)
    obs, _ = p.reset(seed=2)
    for _ in range(10):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(np.array(np.flatnonzero(mask)[0]))
        obs, *_ = p.step({a: np.array(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items()})
    assert env.unwrapped.game.actions == p.game.actions and all(isinstance(a, int) for _, a in p.game.actions)


def test_a_refused_reset_leaves_the_game_in_progress_untouched() -> None:
    env = brawl_v0.raw_env(num_players=3)
    env.reset(seed=5)
    for _ in range(6):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    before = copy.deepcopy(env)
    for options, error in [({"deal": {"hands": [], "draw_pile": []}}, DealError), ([("deal", 1)], ConfigError),
                           ("deal", ConfigError)]:
        with pytest.raises(error):
            env.reset(seed=9, options=options)
    with pytest.raises(ConfigError, match="seed must be"):
        env.reset(seed=-1)
    assert env.game.actions == before.game.actions and env.agent_selection == before.agent_selection
    assert env.game_record() == before.game_record()
    for e in (env, before):
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[-1]))
    assert env.game_record() == before.game_record()


@pytest.mark.parametrize("make", [lambda: brawl_v0.env(num_players=4), lambda: brawl_v0.raw_env(num_players=4)])
def test_deepcopy_and_pickle_continue_identically(make) -> None:
    env = make()
    env.reset(seed=8)
    for _ in range(15):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    copies = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]

    def finish(e) -> list:
        out = []
        rng = np.random.default_rng(1)
        for agent in e.agent_iter():
            obs, reward, term, trunc, _ = e.last()
            out.append((agent, obs["observation"].tobytes(), reward))
            e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        return out

    expected = finish(env)
    for c in copies:
        assert finish(c) == expected


def test_info_has_the_mask_only_with_mask_in_info() -> None:
    env = brawl_v0.raw_env(num_players=3)
    env.reset(seed=1)
    assert all("action_mask" not in i for i in env.infos.values())
    env = brawl_v0.raw_env(num_players=3, mask_in_info=True)
    env.reset(seed=1)
    agent = env.agent_selection
    assert np.array_equal(env.infos[agent]["action_mask"], env.observe(agent)["action_mask"])


@pytest.mark.parametrize("hit_draws, drawn", [("one", 1), ("per_attack", 2)])
def test_hit_draws_lever_the_fighter_taking_the_hit_draws_one_or_one_per_attack(hit_draws: str, drawn: int) -> None:
    g = new_game([["FP", "WP"], ["J", "FK"]], pile_top=["EP", "EK"], chaos_windows=False, hit_draws=hit_draws)
    play(g, 0, "FP")
    play(g, 1, "J")
    play(g, 1, "FK")  # the jumper's follow-up: the battle's second attack
    play(g, 0, "PASS")  # seat 0 takes the hit
    assert g.hand_size(0) == 1 + drawn
