"""Game records: a Fifth-Earth game as JSON-ready data, and its replay.

A record holds the config, the seed, the fixed deals and dice the game was reset with, every
destination's deal as played (hands and power deck), every die face rolled and every action in
order. Replay starts a fresh engine from the seed and the fixed inputs, re-applies the actions,
and checks the deals, the dice and the outcome against the record.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from fight_envs.core.errors import FightEnvsError, RecordError
from fight_envs.core.records import check_outcome, check_record_header, check_record_seed, replay_actions, safe_repr
from fight_envs.games.fifth_earth.cards import DEFAULT_CARDS, FifthEarthCards
from fight_envs.games.fifth_earth.rules import FifthEarthConfig, FifthEarthGame, describe_action, parse_deal

RECORD_FORMAT = "fight-envs/fifth-earth-record/v1"


def make_record(game: FifthEarthGame, seed: int | None) -> dict[str, Any]:
    """The record of ``game`` so far (JSON-serialisable)."""
    cfg = game.config
    return {
        "format": RECORD_FORMAT,
        "game": "fifth_earth",
        "config": dataclasses.asdict(cfg),
        "seed": seed,
        "reset_deals": [d.to_json(game.cards) for d in game.fixed_deals],
        "reset_dice": list(game.fixed_dice_given),
        "deals": [d.to_json(game.cards) for d in game.deals_used],
        "dice": list(game.dice_log),
        "actions": [[seat, action, describe_action(action, game.cards)] for seat, action in game.actions],
        "finished": game.is_terminal(),
        "claimed": [[game.cards.destination_names[d], s] for d, s in game.claimed],
        "destinations_won": [int(w) for w in game.destinations_won],
    }


def replay(
    record: dict[str, Any],
    on_step: Callable[[FifthEarthGame, int, int], None] | None = None,
    cards: FifthEarthCards = DEFAULT_CARDS,
) -> FifthEarthGame:
    """Replay ``record`` on a fresh engine; return the engine at the end.

    ``on_step(game, seat, action)`` is called before each action. Raises RecordError if the
    record is malformed or its actions or outcome do not match what the rules produce.
    """
    check_record_header(record, RECORD_FORMAT, "Fifth-Earth",
                        {"game", "config", "seed", "reset_deals", "reset_dice", "deals", "dice", "actions", "finished",
                         "claimed", "destinations_won"}, game="fifth_earth")
    for key in ("reset_deals", "reset_dice", "deals", "dice", "claimed", "destinations_won"):
        if not isinstance(record[key], list):
            raise RecordError(f"record field {key!r} must be a list, got {safe_repr(record[key])}")
    if not isinstance(record["config"], dict):
        raise RecordError(f"record field 'config' must be an object, got {safe_repr(record['config'])}")
    if not isinstance(record["finished"], bool):
        raise RecordError(f"record field 'finished' must be true or false, got {safe_repr(record['finished'])}")
    seed = check_record_seed(record["seed"])
    try:
        # A record written before the rules presets (no "rules" key) played today's "classic" reading.
        config = FifthEarthConfig(**{"rules": "classic", **record["config"]})
        deals = [parse_deal(d, config.num_players, cards, f"reset_deals[{i}]")
                 for i, d in enumerate(record["reset_deals"])]
        game = FifthEarthGame(config, cards)
        game.new_game(np.random.default_rng(seed), deals, list(record["reset_dice"]))
    except (TypeError, ValueError, FightEnvsError) as exc:
        raise RecordError(f"record has a bad config, reset_deals or reset_dice: {str(exc)[:500]}") from None

    def parse(entry: Any) -> tuple[int, int]:
        if not isinstance(entry, (list, tuple)) or len(entry) < 2 or not all(
                isinstance(x, int) and not isinstance(x, bool) for x in entry[:2]):
            raise TypeError("an action entry is [seat, action, description]")
        return int(entry[0]), int(entry[1])

    replay_actions(game, record["actions"], parse, "[seat, action, ...]", on_step)
    if game.dice_log != record["dice"]:
        raise RecordError("record field 'dice' differs from the replayed dice (a different seed or fixed dice?)")
    if [d.to_json(cards) for d in game.deals_used] != record["deals"]:
        raise RecordError("record field 'deals' differs from the replayed deals (a different seed or fixed deals?)")
    check_outcome("destinations_won", [int(w) for w in game.destinations_won], record["destinations_won"])
    check_outcome("claimed", [[cards.destination_names[d], s] for d, s in game.claimed], record["claimed"])
    if game.is_terminal() != record["finished"]:
        raise RecordError(f"record field 'finished' is {record['finished']!r}; the replayed game's is {game.is_terminal()}")
    return game
