"""mkdocs hook: the pages built from the code itself (env cards, observation layouts, rules specs, CLI).

Nothing here is written to disk: ``on_files`` adds generated pages, so the site always matches
the code it is built from. Run ``mkdocs build --strict`` (CI does) or ``mkdocs serve``.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
GAMES = {
    "fight5": "Fight 5",
    "brawl": "Brawl",
    "fifth_earth": "Fifth-Earth battles",
    "fight_klub": "Fight Klub TCG",
}


def _env_page(game: str, title: str) -> str:
    return (f"# {title}\n\n"
            f"The env card: the docstring of `fight_envs.envs.{game}`. The observation layout, feature by feature, "
            f"is on [its own page](../observations/{game}.md); the rules are in [the rules spec](../rules/{game}.md).\n\n"
            f"::: fight_envs.envs.{game}\n"
            "    options:\n"
            "      show_root_heading: false\n"
            "      show_source: false\n"
            "      members: [raw_env, env, parallel_raw_env, parallel_env]\n")


def _observation_page(game: str, title: str) -> str:
    module = importlib.import_module(f"fight_envs.games.{game}.observe")
    doc = inspect.getdoc(module) or ""
    lines = [f"# {title}: observation layout", "",
             f"From `fight_envs/games/{game}/observe.py`: the observation vector, block by block "
             f"({module.OBS_SIZE} float32 features).", ""]
    layout = getattr(module, "OBS_LAYOUT", None)
    if layout:
        lines += ["| block | size | first index |", "| --- | --- | --- |"]
        start = 0
        for name, size in layout:
            lines.append(f"| `{name}` | {size} | {start} |")
            start += size
        lines.append("")
    lines += ["## The encoder's documentation", "", _demote(doc), ""]
    return "\n".join(lines)


def _demote(markdown: str) -> str:
    """Headings of an included document one level down (the page has its own title)."""
    return re.sub(r"^(#+) ", lambda m: "#" + m.group(1) + " ", markdown, flags=re.M)


def _rules_page(game: str, title: str) -> str:
    text = (ROOT / "seeds" / f"{game}.md").read_text()
    # links inside a spec point at repository files, which are not pages of this site
    text = re.sub(r"\]\((?!https?://|#)([^)]+)\)", r"] (`\1`)", text)
    return f"<!-- generated from seeds/{game}.md -->\n\n" + text


def _cli_page() -> str:
    from fight_envs.train.cli import build_parser

    parser = build_parser()
    lines = ["# Command line", "", "`fight-envs` (or `python -m fight_envs.train.cli`): every verb's `--help`, "
             "generated from the parser itself.", "", "```text", parser.format_help().rstrip(), "```", ""]
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, p in sub.choices.items():
        lines += [f"## `fight-envs {name}`", "", "```text", p.format_help().rstrip(), "```", ""]
    return "\n".join(lines)


def _config_page() -> str:
    from fight_envs.train.cli import _config_keys
    from fight_envs.train.config import Config

    lines = ["# Training-config keys", "", "Every key of `fight-envs train` with its default "
             "(`fight-envs train --list-keys` prints the same, with a config's values); override any with "
             "`key=value`.", "", "| key | default |", "| --- | --- |"]
    lines += [f"| `{key}` | `{default!r}` |" for key, default in _config_keys(Config())]
    return "\n".join(lines) + "\n"


def on_files(files, config):
    pages = {"cli.md": _cli_page(), "training-config.md": _config_page()}
    for game, title in GAMES.items():
        pages[f"envs/{game}.md"] = _env_page(game, title)
        pages[f"observations/{game}.md"] = _observation_page(game, title)
        pages[f"rules/{game}.md"] = _rules_page(game, title)
    for uri, content in pages.items():
        files.append(File.generated(config, uri, content=content))
    return files
