"""PNG plots of ratings and learning curves."""

from __future__ import annotations

import numpy as np
import pytest

from fight_envs.agents.plots import plot_learning_curves, plot_ratings
from fight_envs.agents.ratings import RatingTable

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_rating_plot_is_a_png(tmp_path):
    table = RatingTable(["random-v1", "greedy-v1", "heuristic-v1"], np.array([1000.0, 1180.0, 1650.0]),
                        np.array([0.0, 12.0, 20.0]), np.array([400, 400, 400]), "random-v1", 1000.0, 50)
    path = plot_ratings(table, str(tmp_path / "sub" / "ratings.png"))
    data = open(path, "rb").read()
    assert data.startswith(PNG_MAGIC) and len(data) > 2000


def test_learning_curve_plot_is_a_png(tmp_path):
    series = {"vs random": [(0, 0.5), (1000, 0.7), (2000, 0.8)], "vs greedy": [(2000, 0.4), (0, 0.1)]}
    bands = {"vs random": [(0, 0.4, 0.6), (1000, 0.6, 0.8), (2000, 0.75, 0.85)]}
    path = plot_learning_curves(series, str(tmp_path / "curve.png"), bands=bands, reference=0.5)
    assert open(path, "rb").read().startswith(PNG_MAGIC)


def test_learning_curve_errors(tmp_path):
    with pytest.raises(ValueError, match="at least one series"):
        plot_learning_curves({}, str(tmp_path / "x.png"))
    with pytest.raises(ValueError, match="no points"):
        plot_learning_curves({"a": []}, str(tmp_path / "x.png"))
    with pytest.raises(ValueError, match="unknown series"):
        plot_learning_curves({"a": [(0, 1)]}, str(tmp_path / "x.png"), bands={"b": [(0, 0, 1)]})


def test_long_agent_names_wrap_at_their_commas_on_the_ratings_plot() -> None:
    from fight_envs.agents.plots import LABEL_WIDTH, wrap_label

    spec = "search-v1:sims=32,prior=models/fight_klub_2p.zip,kinds=enhance,margin=0.2"
    wrapped = wrap_label(spec)
    assert wrapped.replace("\n", "") == spec  # nothing lost, only line breaks added
    assert wrapped.count("\n") >= 2 and all(len(line) <= LABEL_WIDTH for line in wrapped.split("\n"))
    assert wrap_label("heuristic-v4") == "heuristic-v4" and wrap_label("a" * 50) == "a" * 50  # no comma: one line
