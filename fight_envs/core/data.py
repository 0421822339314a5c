"""Reading a game's JSON data file: a user's path, or the file packaged with the game.

Owns only the reading and JSON decoding, with ``CardDataError`` naming the file; what the data
must contain is each game's own validation.
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Any

from fight_envs.core.errors import CardDataError


MAX_DATA_BYTES = 16 << 20
"""A card-data file is a few kilobytes; anything over this is refused before it is read."""
MAX_DEPTH = 32
"""Card data nests a few levels; deeper JSON is refused (it would only exhaust the parser)."""


def check_data_path(path: Any, what: str = "card data (option 'cards')") -> Path:
    """``path`` as a Path, refusing what is not a file path (an int would be read as a file descriptor)."""
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)) or not str(os.fspath(path)).strip():
        raise CardDataError(f"{what} must be None or a path to a JSON file (str or os.PathLike), got {path!r}")
    return Path(path)


def read_data_text(path: Any, what: str = "card data (option 'cards')") -> str:
    """The UTF-8 text of a user's data file, with CardDataError naming the file for every failure."""
    p = check_data_path(path, what)
    try:
        size = p.stat().st_size
        if p.is_file() and size > MAX_DATA_BYTES:
            raise CardDataError(f"{what} {str(path)!r} is {size:,} bytes; at most {MAX_DATA_BYTES:,} are read")
        return p.read_text(encoding="utf-8")
    except OSError as exc:
        raise CardDataError(f"cannot read {what} {str(path)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise CardDataError(f"{what} {str(path)!r} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def decode_json(text: str, source: str) -> Any:
    """``json.loads`` with CardDataError (naming ``source``) for bad JSON, and for nesting deeper than ``MAX_DEPTH``."""
    depth = best = 0
    in_string = escaped = False
    for ch in text:  # a cheap scan: refuse deep nesting before the recursive parser sees it
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            best = max(best, depth)
            if best > MAX_DEPTH:
                raise CardDataError(f"{source}: JSON nested deeper than {MAX_DEPTH} levels; at most {MAX_DEPTH} are "
                                    "allowed (card data nests a few)")
        elif ch in "]}":
            depth -= 1
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise CardDataError(f"{source}: not valid JSON ({exc})") from None
    except (RecursionError, ValueError) as exc:  # ValueError: e.g. an integer of too many digits
        raise CardDataError(f"{source}: cannot decode the JSON ({type(exc).__name__}: {str(exc)[:200]})") from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number; card data holds finite numbers only")


def load_json_data(package: str, filename: str, path: str | Path | None, default_source: str) -> tuple[Any, str]:
    """The decoded JSON of ``path`` (None: ``filename`` in ``package``) and the source name to cite.

    The source is ``str(path)``, or ``default_source`` for the packaged file; errors name it.
    """
    if path is None:
        text = resources.files(package).joinpath(filename).read_text(encoding="utf-8")
        source = default_source
    else:
        text = read_data_text(path)
        source = str(path)
    return decode_json(text, source), source


def check_count(value: Any, where: str, minimum: int = 0, maximum: int = 1_000_000) -> int:
    """An integer count in ``minimum..maximum`` (bools and floats refused), else CardDataError naming ``where``."""
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise CardDataError(f"{where} must be an integer in {minimum}..{maximum:,}, got {value!r}")
    return value
