"""The layering the project promises: rules engines import no RL library, and importing the
environments pulls in neither torch nor Ray (research code that only wants the envs stays light)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RL_LIBRARIES = {"gymnasium", "pettingzoo", "torch", "ray", "stable_baselines3", "sb3_contrib"}


def test_rules_engines_import_no_rl_library():
    offenders = []
    for path in sorted((ROOT / "fight_envs" / "games").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in RL_LIBRARIES]
    assert not offenders, offenders


def test_importing_the_envs_loads_neither_torch_nor_ray():
    code = ("import sys, fight_envs; from fight_envs import fight5_v0, brawl_v0, fifth_earth_v0, fight_klub_v0; "
            "import fight_envs.agents.registry; print(sorted(m for m in ('torch', 'ray', 'stable_baselines3') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.strip() == "[]"
