"""The Fight Klub AEC environment: PettingZoo conformance for every deck pair, and its API contract."""

from __future__ import annotations

import itertools
import json
import warnings

import numpy as np
import pytest

from fight_envs import fight_klub_v0
from fight_envs.core.errors import ConfigError, IllegalActionError
from fight_envs.games.fight_klub.cards import DEFAULT_POOL, DeckError
from fight_envs.games.fight_klub.observe import OBS_SIZE
from fight_envs.games.fight_klub.record import replay
from fight_envs.games.fight_klub.rules import NUM_ACTIONS
from fight_envs.registry import make, spec

DECK_NAMES = list(DEFAULT_POOL.decks)
ALL_PAIRS = list(itertools.product(DECK_NAMES, DECK_NAMES))
# the default suite: every deck on both seats and one mirror match (the full product is slow)
PAIRS = [(a, DECK_NAMES[(i + 1) % len(DECK_NAMES)]) for i, a in enumerate(DECK_NAMES)] + [(DECK_NAMES[0], DECK_NAMES[0])]
INFO_KEYS = {"action_mask", "score", "damage_dealt", "damage_taken", "life", "turn", "has_drop", "decision"}


def _quiet():
    w = warnings.catch_warnings()
    w.__enter__()
    warnings.filterwarnings("ignore", message=r"unknown reset option")
    warnings.filterwarnings("ignore", message=r"Observation is not a NumPy array")
    warnings.filterwarnings("ignore", message=r"Observation space for each agent probably should be")
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    return w


@pytest.mark.parametrize("pair", [pytest.param(p, id=f"{p[0]}-{p[1]}",
                                              marks=() if p in PAIRS else pytest.mark.slow) for p in ALL_PAIRS])
def test_pettingzoo_api_and_seed_tests_every_deck_pair(pair: tuple[str, str]) -> None:
    w = _quiet()
    try:
        from pettingzoo.test import api_test, seed_test

        api_test(fight_klub_v0.env(decks=list(pair)), num_cycles=300)
        seed_test(lambda **kw: fight_klub_v0.env(decks=list(pair), **kw), num_cycles=300)
    finally:
        w.__exit__(None, None, None)


def test_render_test() -> None:
    w = _quiet()
    try:
        from pettingzoo.test import render_test

        render_test(lambda render_mode=None: fight_klub_v0.env(render_mode=render_mode))
    finally:
        w.__exit__(None, None, None)


def _random_game(env, seed: int, options=None):
    env.reset(seed=seed, options=options)
    rng = np.random.default_rng(seed)
    trace = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        trace.append((agent, obs["observation"].copy(), action))
        env.step(action)
    return trace


def test_reset_seed_reproduces_exactly() -> None:
    a = _random_game(fight_klub_v0.raw_env(), 7)
    b = _random_game(fight_klub_v0.raw_env(), 7)
    assert len(a) == len(b) and all(x[0] == y[0] and x[2] == y[2] and np.array_equal(x[1], y[1]) for x, y in zip(a, b))
    c = _random_game(fight_klub_v0.raw_env(), 8)
    assert [x[2] for x in a] != [x[2] for x in c]


def test_spaces_masks_and_infos() -> None:
    env = fight_klub_v0.raw_env(mask_in_info=True)
    env.reset(seed=3)
    for agent in env.possible_agents:
        assert env.observation_space(agent)["observation"].shape == (OBS_SIZE,)
        assert env.action_space(agent).n == NUM_ACTIONS
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        for other in env.agents:
            assert set(env.infos[other]) == INFO_KEYS
            assert all(isinstance(v, (int, float, np.ndarray)) for v in env.infos[other].values())
            if other != agent:
                assert not env.observe(other)["action_mask"].any()  # zero for the waiting agent
        if term or trunc:
            env.step(None)
            continue
        seat = env.seat[agent]
        assert np.array_equal(np.flatnonzero(obs["action_mask"]), sorted(env.game.legal_actions(seat)))
        assert np.array_equal(info["action_mask"], obs["action_mask"])
        assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
    assert steps <= env.max_episode_steps
    assert env.game.is_terminal() and env.agents == []  # both agents stayed to the end, then left together


