"""The Fight 5 environments' contract beyond PettingZoo's own tests.

Illegal actions (raise and change nothing, or end the game with -1 for the offender), options
(fixed deals, malformed deals, unknown keys), the info dict, episode length and agent lifetime,
and the two reward modes.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest
from pettingzoo.utils.env_logger import EnvLogger

from fight_envs import fight5_v0
from fight_envs.core.errors import ConfigError, DealError, IllegalActionError
from fight_envs.games.fight5.cards import NUM_RANKS, RANK_NAMES
from fight_envs.games.fight5.observe import OBS_SLICES
from fight_envs.games.fight5.rules import Fight5Config, Fight5Game


def random_action(obs: dict[str, np.ndarray], rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


def advance(env: Any, steps: int, rng: np.random.Generator) -> None:
    """Play ``steps`` random legal AEC steps."""
    for _ in range(steps):
        env.step(random_action(env.observe(env.agent_selection), rng))


def snapshot(env: Any) -> dict[str, Any]:
    """Everything an AEC env exposes, copied."""
    u = env.unwrapped
    return copy.deepcopy({
        "record": u.game_record(),
        "obs": {a: u.observe(a) for a in u.agents},
        "infos": u.infos,
        "rewards": u.rewards,
        "cumulative": u._cumulative_rewards,
        "terminations": u.terminations,
        "selection": u.agent_selection,
        "version": u.game.version,
        "hands": u.game.hands,
        "committed": u.game.committed,
    })


def assert_same(a: Any, b: Any, where: str = "") -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            assert_same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and np.array_equal(a, b), where
    else:
        assert a == b, where


def illegal_for(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask == 0)[0])


# ----------------------------------------------------------------------------- illegal actions
@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_raw_env_illegal_action_raises_and_changes_nothing(num_players: int) -> None:
    env = fight5_v0.raw_env(num_players=num_players)
    env.reset(seed=3)
    advance(env, 7, np.random.default_rng(0))
    mask = env.observe(env.agent_selection)["action_mask"]
    action = illegal_for(mask)
    legal = ", ".join(f"{a} ({RANK_NAMES[a]})" for a in np.flatnonzero(mask))
    before = snapshot(env)
    with pytest.raises(IllegalActionError) as err:
        env.step(action)
    message = str(err.value)
    assert f"illegal action {action} ({RANK_NAMES[action]})" in message
    assert f"legal actions: {legal}" in message
    assert_same(snapshot(env), before)
    env.step(int(np.flatnonzero(mask)[0]))  # the game goes on
    assert len(env.unwrapped.game.actions) == 8


@pytest.mark.parametrize("action", [NUM_RANKS, -1, "3", 2.0, True, None])
def test_raw_env_rejects_actions_that_are_not_ranks(action: Any) -> None:
    env = fight5_v0.raw_env()
    env.reset(seed=1)
    before = snapshot(env)
    with pytest.raises(IllegalActionError, match="illegal action"):
        env.step(action)
    assert_same(snapshot(env), before)


@pytest.mark.parametrize("num_players", [2, 4])
def test_wrapped_env_illegal_action_ends_the_game(num_players: int) -> None:
    env = fight5_v0.env(num_players=num_players)
    env.reset(seed=5)
    advance(env, 6, np.random.default_rng(1))
    offender = env.agent_selection
    EnvLogger.flush()
    env.step(illegal_for(env.observe(offender)["action_mask"]))
    assert any("Illegal move" in str(m) for m in EnvLogger.mqueue), "a warning is issued"
    final: dict[str, float] = {}
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        assert term or trunc
        final[agent] = reward
        env.step(None)
    assert final == {a: (-1.0 if a == offender else 0.0) for a in env.possible_agents}
    assert env.agents == []


def test_parallel_env_illegal_action_ends_the_game() -> None:
    env = fight5_v0.parallel_env(num_players=3)
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(0)
    actions = {a: random_action(obs[a], rng) for a in env.agents}
    actions["player_1"] = illegal_for(obs["player_1"]["action_mask"])
    with pytest.warns(UserWarning, match=r"illegal action by \['player_1'\]"):
        obs, rewards, terms, truncs, infos = env.step(actions)
    assert rewards == {"player_0": 0.0, "player_1": -1.0, "player_2": 0.0}
    assert all(terms.values()) and not any(truncs.values())
    assert env.agents == []
    assert all(not o["action_mask"].any() for o in obs.values())
    assert len(env.unwrapped.game.actions) == 0, "no action of the illegal step is applied"


def test_parallel_raw_env_illegal_action_raises_and_changes_nothing() -> None:
    env = fight5_v0.parallel_raw_env(num_players=3)
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(0)
    env.step({a: random_action(obs[a], rng) for a in env.agents})
    obs = {a: env.table.observation(env.table.seat[a], True) for a in env.agents}
    game = env.unwrapped.game
    before = copy.deepcopy((game.actions, game.hands, game.committed, game.version, env.agents))
    actions = {a: random_action(obs[a], rng) for a in env.agents}
    bad = illegal_for(obs["player_2"]["action_mask"])
    actions["player_2"] = bad
    with pytest.raises(IllegalActionError, match=rf"illegal action {bad} \({RANK_NAMES[bad]}\) for seat 2"):
        env.step(actions)
    after = (game.actions, game.hands, game.committed, game.version, env.agents)
    assert before[0] == after[0] and before[3] == after[3] and before[4] == after[4]
    assert np.array_equal(before[1], after[1]) and np.array_equal(before[2], after[2])


def test_parallel_step_needs_one_action_per_agent_and_a_live_game() -> None:
    env = fight5_v0.parallel_raw_env(num_players=2, num_bouts=1)
    obs, _ = env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="missing \\['player_1'\\]"):
        env.step({"player_0": random_action(obs["player_0"], np.random.default_rng(0))})
    rng = np.random.default_rng(0)
    while env.agents:
        obs, *_ = env.step({a: random_action(obs[a], rng) for a in env.agents})
    with pytest.raises(IllegalActionError, match="game is over"):
        env.step({"player_0": 0, "player_1": 0})


# ----------------------------------------------------------------------------- options
def a_deal(num_players: int, seed: int) -> dict[str, Any]:
    game = Fight5Game(Fight5Config(num_players=num_players))
    game.new_game(np.random.default_rng(seed))
    return game.deals_used[0].to_json()


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_fixed_deal_is_used(num_players: int) -> None:
    deal = a_deal(num_players, seed=1000 + num_players)
    env = fight5_v0.raw_env(num_players=num_players, num_bouts=2)
    env.reset(seed=1, options={"deals": [deal]})
    game = env.unwrapped.game
    tops = [RANK_NAMES.index(stack[0]) for stack in deal["clash_stacks"]]
    assert game.clash_card.tolist() == tops, "the top card of each stack is flipped"
    for seat, deck in enumerate(deal["player_decks"]):
        hand = np.bincount([RANK_NAMES.index(c) for c in deck[:5]], minlength=NUM_RANKS)
        assert game.hands[seat].tolist() == hand.tolist(), f"seat {seat} draws the top five cards"
        obs = env.observe(f"player_{seat}")["observation"]
        assert np.allclose(obs[OBS_SLICES["hand"]] * 2, hand)
    assert game.deals_used[0].to_json() == deal
    # The same deal whatever the seed; the bout without a deal is shuffled from the seed.
    other = fight5_v0.raw_env(num_players=num_players, num_bouts=2)
    other.reset(seed=2, options={"deals": [deal]})
    assert other.unwrapped.game.clash_card.tolist() == tops


def test_deal_accepts_numbers_and_star_spellings() -> None:
    deal = a_deal(2, seed=4)
    spelled = {key: [[int(c) if c.isdigit() else "*" for c in seq] for seq in deal[key]] for key in deal}
    env = fight5_v0.raw_env(num_players=2)
    env.reset(seed=0, options={"deals": [spelled]})
    assert env.unwrapped.game.deals_used[0].to_json() == deal


def malformed(change: Any) -> Any:
    """A 2-player deal edited in place by ``change``, or what ``change`` returns if it is a string."""
    deal = a_deal(2, seed=7)
    replacement = change(deal)
    return replacement if isinstance(replacement, str) else deal


MALFORMED_DEALS = [
    pytest.param(lambda d: d["clash_stacks"].pop(), "clash_stacks must list 5 stacks for 2 players", id="four-stacks"),
    pytest.param(lambda d: d["player_decks"].pop(), "player_decks must list 2 decks", id="one-deck"),
    pytest.param(lambda d: d["clash_stacks"][2].__setitem__(1, "14"),
                 r"deals\[0\].clash_stacks\[2\]: unknown Fight 5 card '14'", id="bad-card-name"),
    pytest.param(lambda d: d["clash_stacks"][0].__delitem__(-1), r"clash_stacks\[0\] must be a list of 5 cards",
                 id="short-stack"),
    pytest.param(lambda d: d["player_decks"][1].__setitem__(d["player_decks"][1].index("2"), "star"),
                 r"player_decks\[1\] is not a full Player Deck", id="two-stars-in-a-deck"),
    pytest.param(lambda d: d["player_decks"][0].__delitem__(-1), r"player_decks\[0\] must be a list of 25 cards",
                 id="24-card-deck"),
    pytest.param(lambda d: d.__setitem__("clash_stacks", [["star"] * 5] + d["clash_stacks"][1:]),
                 r"more copies than the Clash Deck holds of \['star'\]", id="too-many-stars"),
    pytest.param(lambda d: d.pop("player_decks"), "exactly the keys", id="missing-key"),
    pytest.param(lambda d: "not a deal", "must be a dict", id="not-a-dict"),
]


@pytest.mark.parametrize("change,message", MALFORMED_DEALS)
def test_malformed_deal_raises(change: Any, message: str) -> None:
    env = fight5_v0.env(num_players=2)
    with pytest.raises(DealError, match=message):
        env.reset(seed=0, options={"deals": [malformed(change)]})


def test_more_deals_than_bouts_raises() -> None:
    env = fight5_v0.raw_env(num_players=2, num_bouts=1)
    with pytest.raises(ConfigError, match="at most 1 bout deals"):
        env.reset(seed=0, options={"deals": [a_deal(2, 1), a_deal(2, 2)]})


def test_unknown_reset_option_warns() -> None:
    # PettingZoo's api_test passes an arbitrary reset option, so unknown keys only warn.
    env = fight5_v0.raw_env(num_players=2)
    with pytest.warns(UserWarning, match="unknown reset option 'speed'.*allowed: deals"):
        env.reset(seed=0, options={"speed": 2})
    assert env.agents == ["player_0", "player_1"]


@pytest.mark.parametrize("factory", [fight5_v0.env, fight5_v0.raw_env, fight5_v0.parallel_env,
                                     fight5_v0.parallel_raw_env])
def test_unknown_constructor_option_raises(factory: Any) -> None:
    with pytest.raises(ConfigError, match="unknown fight5_v0 option 'speed'; allowed: .*num_players"):
        factory(speed=2)


@pytest.mark.parametrize("options,message", [
    ({"num_players": 6}, "num_players"),
    ({"num_players": 1}, "num_players"),
    ({"num_bouts": 0}, "num_bouts"),
    ({"target_score": 0}, "target_score"),
    ({"reward": "points"}, "reward"),
    ({"render_mode": "pixels"}, "render_mode"),
    ({"viewer": 2}, "viewer"),
])
def test_bad_option_values_raise(options: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        fight5_v0.raw_env(**options)


# ----------------------------------------------------------------------------- infos
def assert_info_values(info: dict[str, Any]) -> None:
    for key, value in info.items():
        ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
        ok = ok or (isinstance(value, np.ndarray) and value.dtype.kind in "iuf")
        assert ok, f"info[{key!r}] = {value!r} is not a number or a numeric array"


@pytest.mark.parametrize("factory", [fight5_v0.env, fight5_v0.raw_env])
def test_aec_info_keys_are_stable_and_mask_matches(factory: Any) -> None:
    env = factory(num_players=3, num_bouts=1, mask_in_info=True)
    env.reset(seed=4)
    keys = {a: set(env.infos[a]) for a in env.agents}
    assert all(k == keys["player_0"] for k in keys.values())
    rng = np.random.default_rng(4)
    held: list[tuple[np.ndarray, np.ndarray]] = []
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        for other in env.agents:
            assert set(env.infos[other]) == keys[other]
            assert_info_values(env.infos[other])
            assert np.array_equal(env.infos[other]["action_mask"], env.observe(other)["action_mask"])
            held.append((env.infos[other]["scores"], env.infos[other]["scores"].copy()))
        env.step(None if term or trunc else random_action(obs, rng))
    for array, copied in held:
        assert np.array_equal(array, copied), "an info array handed out earlier changed later"


def test_parallel_info_keys_are_stable_and_mask_matches() -> None:
    env = fight5_v0.parallel_env(num_players=4, num_bouts=1, mask_in_info=True)
    obs, infos = env.reset(seed=4)
    keys = set(infos["player_0"])
    rng = np.random.default_rng(4)
    while True:
        for agent, info in infos.items():
            assert set(info) == keys
            assert_info_values(info)
            assert np.array_equal(info["action_mask"], obs[agent]["action_mask"])
        if not env.agents:
            break
        obs, _, _, _, infos = env.step({a: random_action(obs[a], rng) for a in env.agents})


# ----------------------------------------------------------------------------- episodes
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
@pytest.mark.parametrize("num_bouts", [1, 2])
def test_aec_episode_length_and_agent_lifetime(num_players: int, num_bouts: int) -> None:
    env = fight5_v0.env(num_players=num_players, num_bouts=num_bouts, target_score=None)
    env.reset(seed=num_players)
    rng = np.random.default_rng(0)
    decisions = dict.fromkeys(env.possible_agents, 0)
    dead_steps: dict[str, int] = {}
    for step, agent in enumerate(env.agent_iter()):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            dead_steps.setdefault(agent, step)
            env.step(None)
            continue
        assert env.agents == env.possible_agents, "every agent stays until the end"
        assert not any(env.terminations.values())
        decisions[agent] += 1
        env.step(random_action(obs, rng))
    assert decisions == dict.fromkeys(env.possible_agents, num_bouts * 25)
    assert env.unwrapped.max_episode_steps == num_bouts * 25 * num_players
    live = num_bouts * 25 * num_players
    assert sorted(dead_steps.values()) == list(range(live, live + num_players)), "all end at the same step"


@pytest.mark.parametrize("num_players", [2, 5])
def test_parallel_episode_length_and_agent_lifetime(num_players: int) -> None:
    env = fight5_v0.parallel_env(num_players=num_players, num_bouts=2, target_score=None)
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(1)
    steps = 0
    while env.agents:
        assert env.agents == env.possible_agents
        obs, _, terms, truncs, _ = env.step({a: random_action(obs[a], rng) for a in env.agents})
        steps += 1
        assert len(set(terms.values())) == 1 and not any(truncs.values()), "all end at the same step"
    assert steps == 2 * 25 == env.unwrapped.max_episode_steps


# ----------------------------------------------------------------------------- rewards
def play_aec_rewards(env: Any, seed: int) -> dict[str, float]:
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        env.step(None if term or trunc else random_action(obs, rng))
    return totals


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_outcome_rewards_are_the_game_returns(num_players: int) -> None:
    env = fight5_v0.env(num_players=num_players, num_bouts=1)
    totals = play_aec_rewards(env, seed=20 + num_players)
    game = env.unwrapped.game
    expected = game.returns()
    assert [totals[a] for a in env.possible_agents] == expected.tolist()
    winners = game.winners()
    assert set(expected[winners]) == ({1.0} if len(winners) == 1 else {0.0})


@pytest.mark.parametrize("num_players", [2, 4])
def test_score_rewards_are_bout_point_differences(num_players: int) -> None:
    env = fight5_v0.env(num_players=num_players, num_bouts=3, target_score=None, reward="score")
    totals = play_aec_rewards(env, seed=30 + num_players)
    game = env.unwrapped.game
    expected = np.zeros(num_players)
    for points in game.bout_points:
        expected += (points - (points.sum() - points) / (num_players - 1)) / 100.0
    assert np.allclose([totals[a] for a in env.possible_agents], expected)
    assert abs(sum(totals.values())) < 1e-9, "score rewards are zero-sum"
