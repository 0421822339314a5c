"""Session 7's speed shortcuts (issue 14) change nothing a user sees.

* the dice are drawn with a ``size`` whose ``prod`` answers itself (``rules._DrawCount``), so
  ``Generator.integers`` skips numpy's generic reduction: the same faces and generator state;
* the ``resting`` feature is one clipped lookup in ``observe._wait_table``: equal to the rule's
  ``max(last_used + rest_fights - fight, 0) / rest_fights`` for the players in the battle, 0 for
  the others;
* the env reuses an agent's info dict when the numbers every agent shares and its hand size are
  those of the last step (and, with ``mask_in_info``, it neither acts nor acted).

``benchmarks/check_identical_fifth_earth.py`` pins whole games against the code before the speed
work; these tests pin each shortcut against its plain computation.
"""

from __future__ import annotations

import numpy as np
import pytest

from fight_envs import fifth_earth_v0
from fight_envs.games.fifth_earth import rules
from fight_envs.games.fifth_earth.cards import NUM_CHARACTERS
from fight_envs.games.fifth_earth.observe import PLAYER_SLICES, public_part
from fight_envs.games.fifth_earth.rules import FifthEarthConfig, FifthEarthGame


class _RecordingRng:
    """A generator that records the ``size`` of every ``integers`` call and draws from a real one."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.sizes: list[object] = []

    def integers(self, *args, **kwargs):
        self.sizes.append(kwargs.get("size"))
        return self.rng.integers(*args, **kwargs)

    def __getattr__(self, name: str):
        return getattr(self.rng, name)


def test_dice_sizes_answer_prod_themselves_and_draw_as_plain_ints() -> None:
    for k in range(len(rules._DRAW_COUNTS)):
        size = rules._DRAW_COUNTS[k]
        assert size == k and np.prod(size) == k and type(size.prod()) is int
        a, b = np.random.default_rng(k), np.random.default_rng(k)
        assert a.integers(1, 7, size=size).tolist() == b.integers(1, 7, size=k).tolist()
        assert a.bit_generator.state == b.bit_generator.state
    game = FifthEarthGame(FifthEarthConfig(num_players=3))
    game.new_game(np.random.default_rng(5))
    game.rng = _RecordingRng(game.rng)
    assert len(game._faces(4)) == 4 and len(game._faces(2 * len(rules._DRAW_COUNTS))) == 2 * len(rules._DRAW_COUNTS)
    # the counts a game asks for are _DrawCount (the reduction skipped); a larger one is passed as it is
    assert type(game.rng.sizes[0]) is rules._DrawCount
    assert type(game.rng.sizes[1]) is int


@pytest.mark.parametrize("options", [{"num_players": 2}, {"num_players": 5}, {"num_players": 4, "format": "royale"}])
def test_resting_feature_is_the_rule_formula(options: dict) -> None:
    game = FifthEarthGame(FifthEarthConfig(**options))
    rng = np.random.default_rng(7)
    rs = PLAYER_SLICES["resting"]
    checked = 0
    for g in range(3):
        game.new_game(np.random.default_rng(g))
        while not game.is_terminal():
            b = game.battle
            if b is not None:
                n, rest = game.num_players, game.cards.rest_fights
                if rng.random() < 0.3:  # also characters laid in any of the last fights, written by hand
                    game.last_used = np.where(rng.random((n, NUM_CHARACTERS)) < 0.5,
                                              rng.integers(max(b.fight - rest - 2, 1), b.fight + 1, (n, NUM_CHARACTERS)),
                                              -10**6)
                    game.version += 1  # the state was changed by hand: the mask cache keys on the version
                players = public_part(game)[1]
                for s in range(n):
                    want = [max(int(u) + rest - b.fight, 0) / rest if s in b.players else 0.0 for u in game.last_used[s]]
                    assert players[s, rs].tolist() == np.array(want, dtype=np.float32).tolist()
                checked += 1
            legal = game.legal_action_mask(game.to_act).nonzero()[0]
            game.apply_action(game.to_act, int(legal[int(rng.random() * len(legal))]))
    assert checked > 50


def _expected_info(env, agent: str) -> dict:
    g, n, s = env.game, env.config.num_players, env.seat[agent]
    rel = [(s + k) % n for k in range(n)]
    return {"destinations_won": int(g.destinations_won[s]), "destinations": g.destinations_won[rel].tolist(),
            "phase": int(g.phase), "knockout_round": int(g.knockout_round),
            "fight": int(g.battle.fight if g.battle is not None else 0), "hand_size": int(g.hands[s].sum())}


@pytest.mark.parametrize("mask_in_info", [False, True])
@pytest.mark.parametrize("num_players", [2, 5])
def test_infos_reused_only_when_unchanged(num_players: int, mask_in_info: bool) -> None:
    env = fifth_earth_v0.raw_env(num_players=num_players, mask_in_info=mask_in_info)
    rng = np.random.default_rng(num_players)
    env.reset(seed=3)
    reused = rebuilt = 0
    before = dict(env.infos)
    for agent in env.agent_iter(max_iter=4000):
        for a in env.agents:
            info = env.infos[a]
            got = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in info.items() if k != "action_mask"}
            assert got == _expected_info(env, a)
            if mask_in_info:
                np.testing.assert_array_equal(info["action_mask"], env._mask(a))
            if before.get(a) is info:
                reused += 1
            else:
                rebuilt += 1
        before = dict(env.infos)
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(int(legal[int(rng.random() * len(legal))]))
    assert reused > 0 and rebuilt > 0
