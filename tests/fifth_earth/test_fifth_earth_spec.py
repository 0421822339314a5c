"""``seeds/fifth_earth.md`` stays honest: every test it cites exists, and so does every cited case.

The specification pins each rule and each gap choice to tests written ``file::test`` (optionally
followed by ``(case `id`, ...)`` naming parametrize ids). A renamed or deleted test would leave a
choice unpinned; this test says which.
"""

from __future__ import annotations

from pathlib import Path

from fight_envs.testing import missing_spec_citations, spec_citations, unpinned_spec_items

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "seeds" / "fifth_earth.md"
TEST_DIR = Path(__file__).resolve().parent


def test_every_cited_test_and_case_exists() -> None:
    assert len(spec_citations(SPEC)) >= 30, "the specification cites its tests"
    missing = missing_spec_citations(SPEC, TEST_DIR)
    assert not missing, f"seeds/fifth_earth.md cites tests that do not exist: {missing}"


def test_every_gap_is_pinned_by_a_test() -> None:
    count, unpinned = unpinned_spec_items(SPEC, "Gaps and choices")
    assert count >= 20
    assert not unpinned, f"gaps without a test: {unpinned}"


def test_the_spec_does_not_read_the_source_at_run_time() -> None:
    package = ROOT / "fight_envs"
    offenders = [str(p) for p in package.rglob("*.py") if "shared/seeds" in p.read_text(encoding="utf-8")]
    assert not offenders, f"project code must not read the source rules at run time: {offenders}"
