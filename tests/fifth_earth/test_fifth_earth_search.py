"""The search vocabulary of the Fifth-Earth engine: clone, determinize, decision_kind, information sets.

A determinization must equal the true game in everything the seat observed and draw everything
hidden from the given generator alone: two games that differ only in hidden cards, the power
deck's order or the engine's generator give identical determinizations. Where an unseen card
lies must follow the counting distribution (uniform over the unseen cards).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from fight_envs import fifth_earth_v0
from fight_envs.core.information import InformationSet
from fight_envs.games.fifth_earth.observe import encode
from fight_envs.games.fifth_earth.rules import (
    DECISION_KINDS,
    NOBODY,
    PHASE_LAY,
    FifthEarthConfig,
    FifthEarthGame,
    action_cards,
)


def state_of(g: FifthEarthGame) -> tuple:
    """Everything a game holds, as comparable values (the generator by its state)."""
    b = g.battle
    battle = None if b is None else (b.players, b.fight, b.first, b.lay_order, sorted(b.laid.items()))
    return (g.hands.tobytes(), g.rest_since.tobytes(), g.spoils.tobytes(), g.retired.tobytes(), g.undealt.tobytes(),
            g.revealed.tobytes(), g.in_play.tobytes(), g.last_used.tobytes(), g.alive.tobytes(), battle,
            g.power_deck, g.power_discard, g.phase, g.to_act, g.seeds, g.bye, g.unpaired, g.advancing, g.claimed,
            g.actions, g.dice_log, g.events, g.fixed_dice, g.deal_count, str(g.rng.bit_generator.state))


def games(config: FifthEarthConfig, seed: int, stride: int = 1):
    """Yield a randomly played game at every ``stride``-th decision (the same object, moving on)."""
    game = FifthEarthGame(config)
    game.new_game(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    step = 0
    while not game.is_terminal():
        if step % stride == 0:
            yield game
        legal = game.legal_actions(game.current_player())
        game.apply_action(game.current_player(), legal[int(rng.integers(len(legal)))])
        step += 1


def hide_differently(game: FifthEarthGame, me: int, rng: np.random.Generator) -> FifthEarthGame:
    """A copy differing only in what ``me`` cannot see: unseen cards moved, deck reordered, generator reseeded."""
    v = copy.deepcopy(game)
    v.rng = np.random.default_rng(int(rng.integers(2**31)))
    v.power_deck = list(rng.permutation(v.power_deck).tolist())
    mine = v.hands[me].astype(bool) | (v.rest_since[me] != NOBODY) | v.spoils[me].astype(bool)
    if v.battle is not None and me in v.battle.laid:
        mine[v.battle.laid[me]] = True
    hidden = [s for s in range(v.num_players) if s != me and (v.hands[s] & (1 - v.revealed)).any()]
    undealt = np.flatnonzero(v.undealt)
    if hidden and undealt.size:
        s = hidden[int(rng.integers(len(hidden)))]
        h = int(rng.choice(np.flatnonzero(v.hands[s] & (1 - v.revealed))))
        u = int(rng.choice(undealt))
        v.hands[s, h], v.hands[s, u] = 0, 1
        v.undealt[h], v.undealt[u] = 1, 0
    b = v.battle
    if b is not None:
        for s, laid in b.laid.items():
            undealt = np.flatnonzero(v.undealt)
            if s != me and len(laid) == 1 and not v.revealed[laid[0]] and undealt.size:
                u = int(rng.choice(undealt))
                v.undealt[laid[0]], v.undealt[u] = 1, 0
                b.laid[s] = [u]
    v.fixed_dice = [int(x) for x in rng.integers(1, 7, size=3)]
    return v


# Five destinations, not the default campaign's 25: the checks are of single states, and every state a
# longer campaign reaches is of a kind the first five destinations reach (checked at every few steps).
CONFIGS = [
    FifthEarthConfig(num_players=2, num_destinations=5),
    FifthEarthConfig(num_players=3, num_destinations=5),
    FifthEarthConfig(num_players=4, format="royale", won_cards="spoils"),
    FifthEarthConfig(num_players=5, num_destinations=2),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.num_players}p-{c.format}")
def test_determinization_reads_nothing_hidden_and_keeps_everything_seen(config: FifthEarthConfig) -> None:
    rng = np.random.default_rng(5)
    checked = 0
    for seed in range(2):
        for game in games(config, seed, stride=3):
            me = int(rng.integers(game.num_players))
            twin = hide_differently(game, me, rng)
            a = game.determinize(me, np.random.default_rng(99))
            b = twin.determinize(me, np.random.default_rng(99))
            assert state_of(a) == state_of(b), "a determinization depends on what the seat cannot see"
            for d in (a, b):
                assert np.array_equal(encode(d, me), encode(game, me)), "a determinization changed what the seat sees"
                assert np.array_equal(d.legal_action_mask(me), game.legal_action_mask(me))
                assert d.decision_kind(me) == game.decision_kind(me)
                for s in range(game.num_players):  # every count and every public fact agrees
                    assert d.hands[s].sum() == game.hands[s].sum()
                    assert d.current_player() == game.current_player()
            assert a.rng.bit_generator.state != game.rng.bit_generator.state, "the generator was copied"
            checked += 1
    assert checked > 20


def test_a_determinization_plays_on_to_the_end_with_every_card_in_one_place() -> None:
    from fifth_earth_helpers import conservation_problems

    for config in CONFIGS:
        for game in games(config, 3, stride=7):
            d = game.determinize(game.current_player(), np.random.default_rng(1))
            assert not conservation_problems(d), conservation_problems(d)
            rng = np.random.default_rng(2)
            while not d.is_terminal():
                legal = d.legal_actions(d.current_player())
                d.apply_action(d.current_player(), legal[int(rng.integers(len(legal)))])
            assert not conservation_problems(d)


def test_clone_is_independent_and_continues_identically() -> None:
    for game in games(FifthEarthConfig(num_players=3, num_destinations=5), 4, stride=5):
        c = game.clone()
        assert state_of(c) == state_of(game)
        if c.is_terminal():
            continue
        before = state_of(game)
        legal = c.legal_actions(c.current_player())
        c.apply_action(c.current_player(), legal[-1])
        assert state_of(game) == before, "playing the clone changed the original"
        g2 = game.clone()
        g2.apply_action(g2.current_player(), legal[-1])
        assert state_of(g2) == state_of(c), "two clones diverged on the same action"


def test_decision_kinds_name_every_decision() -> None:
    seen: set[str] = set()
    for game in games(FifthEarthConfig(num_players=3, rules="classic"), 0):
        for s in range(game.num_players):
            kind = game.decision_kind(s)
            assert kind in DECISION_KINDS
            assert (kind == "none") == (s != game.current_player())
            seen.add(kind)
    assert seen == set(DECISION_KINDS)


def test_unseen_cards_follow_the_counting_distribution() -> None:
    """Answering a face-down single card in fight 1 (2 players, 25 characters): each of the 92
    cards I have not seen is the laid one with chance 1/92 and in the opponent's hand with 7/92."""
    config = FifthEarthConfig(num_players=2, rules="classic")
    game = FifthEarthGame(config)
    game.new_game(np.random.default_rng(11))
    while not (game.phase == PHASE_LAY and game.battle.laid):
        game.apply_action(game.current_player(), game.legal_actions(game.current_player())[0])
    me = game.current_player()
    opp = 1 - me
    assert len(game.battle.laid[opp]) == 1
    unseen = np.flatnonzero(~game.hands[me].astype(bool))
    assert unseen.size == 92
    rng = np.random.default_rng(3)
    samples = 4600
    laid = np.zeros(100)
    held = np.zeros(100)
    for _ in range(samples):
        d = game.determinize(me, rng)
        laid[d.battle.laid[opp][0]] += 1
        held += d.hands[opp]
    assert laid[game.hands[me].astype(bool)].sum() == 0 and held[game.hands[me].astype(bool)].sum() == 0
    for counts, p in ((laid[unseen], 1 / 92), (held[unseen], 7 / 92)):
        expected = samples * p
        chi2 = float(((counts - expected) ** 2 / expected).sum())
        # df = 91 (laid; held is a sum of 7 draws without replacement, so its spread is smaller):
        # the 99.9% point of chi-square(91) is about 137.
        assert chi2 < 137, chi2


