"""Corpus cases known to fail, each with the reason; they run as expected failures (xfail, not strict: once
fixed they simply pass). None today: every game and the training side pass every case. A case added here must
say why it cannot be fixed yet."""

from __future__ import annotations

import re

KNOWN: list[tuple[str, str, str, str]] = [
    # (category, game, case-name regex, reason)
]


def known_reason(category: str, game: str, name: str) -> str | None:
    for cat, g, pattern, reason in KNOWN:
        if cat == category and g == game and re.fullmatch(pattern, name):
            return reason
    return None
