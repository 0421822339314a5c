"""The search agent: legal play, same seed same game, batched == per-game rollouts, the information-set door, specs."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from fight_envs import fight5_v0
from fight_envs.agents.arena import play_game
from fight_envs.agents.base import Agent
from fight_envs.agents.registry import make_agent
from fight_envs.agents.search import SearchAgent, parse_search_options
from fight_envs.core.information import InformationSet
from fight_envs.envs.fight5 import observe_state
from fight_envs.games.fight5.rules import Fight5Config, Fight5Game

OTHER_GAMES = ("brawl", "fifth_earth", "fight_klub")


def searchable(game: str) -> bool:
    from fight_envs.agents.ladder import engine_can_search

    return engine_can_search(game)


def test_search_plays_legal_actions_and_the_same_seed_gives_the_same_game() -> None:
    env = fight5_v0.env(num_players=2, num_bouts=1, target_score=None)
    records = []
    for _ in range(2):
        agents = [make_agent("search:sims=8,horizon=bout,tail=greedy", game="fight5"), make_agent("heuristic")]
        seen = []
        play_game(env, agents, seed=5, on_step=lambda a, obs, act: seen.append(bool(obs["action_mask"][act])))
        assert all(seen)
        records.append(env.unwrapped.game_record()["actions"])
        assert agents[0].searched > 0
    assert records[0] == records[1]


@pytest.mark.parametrize("n", [3, 5])
def test_search_plays_every_player_count(n: int) -> None:
    env = fight5_v0.env(num_players=n, num_bouts=1, target_score=None)
    agents = [make_agent("search:sims=4,horizon=bout,tail=greedy", game="fight5")] + [make_agent("greedy") for _ in range(n - 1)]
    result = play_game(env, agents, seed=2)
    assert result.num_steps == 25 * n


def _position(n: int, seat: int) -> Fight5Game:
    g = Fight5Game(Fight5Config(num_players=n))
    g.new_game(np.random.default_rng(5))
    rng = np.random.default_rng(1)
    while not (g.bout == 1 and g.round == 1 and g.num_committed[seat] == 1):
        p = g.current_player()
        legal = g.legal_actions(p)
        g.apply_action(p, legal[rng.integers(len(legal))])
    return g


@pytest.mark.parametrize("n,rollout,horizon", [(2, "heuristic", "game"), (3, "greedy", "game"), (2, "heuristic", "bout")])
def test_batched_rollouts_equal_the_per_game_rollouts(n: int, rollout: str, horizon: str) -> None:
    seat = 1
    g = _position(n, seat)
    info = InformationSet.of(g, seat, n, observe_state)
    agent = SearchAgent("fight5", seed=0, sims=12, rollout=rollout)
    legal = np.flatnonzero(g.legal_action_mask(seat))
    dets = [info.sample(np.random.default_rng(i)) for i in range(3)]
    seeds = np.array([77, 78, 79])
    for d, s in zip(dets, seeds):
        d.rng = np.random.default_rng(int(s))  # the batch deals later bouts from these seeds
    batched = SearchAgent("fight5", seed=0, sims=12, rollout=rollout, horizon=horizon)._batched
    values = batched.values(dets, seat, legal, seeds)
    if horizon == "game":
        np.testing.assert_array_equal(values, agent._generic_values(info, [d.clone() for d in dets], legal, seeds))
    else:
        assert values.shape == (3, legal.size) and np.all((values >= 0) & (values <= 1))


class Spy(Agent):
    """Records what the arena hands an agent that asks for the information set."""

    needs_information_set = True

    def __init__(self) -> None:
        super().__init__(0)
        self.infos: list[InformationSet] = []

    def act_with_information(self, observation, action_mask, information) -> int:  # type: ignore[no-untyped-def]
        self.infos.append(information)
        return int(np.flatnonzero(action_mask)[0])


def _reaches(root: object, target: object, limit: int = 20000) -> bool:
    """Whether ``target`` is reachable from ``root`` through object references (bounded walk)."""
    seen: set[int] = set()
    todo = [root]
    while todo and len(seen) < limit:
        obj = todo.pop()
        if obj is target:
            return True
        if id(obj) in seen or isinstance(obj, (int, float, str, bytes, type)) or callable(obj) and not hasattr(obj, "__dict__"):
            continue
        seen.add(id(obj))
        todo.extend(gc.get_referents(obj))
    return False


def test_an_agent_cannot_reach_the_true_state_through_the_information_set() -> None:
    env = fight5_v0.env(num_players=2, num_bouts=1, target_score=None)
    spy = Spy()
    seen_games: list[Fight5Game] = []
    play_game(env, [spy, make_agent("greedy")], seed=1,
              on_step=lambda a, obs, act: seen_games.append(env.unwrapped.game) if a == "player_0" and len(seen_games) < 3 else None)
    assert len(spy.infos) == 25
    true_game = env.unwrapped.game
    for info in spy.infos[:5]:
        assert info.state is not true_game
        assert not _reaches(info, true_game)
        for name in ("hands", "committed", "pot", "revealed"):
            assert not np.shares_memory(getattr(info.state, name), getattr(true_game, name))
        assert info.state.rng is not true_game.rng and info.state.deals_used == []


def test_information_sets_of_games_differing_only_in_hidden_cards_are_equal() -> None:
    from test_fight5_determinize import hidden_variant, same_state

    g = _position(2, 0)
    h = hidden_variant(g, 0, np.random.default_rng(3))
    same_state(InformationSet.of(g, 0, 2, observe_state).state, InformationSet.of(h, 0, 2, observe_state).state)


def test_parallel_env_has_the_same_doors() -> None:
    env = fight5_v0.parallel_env(num_players=3)
    env.reset(seed=0)
    info = env.information_set("player_2")
    assert env.decision_kind("player_2") == "right_a" == info.decision_kind()
    obs, mask = info.observe(info.state, 2)
    assert mask.sum() > 0 and obs.shape == (627,)
    with pytest.raises(ValueError, match="unknown agent"):
        env.information_set("player_9")


def test_search_without_an_information_set_says_how_to_use_it() -> None:
    agent = make_agent("search", game="fight5")
    with pytest.raises(TypeError, match="information set"):
        agent.act(np.zeros(627, dtype=np.float32), np.ones(13, dtype=np.int8))


def test_spec_options_are_parsed_and_checked() -> None:
    assert parse_search_options("sims=20, rollout=greedy,time_ms=5") == {"sims": 20, "rollout": "greedy", "time_ms": 5.0}
    agent = make_agent("search:sims=20,rollout=greedy", game="fight5_v0", seed=1)
    assert isinstance(agent, SearchAgent) and agent.sims == 20 and agent.label == "search-v1:sims=20,rollout=greedy"
    for bad, match in [("search:sims=abc", "sims"), ("search:depth=3", "unknown search option 'depth'"),
                       ("search:sims=0", "sims must be"), ("search:rollout=search", "rollout"),
                       ("search:rollout=nobody", "unknown agent"), ("search:sims", "name=value"),
                       ("search:horizon=week", "horizon"), ("search:sims=2,sims=3", "twice")]:
        with pytest.raises(ValueError, match=match):
            make_agent(bad, game="fight5")


def test_time_limit_stops_the_search() -> None:
    g = _position(2, 1)
    info = InformationSet.of(g, 1, 2, observe_state)
    agent = SearchAgent("fight5", seed=0, sims=100000, time_ms=1.0, wave=2, horizon="bout", tail="greedy")
    obs, mask = observe_state(g, 1)
    assert mask[agent.act_with_information(obs, mask, info)]


@pytest.mark.parametrize("game", OTHER_GAMES)
def test_search_on_the_other_games_plays_legal_actions(game: str) -> None:
    if not searchable(game):
        pytest.skip(f"the {game} engine has no determinize()/information_set yet")
    from fight_envs.registry import make

    env = make(f"{game}_v0", api="raw", num_players=2)
    agent = make_agent("search:sims=2,rollout=random", game=game, seed=0)
    other = make_agent("random", game=game, seed=1)
    env.reset(seed=3)
    decisions = 0
    for aid in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if aid == "player_0":
            action = agent.act_with_information(obs["observation"], obs["action_mask"], env.unwrapped.information_set(aid))
            assert obs["action_mask"][action]
            decisions += 1
            if decisions == 2:
                break
        else:
            action = other.act(obs["observation"], obs["action_mask"])
        env.step(action)
    assert decisions > 0


def test_rollouts_stop_at_a_step_limit() -> None:
    """A Brawl game cut short by ``max_steps`` is over but not terminal by the rules: rollouts must stop there."""
    from fight_envs.registry import make

    env = make("brawl_v0", api="raw", num_players=2, max_steps=6)
    env.reset(seed=5)
    agent = make_agent("search:sims=3,rollout=random", game="brawl", seed=0)
    aid = env.agent_selection
    obs = env.observe(aid)
    info = env.unwrapped.information_set(aid)
    state = info.sample(np.random.default_rng(0))
    while not state.is_over():  # the step limit ends every rollout within a few decisions
        p = state.current_player()
        state.apply_action(p, int(np.flatnonzero(state.legal_action_mask(p))[0]))
    assert not state.is_terminal()
    action = agent.act_with_information(obs["observation"], obs["action_mask"], info)
    assert obs["action_mask"][action]


@pytest.mark.parametrize("game", ("fight5",) + OTHER_GAMES)
def test_random_rollouts_read_the_engine_mask_and_value_actions_as_through_the_observation(
        game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The random rollout agent skips the observation (``reads_mask_only``): the values must be those of
    the observed path, so every env's mask must be its engine's ``legal_action_mask``."""
    if game != "fight5" and not searchable(game):
        pytest.skip(f"the {game} engine has no determinize()/information_set yet")
    from fight_envs.agents.base import RandomAgent
    from fight_envs.registry import make

    env = make(f"{game}_v0", api="raw", num_players=2)
    env.reset(seed=11)
    compared = 0
    for aid in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc or compared == 3:
            break
        legal = np.flatnonzero(obs["action_mask"])
        if legal.size > 1:
            info = env.unwrapped.information_set(aid)
            values = []
            for fast in (True, False):
                monkeypatch.setattr(RandomAgent, "reads_mask_only", fast)
                agent = make_agent("search:sims=8,rollout=random,backend=generic", game=game, seed=4)
                values.append(agent.action_values(info, legal))
            np.testing.assert_array_equal(values[0], values[1])
            compared += 1
        env.step(int(legal[0]))
    assert compared > 0


