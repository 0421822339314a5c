"""What every game's record replay does the same way: the header check and the action loop.

Owns only the format/required-field check and re-applying ``[seat, action]`` entries with
``RecordError`` naming the entry; each game's ``record.py`` keeps its own fields, engine set-up
and outcome checks.
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable, Iterable
from typing import Any, Protocol, TypeVar

from fight_envs.core.errors import FightEnvsError, RecordError


class _Steppable(Protocol):
    def apply_action(self, seat: int, action: int) -> Any: ...


G = TypeVar("G", bound=_Steppable)


def check_record_header(record: Any, record_format: str, title: str, required: Iterable[str],
                        game: str | None = None) -> None:
    """Raise RecordError unless ``record`` is a dict of ``record_format`` holding every ``required`` field
    (and, with ``game``, a ``game`` field naming that game)."""
    if not isinstance(record, dict) or record.get("format") != record_format:
        raise RecordError(f"not a {title} record: 'format' must be {record_format!r}")
    missing = set(required) - set(record)
    if missing:
        raise RecordError(f"record is missing fields {sorted(missing)}")
    expected = game or _game_of_format(record_format)
    if (game is not None or "game" in record) and record.get("game") != expected:
        raise RecordError(f"record field 'game' is {safe_repr(record.get('game'))}; a {title} record must say {expected!r}")


def _game_of_format(record_format: str) -> str:
    """``fight-envs/fifth-earth-record/v1`` -> ``fifth_earth``: the game a record format belongs to."""
    name = record_format.split("/")[1] if record_format.count("/") >= 2 else record_format
    return name.removesuffix("-record").replace("-", "_")


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother, _REPR.maxlist, _REPR.maxdict = 3, 60, 60, 6, 4


def safe_repr(value: Any) -> str:
    """A short repr that cannot recurse (a record may nest lists thousands deep)."""
    try:
        return _REPR.repr(value)
    except Exception:  # noqa: BLE001 - a repr must never be what fails
        return f"<{type(value).__name__}>"


def check_record_seed(seed: Any) -> int | None:
    """A record's ``seed``: None or an integer >= 0, else RecordError."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise RecordError(f"record field 'seed' must be null or an integer >= 0, got {seed!r}")
    return seed


def check_outcome(field: str, replayed: Any, claimed: Any) -> None:
    """RecordError unless the record's outcome ``field`` equals what the replay produced."""
    if replayed != claimed:
        raise RecordError(f"replayed {field.replace('_', ' ')} {safe_repr(replayed)} differ from the record's "
                          f"{field}={safe_repr(claimed)}: a record's outcome must be what its actions produce")


def replay_actions(
    game: G,
    actions: Iterable[Any],
    parse: Callable[[Any], tuple[int, int]],
    shape: str,
    on_step: Callable[[G, int, int], None] | None,
) -> None:
    """Apply each entry of ``actions`` (``parse(entry)`` gives seat and action) to ``game``.

    ``on_step(game, seat, action)`` is called before each action. A malformed entry (``parse``
    raising TypeError, ValueError or IndexError) or one the rules refuse raises RecordError naming
    its index; ``shape`` says what an entry should look like.
    """
    if not isinstance(actions, (list, tuple)):
        raise RecordError(f"record field 'actions' must be a list of {shape} entries, got {type(actions).__name__}")
    for i, entry in enumerate(actions):
        try:
            seat, action = parse(entry)
        except (TypeError, ValueError, IndexError, KeyError, AttributeError, RecursionError):
            raise RecordError(f"actions[{i}] = {safe_repr(entry)} is not {shape}") from None
        if on_step is not None:
            on_step(game, seat, action)
        try:
            game.apply_action(seat, action)
        except FightEnvsError as exc:
            raise RecordError(f"actions[{i}] cannot be replayed: {str(exc)[:500]}") from None
