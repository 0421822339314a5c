"""The suite's list of environments: names, import paths, options and their defaults.

``list_envs()`` is what a user reads to see what exists; ``make(name, **options)`` builds one.
Entries are import paths, so listing the registry imports no game.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

from fight_envs.core.errors import ConfigError


@dataclass(frozen=True)
class EnvSpec:
    """One environment family of the suite."""

    name: str
    module: str
    description: str
    rules: str
    """The rules spec's path in the repository (``seeds/<game>.md``); ``rules_path`` is the shipped file."""
    option_ranges: dict[str, str] = field(default_factory=dict)
    """What each constructor option accepts, as ``fight-envs envs`` prints it: one entry per key of the
    env's ``ENV_OPTIONS`` (``tests/library/test_registry_options.py`` checks them against the games' own choices)."""
    native_parallel: bool = False
    """True when the game's parallel form is simultaneous play (every player decides at each step),
    not a conversion of a turn-based game where all but one player idle each step."""

    def load(self) -> Any:
        return importlib.import_module(self.module)

    @property
    def rules_path(self) -> Any:
        """The rules spec as a file of the installed package (``rules`` is its name in the repository)."""
        from fight_envs.resources import rules_path

        return rules_path(self.rules.rsplit("/", 1)[-1].removesuffix(".md"))

    @property
    def options(self) -> dict[str, Any]:
        """Constructor options with their defaults."""
        return dict(self.load().ENV_OPTIONS)


