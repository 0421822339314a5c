"""Game records: a finished (or partial) Fight 5 game as JSON-ready data, and its replay.

A record holds the config, the seed, every bout's deal (so it replays even without the seed)
and every action in the order the engine applied it. Replaying re-applies the actions to a
fresh engine and checks the final scores against the record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from fight_envs.core.errors import FightEnvsError, RecordError
from fight_envs.core.records import check_outcome, check_record_header, check_record_seed, replay_actions
from fight_envs.games.fight5.cards import RANK_NAMES, rank_of
from fight_envs.games.fight5.rules import Fight5Config, Fight5Game, parse_deal

RECORD_FORMAT = "fight-envs/fight5-record/v1"


def make_record(game: Fight5Game, seed: int | None) -> dict[str, Any]:
    """The record of ``game`` so far (JSON-serialisable)."""
    cfg = game.config
    return {
        "format": RECORD_FORMAT,
        "game": "fight5",
        "config": {"num_players": cfg.num_players, "num_bouts": cfg.num_bouts, "target_score": cfg.target_score},
        "seed": seed,
        "deals": [d.to_json() for d in game.deals_used],
        "actions": [[seat, RANK_NAMES[rank]] for seat, rank in game.actions],
        "finished": game.is_terminal(),
        "scores": [int(s) for s in game.scores],
        "bout_points": [[int(p) for p in pts] for pts in game.bout_points],
    }


def replay(
    record: dict[str, Any],
    on_step: Callable[[Fight5Game, int, int], None] | None = None,
    game: Fight5Game | None = None,
) -> Fight5Game:
    """Replay ``record`` on a fresh engine (or on ``game``); return the engine at the end.

    ``on_step(game, seat, action)`` is called before each action, so a caller can compare
    observations step by step. Raises RecordError if the record is malformed or its actions or
    final scores do not match what the rules produce.
    """
    check_record_header(record, RECORD_FORMAT, "Fight 5", {"config", "seed", "deals", "actions", "scores"}, game="fight5")
    seed = check_record_seed(record["seed"])
    if not isinstance(record["config"], dict) or not isinstance(record["deals"], list):
        raise RecordError(f"record field 'config' must be an object and 'deals' a list of bout deals; got "
                          f"{type(record['config']).__name__} and {type(record['deals']).__name__}")
    try:
        config = Fight5Config(**record["config"])
        deals = [parse_deal(d, config.num_players, where=f"deals[{i}]") for i, d in enumerate(record["deals"])]
    except (TypeError, FightEnvsError) as exc:
        raise RecordError(f"record has a bad config or deal: {exc}") from None
    if len(deals) > config.num_bouts:
        raise RecordError(f"record has {len(deals)} deals for a game of at most {config.num_bouts} bouts")
    if game is None:
        game = Fight5Game(config)
    elif game.config != config:
        raise RecordError(f"record config {config} does not match the game's {game.config}")
    game.new_game(np.random.default_rng(seed if seed is not None else 0), deals)
    replay_actions(game, record["actions"], _parse_action, "[seat, card]", on_step)
    # Every outcome field must match what the actions produce (optional ones when present: older
    # or hand-written records may omit them).
    check_outcome("scores", [int(s) for s in game.scores], record["scores"])
    if "bout_points" in record:
        check_outcome("bout_points", [p.tolist() for p in game.bout_points], record["bout_points"])
    if "finished" in record:
        check_outcome("finished", game.is_terminal(), record["finished"])
    return game


def _parse_action(entry: Any) -> tuple[int, int]:
    if not isinstance(entry, (list, tuple)) or len(entry) != 2 or isinstance(entry[0], bool) or not isinstance(entry[0], int):
        raise ValueError("not [seat, card]")
    if not isinstance(entry[1], str):
        raise ValueError("the card is a name")
    return entry[0], rank_of(entry[1])
