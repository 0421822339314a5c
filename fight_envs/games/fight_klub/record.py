"""Game records: a Fight Klub game as JSON-ready data, and its replay.

A record holds the config, both deck lists, the orders the stacks and decks were dealt in, who
had The Drop first, and every action in the order applied. Replaying re-applies the actions to
a fresh engine and checks the outcome against the record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from fight_envs.core.errors import RecordError
from fight_envs.core.records import check_record_header, check_record_seed, replay_actions, safe_repr
from fight_envs.games.fight_klub.cards import DEFAULT_POOL, CardPool, load_pool, parse_deck, validate_deck
from fight_envs.games.fight_klub.rules import FightKlubConfig, FightKlubGame

RECORD_FORMAT = "fight-envs/fight_klub-record/v1"


def make_record(game: FightKlubGame, seed: int | None, cards: str | None = None,
                deck_lists: str | None = None) -> dict[str, Any]:
    """The record of ``game`` so far (JSON-serialisable); ``cards`` / ``deck_lists``: the card-data
    paths the game was played with (None: the package's own)."""
    return {
        "format": RECORD_FORMAT,
        "game": "fight_klub",
        "config": {"max_turns": game.config.max_turns, "ask_moot_orders": game.config.ask_moot_orders,
                   "auto": sorted(game.config.auto)},
        "cards": None if cards is None else str(cards),
        "deck_lists": None if deck_lists is None else str(deck_lists),
        "seed": seed,
        "decks": [d.to_json() for d in game.decks],
        "orders": game.orders_used,
        "drop": game.first_drop,
        "actions": [[seat, action] for seat, action in game.actions],
        "finished": game.is_terminal(),
        "truncated": game.truncated,
        "winner": game.winner,
        "damage": [p.dealt for p in game.players],
    }


def replay(record: dict[str, Any], on_step: Callable[[FightKlubGame, int, int], None] | None = None,
           pool: CardPool | None = None) -> FightKlubGame:
    """Replay ``record`` on a fresh engine; return the engine at the end.

    The card pool is ``pool`` if given, else the one the record names (its ``cards`` and
    ``deck_lists`` paths, the package's own files when absent).

    ``on_step(game, seat, action)`` is called before each action. Raises RecordError when the
    record is malformed or its actions or outcome differ from what the rules produce.
    """
    # Every field make_record writes is required: a record that leaves out its outcome cannot be checked.
    check_record_header(record, RECORD_FORMAT, "Fight Klub",
                        {"config", "cards", "deck_lists", "seed", "decks", "orders", "drop", "actions", "finished",
                         "truncated", "winner", "damage"}, game="fight_klub")
    try:
        if pool is None:
            paths = (record.get("cards"), record.get("deck_lists"))
            pool = DEFAULT_POOL if paths == (None, None) else load_pool(*paths)
        decks = [parse_deck(d, f"decks[{i}]") for i, d in enumerate(record["decks"])]
        for d in decks:
            validate_deck(d, pool)
        # records written before ask_moot_orders existed asked every ordering, and before auto every choice
        game = FightKlubGame(pool, decks, FightKlubConfig(**{"ask_moot_orders": True, "auto": (), **record["config"]}))
        game.new_game(np.random.default_rng(0), drop=record["drop"], orders=record["orders"])
    except (TypeError, ValueError, IndexError, KeyError, AttributeError) as exc:  # FightEnvsError is a ValueError
        raise RecordError(f"record has a bad config, deck or order ({type(exc).__name__}: {exc}); 'config' must be the "
                          "env's config, 'decks' two deck lists, 'drop' and 'orders' what the env recorded") from None
    replay_actions(game, record["actions"], lambda e: (int(e[0]), int(e[1])), "[seat, action]", on_step)
    for name, got in (("finished", game.is_terminal()), ("truncated", game.truncated)):
        if record[name] != got:
            raise RecordError(f"the record says {name}={record[name]!r}, the replay gives {got}")
    check_record_seed(record["seed"])
    if not isinstance(record["damage"], list):
        raise RecordError(f"record field 'damage' must be a list of each player's damage dealt, got {safe_repr(record['damage'])}")
    damage = [p.dealt for p in game.players]
    if damage != list(record["damage"]) or record["winner"] != game.winner:
        raise RecordError(f"replay ends with damage {damage}, winner {game.winner}; the record says "
                          f"{record['damage']}, winner {record.get('winner')}")
    return game
