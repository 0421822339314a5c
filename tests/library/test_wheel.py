"""The wheel as a user gets it: built from the tree, installed non-editable into a fresh venv, run from an empty folder.

The build is network-free (``pip wheel --no-deps --no-build-isolation``, setuptools from this
environment) and so is the install (``--no-deps --no-index``: the venv sees this environment's
numpy, torch ... through ``--system-site-packages``, but its own ``fight_envs`` is the wheel's).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD_INPUTS = ("pyproject.toml", "README.md", "LICENSE", "fight_envs", "agents", "train", "configs", "models", "seeds")
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("src")
    for name in BUILD_INPUTS:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, symlinks=True, ignore=IGNORE)  # the symlinks travel as symlinks
        elif path.exists():
            shutil.copy2(path, src / name)
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out),
                    str(src)], check=True, capture_output=True, text=True)
    (found,) = out.glob("fight_envs-*.whl")
    return found


def test_the_wheel_holds_one_top_level_package_with_real_files(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as z:
        infos = z.infolist()
        names = [i.filename for i in infos]
        top = {n.split("/")[0] for n in names}
        assert {t for t in top if not t.endswith(".dist-info")} == {"fight_envs"}
        top_level = next(n for n in names if n.endswith(".dist-info/top_level.txt"))
        assert z.read(top_level).decode().split() == ["fight_envs"]
        for must in ("fight_envs/agents/registry.py", "fight_envs/train/cli.py", "fight_envs/train/rllib/trainer.py",
                     "fight_envs/configs/fight5_selfplay_batched.yaml", "fight_envs/seeds/fight5.md",
                     "fight_envs/models/fight5_2p_default.zip", "fight_envs/models/fight5_2p_rllib/module_state.pt"):
            assert must in names, must
        for info in infos:  # no symlink entries: every member is a regular file with content
            assert (info.external_attr >> 28) != 0o12, info.filename
        shipped_configs = {n.rsplit("/", 1)[1] for n in names if n.startswith("fight_envs/configs/")}
        assert shipped_configs == {p.name for p in (ROOT / "configs").glob("*.yaml")}
        shipped_rules = {n.rsplit("/", 1)[1] for n in names if n.startswith("fight_envs/seeds/")}
        assert shipped_rules == {p.name for p in (ROOT / "seeds").glob("*.md")}


def test_installed_non_editable_it_works_from_an_empty_folder(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--no-index", "-q",
                    str(wheel)], check=True, capture_output=True, text=True)
    work = tmp_path / "empty"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["MPLBACKEND"] = "Agg"

    def run(*args: str) -> str:
        done = subprocess.run([str(env_dir / "bin" / "fight-envs"), *args], cwd=work, env=env, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, f"fight-envs {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
        return done.stdout

    where = subprocess.run([str(py), "-c", "import fight_envs, fight_envs.train.cli as c; print(fight_envs.__file__);"
                            "print(c.__file__)"], cwd=work, env=env, capture_output=True, text=True, check=True).stdout
    assert all(line.startswith(str(env_dir)) for line in where.split()), where  # the wheel's copy, not the checkout

    out = run("envs")
    assert "fifth_earth_v0" in out and str(env_dir) in out  # rules: the shipped spec inside the venv
    run("train", "--config", "fight5_selfplay_tiny.yaml", "eval.games=2")
    assert (work / "runs" / "latest" / "final.zip").is_file()
    out = run("eval", "models/fight5_2p_default.zip", "--deals", "2", "--baselines", "random")
    assert "on fight5_v0(" in out and "random" in out
    run("results", "--deals", "2", "--tournament-deals", "1", "--baseline-deals", "1")
    assert (work / "results.md").is_file() and (work / "ratings.png").is_file()
    assert sorted(p.name for p in work.iterdir()) == ["learning_curve.png", "ratings.png", "results.md", "runs"]
