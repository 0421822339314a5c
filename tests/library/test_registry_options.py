"""The registry's option table (``EnvSpec.option_ranges``, what ``fight-envs envs`` prints) against the envs
themselves: every constructor option has an entry and every entry is an option, and an option with named
choices lists exactly the choices its game accepts. The table is written by hand (listing the registry
imports no game), so these tests are what keeps it from going stale as options are added."""

from __future__ import annotations

import re

import pytest

from fight_envs.envs import fifth_earth as fifth_earth_env
from fight_envs.envs import fight5 as fight5_env
from fight_envs.envs import fight_klub as fight_klub_env
from fight_envs.games.brawl import rules as brawl
from fight_envs.games.fifth_earth import rules as fifth_earth
from fight_envs.registry import list_envs, make


@pytest.mark.parametrize("spec", list_envs(), ids=lambda s: s.name)
def test_every_option_has_an_entry_and_every_entry_is_an_option(spec) -> None:
    options, ranges = set(spec.options), set(spec.option_ranges)
    assert options - ranges == set(), f"{spec.name}: options without an entry in option_ranges"
    assert ranges - options == set(), f"{spec.name}: option_ranges entries that are no option"
    assert all(text.strip() for text in spec.option_ranges.values()), f"{spec.name}: an empty entry"


CHOICES = {
    ("fight5_v0", "reward"): fight5_env.REWARD_MODES,
    ("brawl_v0", "rules"): tuple(brawl.RULE_SETS),
    ("brawl_v0", "hit_draws"): brawl.HIT_DRAWS,
    ("brawl_v0", "showdown"): brawl.SHOWDOWNS,
    ("brawl_v0", "combo"): brawl.COMBOS,
    ("brawl_v0", "chaos_windows"): ("all",),
    ("brawl_v0", "reward"): brawl.REWARD_MODES,
    ("fifth_earth_v0", "rules"): fifth_earth.RULES,
    ("fifth_earth_v0", "format"): fifth_earth.FORMATS,
    ("fifth_earth_v0", "won_cards"): fifth_earth.WON_CARDS,
    ("fifth_earth_v0", "out_of_cards"): fifth_earth.OUT_OF_CARDS,
    ("fifth_earth_v0", "ties"): fifth_earth.TIES,
    ("fifth_earth_v0", "between_rounds"): fifth_earth.BETWEEN_ROUNDS,
    ("fifth_earth_v0", "cap"): fifth_earth.CAP_RULES,
    ("fifth_earth_v0", "ask"): fifth_earth.ASK,
    ("fifth_earth_v0", "reward"): fifth_earth_env.REWARD_MODES,
    ("fight_klub_v0", "reward"): fight_klub_env.REWARD_MODES,
}
"""Each option whose values are named strings, and the game's own tuple of them."""


@pytest.mark.parametrize(("name", "key"), sorted(CHOICES))
def test_an_option_lists_exactly_the_choices_its_game_accepts(name: str, key: str) -> None:
    spec = next(s for s in list_envs() if s.name == name)
    listed = set(re.findall(r"'([a-z_]+)'", spec.option_ranges[key]))
    assert listed == set(CHOICES[name, key]), f"{name} option {key!r}: the table lists {sorted(listed)}"


@pytest.mark.parametrize(("name", "key"), sorted(CHOICES))
def test_every_listed_choice_builds_its_env(name: str, key: str) -> None:
    for value in CHOICES[name, key]:
        # hit_draws='per_attack' draws one card per attack, which the standard rules' combos do not combine with
        extra = {"combo": "single"} if (name, key) == ("brawl_v0", "hit_draws") else {}
        env = make(name, api="raw", **{key: value}, **extra)
        env.reset(seed=0)
        assert env.agents


def test_brawl_max_steps_entry_states_the_engines_limits() -> None:
    text = next(s for s in list_envs() if s.name == "brawl_v0").option_ranges["max_steps"]
    for windows, factor in ((False, 150), ("all", 600)):
        config = brawl.BrawlConfig(num_players=3, chaos_windows=windows)
        assert config.step_limit == factor * 3
        assert f"{factor} x" in text
