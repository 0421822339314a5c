"""The README's Python examples run as written (in order, sharing one namespace)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_examples_run(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) >= 4
    namespace: dict = {}
    for k, block in enumerate(blocks):
        exec(compile(block, f"README.md python block {k}", "exec"), namespace)
    assert "heuristic" in capsys.readouterr().out  # the evaluation table was printed


def test_readme_starts_with_the_two_commands_ci_runs():
    text = README.read_text()
    first_block = re.search(r"```bash\n(.*?)```", text, re.S).group(1)
    commands = [line for line in first_block.splitlines() if line and not line.startswith("#")]
    assert len(commands) == 2 and "fight-envs train" in commands[0]
    ci = (README.parent / ".ci" / "run").read_text()
    assert "pytest" in commands[1] and "python -m pytest -q" in ci
    extras = re.search(r'pip install -e "(\.\[[a-z,]+\])"', commands[1]).group(1)
    assert f'pip install --quiet -e "{extras}"' in ci, "CI installs the same extras as the README's test command"


def test_each_readme_python_example_runs_on_its_own():
    """A reader copies one snippet: it must not lean on names an earlier snippet defined."""
    for k, block in enumerate(re.findall(r"```python\n(.*?)```", README.read_text(), re.S)):
        exec(compile(block, f"README.md python block {k}", "exec"), {})
