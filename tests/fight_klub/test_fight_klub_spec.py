"""``seeds/fight_klub.md`` stays honest: every test it cites exists, and so does every cited case.

The rules specification pins each interpretation to tests written ``file::test`` (optionally
followed by ``(case `id`, ...)`` naming parametrize ids). A renamed or deleted test would leave
an interpretation unpinned; this test says which.
"""

from __future__ import annotations

from pathlib import Path

from fight_envs.testing import missing_spec_citations, spec_citations, unpinned_spec_items

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "seeds" / "fight_klub.md"
TEST_DIR = Path(__file__).resolve().parent


def test_every_cited_test_and_case_exists() -> None:
    assert len(spec_citations(SPEC)) >= 30, "the specification cites its tests"
    missing = missing_spec_citations(SPEC, TEST_DIR)
    assert not missing, f"seeds/fight_klub.md cites tests that do not exist: {missing}"


def test_every_interpretation_is_pinned_by_a_test() -> None:
    count, unpinned = unpinned_spec_items(SPEC, "Interpretations")
    assert count >= 20
    assert not unpinned, f"interpretations without a test: {unpinned}"
