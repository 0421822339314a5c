"""The Fifth-Earth AEC env: spaces, masks, infos, waiting agents, options, errors, records, rendering."""

from __future__ import annotations

import json
import random
import warnings

import numpy as np
import pytest
from fifth_earth_helpers import ND, cid, lay_run, run

from fight_envs import fifth_earth_v0
from fight_envs.core.errors import CardDataError, ConfigError, DealError, IllegalActionError, RecordError
from fight_envs.games.fifth_earth.observe import OBS_SIZE
from fight_envs.games.fifth_earth.record import replay
from fight_envs.games.fifth_earth.rules import CHALLENGE_BASE, DESTINATION_BASE, NUM_ACTIONS
from fight_envs.registry import make, spec

INFO_KEYS = {"action_mask", "destinations_won", "destinations", "phase", "knockout_round", "fight", "hand_size"}


def play_random(env, seed: int, policy_seed: int = 0, check=None):
    rng = np.random.default_rng(policy_seed)
    env.reset(seed=seed)
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if check is not None:
            check(env, agent, obs, info)
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
    return steps


@pytest.mark.parametrize("n", [2, 3, 6])
def test_waiting_agents_have_zero_masks_same_info_keys_and_all_end_together(n: int) -> None:
    env = fifth_earth_v0.env(num_players=n, mask_in_info=True)
    seen_acting: set[str] = set()

    def check(e, agent, obs, info):
        assert obs["observation"].shape == (OBS_SIZE,) and obs["observation"].dtype == np.float32
        assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (NUM_ACTIONS,)
        for a in e.agents:
            assert set(e.infos[a]) == INFO_KEYS
            other = e.observe(a)["action_mask"]
            if a != e.agent_selection:
                assert not other.any(), "an agent that is not acting has an all-zero mask"
            assert np.array_equal(other, e.infos[a]["action_mask"])
        if obs["action_mask"].any():
            seen_acting.add(agent)
        if not e.terminations[agent]:
            assert len(e.agents) == n, "every agent stays in the episode until the end"
        else:
            assert all(e.terminations.values()), "all agents end at the same step"

    steps = play_random(env, seed=5, check=check)
    assert steps <= env.unwrapped.max_episode_steps
    assert len(seen_acting) >= 2
    assert env.agents == []


def test_illegal_action_raw_env_raises_and_changes_nothing() -> None:
    env = fifth_earth_v0.raw_env(num_players=2)
    env.reset(seed=3)
    agent = env.agent_selection
    before = env.observe(agent)["observation"].copy()
    with pytest.raises(IllegalActionError, match=r"illegal action 204 .*legal for seat"):
        env.step(CHALLENGE_BASE + 4)
    assert env.agent_selection == agent and np.array_equal(env.observe(agent)["observation"], before)


def test_wrapped_env_ends_the_game_on_an_illegal_action() -> None:
    env = fifth_earth_v0.env(num_players=3)
    env.reset(seed=3)
    offender = env.agent_selection
    env.step(0)  # a LAY action while a destination must be chosen (PettingZoo logs the illegal move)
    assert all(env.terminations.values())
    assert env.rewards[offender] == -1.0 and all(r == 0.0 for a, r in env.rewards.items() if a != offender)


def test_options_are_validated_with_the_allowed_set() -> None:
    with pytest.raises(ConfigError, match="unknown fifth_earth_v0 option 'players'; allowed: .*num_players"):
        fifth_earth_v0.raw_env(players=3)
    with pytest.raises(ConfigError, match="num_players must be an integer in 2..6"):
        fifth_earth_v0.raw_env(num_players=7)
    with pytest.raises(ConfigError, match="format must be one of"):
        fifth_earth_v0.raw_env(format="league")
    with pytest.raises(ConfigError, match="num_destinations"):
        fifth_earth_v0.raw_env(num_destinations=26)
    with pytest.raises(ConfigError, match="ties must be one of"):
        fifth_earth_v0.raw_env(ties="split")
    with pytest.raises(ConfigError, match="reward must be one of"):
        fifth_earth_v0.raw_env(reward="score")
    with pytest.raises(ConfigError, match="viewer"):
        fifth_earth_v0.raw_env(viewer=2)
    env = fifth_earth_v0.raw_env()
    with pytest.warns(UserWarning, match="unknown reset option 'shuffle'"):
        env.reset(seed=0, options={"shuffle": True})
    with pytest.raises(DealError, match="hands\\[1\\] must hold 8"):
        env.reset(seed=0, options={"deals": [{"hands": [run("Greytok", 4) + run("Lumenor", 4), ["Ashvane 1"]]}]})
    with pytest.raises(DealError, match="dealt twice"):
        env.reset(seed=0, options={"deals": [{"hands": [run("Greytok", 4) * 2, run("Greytok", 4) * 2]}]})
    with pytest.raises(DealError, match="dice. must be die faces 1..6"):
        env.reset(seed=0, options={"dice": [7]})


