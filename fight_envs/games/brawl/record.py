"""Brawl game records: a game as JSON-ready data, and its replay.

A record holds the config, the card data, the seed (reshuffles of the discard pile draw from
the game's generator), the deal, whether the deal was fixed, and every action in order.
Replaying re-applies the actions to a fresh engine and checks the outcome against the record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from fight_envs.core.errors import FightEnvsError, RecordError
from fight_envs.core.records import check_outcome, check_record_header, check_record_seed, replay_actions, safe_repr
from fight_envs.games.brawl.cards import BrawlCards, parse_cards
from fight_envs.games.brawl.rules import BrawlConfig, BrawlGame, parse_deal

RECORD_FORMAT = "fight-envs/brawl-record/v2"
OLD_FORMATS = ("fight-envs/brawl-record/v1",)
"""v1 records (before the rule sets) replay under ``rules="classic"``, the rules they were played by."""


def make_record(game: BrawlGame, seed: int | None) -> dict[str, Any]:
    """The record of ``game`` so far (JSON-serialisable)."""
    cfg = game.config
    return {
        "format": RECORD_FORMAT,
        "game": "brawl",
        "config": cfg.to_json(),
        "cards": game.cards.to_json(),
        "seed": seed,
        "fixed_deal": game.fixed_deal,
        "deal": game.deal.to_json(game.cards),
        "actions": [[seat, game.action_name(a)] for seat, a in game.actions],
        "finished": game.is_over(),
        "truncated": game.truncated,
        "finish_order": [list(g) for g in game.finish_order],
    }


def _action_of(game: BrawlGame, name: Any) -> int:
    from fight_envs.games.brawl.rules import NUM_ACTIONS

    for a in range(NUM_ACTIONS):
        if game.action_name(a) == name:
            return a
    raise ValueError(f"unknown action {name!r}")


def replay(record: dict[str, Any], on_step: Callable[[BrawlGame, int, int], None] | None = None) -> BrawlGame:
    """Replay ``record`` on a fresh engine; return the engine at the end.

    ``on_step(game, seat, action)`` is called before each action. Raises RecordError if the
    record is malformed or does not match what the rules produce.
    """
    old = isinstance(record, dict) and record.get("format") in OLD_FORMATS
    check_record_header(record, record["format"] if old else RECORD_FORMAT, "Brawl",
                        {"config", "cards", "seed", "fixed_deal", "deal", "actions", "finish_order"},
                        game=None if old else "brawl")
    try:
        settings = dict(record["config"])
        if old:
            settings.setdefault("rules", "classic")
        settings.setdefault("combo", "single")  # records saved before the combo lever played "single"
        config = BrawlConfig(**settings)
        cards: BrawlCards = parse_cards(record["cards"], "record cards")
        deal = parse_deal(record["deal"], config.num_players, cards, "record deal")
        game = BrawlGame(config, cards)
    except (TypeError, FightEnvsError) as exc:
        raise RecordError(f"record has a bad config, card data or deal: {exc}") from None
    seed = check_record_seed(record["seed"])
    if not isinstance(record["fixed_deal"], bool):
        raise RecordError(f"record field 'fixed_deal' must be true or false, got {safe_repr(record['fixed_deal'])}")
    if not old and not {"finished", "truncated"} <= set(record):
        raise RecordError("record is missing fields 'finished'/'truncated' (every v2 record states its outcome)")
    rng = np.random.default_rng(seed if seed is not None else 0)
    game.new_game(rng, deal if record["fixed_deal"] else None)
    if game.deal != deal:
        raise RecordError("the seed deals differently from the recorded deal")
    replay_actions(game, record["actions"], lambda e: (int(e[0]), _action_of(game, e[1])), "[seat, action name]",
                   on_step)
    order = [list(g) for g in game.finish_order]
    if order != record["finish_order"]:
        raise RecordError(f"replayed finishing order {order} differs from the record's {record['finish_order']}")
    if "truncated" in record:
        check_outcome("truncated", game.truncated, record["truncated"])
    if "finished" in record:
        check_outcome("finished", game.is_over(), record["finished"])
    return game
