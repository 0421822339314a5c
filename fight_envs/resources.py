"""Files that ship inside the package: training configs, trained models and the rules specs.

In the repository they are the top-level folders ``configs/``, ``models/`` and ``seeds/``;
``fight_envs/configs``, ``fight_envs/models`` and ``fight_envs/seeds`` are symlinks to them, so
the wheel carries them as package data (real files) and an installed package finds them here
through :mod:`importlib.resources`, wherever the user runs from.

    >>> from fight_envs.resources import config_path, model_path, rules_path
    >>> config_path("fight5_selfplay_batched.yaml").name
    'fight5_selfplay_batched.yaml'
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fight_envs.core.errors import ConfigError

KINDS = ("configs", "models", "seeds")


def package_dir(kind: str) -> Path:
    """The packaged folder ``kind`` (one of :data:`KINDS`) as a file-system path."""
    if kind not in KINDS:
        raise ConfigError(f"unknown resource kind {kind!r}; allowed: {', '.join(KINDS)}")
    # the package is installed as files (never zipped: it holds data read by path), so this is a real folder
    return Path(str(resources.files("fight_envs").joinpath(kind)))


def list_resources(kind: str) -> list[str]:
    """Names of the files (and, for models, checkpoint folders) shipped in ``kind``."""
    folder = package_dir(kind)
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith((".", "_")))


def _find(kind: str, name: str, what: str) -> Path:
    stem = name[len(kind) + 1:] if name.startswith(kind + "/") else name
    path = package_dir(kind) / stem
    if stem and "/" not in stem and "\\" not in stem and stem not in ("..", ".") and path.exists():
        return path
    raise ConfigError(f"no shipped {what} {name!r}; shipped: {', '.join(list_resources(kind)) or 'none'}")


def config_path(name: str) -> Path:
    """A shipped training config by file name (``"fight5_selfplay_tiny.yaml"``, ``"configs/..."``, or
    the name without ``.yaml``)."""
    if not name.endswith((".yaml", ".yml")):
        try:
            return _find("configs", name + ".yaml", "config")
        except ValueError:
            pass  # fall through: the error names the name as given
    return _find("configs", name, "config")


def model_path(name: str) -> Path:
    """A shipped trained model by name (``"fight5_2p_default.zip"``, ``"models/fight5_2p_rllib"``)."""
    return _find("models", name, "model")


def rules_path(game: str) -> Path:
    """The rules spec of ``game`` (``"fight5"``, ``"brawl_v0"`` ...), a Markdown file."""
    import re

    return _find("seeds", re.sub(r"_v\d+$", "", game) + ".md", "rules spec")


__all__ = ["KINDS", "config_path", "list_resources", "model_path", "package_dir", "rules_path"]
