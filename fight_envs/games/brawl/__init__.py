"""Brawl: the pure rules engine (no RL imports).

``cards`` (card data, validated JSON), ``rules`` (``BrawlConfig``, ``BrawlGame``), ``observe``
(egocentric observation encoder), ``render`` (text view of one fighter) and ``record`` (JSON
game records and their replay). The rules in the project's words: ``seeds/brawl.md``.
"""

from fight_envs.games.brawl.cards import DEFAULT_CARDS, BrawlCards, load_cards
from fight_envs.games.brawl.rules import BrawlConfig, BrawlGame

__all__ = ["DEFAULT_CARDS", "BrawlCards", "BrawlConfig", "BrawlGame", "load_cards"]