def test_env_information_set_and_decision_kind() -> None:
    env = fifth_earth_v0.raw_env(num_players=3)
    env.reset(seed=2)
    agent = env.agent_selection
    info = env.information_set(agent)
    assert isinstance(info, InformationSet)
    assert info.state is not env.game
    obs, mask = info.observe(info.state, info.seat)
    assert np.array_equal(obs, env.observe(agent)["observation"])
    assert np.array_equal(mask, env.observe(agent)["action_mask"])
    assert env.decision_kind(agent) == info.decision_kind() != "none"
    other = next(a for a in env.agents if a != agent)
    assert env.decision_kind(other) == "none"


def test_destination_horizon_stops_at_the_claim_and_credits_its_claimant() -> None:
    """``horizon_value`` is None until the destination under way is claimed, then one-hot on its claimant;
    the search agent's ``horizon=destination`` rollouts value an action by that credit alone."""
    game = FifthEarthGame(FifthEarthConfig(num_destinations=3))
    game.new_game(np.random.default_rng(5))
    rng = np.random.default_rng(0)
    marker = game.horizon_marker("destination")
    assert marker == 0 and game.horizon_value("destination", marker) is None
    while game.horizon_value("destination", marker) is None:
        legal = game.legal_actions(game.current_player())
        game.apply_action(game.current_player(), int(rng.choice(legal)))
    credit = game.horizon_value("destination", marker)
    assert not game.is_terminal() and len(game.claimed) == 1
    assert credit.tolist() == [1.0 if s == game.claimed[0][1] else 0.0 for s in range(2)]
    assert game.horizon_marker("destination") == 1
    with pytest.raises(ValueError, match="destination"):
        game.horizon_marker("bout")


