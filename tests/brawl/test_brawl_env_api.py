"""The Brawl envs as an API: options, errors, info, rewards, truncation, deals, rendering, records."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from brawl_scenario import make_deal, small_cards

from fight_envs import brawl_v0
from fight_envs.core.errors import ConfigError, DealError, IllegalActionError, RecordError
from fight_envs.games.brawl.cards import CLASSIC_CARDS
from fight_envs.games.brawl.observe import OBS_SIZE, OBS_SLICES, encode
from fight_envs.games.brawl.record import replay
from fight_envs.games.brawl.rules import NUM_ACTIONS, PASS
from fight_envs.registry import make, spec

INFO_KEYS = {"action_mask", "hand_size", "hand_sizes", "place", "steps", "phase"}


def _play_random(env, rng: np.random.Generator, check=None) -> int:
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if check is not None:
            check(env, agent, obs, info)
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
        steps += 1
    return steps


def deal_json(hands, pile_top=(), cards=CLASSIC_CARDS) -> dict:
    """A fixed deal of the classic deck (six cards a hand); the envs below take ``rules="classic"``."""
    return make_deal(hands, pile_top, cards).to_json(cards)


def test_spaces_are_the_same_for_every_agent_and_every_player_count() -> None:
    for n in (2, 5, 8):
        env = brawl_v0.env(num_players=n)
        assert env.possible_agents == [f"player_{i}" for i in range(n)]
        for a in env.possible_agents:
            space = env.observation_space(a)
            assert space["observation"].shape == (OBS_SIZE,) and space["action_mask"].shape == (NUM_ACTIONS,)
            assert env.action_space(a).n == NUM_ACTIONS == 16


def test_mask_is_the_legal_set_and_zero_for_everyone_else_and_info_keys_never_change() -> None:
    env = brawl_v0.raw_env(num_players=4, mask_in_info=True)
    env.reset(seed=3)

    def check(env, agent, obs, info):
        assert set(info) == INFO_KEYS
        assert all(isinstance(v, (int, np.ndarray)) for v in info.values())
        g = env.unwrapped.game
        for a in env.agents:
            mask = env.observe(a)["action_mask"]
            assert mask.dtype == np.int8 and np.array_equal(mask, env.infos[a]["action_mask"])
            seat = int(a.split("_")[1])
            if a == env.agent_selection and not g.is_over():
                assert mask.tolist() == [int(x in g.legal_actions(seat)) for x in range(NUM_ACTIONS)]
            else:
                assert not mask.any()

    _play_random(env, np.random.default_rng(0), check)


def test_every_agent_ends_at_the_same_step_with_rank_rewards() -> None:
    env = brawl_v0.env(num_players=5)
    env.reset(seed=11)
    _play_random(env, np.random.default_rng(1))
    g = env.unwrapped.game
    assert g.is_terminal() and env.agents == []
    assert sorted(g.returns("rank").tolist()) == [-1.0, -0.5, 0.0, 0.5, 1.0]


def test_truncation_not_termination_when_the_step_limit_is_hit() -> None:
    env = brawl_v0.raw_env(num_players=3, max_steps=5)
    env.reset(seed=0)
    ended = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            ended.append((agent, reward, term, trunc))
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.unwrapped.game.steps == 5 and env.unwrapped.game.truncated
    assert [e[2:] for e in ended] == [(False, True)] * 3
    rewards = [e[1] for e in ended]
    assert abs(sum(rewards)) < 1e-9  # rank rewards are zero-sum, with the unfinished sharing places


def test_raw_env_illegal_action_raises_and_changes_nothing() -> None:
    env = brawl_v0.raw_env(num_players=3, rules="classic")
    env.reset(seed=0, options={"deal": deal_json([["FP", "WP", "EP", "EK", "NK", "NP"], ["J"] * 6,
                                                  ["D", "D", "D", "D", "C", "C"]])})
    before = (env.observe("player_0")["observation"].copy(), env.agent_selection)
    with pytest.raises(IllegalActionError, match=r"action 13 is not legal for seat 0 in phase ATTACK; legal: 0 \(FIRE PUNCH\)"):
        env.step(PASS)
    assert np.array_equal(env.observe("player_0")["observation"], before[0]) and env.agent_selection == before[1]


def test_wrapped_env_ends_the_game_on_an_illegal_action() -> None:
    env = brawl_v0.env(num_players=2)
    env.reset(seed=0)
    assert env.unwrapped.game.phase.name == "ATTACK"
    env.step(14)  # CLOCKWISE is only a choice after a CHAOS (PettingZoo logs the illegal move)
    assert all(env.terminations.values()) and sorted(env.rewards.values()) == [-1.0, 0.0]


@pytest.mark.parametrize(
    "options, message",
    [
        pytest.param({"num_players": 9}, "num_players must be an int in 2..8", id="nine-players"),
        pytest.param({"num_players": 1}, "num_players must be an int in 2..8", id="one-player"),
        pytest.param({"reward": "score"}, "reward must be one of", id="bad-reward"),
        pytest.param({"max_steps": 0}, "max_steps must be None or an int >= 1", id="bad-limit"),
        pytest.param({"chaos_windows": "yes"}, "chaos_windows must be True, False or 'all'", id="bad-windows"),
        pytest.param({"viewer": 3}, "viewer must be None or a seat in 0..1", id="bad-viewer"),
        pytest.param({"render_mode": "pixels"}, "render_mode must be None or one of", id="bad-render"),
        pytest.param({"colour": "red"}, "unknown brawl_v0 option 'colour'; allowed: ask_noops, cards, chaos_windows", id="unknown"),
    ],
)
def test_bad_options_raise_config_error(options: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        brawl_v0.raw_env(**options)
    with pytest.raises(ConfigError, match=message):
        brawl_v0.parallel_env(**options)


def test_unknown_reset_option_only_warns() -> None:
    env = brawl_v0.raw_env()
    with pytest.warns(UserWarning, match="unknown reset option 'colour'"):
        env.reset(seed=0, options={"colour": "red"})


def test_fixed_deal_through_reset_options_and_its_errors() -> None:
    env = brawl_v0.raw_env(num_players=2, rules="classic")
    deal = deal_json([["X", "FP", "FK", "WP", "WK", "J"], ["B", "B", "D", "D", "C", "C"]], ["EP"])
    env.reset(seed=5, options={"deal": deal})
    g = env.unwrapped.game
    assert g.hands[0, 12] == 1 and g.hands[1, 11] == 2 and g.draw_pile[-1] == CLASSIC_CARDS.card_of("EARTH PUNCH")
    bad = json.loads(json.dumps(deal))
    bad["hands"][0][0] = "FIRE PUNCH"
    with pytest.raises(DealError, match="differ from the deck by"):
        env.reset(seed=5, options={"deal": bad})
    bad["hands"][0] = bad["hands"][0][:5]
    with pytest.raises(DealError, match="hands\\[0\\] holds 5 cards; each fighter is dealt 6"):
        env.reset(seed=5, options={"deal": bad})
    with pytest.raises(DealError, match="unknown Brawl card 'LASER'"):
        env.reset(options={"deal": {"hands": [["LASER"] * 6] * 2, "draw_pile": []}})


def test_observation_hides_other_hands_and_the_draw_pile() -> None:
    """Two deals that differ only in what seat 0 cannot see give seat 0 the same observation."""
    mine = ["FP", "WP", "EP", "X", "J", "D"]
    a = deal_json([mine, ["FK", "FK", "NK", "NK", "B", "C"], ["EK", "EK", "WK", "WK", "J", "J"]])
    b = deal_json([mine, ["EK", "WK", "J", "NK", "B", "C"], ["FK", "FK", "EK", "WK", "J", "NK"]])
    envs = [brawl_v0.raw_env(num_players=3, rules="classic"), brawl_v0.raw_env(num_players=3, rules="classic")]
    envs[0].reset(seed=1, options={"deal": a})
    envs[1].reset(seed=1, options={"deal": b})
    g0, g1 = envs[0].unwrapped.game, envs[1].unwrapped.game
    g1.draw_pile.reverse()  # the pile's order is hidden too
    assert not np.array_equal(g0.hands, g1.hands)
    assert np.array_equal(encode(g0, 0), encode(g1, 0))
    assert not np.array_equal(encode(g0, 1), encode(g1, 1))  # seat 1 does see its own hand


def test_observation_is_egocentric() -> None:
    env = brawl_v0.raw_env(num_players=3)
    env.reset(seed=0)
    obs = env.observe("player_1")["observation"]
    assert obs[OBS_SLICES["actor"]].tolist()[:3] == [0, 0, 1]  # seat 0 is two seats clockwise of seat 1
    assert obs[OBS_SLICES["present"]].tolist() == [1, 1, 1, 0, 0, 0, 0, 0]


def test_render_shows_only_the_viewers_hand() -> None:
    deal = deal_json([["X", "FP", "FK", "WP", "WK", "J"], ["B", "B", "D", "D", "C", "C"]])
    env = brawl_v0.raw_env(num_players=2, render_mode="ansi", viewer=1, rules="classic")
    env.reset(seed=0, options={"deal": deal})
    text = env.render()
    assert "your hand (P1): 2x DODGE, 2x COUNTER, 2x BLOCK" in text and "CHAOS" not in text.split("hand")[-1]
    assert "FIRE" not in text
    env = brawl_v0.raw_env(num_players=2, render_mode="ansi", rules="classic")
    env.reset(seed=0, options={"deal": deal})
    assert "your hand" not in env.render()
    with pytest.warns(UserWarning, match="without a render_mode"):
        brawl_v0.raw_env().render()


def test_reset_with_a_seed_reproduces_the_game_and_seeds_differ() -> None:
    def trace(seed: int) -> list:
        env = brawl_v0.raw_env(num_players=4)
        env.reset(seed=seed)
        out = []
        rng = np.random.default_rng(0)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            out.append(obs["observation"].tobytes())
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        return out

    assert trace(7) == trace(7)
    assert trace(7) != trace(8)


def test_game_record_is_json_and_replays_observations_and_results() -> None:
    env = brawl_v0.raw_env(num_players=5)
    env.reset(seed=21)
    seen = []

    def check(env, agent, obs, info):
        if agent == env.agent_selection and not env.unwrapped.game.is_over():
            seen.append(env.observe(agent)["observation"].copy())

    _play_random(env, np.random.default_rng(2), check)
    record = json.loads(json.dumps(env.unwrapped.game_record()))
    replayed = []
    game = replay(record, on_step=lambda g, seat, a: replayed.append(encode(g, seat)))
    assert len(seen) == len(replayed) and all(np.array_equal(a, b) for a, b in zip(seen, replayed))
    assert game.finish_order == env.unwrapped.game.finish_order
    tampered = dict(record, finish_order=[[0]])
    with pytest.raises(RecordError, match="finishing order"):
        replay(tampered)
    with pytest.raises(RecordError, match="not a Brawl record"):
        replay({"format": "x"})


@pytest.mark.parametrize("options", [{"num_players": 3}, {"num_players": 5, "rules": "classic"}])
def test_parallel_env_applies_only_the_deciders_action(options: dict) -> None:
    """Every live agent has a non-empty mask: the decider its legal set, everyone else PASS (wait)."""
    env = brawl_v0.parallel_env(**options)
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(0)
    steps = 0
    wait = np.eye(NUM_ACTIONS, dtype=np.int8)[PASS]
    while env.agents:
        decider = env.possible_agents[env.game.current_player()]
        for a in env.agents:
            assert obs[a]["action_mask"].any()
            if a != decider:
                assert np.array_equal(obs[a]["action_mask"], wait)
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, *_ = env.step(actions)
        steps += 1
    assert steps == env.game.steps and env.game.is_over()


def test_parallel_env_refuses_anything_but_pass_from_an_agent_that_is_not_deciding() -> None:
    env = brawl_v0.parallel_raw_env(num_players=3)
    env.reset(seed=1)
    before = env.game.clone()
    actions = {a: PASS for a in env.agents}
    actions[env.possible_agents[env.game.current_player()]] = env.game.legal_actions(env.game.current_player())[0]
    other = next(a for a in env.agents if env.table.seat[a] != env.game.current_player())
    actions[other] = 0
    with pytest.raises(IllegalActionError, match="not deciding and must send PASS"):
        env.step(actions)
    assert env.game.actions == before.actions and np.array_equal(env.game.hands, before.hands)
    wrapped = brawl_v0.parallel_env(num_players=3)
    wrapped.reset(seed=1)
    with pytest.warns(UserWarning, match="must send PASS"):
        _, rewards, terms, _, _ = wrapped.step(actions)
    assert rewards[other] == -1.0 and all(terms.values())


def test_registry_lists_brawl_and_builds_every_api() -> None:
    s = spec("brawl_v0")
    assert s.options["num_players"] == 2 and s.rules == "seeds/brawl.md"
    for api in ("aec", "raw", "parallel", "parallel_raw"):
        e = make("brawl_v0", api=api, num_players=8)
        assert len(e.possible_agents) == 8


def test_scenario_cards_work_in_the_env_through_a_card_file(tmp_path) -> None:
    cards = small_cards(1)
    path = tmp_path / "cards.json"
    path.write_text(json.dumps(cards.to_json()))
    env = brawl_v0.raw_env(num_players=8, cards=str(path), skip_forced=False)  # nothing applied before we look
    env.reset(seed=0)
    assert env.unwrapped.game.hands.sum() == 16
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _play_random(env, np.random.default_rng(0))


def test_documentation_card_states_the_real_sizes() -> None:
    from fight_envs.envs import brawl as card

    assert f"Box(0, 200, ({OBS_SIZE},), float32)" in card.__doc__
    assert f"Discrete({NUM_ACTIONS})" in card.__doc__
