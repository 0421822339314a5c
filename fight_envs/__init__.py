"""fight-envs: multi-agent RL environments for card "fight" games (PettingZoo and Gymnasium).

Environments are imported PettingZoo-style (``from fight_envs import fight5_v0``); the list
with options is ``fight_envs.registry.list_envs()``. Each game's rules engine lives in
``fight_envs.games.<game>`` and imports no RL library.
"""

from fight_envs import wrappers  # noqa: F401  (registers the Gymnasium ids fight_envs/Fight5-*)
from fight_envs.core.errors import (
    CardDataError,
    ConfigError,
    DealError,
    FightEnvsError,
    IllegalActionError,
    RecordError,
)
from fight_envs.registry import list_envs, make

__version__ = "0.1.0"

__all__ = [
    "CardDataError", "ConfigError", "DealError", "FightEnvsError", "IllegalActionError", "RecordError",
    "list_envs", "make", "__version__",
]