def _brawl_game_with(spec: str, seed: int = 2) -> tuple[list[tuple[str, int, int]], Agent]:
    """One Brawl game of ``spec`` against the heuristic: (decision kind, action, first legal action) of each of
    the spec agent's decisions with a choice, and the agent."""
    from fight_envs.registry import make

    env = make("brawl_v0", num_players=2)
    agents = [make_agent(spec, game="brawl", seed=1), make_agent("heuristic", game="brawl", seed=2)]
    seen: list[tuple[str, int, int]] = []

    def on_step(agent_id: str, obs: dict, action: int) -> None:
        legal = np.flatnonzero(obs["action_mask"])
        if agent_id == "player_0" and legal.size > 1:
            seen.append((env.unwrapped.decision_kind(agent_id), int(action), int(legal[0])))

    play_game(env, agents, seed=seed, on_step=on_step)
    return seen, agents[0]


def test_search_with_kinds_and_a_prior_searches_only_those_kinds_and_plays_the_prior_elsewhere() -> None:
    seen, agent = _brawl_game_with("search:sims=4,kinds=defend,prior=first_legal")
    assert {k for k, _, _ in seen} - {"defend"}, "the game had no other kind of decision: pick another seed"
    assert all(action == first for kind, action, first in seen if kind != "defend")  # the prior, first_legal
    assert agent.searched == sum(kind == "defend" for kind, _, _ in seen) > 0
    assert agent.label == "search-v1:sims=4,prior=first_legal,kinds=defend"
    # a margin no mean value can clear (values are win credits in [0, 1]) keeps the prior's action every time
    seen, agent = _brawl_game_with("search:sims=4,prior=first_legal,margin=1.5")
    assert agent.searched > 0 and all(action == first for _, action, first in seen)
    # the prior is built once, reseeded every game: the same seed gives the same game
    assert _brawl_game_with("search:sims=4,kinds=attack+defend,prior=random,margin=0.1")[0] == \
        _brawl_game_with("search:sims=4,kinds=attack+defend,prior=random,margin=0.1")[0]


@pytest.mark.parametrize(("spec", "match"), [
    ("search:kinds=block", r"kinds='block': brawl's decision kinds are attack, defend"),
    ("search:kinds=+", r"kinds='\+'"),
    ("search:margin=-1", r"margin must be a number >= 0"),
    ("search:margin=x", r"search option margin='x'"),
    ("search:margin=0.1,keep=2", r"keep and margin both decide"),
    ("search:prior=search", r"prior='search': a prior policy must act from observations alone"),
    ("search:prior=nobody", r"unknown agent"),
])
def test_prior_kinds_and_margin_are_checked(spec: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        make_agent(spec, game="brawl")
