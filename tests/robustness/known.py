"""Corpus cases that still fail in a game being redesigned by other work in progress (Fight Klub;
Brawl and Fifth-Earth now pass every case): each with the reason. They run as expected failures (xfail, not strict:
once fixed they simply pass). Fight 5 and everything on the training side have none."""

from __future__ import annotations

import re

KNOWN: list[tuple[str, str, str, str]] = [
    # (category, game, case-name regex, reason)
    ("constructor", "fight_klub", r"deck_pool=nested-list",
     "Fight Klub: the refusal of deck_pool=[[[]]] says 'unknown deck [[]]' without naming deck_pool"),
    ("record", "fight_klub", r"without-(cards|deck_lists|seed|finished|truncated|winner)",
     "Fight Klub's replay treats these fields as optional by design (no cards/deck_lists: the package's files; "
     "the seed is not used; finished/truncated/winner checked when present)"),
]


def known_reason(category: str, game: str, name: str) -> str | None:
    for cat, g, pattern, reason in KNOWN:
        if cat == category and g == game and re.fullmatch(pattern, name):
            return reason
    return None