def test_illegal_action_raises_and_changes_nothing() -> None:
    env = fight_klub_v0.raw_env(decks=["vega_blitz", "queen_pressure"])
    env.reset(seed=1)
    agent = env.agent_selection
    obs = env.observe(agent)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    record = json.dumps(env.game_record())
    with pytest.raises(IllegalActionError, match=r"legal: "):
        env.step(illegal)
    assert json.dumps(env.game_record()) == record and env.agent_selection == agent
    assert np.array_equal(env.observe(agent)["observation"], obs["observation"])
    wrapped = fight_klub_v0.env()
    wrapped.reset(seed=1)
    first = wrapped.agent_selection
    mask = wrapped.observe(first)["action_mask"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped.step(int(np.flatnonzero(mask == 0)[0]))
    assert wrapped.rewards[first] == -1.0 and all(wrapped.terminations.values())


def test_unknown_options() -> None:
    with pytest.raises(ConfigError, match="allowed: .*deck_pool"):
        fight_klub_v0.raw_env(turns=3)
    with pytest.raises(ConfigError, match="pair of decks"):
        fight_klub_v0.raw_env(decks=["vega_blitz"])
    with pytest.raises(ConfigError, match="max_turns"):
        fight_klub_v0.raw_env(max_turns=0)
    with pytest.raises(ConfigError, match="two-player game"):
        fight_klub_v0.raw_env(num_players=3)
    with pytest.raises(ConfigError, match=r"reward must be one of \('outcome', 'damage'\).*got 'score'"):
        fight_klub_v0.raw_env(reward="score")
    env = fight_klub_v0.raw_env()
    with pytest.warns(UserWarning, match="unknown reset option 'shuffle'"):
        env.reset(seed=0, options={"shuffle": True})


def _play(env, seed: int, rng: np.random.Generator) -> tuple[dict[str, float], int]:
    """A random game. At every mid-game look, checks that the rewards an agent has read so far add up
    to its damage lead (dealt over the other's Life, less taken over mine). Returns each agent's
    summed rewards and how many mid-game rewards were nonzero."""
    env.reset(seed=seed)
    total = dict.fromkeys(env.possible_agents, 0.0)
    nonzero = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        total[agent] += reward
        if not (term or trunc):
            nonzero += reward != 0
            if env.reward_mode == "damage":
                other = env.infos[next(a for a in env.agents if a != agent)]
                lead = info["damage_dealt"] / other["life"] - info["damage_taken"] / info["life"]
                assert total[agent] == pytest.approx(lead, abs=1e-12)
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return total, nonzero


def test_damage_reward_pays_the_lead_as_it_changes_and_sums_to_the_outcome() -> None:
    shaped = fight_klub_v0.raw_env(reward="damage")
    paid = 0
    for seed in range(12):
        total, nonzero = _play(shaped, seed, np.random.default_rng(seed))
        returns = shaped.game.returns()
        # a whole game's rewards are its outcome exactly: the shaping telescopes away
        assert total == pytest.approx({a: returns[shaped.seat[a]] for a in total}, abs=1e-12)
        paid += nonzero
        # the same game with the default reward: the same outcome, nothing before the end
        plain_total, plain_nonzero = _play(fight_klub_v0.raw_env(), seed, np.random.default_rng(seed))
        assert plain_nonzero == 0 and plain_total == pytest.approx(total, abs=1e-12)
    assert paid > 12  # fights were scored mid-game and paid when they were


def test_damage_reward_passes_the_api_test() -> None:
    from pettingzoo.test import api_test
    w = _quiet()
    try:
        api_test(fight_klub_v0.env(reward="damage"), num_cycles=200)
    finally:
        w.__exit__(None, None, None)


def test_decks_option_validates_deck_lists() -> None:
    bad = DEFAULT_POOL.decks["vega_blitz"].to_json()
    bad["draw"] = dict(bad["draw"], v_surge=1)
    bad["draw"]["h_surge"] -= 1
    with pytest.raises(DeckError, match="deck rule 'affiliation' broken"):
        fight_klub_v0.raw_env(decks=[bad, "hollow_control"])
    env = fight_klub_v0.raw_env(deck_pool=["sage_patience"])
    env.reset(seed=5)
    assert [p.deck.name for p in env.game.players] == ["sage_patience", "sage_patience"]


def test_fixed_orders_and_drop_through_reset_options() -> None:
    env = fight_klub_v0.raw_env(decks=["vega_blitz", "hollow_control"])
    deck = DEFAULT_POOL.decks["vega_blitz"]
    fight = list(reversed(deck.fight_ids()))
    env.reset(seed=0, options={"orders": [{"fight": fight, "draw": deck.draw_ids()}, None], "drop": 1})
    g = env.game
    assert g.drop == 1 and g.players[0].hand == sorted(deck.draw_ids()[:6], key=g.support_index.__getitem__)
    assert g.orders_used[0]["fight"] == fight
    other = fight_klub_v0.raw_env(decks=["vega_blitz", "hollow_control"])
    other.reset(seed=99, options={"orders": [{"fight": fight, "draw": deck.draw_ids()}, g.orders_used[1]], "drop": 1})
    assert other.game.orders_used == g.orders_used  # the whole deal is fixed, whatever the seed
    with pytest.raises(ValueError, match="must be an ordering"):
        env.reset(seed=0, options={"orders": [{"fight": fight[:-1]}, None]})


def test_turn_limit_truncates() -> None:
    env = fight_klub_v0.raw_env(max_turns=1)
    _random_game(env, 4)
    g = env.game
    assert g.truncated and not g.game_over
    assert list(g.returns()) == [0.0, 0.0]
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    while not env.game.is_terminal():
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert all(r == 0.0 for r in env.rewards.values()) and env.game.turn == 2


def test_record_replay_reproduces_observations() -> None:
    env = fight_klub_v0.raw_env()
    trace = _random_game(env, 11)
    record = json.loads(json.dumps(env.game_record()))
    from fight_envs.games.fight_klub.observe import encode

    seen = []
    replay(record, on_step=lambda g, seat, a: seen.append(encode(g, seat)))
    assert len(seen) == len(trace) and all(np.array_equal(o, t[1]) for o, t in zip(seen, trace))
    record["damage"] = [99, 99]
    with pytest.raises(ValueError, match="replay ends with damage"):
        replay(record)


def test_render_shows_only_the_viewers_hand() -> None:
    env = fight_klub_v0.raw_env(render_mode="ansi", viewer=0)
    env.reset(seed=2)
    text = env.render()
    g = env.game
    names0 = {g.pool.support[c].name for c in g.players[0].hand}
    names1 = {g.pool.support[c].name for c in g.players[1].hand} - names0
    assert "P0 hand:" in text and "P1 hand:" not in text
    hand_line = next(line for line in text.splitlines() if line.startswith("P0 hand:"))
    assert all(n in hand_line for n in names0) and not any(n in hand_line for n in names1)


def test_registry_lists_the_env() -> None:
    s = spec("fight_klub_v0")
    assert s.rules == "seeds/fight_klub.md" and "decks" in s.options
    env = make("fight_klub_v0", api="raw", max_turns=5)
    assert env.config.max_turns == 5
    with pytest.raises(ConfigError, match="unknown api 'parallel'|no parallel"):
        make("fight_klub_v0", api="parallel")


def test_custom_card_data_and_deck_lists(tmp_path) -> None:
    from importlib import resources

    raw = json.loads(resources.files("fight_envs.games.fight_klub").joinpath("cards.json").read_text(encoding="utf-8"))
    for ch in raw["characters"]:
        if ch["id"] == "captain_vega":
            ch["life"] = 30
    cards = tmp_path / "cards.json"
    cards.write_text(json.dumps(raw), encoding="utf-8")
    decks = tmp_path / "decks.json"
    decks.write_text(json.dumps([DEFAULT_POOL.decks["vega_blitz"].to_json()]), encoding="utf-8")
    env = fight_klub_v0.raw_env(cards=str(cards), deck_lists=str(decks))
    _random_game(env, 3)
    assert [p.life for p in env.game.players] == [30, 30] and list(env.pool.decks) == ["vega_blitz"]
    game = replay(json.loads(json.dumps(env.game_record())))  # the record names its card files
    assert [p.life for p in game.players] == [30, 30]
    from fight_envs.core.errors import CardDataError

    with pytest.raises(CardDataError, match="cannot read card data"):
        fight_klub_v0.raw_env(cards=str(tmp_path / "missing.json"))
