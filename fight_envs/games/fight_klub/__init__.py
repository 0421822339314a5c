"""Fight Klub TCG: the rules engine and card pool (no RL imports). The environment lives in ``fight_envs.envs.fight_klub``."""

from fight_envs.games.fight_klub.cards import (
    DEFAULT_POOL,
    CardPool,
    DeckError,
    DeckList,
    load_deck,
    load_pool,
    validate_deck,
)
from fight_envs.games.fight_klub.rules import NUM_ACTIONS, Decision, FightKlubConfig, FightKlubGame

__all__ = [
    "DEFAULT_POOL",
    "NUM_ACTIONS",
    "CardPool",
    "Decision",
    "DeckError",
    "DeckList",
    "FightKlubConfig",
    "FightKlubGame",
    "load_deck",
    "load_pool",
    "validate_deck",
]
