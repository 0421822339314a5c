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
    option_ranges: dict[str, str] = field(default_factory=dict)

    def load(self) -> Any:
        return importlib.import_module(self.module)

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
        option_ranges={
            "num_players": "2..5",
            "num_bouts": ">= 1",
            "target_score": ">= 1 or None",
            "reward": "'outcome' | 'score'",
            "render_mode": "None | 'ansi' | 'human'",
            "viewer": "None | seat",
            "cards": "None | path to a card-data JSON",
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
    builders = {"aec": module.env, "raw": module.raw_env, "parallel": module.parallel_env,
                "parallel_raw": module.parallel_raw_env}
    if api not in builders:
        raise ConfigError(f"unknown api {api!r}; allowed: {', '.join(builders)}")
    return builders[api](**options)
