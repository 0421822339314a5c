"""Fight 5: the rules engine (no RL imports). The environments live in ``fight_envs.envs.fight5``."""

from fight_envs.games.fight5.cards import DEFAULT_CARDS, NUM_RANKS, RANK_NAMES, STAR, Fight5Cards, load_cards
from fight_envs.games.fight5.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ACTIONS,
    BoutDeal,
    Fight5Config,
    Fight5Game,
    clash_winner,
    parse_deal,
)

__all__ = [
    "DEFAULT_CARDS", "NUM_RANKS", "RANK_NAMES", "STAR", "Fight5Cards", "load_cards", "MAX_PLAYERS",
    "MIN_PLAYERS", "NUM_ACTIONS", "BoutDeal", "Fight5Config", "Fight5Game", "clash_winner", "parse_deal",
]
