"""Fifth-Earth: the rules engine (no RL imports). The environment lives in ``fight_envs.envs.fifth_earth``."""

from fight_envs.games.fifth_earth.cards import DEFAULT_CARDS, NUM_CARDS, FifthEarthCards, load_cards
from fight_envs.games.fifth_earth.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ACTIONS,
    DestinationDeal,
    FifthEarthConfig,
    FifthEarthGame,
    parse_deal,
)

__all__ = [
    "DEFAULT_CARDS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NUM_ACTIONS",
    "NUM_CARDS",
    "DestinationDeal",
    "FifthEarthCards",
    "FifthEarthConfig",
    "FifthEarthGame",
    "load_cards",
    "parse_deal",
]