REGISTRY: dict[str, EnvSpec] = {
    "fight5_v0": EnvSpec(
        name="fight5_v0",
        module="fight_envs.fight5_v0",
        description="Fight 5: 2-5 players place one card at each of five shared clashes per round.",
        rules="seeds/fight5.md",
        native_parallel=True,
        option_ranges={
            "num_players": "2..5",
            "num_bouts": ">= 1",
            "target_score": ">= 1 or None",
            "reward": "'outcome' | 'score'",
            "render_mode": "None | 'ansi' | 'human'",
            "viewer": "None | seat",
            "cards": "None | path to a card-data JSON",
            "mask_in_info": "False | True (the mask also in info['action_mask'])",
        },
    ),
    "brawl_v0": EnvSpec(
        name="brawl_v0",
        module="fight_envs.brawl_v0",
        description="Brawl: 2-8 fighters shed cards by elemental attacks and defences; CHAOS at any moment.",
        rules="seeds/brawl.md",
        option_ranges={
            "num_players": "2..8",
            "rules": "'standard' | 'classic' (the rule set the options left None take their values from)",
            "chaos_windows": "None (the rule set's) | True | False | 'all'",
            "hit_draws": "None (the rule set's) | 'one' | 'per_attack'",
            "showdown": "None (the rule set's) | 'same' | 'open'",
            "ask_noops": "None (the rule set's) | True | False",
            "skip_forced": "None (the rule set's) | True | False",
            "combo": "None (the rule set's) | 'single' | 'multi'",
            "combo_max": ">= 2 (cards in a combo, with combo='multi')",
            "max_steps": ">= 1 or None (150 x num_players; 600 x with 'all' windows, the standard rules')",
            "reward": "'rank' | 'winner'",
            "render_mode": "None | 'ansi' | 'human'",
            "viewer": "None | seat",
            "cards": "None | path to a card-data JSON",
            "mask_in_info": "False | True (the mask also in info['action_mask'])",
            "refusals": "False | True (the observation also remembers what each fighter showed it lacked)",
        },
    ),
    "fifth_earth_v0": EnvSpec(
        name="fifth_earth_v0",
        module="fight_envs.fifth_earth_v0",
        description="Fifth-Earth battles: 2-6 players fight knockout battles with character stage runs and dice.",
        rules="seeds/fifth_earth.md",
        option_ranges={
            "num_players": "2..6",
            "rules": "'standard' | 'classic' (the preset the options left None take their values from)",
            "num_destinations": "None (the preset's) | 1..25 (25: the full campaign)",
            "format": "'knockout' | 'royale'",
            "won_cards": "None (the preset's) | 'spoils' | 'hand' | 'rest'",
            "max_fights": "1..1000",
            "out_of_cards": "None (the preset's) | 'hand' | 'hand_and_rest'",
            "ties": "'first' | 'rolloff'",
            "characters": "None (the preset's) | 2..25 (characters in play per destination)",
            "between_rounds": "None (the preset's) | 'keep' | 'redeal'",
            "cap": "None (the preset's) | 'cards' | 'fights'",
            "ask": "None (the preset's) | 'all' | 'choices'",
            "reward": "'outcome' | 'destination'",
            "max_steps": ">= 1 or None",
            "render_mode": "None | 'ansi' | 'human'",
            "viewer": "None | seat",
            "cards": "None | path to a card-data JSON",
            "mask_in_info": "False | True (the mask also in info['action_mask'])",
        },
    ),
    "fight_klub_v0": EnvSpec(
        name="fight_klub_v0",
        module="fight_envs.fight_klub_v0",
        description="Fight Klub TCG: 2 players, character + Fight stack + Draw deck; three fights a turn, The Drop orders all (AEC only).",
        rules="seeds/fight_klub.md",
        option_ranges={
            "num_players": "2",
            "reward": "'outcome' | 'damage'",
            "decks": "None | [deck, deck] (preconstructed name, deck-list dict or JSON path)",
            "deck_pool": "None | 'random' | list of preconstructed deck names",
            "max_turns": ">= 1",
            "ask_moot_orders": "False | True (ask every ordering, as the draft reads)",
            "auto_decisions": "None (rules.AUTO_DEFAULT) | list of kinds of rules.AUTO_RULES resolved by rule; [] asks all",
            "render_mode": "None | 'ansi' | 'human'",
            "viewer": "None | 0 | 1",
            "cards": "None | path to a card-data JSON",
            "deck_lists": "None | path to a JSON list of deck lists",
            "mask_in_info": "False | True (the mask also in info['action_mask'])",
        },
    ),
    "fight_klub_deckbuild_v0": EnvSpec(
        name="fight_klub_deckbuild_v0",
        module="fight_envs.fight_klub_deckbuild_v0",
        description="Fight Klub deck building: 1 agent builds a legal deck card by card, rewarded by its win rate in battles.",
        rules="seeds/fight_klub.md",
        option_ranges={
            "character": "None | character id",
            "deck_pool": "None | 'random' | list of decks (names, deck-list dicts or JSON paths)",
            "games": ">= 1",
            "pilot": "'heuristic' | 'play_anything' | 'random' | agent",
            "max_turns": ">= 1",
            "cards": "None | path to a card-data JSON",
            "deck_lists": "None | path to a JSON list of deck lists",
            "mask_in_info": "False | True (the mask also in info['action_mask'])",
            "render_mode": "None | 'ansi'",
        },
    ),
}


def list_envs() -> list[EnvSpec]:
    """Every registered environment family."""
    return list(REGISTRY.values())


def spec(name: str) -> EnvSpec:
    if name not in REGISTRY:
        raise ConfigError(f"unknown environment {name!r}; registered: {', '.join(REGISTRY)}")
    return REGISTRY[name]


def make(name: str, api: str = "aec", **options: Any) -> Any:
    """Build environment ``name``: ``api`` is 'aec' (wrapped), 'raw', 'parallel' or 'parallel_raw'."""
    module = spec(name).load()
    # A game without a parallel form (its decisions are strictly sequential) offers only the AEC ones.
    builders = {api_: getattr(module, attr) for api_, attr in
                (("aec", "env"), ("raw", "raw_env"), ("parallel", "parallel_env"), ("parallel_raw", "parallel_raw_env"))
                if hasattr(module, attr)}
    if api not in builders:
        raise ConfigError(f"unknown api {api!r}; allowed: {', '.join(builders)}")
    return builders[api](**options)
