"""The Fifth-Earth baselines judge lays by the card data of the game they play, not the packaged one.

``INVERTED`` turns every packaged stage power ``p`` into ``13 - p``: the packaged strongest cards
(12) become the weakest (1) and the weakest (1) the strongest (12). Given those cards (``cards=``),
or meeting an env built with them (``bind_rules``: the arena, the registry, the training
opponents), the baselines choose by them.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from fifth_earth_helpers import ND, cid, run, start
from fifth_earth_helpers import challenge as do_challenge
from fifth_earth_helpers import choose as do_choose

from fight_envs import fifth_earth_v0, fight5_v0
from fight_envs.agents.arena import play_game
from fight_envs.agents.fifth_earth import (
    LAY_POWER,
    CheapestBeatAgent,
    HeuristicAgent,
    StrongestSingleAgent,
    card_powers,
)
from fight_envs.agents.registry import make_agent
from fight_envs.core.data import load_json_data
from fight_envs.core.errors import CardDataError
from fight_envs.games.fifth_earth.cards import DEFAULT_CARDS, FifthEarthCards, parse_cards
from fight_envs.games.fifth_earth.observe import encode
from fight_envs.games.fifth_earth.rules import RUN_BASE


def _inverted_data() -> dict:
    data, _ = load_json_data("fight_envs.games.fifth_earth", "cards.json", None, "fifth_earth/cards.json")
    for c in data["characters"]:
        c["stages"] = [13 - p for p in c["stages"]]
    return data


INVERTED = parse_cards(_inverted_data(), "inverted")
PACKAGED_POWER = DEFAULT_CARDS.card_power.astype(np.float64)

P0 = ["Greytok 1", "Ashvane 4", "Jadeclaw 1", "Hollowjaw 3", "Dunspear 2", "Lumenor 2", "Kestrelin 1", "Wyrmholt 4"]
"""Greytok 1 and Jadeclaw 1 (packaged 1, inverted 12), Ashvane 4 and Wyrmholt 4 (packaged 11, inverted 2); no run."""


@pytest.fixture
def inverted_file(tmp_path: Path) -> Path:
    path = tmp_path / "inverted.json"
    path.write_text(json.dumps(_inverted_data()))
    return path


def answering_a_single(cards: FifthEarthCards) -> tuple[np.ndarray, np.ndarray]:
    """P0 (hand ``P0``) answers P1's single, nothing of P1's hand seen: (observation, mask)."""
    game = start([P0, run("Mirehound", 4) + run("Thornvyre", 4)], [6, 5, *ND, 6, 4, 2, 1], cards=cards)
    do_choose(game, 0)
    do_challenge(game, 0, 1)
    game.apply_action(1, cid("Thornvyre 2"))
    return encode(game, 0), game.legal_action_mask(0)


def test_the_baselines_choose_by_the_cards_they_are_given(inverted_file: Path) -> None:
    obs, mask = answering_a_single(INVERTED)
    # The packaged powers: bid the strongest single (an 11), or throw the weakest (a 1).
    assert HeuristicAgent().act(obs, mask) == cid("Ashvane 4")
    assert StrongestSingleAgent().act(obs, mask) == cid("Ashvane 4")
    assert CheapestBeatAgent().act(obs, mask) == cid("Greytok 1")
    # The inverted powers of the game played: the same decisions by the new powers.
    for cards in (INVERTED, inverted_file, str(inverted_file)):
        assert HeuristicAgent(cards=cards).act(obs, mask) == cid("Greytok 1")
        assert StrongestSingleAgent(cards=cards).act(obs, mask) == cid("Greytok 1")
        assert CheapestBeatAgent(cards=cards).act(obs, mask) == cid("Ashvane 4")
    assert card_powers(inverted_file) is card_powers(INVERTED)  # one set of powers per card data
    assert card_powers(None) is card_powers(DEFAULT_CARDS)
    assert np.array_equal(LAY_POWER[:RUN_BASE], PACKAGED_POWER)  # no module constant moved
    assert not LAY_POWER.flags.writeable


def test_the_arena_gives_baselines_built_by_name_the_cards_of_the_env(inverted_file: Path) -> None:
    single = make_agent("strongest_single", "fifth_earth", seed=1)
    heuristic = make_agent("heuristic", "fifth_earth", seed=2)
    checked = differs = 0

    def check(agent_id: str, obs: dict, action: int) -> None:
        nonlocal checked, differs
        singles = np.flatnonzero(obs["action_mask"][:RUN_BASE])
        if agent_id == "player_0" and singles.size > 1:
            assert INVERTED.card_power[action] == INVERTED.card_power[singles].max()
            checked += 1
            differs += DEFAULT_CARDS.card_power[action] != DEFAULT_CARDS.card_power[singles].max()

    env = fifth_earth_v0.env(cards=str(inverted_file), num_destinations=2)
    play_game(env, [single, heuristic], seed=3, on_step=check)
    assert checked > 5 and differs > 0
    assert heuristic.powers is card_powers(INVERTED)
    play_game(fifth_earth_v0.env(num_destinations=1), [single, heuristic], seed=3)  # the next env's cards
    assert single.powers is card_powers(DEFAULT_CARDS) and heuristic.powers is card_powers(DEFAULT_CARDS)
    # Built for an env: the registry binds it at once; the search's rollout agents take its cards too.
    bound = make_agent("cheapest_beat", "fifth_earth", seed=0, env=env)
    assert bound.powers is card_powers(INVERTED)
    search = make_agent("search:sims=2", "fifth_earth", seed=0, env=env)
    assert search._bound(search._make_rollout_agent(0)).powers is card_powers(INVERTED)


def test_the_training_opponents_take_the_cards_of_their_env(inverted_file: Path, tmp_path: Path) -> None:
    pytest.importorskip("stable_baselines3")
    from fight_envs.train.multi_vec_env import MultiGameVecEnv
    from fight_envs.train.opponents import PoolOpponentSampler
    from fight_envs.wrappers.single_agent import SingleAgentEnv

    manifest = tmp_path / "manifest.json"
    entries = [{"id": k, "kind": "baseline", "spec": k, "weight": 0.5} for k in ("heuristic", "strongest_single")]
    manifest.write_text(json.dumps({"game": "fifth_earth", "deterministic": False, "entries": entries}))
    single = SingleAgentEnv("fifth_earth_v0", opponents=PoolOpponentSampler(manifest), seed=0,
                            cards=str(inverted_file), num_destinations=1)
    single.reset()
    assert [o.agent.powers for o in single.opponents.values()] == [card_powers(INVERTED)]
    vec = MultiGameVecEnv("fifth_earth_v0", 2, [2], manifest_path=manifest, seed=0,
                          cards=str(inverted_file), num_destinations=1)
    vec.reset()
    agents = [h.agent for h in vec.book.handlers if hasattr(h, "agent")]
    assert {a.name for a in agents} == {"heuristic", "strongest_single"}
    assert all(a.powers is card_powers(INVERTED) for a in agents)


def test_card_data_that_does_not_fit_is_refused_naming_what_is_allowed() -> None:
    short = dataclasses.replace(INVERTED, stage_power=np.ones((24, 4), dtype=np.int64))
    with pytest.raises(CardDataError, match=r"stage_power must hold 25 characters x 4 stages .*got shape \(24, 4\)"):
        HeuristicAgent(cards=short)
    few = dataclasses.replace(INVERTED, power_modifiers=np.ones(13, dtype=np.int64))
    with pytest.raises(CardDataError, match=r"power_modifiers must hold 14 power cards .*got shape \(13,\)"):
        StrongestSingleAgent(cards=few)
    with pytest.raises(CardDataError, match="must be None .*a path to a card file or a FifthEarthCards.*got int"):
        CheapestBeatAgent(cards=42)
    with pytest.raises(TypeError, match="plays Fifth-Earth envs; raw_env has no Fifth-Earth card data"):
        play_game(fight5_v0.env(num_players=2), [HeuristicAgent(), HeuristicAgent()], seed=0)
