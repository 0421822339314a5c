"""Fifth-Earth card data: the packaged file has the rulebook's counts, bad files name the field."""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any

import numpy as np
import pytest

from fight_envs.core.errors import CardDataError
from fight_envs.games.fifth_earth.cards import DEFAULT_CARDS, parse_cards


def raw() -> dict[str, Any]:
    text = resources.files("fight_envs.games.fifth_earth").joinpath("cards.json").read_text(encoding="utf-8")
    return json.loads(text)


def test_packaged_card_data_has_the_rulebooks_counts() -> None:
    c = DEFAULT_CARDS
    assert len(c.character_names) == 25 and c.stage_power.shape == (25, 4)
    assert len(c.power_names) == 14 and len(c.destination_names) == 25
    assert c.hand_size == 8 and c.rest_fights == 4
    assert "Greytok" in c.character_names
    assert c.parse_card("Greytok 2") == 1 and c.card_name(1) == "Greytok 2"


def test_power_design_makes_runs_a_real_choice() -> None:
    p = DEFAULT_CARDS.stage_power
    # three profiles a point apart (frail 1/3/6/10, plain 2/4/7/11, sturdy 3/5/8/12): the stage,
    # not the character, makes a card strong, so the deal matters less than how cards are spent
    assert (p[:, 1:] > p[:, :-1]).all(), "higher stages are stronger"
    offset = p - np.array([2, 4, 7, 11])
    assert (offset == offset[:, :1]).all() and set(offset[:, 0].tolist()) == {-1, 0, 1}
    assert "Greytok" in DEFAULT_CARDS.character_names and p[0].tolist() == [1, 3, 6, 10]
    # a run is a real choice: stages 1-2 never beat their own stage 3, stages 1-3 at least match their
    # own stage 4, a full run beats any single card, but every card of it is at stake
    assert (p[:, 0] + p[:, 1] <= p[:, 2]).all()
    assert (p[:, :3].sum(axis=1) >= p[:, 3]).all()
    assert (p.sum(axis=1) > p[:, 3].max()).all()
    # the dice are a smaller swing: a power card moves a total by at most 3, less than a stage step
    mods = DEFAULT_CARDS.power_modifiers
    assert (mods > 0).sum() == 9 and (mods < 0).sum() == 5 and mods.sum() > 0
    assert np.abs(mods).max() <= 3 < (p[:, 3] - p[:, 2]).min()


@pytest.mark.parametrize("change, message", [
    pytest.param(lambda d: d.update(format="v0"), r"'format' must be", id="format"),
    pytest.param(lambda d: d["characters"].pop(), r"'characters' must be a list of 25", id="character-count"),
    pytest.param(lambda d: d["characters"][2].update(name=""), r"characters\[2\].name", id="character-name"),
    pytest.param(lambda d: d["characters"][4].update(stages=[1, 2, 3, 0]), r"characters\[4\].stages", id="stage-power"),
    pytest.param(lambda d: d["characters"][5].update(name="Greytok"), r"characters\[\].name must be unique", id="dup-name"),
    pytest.param(lambda d: d["power_cards"][0].update(modifier=0), r"power_cards\[0\].modifier", id="modifier"),
    pytest.param(lambda d: d["destinations"].append("Extra"), r"'destinations' must be a list of 25", id="destinations"),
    pytest.param(lambda d: d.update(hand_size=20), r"'hand_size' must be", id="hand-size"),
    pytest.param(lambda d: d.update(rest_fights=0), r"'rest_fights' must be", id="rest-fights"),
])
def test_malformed_card_data_names_the_field(change: Any, message: str) -> None:
    data = copy.deepcopy(raw())
    change(data)
    with pytest.raises(CardDataError, match=message):
        parse_cards(data, "test")