def test_fixed_deals_and_dice_through_reset_options() -> None:
    p0 = run("Ashvane", 4) + run("Mirehound", 4)
    p1 = run("Greytok", 4) + run("Dunspear", 4)  # full runs of 20 against P0's 24
    env = fifth_earth_v0.env(num_players=2, rules="classic")
    env.reset(seed=0, options={"deals": [{"hands": [p0, p1]}], "dice": [6, 5, *ND, 6, 4, 2, 1, *ND, *ND, *ND, *ND]})
    assert env.agent_selection == "player_0"
    env.step(DESTINATION_BASE + 2)
    env.step(CHALLENGE_BASE)
    assert env.infos["player_0"]["hand_size"] == 8 and env.observe("player_1")["observation"][4 + cid("Greytok 1")] == 1
    for action in [lay_run("Greytok", 4), lay_run("Ashvane", 4), lay_run("Mirehound", 4), lay_run("Dunspear", 4)]:
        env.step(action)
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert env.infos["player_0"]["destinations_won"] == 1
    assert env.infos["player_1"]["destinations"].tolist() == [0, 1]  # egocentric


def test_destination_reward_pays_each_claim() -> None:
    env = fifth_earth_v0.env(num_players=3, num_destinations=2, reward="destination")
    totals = dict.fromkeys(env.possible_agents, 0.0)
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        totals[agent] += rew
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    won = env.unwrapped.game.destinations_won
    assert sum(totals.values()) == pytest.approx(0.0)
    for i, a in enumerate(env.possible_agents):
        assert totals[a] == pytest.approx(won[i] - (2 - won[i]) / 2)


def test_max_steps_truncates() -> None:
    env = fifth_earth_v0.env(num_players=2, max_steps=5)
    steps = play_random(env, seed=1)
    assert steps == 5 and env.unwrapped.max_episode_steps == 5


def test_reset_seed_reproduces_the_game_and_ignores_global_random_state() -> None:
    def trace(seed: int) -> list:
        env = fifth_earth_v0.raw_env(num_players=4)
        out = []

        def check(e, agent, obs, info):
            random.random()
            np.random.random()  # global state is never used
            out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes()))

        play_random(env, seed=seed, check=check)
        return out + [env.game_record()]

    np.random.seed(1)
    a = trace(21)
    np.random.seed(2)
    assert trace(21) == a
    assert trace(22) != a


@pytest.mark.parametrize("options", [{"num_players": 2}, {"num_players": 5, "num_destinations": 2},
                                     {"num_players": 4, "format": "royale", "won_cards": "hand"}])
def test_game_record_is_json_and_replays_observations_and_results(options: dict) -> None:
    from fight_envs.games.fifth_earth.observe import encode

    env = fifth_earth_v0.raw_env(**options)
    seen = []
    play_random(env, seed=8, check=lambda e, a, o, i: seen.append((a, o["observation"].copy())) if o["action_mask"].any() else None)
    record = json.loads(json.dumps(env.game_record()))
    assert record["finished"] and len(record["actions"]) == len(seen)
    replayed = []
    game = replay(record, on_step=lambda g, seat, action: replayed.append((f"player_{seat}", encode(g, seat))))
    assert game.destinations_won.tolist() == record["destinations_won"]
    assert all(a == b and np.array_equal(x, y) for (a, x), (b, y) in zip(seen, replayed))
    bad = dict(record, destinations_won=[9] * options["num_players"])
    with pytest.raises(RecordError, match="destinations won"):
        replay(bad)
    with pytest.raises(RecordError, match="not a Fifth-Earth record"):
        replay({"format": "x"})


def test_render_shows_only_the_viewers_cards() -> None:
    p0 = run("Ashvane", 4) + run("Mirehound", 4)
    p1 = run("Greytok", 4) + run("Lumenor", 4)
    env = fifth_earth_v0.env(num_players=2, render_mode="ansi", viewer=1, rules="classic")
    env.reset(seed=0, options={"deals": [{"hands": [p0, p1]}], "dice": [6, 5, *ND, 6, 4, 2, 1, *ND, *ND]})
    env.step(DESTINATION_BASE)
    env.step(CHALLENGE_BASE)
    env.step(lay_run("Greytok", 2))
    text = env.render()
    assert "Lumenor 1" in text and "Ashvane" not in text and "Mirehound" not in text
    assert "P1 [?]x2" in text, "face-down cards show as a count"
    quiet = fifth_earth_v0.env(num_players=2, rules="classic")
    quiet.reset(seed=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert quiet.render() is None
    assert any("render_mode" in str(w.message) for w in caught)


def test_registry_lists_the_env_and_builds_it() -> None:
    s = spec("fifth_earth_v0")
    assert s.options["num_players"] == 2 and s.rules == "seeds/fifth_earth.md"
    env = make("fifth_earth_v0", num_players=3)
    env.reset(seed=0)
    assert len(env.agents) == 3
    with pytest.raises(ConfigError, match="unknown api 'parallel'"):
        make("fifth_earth_v0", api="parallel")


def test_bad_card_file_names_the_field(tmp_path) -> None:
    from fight_envs.games.fifth_earth.cards import load_cards

    data = json.loads((__import__("pathlib").Path(fifth_earth_v0.__file__).parent / "games" / "fifth_earth"
                       / "cards.json").read_text())
    data["characters"][3]["stages"] = [1, 2, 3]
    path = tmp_path / "cards.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CardDataError, match=r"characters\[3\].stages must be 4 integers"):
        fifth_earth_v0.raw_env(cards=str(path))
    assert load_cards().stage_power.shape == (25, 4)
