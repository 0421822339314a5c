"""Fight Klub baselines: the heuristic plays only legal actions and beats random in duplicate matches."""

from __future__ import annotations

import numpy as np
import pytest

from fight_envs import fight_klub_v0
from fight_envs.agents.base import RandomAgent
from fight_envs.agents.evaluate import evaluate
from fight_envs.agents.fight_klub import HeuristicAgent, PlayAnythingAgent
from fight_envs.agents.registry import list_agents, make_agent


def test_registry_lists_the_baselines() -> None:
    assert {"random", "heuristic", "play_anything"} <= set(list_agents("fight_klub_v0"))
    assert isinstance(make_agent("heuristic", game="fight_klub", seed=0), HeuristicAgent)
    assert isinstance(make_agent("play_anything", game="fight_klub", seed=0), PlayAnythingAgent)


@pytest.mark.parametrize("agent", [HeuristicAgent(0), PlayAnythingAgent(0)], ids=["heuristic", "play_anything"])
def test_baselines_play_legal_actions_only(agent) -> None:
    for _env, _name, obs, action in _self_play(agent, range(3)):  # raw env: an illegal action would raise
        assert obs["action_mask"][action] == 1


def test_heuristic_beats_random_in_duplicate_matches() -> None:
    result = evaluate(lambda: fight_klub_v0.env(), [HeuristicAgent(0), RandomAgent(1)], num_deals=30, seed=3)
    heuristic = result.stats[0]
    assert heuristic.win_rate > 0.6, result.table()
    assert np.isfinite(heuristic.win_rate)


def _self_play(agent, seeds: range, **options):  # type: ignore[no-untyped-def]
    """(env, agent name, observation, action) at every decision of ``agent`` playing both seats of
    the raw env (``options``: its constructor options), yielded before the action is applied."""
    env = fight_klub_v0.raw_env(**options)
    for seed in seeds:
        env.reset(seed=seed)
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = agent.act(obs["observation"], obs["action_mask"])
            yield env, name, obs, action
            env.step(action)


def _heuristic_decisions(kind: str, seeds: range):  # type: ignore[no-untyped-def]
    """(game, seat, observation, action) at every ``kind`` decision with a choice, two heuristics playing
    (every choice asked: a kind made by rule by default is still the heuristic's to make when asked)."""
    for env, name, obs, action in _self_play(HeuristicAgent(0), seeds, auto_decisions=[]):
        if env.decision_kind(name) == kind and obs["action_mask"].sum() > 1:
            yield env.game, env.seat[name], obs, action


def test_heuristic_resolves_the_lowest_stakes_fight_first() -> None:
    from fight_envs.games.fight_klub.rules import OPTION0

    seen = 0
    for game, seat, obs, action in _heuristic_decisions("choose_fight", range(4)):
        stakes = {}
        for i, f in enumerate(game.fights):
            if not f.resolved:
                stakes[OPTION0 + i] = sum(game.pool.fight[c].damage for c in f.cards if c is not None)
        assert action == min(stakes, key=lambda a: (stakes[a], a)), stakes
        seen += 1
    assert seen > 5


def test_heuristic_as_the_drop_plays_an_enhance_card_only_to_change_the_result() -> None:
    # The Drop acts last in Enhance (it lets the other player go first), so a card that leaves the
    # fight's result as it is would be spent for nothing: every card it plays as The Drop must win a
    # fight that passing ties or loses, or tie one that passing loses
    from fight_envs.games.fight_klub.rules import PASS

    def outcome(game, seat, action):  # type: ignore[no-untyped-def]
        g = game.clone()
        i = g.current
        g.apply_action(seat, action)
        while g.pending is not None and not g.fights[i].decided:
            g.apply_action(g.pending.seat, g.pending.legal[0])
        w = g.fights[i].winner
        return 0 if w is None else (1 if w == seat else -1)

    checked = 0
    for game, seat, obs, action in _heuristic_decisions("enhance", range(8)):
        if game.drop != seat or action == PASS:
            continue
        assert outcome(game, seat, action) > outcome(game, seat, PASS), (action, game.log[-6:])
        checked += 1
    assert checked > 5


def test_heuristic_card_value_is_the_rules_keep_value() -> None:
    """The Setup and discard rules (``rules.AUTO_RULES``) rank cards by ``rules.keep_value``; the
    heuristic ranks them from the observation: the same number for every card, exactly (a float32
    feature difference would make a rule and the heuristic part on a tie)."""
    import sys
    from pathlib import Path

    from fight_envs.games.fight_klub.cards import DEFAULT_POOL
    from fight_envs.games.fight_klub.observe import support_features
    from fight_envs.games.fight_klub.rules import keep_value

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from fk_helpers import POOL

    cards = list(DEFAULT_POOL.support.values()) + list(POOL.support.values())
    values = [(HeuristicAgent._value(support_features(c)), keep_value(c)) for c in cards]
    assert all(a == b for a, b in values), [(c.id, a, b) for c, (a, b) in zip(cards, values) if a != b]
    assert len({b for _, b in values}) > 10  # not a constant


def test_heuristic_sets_up_conditions_before_gear_instants_and_cards_in_play() -> None:
    """Version 4: in Setup a Condition from the hand first (it keeps working), then Gear, then a Setup
    Instant, then a Setup action of a card in play (version 3 used the cards in play first, which
    spent the turn's two Setup actions on small effects and cost it ~10 points against play_anything)."""
    from fight_envs.games.fight_klub.rules import SUPPORT0

    seen = 0
    for game, seat, obs, action in _heuristic_decisions("setup", range(6)):
        p = game.players[seat]
        legal = [int(a) for a in np.flatnonzero(obs["action_mask"]) if a != 0]
        assert action == game._phase_rule(game.pending) and action != 0
        rank = lambda a: 3 if a >= SUPPORT0 else {"condition": 0, "gear": 1}.get(game.pool.support[p.hand[a - 1]].type, 2)  # noqa: E731
        assert rank(action) == min(rank(a) for a in legal)
        seen += rank(action) < max(rank(a) for a in legal)
    assert seen > 5
