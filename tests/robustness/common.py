"""Running one category of the corpus as a test: every case refused (or allowed), known failures xfail."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import pytest

from .harness import Case, Outcome, describe, judge
from .known import known_reason

COUNTS: dict[str, int] = {}
"""Cases run per category in this session (the total test reads it)."""


def check(category: str, cases: Sequence[Case]) -> list[Outcome]:
    """Judge every case; fail listing each unexpected failure; xfail when only known ones fail."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unknown reset options warn by design (PettingZoo's api_test)
        outcomes = [judge(c) for c in cases]
    COUNTS[category] = COUNTS.get(category, 0) + len(outcomes)
    bad = [o for o in outcomes if o.kind not in ("refused", "ok")]
    unexpected = [o for o in bad if known_reason(o.case.category, o.case.game, o.case.name) is None]
    assert not unexpected, f"{len(unexpected)} of {len(outcomes)} {category} cases failed:\n" + describe(unexpected)
    if bad:
        reasons = sorted({known_reason(o.case.category, o.case.game, o.case.name) or "" for o in bad})
        pytest.xfail(f"{len(bad)} of {len(outcomes)} {category} cases fail in games being redesigned: "
                     + " | ".join(reasons))
    return outcomes