def test_search_with_the_destination_horizon_plays_and_is_reproducible() -> None:
    from fight_envs.agents.arena import play_game
    from fight_envs.agents.registry import make_agent

    env = fifth_earth_v0.env(num_destinations=2)
    results = []
    for _ in range(2):
        agents = [make_agent("search:sims=4,rollout=random,horizon=destination", "fifth_earth", 1),
                  make_agent("heuristic", "fifth_earth", 2)]
        res = play_game(env, agents, seed=11)
        results.append((res.returns.tolist(), agents[0].searched))
        assert "horizon=destination" in agents[0].label
    assert results[0] == results[1] and results[0][1] > 0
    with pytest.raises(ValueError, match="game, destination"):
        make_agent("search:sims=4,horizon=bout", "fifth_earth", 1)
    with pytest.raises(ValueError, match="horizon='destination'"):
        make_agent("search:sims=4,horizon=destination", "brawl", 1)


@pytest.mark.parametrize("num_players", [2, 3])
def test_before_lay_shows_the_layer_exactly_what_it_saw_when_it_laid(num_players: int) -> None:
    """``before_lay(s)`` winds the fight under way back to ``s``'s lay: its observation and mask there are
    the ones it was given when it laid (what a belief model must be asked), and ``redo_lay`` with the
    lay it made changes nothing while a lay of another count is refused."""
    from fight_envs.envs.fifth_earth import observe_state

    config = FifthEarthConfig(num_players=num_players, num_destinations=5)
    checked = 0
    for seed in range(6):
        game = FifthEarthGame(config)
        game.new_game(np.random.default_rng(seed))
        rng = np.random.default_rng(seed + 100)
        seen: dict[int, tuple[bytes, bytes, int]] = {}  # log index of an asked lay -> what its seat saw, its action
        while not game.is_terminal():
            p = game.current_player()
            for s in game.hidden_lays(p):
                at = max(i for i, (seat, _, _) in enumerate(game.log) if seat == s)
                if at not in seen:  # laid without being asked (one legal lay: ask="choices")
                    continue
                obs, mask, action = seen[at]
                o2, m2 = observe_state(game.before_lay(s), s)
                assert (o2.tobytes(), m2.tobytes()) == (obs, mask), (seed, at)
                before = state_of(game)
                assert game.redo_lay(s, action) and state_of(game) == before
                other = [a for a in np.flatnonzero(m2) if len(action_cards(int(a))) != len(action_cards(action))]
                if other:
                    assert not game.redo_lay(s, int(other[0]))
                    assert state_of(game) == before
                checked += 1
            legal = game.legal_actions(p)
            action = int(legal[int(rng.integers(len(legal)))])
            if game.phase == PHASE_LAY:
                o, m = observe_state(game, p)
                seen[len(game.log)] = (o.tobytes(), m.tobytes(), action)
            game.apply_action(p, action)
    assert checked > 50
    fresh = FifthEarthGame(config)
    fresh.new_game(np.random.default_rng(0))
    with pytest.raises(ValueError, match="no lay"):
        fresh.before_lay(1)
    with pytest.raises(ValueError, match="no lay"):
        fresh.redo_lay(1, 0)


def test_search_belief_model_redraws_the_face_down_lay() -> None:
    """With ``belief=heuristic`` every determinization's face-down lay is the heuristic's lay from the hand
    drawn (rejection sampling), and the option is refused where no face-down lay exists."""
    from fight_envs.agents.registry import make_agent
    from fight_envs.agents.search import SearchAgent
    from fight_envs.envs.fifth_earth import observe_state

    env = fifth_earth_v0.env(num_destinations=1)
    env.reset(seed=3)
    model = make_agent("heuristic", "fifth_earth", 0)
    agent = SearchAgent("fifth_earth", seed=0, sims=4, rollout="random", belief="heuristic")
    found = 0
    while not all(env.terminations.values()):
        a = env.agent_selection
        obs = env.observe(a)
        info = env.unwrapped.information_set(a)
        if info.state.hidden_lays(info.seat):
            for _ in range(5):
                det = agent._believed_sample(info, model)
                for s in det.hidden_lays(info.seat):
                    po, pm = observe_state(det.before_lay(s), s)
                    assert action_cards(int(model.act(po, pm))) == det.battle.laid[s]
            found += 1
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert found > 3 and agent.belief_fallbacks == 0
    assert "belief=heuristic" in agent.label
    with pytest.raises(ValueError, match="face-down"):
        make_agent("search:sims=4,belief=heuristic", "brawl", 1)
