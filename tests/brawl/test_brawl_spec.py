"""``seeds/brawl.md`` stays honest: every test it cites exists (and every cited case), and every
design choice is pinned by at least one test.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "seeds" / "brawl.md"
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
    assert not missing, f"seeds/brawl.md cites tests that do not exist: {missing}"


def test_every_design_choice_is_pinned_by_a_test() -> None:
    text = SPEC.read_text(encoding="utf-8")
    section = text.split("## Design choices", 1)[1]
    items = re.split(r"\n(?=\d+\. \*\*)", section)[1:]
    assert len(items) >= 20
    unpinned = [item.splitlines()[0] for item in items if not REF.search(item)]
    assert not unpinned, f"design choices without a test: {unpinned}"


def test_the_spec_covers_every_rule_the_issue_lists() -> None:
    text = SPEC.read_text(encoding="utf-8").lower()
    for phrase in ("plus one", "clockwise", "the aggressor", "draws a card", "jump", "dodge", "counter",
                   "block", "chaos", "master", "showdown", "reaction windows", "draw pile is empty",
                   "truncated"):
        assert phrase in text, f"seeds/brawl.md does not mention {phrase!r}"
    assert "MEASURED_TABLE" not in SPEC.read_text(encoding="utf-8"), "the game-length table is not filled in"
