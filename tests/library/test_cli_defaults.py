"""Every ``fight-envs`` verb runs without optional flags, from an empty folder.

The quick verbs run here in the default suite; the ones whose defaults are minutes of work
(a 1.5M-step training run, 200-deal evaluations, the results page) are marked slow.
"""

from __future__ import annotations

import builtins
from pathlib import Path

import pytest

from fight_envs.train.cli import build_parser, main

SLOW_DEFAULTS = {
    "eval": ["eval", "heuristic"],
    "tournament": ["tournament"],
    "train": ["train"],
    "train-rllib": ["train-rllib"],
    "results": ["results"],
}
QUICK_DEFAULTS = {"envs": ["envs"], "play": ["play"]}
OTHER_VERBS = {"ladder", "ablate", "replay", "ensemble"}
"""Verbs whose owners test them (tests/search, tests/drawing, tests/train/test_ensemble_checkpoint.py); they
take a required argument."""


def verbs() -> set[str]:
    sub = next(a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    return set(sub.choices)


def test_every_verb_has_a_defaults_run() -> None:
    assert verbs() - OTHER_VERBS == set(SLOW_DEFAULTS) | set(QUICK_DEFAULTS)


@pytest.mark.parametrize("verb", sorted(QUICK_DEFAULTS))
def test_quick_verbs_run_with_their_defaults(verb: str, tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(builtins, "input", lambda prompt="": "q")  # play: the person quits at once
    assert main(QUICK_DEFAULTS[verb]) == 0
    assert capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize("verb", sorted(SLOW_DEFAULTS))
def test_long_verbs_run_with_their_defaults(verb: str, tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(SLOW_DEFAULTS[verb]) == 0
    if verb == "results":
        assert (tmp_path / "results.md").is_file()  # the shipped model, as there is no runs/latest here
