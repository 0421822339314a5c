"""``seeds/fifth_earth.md`` stays honest: every test it cites exists, and so does every cited case.

The specification pins each rule and each gap choice to tests written ``file::test`` (optionally
followed by ``(case `id`, ...)`` naming parametrize ids). A renamed or deleted test would leave a
choice unpinned; this test says which.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "seeds" / "fifth_earth.md"
TEST_DIR = Path(__file__).resolve().parent
REF = re.compile(r"`(test_\w+\.py)::(test_\w+)`(?:\s*\((cases?[^)]*)\))?")


def defined_tests(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}


def test_every_cited_test_and_case_exists() -> None:
    text = SPEC.read_text(encoding="utf-8")
    refs = REF.findall(text)
    assert len(refs) >= 30, "the specification cites its tests"
    missing = []
    for filename, name, cases in refs:
        path = TEST_DIR / filename
        if not path.exists():
            missing.append(f"{filename} (file)")
            continue
        if name not in defined_tests(path):
            missing.append(f"{filename}::{name}")
        source = path.read_text(encoding="utf-8")
        for case in re.findall(r"`([\w-]+)`", cases):
            if f'id="{case}"' not in source:
                missing.append(f"{filename}::{name} case {case}")
    assert not missing, f"seeds/fifth_earth.md cites tests that do not exist: {missing}"


def test_every_gap_is_pinned_by_a_test() -> None:
    text = SPEC.read_text(encoding="utf-8")
    section = text.split("## Gaps and choices", 1)[1]
    items = re.split(r"\n(?=\d+\. \*\*)", section)[1:]
    assert len(items) >= 20
    unpinned = [item.splitlines()[0] for item in items if not REF.search(item)]
    assert not unpinned, f"gaps without a test: {unpinned}"


def test_the_spec_does_not_read_the_source_at_run_time() -> None:
    package = ROOT / "fight_envs"
    offenders = [str(p) for p in package.rglob("*.py") if "shared/seeds" in p.read_text(encoding="utf-8")]
    assert not offenders, f"project code must not read the source rules at run time: {offenders}"
