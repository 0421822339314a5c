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
