"""Reading a game's JSON data file: a user's path, or the file packaged with the game.

Owns only the reading and JSON decoding, with ``CardDataError`` naming the file; what the data
must contain is each game's own validation.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from fight_envs.core.errors import CardDataError


def load_json_data(package: str, filename: str, path: str | Path | None, default_source: str) -> tuple[Any, str]:
    """The decoded JSON of ``path`` (None: ``filename`` in ``package``) and the source name to cite.

    The source is ``str(path)``, or ``default_source`` for the packaged file; errors name it.
    """
    if path is None:
        text = resources.files(package).joinpath(filename).read_text(encoding="utf-8")
        source = default_source
    else:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise CardDataError(f"cannot read card data {str(path)!r}: {exc}") from None
        source = str(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CardDataError(f"{source}: not valid JSON ({exc})") from None
    return data, source
