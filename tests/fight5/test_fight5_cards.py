"""Fight 5 card data: the packaged counts equal the rulebook's Components, and malformed card
files (passed through the env's ``cards=`` option) fail with a CardDataError naming the field."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from fight_envs import fight5_v0
from fight_envs.core.errors import CardDataError, ConfigError
from fight_envs.games.fight5.cards import DEFAULT_CARDS, RANK_NAMES, STAR, load_cards

# The rulebook's Components, written out card by card.
RULEBOOK_CLASH_DECK = {"2": 3, "3": 3, "4": 3, "12": 3, "13": 3, "star": 3, "5": 4, "11": 4, "6": 5, "10": 5,
                       "7": 6, "9": 6, "8": 7}
RULEBOOK_PLAYER_DECK = {**{str(v): 2 for v in range(2, 14)}, "star": 1}


def as_counts(comp: dict[str, int]) -> list[int]:
    return [comp[name] for name in RANK_NAMES]


def test_clash_deck_is_the_rulebooks() -> None:
    assert DEFAULT_CARDS.clash_deck.tolist() == as_counts(RULEBOOK_CLASH_DECK)
    assert DEFAULT_CARDS.clash_deck.sum() == 55


def test_player_deck_is_the_rulebooks() -> None:
    assert DEFAULT_CARDS.player_deck.tolist() == as_counts(RULEBOOK_PLAYER_DECK)
    assert DEFAULT_CARDS.player_deck.sum() == 25
    assert DEFAULT_CARDS.hand_size == 5
    assert DEFAULT_CARDS.elements == ("Air", "Fire", "Water", "Earth", "Light")


def test_setup_and_scoring_numbers_are_the_rulebooks() -> None:
    assert DEFAULT_CARDS.clash_stacks == {2: 5, 3: 7, 4: 9, 5: 11}
    assert (DEFAULT_CARDS.stack_size, DEFAULT_CARDS.rounds_per_bout) == (5, 5)
    points = DEFAULT_CARDS.points_per_rank()
    assert points.tolist() == [0] * 8 + [5, 5, 5, 5] + [10]  # 2..9 nothing, 10..13 five, Star ten
    assert DEFAULT_CARDS.most_cards_bonus == 15


def packaged_data() -> dict[str, Any]:
    return json.loads(resources.files("fight_envs.games.fight5").joinpath("cards.json").read_text("utf-8"))


def write(tmp_path: Path, data: Any) -> str:
    path = tmp_path / "cards.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def edit(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    data = packaged_data()
    change(data)
    return data


MALFORMED = [
    pytest.param(lambda d: d["clash_deck"].pop("star"), "'clash_deck'", id="clash-deck-missing-a-card"),
    pytest.param(lambda d: d["player_deck"].update({"5": -1}), "'player_deck.5'", id="negative-count"),
    pytest.param(lambda d: d["player_deck"].update({"5": "2"}), "'player_deck.5'", id="count-not-an-int"),
    pytest.param(lambda d: d["clash_deck"].update({"14": 1}), "'clash_deck'", id="unknown-card"),
    pytest.param(lambda d: d["player_deck"].update({"5": 3}), "'player_deck'", id="player-deck-of-26"),
    pytest.param(lambda d: d.update({"jokers": 2}), "unknown fields ['jokers']", id="unknown-field"),
    pytest.param(lambda d: d.update({"ranks": ["1", "2"]}), "'ranks'", id="wrong-ranks"),
    pytest.param(lambda d: d.update({"elements": "Air"}), "'elements'", id="elements-not-a-list"),
    pytest.param(lambda d: d.update({"elements": ["Air", "Fire", "Water", "Earth"]}), "'elements'",
                 id="too-few-elements"),
    pytest.param(lambda d: d.update({"stack_size": 0}), "'stack_size'", id="stack-size-zero"),
    pytest.param(lambda d: d.update({"stack_size": 4}), "'stack_size'", id="stacks-run-out"),
    pytest.param(lambda d: d.update({"rounds_per_bout": "5"}), "'rounds_per_bout'", id="rounds-not-an-int"),
    pytest.param(lambda d: d["clash_stacks"].update({"3": 8}), "'clash_stacks'", id="wrong-stack-count"),
    pytest.param(lambda d: d["clash_stacks"].update({"x": 5}), "'clash_stacks'", id="player-count-not-a-number"),
    pytest.param(lambda d: d.update({"clash_deck": {n: 1 for n in RANK_NAMES}}), "'clash_stacks'",
                 id="clash-deck-too-small"),
    pytest.param(lambda d: d["scoring"].pop("star_points"), "'scoring'", id="scoring-missing-a-key"),
    pytest.param(lambda d: d["scoring"].update({"star_points": -10}), "'star_points'", id="negative-points"),
]


@pytest.mark.parametrize("change,field", MALFORMED)
def test_malformed_card_file_names_the_field(tmp_path: Path, change: Callable, field: str) -> None:
    path = write(tmp_path, edit(change))
    with pytest.raises(CardDataError, match="cards.json") as err:
        fight5_v0.env(cards=path)
    assert field in str(err.value)


def test_card_file_that_is_not_json(tmp_path: Path) -> None:
    with pytest.raises(CardDataError, match="not valid JSON"):
        fight5_v0.raw_env(cards=write(tmp_path, "{ not json"))


def test_card_file_that_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(CardDataError, match="cannot read"):
        fight5_v0.raw_env(cards=str(tmp_path / "missing.json"))


def test_card_file_top_level_not_an_object(tmp_path: Path) -> None:
    with pytest.raises(CardDataError, match="top level"):
        load_cards(write(tmp_path, "[1, 2]"))


def test_custom_card_file_is_used(tmp_path: Path) -> None:
    path = write(tmp_path, edit(lambda d: d["scoring"].update({"star_points": 20, "most_cards_bonus": 0})))
    env = fight5_v0.raw_env(cards=path, num_players=3, num_bouts=1, target_score=None)
    env.reset(seed=4)
    game = env.unwrapped.game
    assert game.points_per_rank[STAR] == 20
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert game.bout_points[0].tolist() == game.pile_points().tolist(), "no most-cards bonus with this card file"


def test_card_file_without_a_player_count(tmp_path: Path) -> None:
    path = write(tmp_path, edit(lambda d: d["clash_stacks"].pop("5")))
    fight5_v0.raw_env(cards=path, num_players=4)
    with pytest.raises(ConfigError, match="no clash-stack count for 5 players"):
        fight5_v0.raw_env(cards=path, num_players=5)


def test_packaged_file_loads_the_same_through_the_option(tmp_path: Path) -> None:
    loaded = load_cards(write(tmp_path, packaged_data()))
    assert (loaded.clash_deck == DEFAULT_CARDS.clash_deck).all()
    assert (loaded.player_deck == DEFAULT_CARDS.player_deck).all()
    assert loaded.clash_stacks == DEFAULT_CARDS.clash_stacks
