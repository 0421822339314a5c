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
from fight_envs.core.records import check_record_header, replay_actions
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
    check_record_header(record, RECORD_FORMAT, "Fight 5", {"config", "seed", "deals", "actions", "scores"})
    try:
        config = Fight5Config(**record["config"])
        deals = [parse_deal(d, config.num_players, where=f"deals[{i}]") for i, d in enumerate(record["deals"])]
    except (TypeError, FightEnvsError) as exc:
        raise RecordError(f"record has a bad config or deal: {exc}") from None
    if game is None:
        game = Fight5Game(config)
    elif game.config != config:
        raise RecordError(f"record config {config} does not match the game's {game.config}")
    seed = record["seed"]
    game.new_game(np.random.default_rng(seed if seed is not None else 0), deals)
    replay_actions(game, record["actions"], lambda e: (int(e[0]), rank_of(e[1])), "[seat, card]", on_step)
    if [int(s) for s in game.scores] != list(record["scores"]):
        raise RecordError(f"replayed scores {game.scores.tolist()} differ from the record's {record['scores']}")
    # Optional fields (older or hand-written records may omit them) must match when present too.
    bout_points = [p.tolist() for p in game.bout_points]
    if "bout_points" in record and bout_points != record["bout_points"]:
        raise RecordError(f"replayed bout points {bout_points} differ from the record's {record['bout_points']}")
    if "finished" in record and game.is_terminal() != record["finished"]:
        raise RecordError(f"the record says finished={record['finished']!r}, the replayed game's is {game.is_terminal()}")
    return game
