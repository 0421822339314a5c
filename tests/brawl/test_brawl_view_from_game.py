"""``BrawlView.from_game`` equals ``BrawlView.decode(encode(...))`` (a differential test of two ways to
read one view), so ``HeuristicAgent.act_game`` plays as ``act`` does, and the search's rollouts, which
take ``act_game`` where the observation is the standard one, give the same values either way."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fight_envs import brawl_v0
from fight_envs.agents.brawl import BrawlView, HeuristicAgent
from fight_envs.agents.search import SearchAgent
from fight_envs.core.information import InformationSet
from fight_envs.games.brawl.observe import encode
from fight_envs.games.brawl.rules import BrawlConfig, BrawlGame


def _same(a: BrawlView, b: BrawlView) -> None:
    for f in dataclasses.fields(BrawlView):
        if f.name == "cache":
            continue
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and x.shape == y.shape and (x == y).all(), f.name
        else:
            assert x == y and type(x) is type(y), f.name
    assert _typed(a._lists()) == _typed(b._lists())  # the heuristic's lists: equal, and of the same types


def _typed(x: object) -> object:
    """``x`` with every number paired with its type (``True == 1`` would hide a bool read as an int)."""
    return [_typed(v) for v in x] if isinstance(x, (list, tuple)) else (type(x), x)


@pytest.mark.parametrize("rules", ["standard", "classic"])
@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_the_view_read_from_the_game_equals_the_decoded_observation(rules: str, n: int) -> None:
    rng = np.random.default_rng(n)
    states = 0
    for seed in range(3 if n < 8 else 2):
        g = BrawlGame(BrawlConfig(num_players=n, rules=rules))
        g.new_game(np.random.default_rng(seed))
        while not g.is_terminal():
            for seat in range(n):  # every seat's view, the decider's and the others'
                _same(BrawlView.from_game(g, seat), BrawlView.decode(encode(g, seat)))
            states += 1
            legal = np.flatnonzero(g.legal_action_mask(g.current_player()))
            g.apply_action(g.current_player(), int(legal[int(rng.integers(legal.size))]))
        for seat in range(n):  # the end: hands no longer open
            _same(BrawlView.from_game(g, seat), BrawlView.decode(encode(g, seat)))
    assert states > 50


@pytest.mark.parametrize("n", [2, 5])
def test_act_game_plays_as_act(n: int) -> None:
    env = brawl_v0.raw_env(num_players=n)
    for seed in range(4):
        env.reset(seed=seed)
        a, b = HeuristicAgent(seed=seed), HeuristicAgent(seed=seed)  # the same draws for ties
        g = env.table.game
        while not g.is_terminal():
            p = g.current_player()
            obs, mask = encode(g, p), g.legal_action_mask(p)
            x, y = a.act(obs, mask), b.act_game(g, p)
            assert x == y
            g.apply_action(p, x)


def test_search_values_are_the_same_with_and_without_act_game() -> None:
    env = brawl_v0.raw_env(num_players=2)
    env.reset(seed=5)
    for _ in range(6):  # a few decisions in, so the battle has some history
        agent = env.agent_selection
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
    agent = env.agent_selection
    info = env.information_set(agent)
    assert info.observe.standard_observation
    plain = InformationSet(info.seat, info.num_players, info.state, lambda s, p: info.observe(s, p), info.value)
    legal = np.flatnonzero(env.observe(agent)["action_mask"])
    values = []
    for which in (info, plain):
        search = SearchAgent("brawl", seed=3, sims=4 * legal.size)
        dets = [which.sample(search.rng) for _ in range(4)]
        values.append(search._generic_values(which, dets, legal, search.rng.integers(2**62, size=4)))
    np.testing.assert_array_equal(values[0], values[1])
