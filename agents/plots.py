"""PNG plots: ratings with error bars, and learning curves.

matplotlib (the ``train`` extra) is imported only inside these functions, and only its
object-oriented API with the Agg canvas is used, so no global pyplot state or display backend
is touched.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from fight_envs.agents.ratings import RatingTable

Series = Sequence[tuple[float, float]]
"""A learning curve: (step, value) points."""


def _figure(width: float, height: float) -> tuple[Any, Any]:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise ImportError("plots need matplotlib: pip install 'fight-envs[train]'") from exc
    fig = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot(1, 1, 1)


def _save(fig: Any, path: str) -> str:
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, format="png")
    return path


LABEL_WIDTH = 34
"""Characters per line of an agent's name on a plot's axis; longer names (search specs) wrap at their commas."""


def wrap_label(label: str, width: int = LABEL_WIDTH) -> str:
    """``label`` on lines of at most about ``width`` characters, broken after its commas (a spec's options)
    or, for a part with no comma, not at all: a long name would otherwise squeeze the plot out of its figure."""
    lines: list[str] = []
    for part in [p + "," for p in label.split(",")[:-1]] + [label.split(",")[-1]]:
        if lines and len(lines[-1]) + len(part) <= width:
            lines[-1] += part
        else:
            lines.append(part)
    return "\n".join(lines)


def plot_ratings(table: RatingTable, path: str, title: str | None = None) -> str:
    """Elo ratings as points with +-1.96 s.e. error bars, best on top; returns ``path``."""
    order = table.order()[::-1]  # y grows upwards, so the best goes last
    labels = [wrap_label(table.labels[k]) for k in order]
    rating = table.rating[order]
    err = np.nan_to_num(table.se[order]) * 1.959963984540054
    extra = sum(label.count("\n") for label in labels)
    fig, ax = _figure(7.0, 1.0 + 0.45 * len(labels) + 0.2 * extra)
    ax.errorbar(rating, np.arange(len(labels)), xerr=err, fmt="o", color="#4c72b0", ecolor="black", capsize=3)
    for y, r in enumerate(rating):
        ax.annotate(f"{r:.0f}", (r, y), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=8)
    ax.set_ylim(-0.7, len(labels) - 0.3)
    ax.set_yticks(np.arange(len(labels)))
    ax.set_yticklabels(labels)
    ax.axvline(table.anchor_rating, color="grey", linewidth=0.8)
    ax.set_xlabel("Elo (" + (f"{table.anchor} = {table.anchor_rating:.0f}" if table.anchor else "mean anchored")
                  + "), 95% bootstrap interval")
    ax.set_title(title or "Ratings")
    return _save(fig, path)


def plot_learning_curves(
    series: Mapping[str, Series],
    path: str,
    xlabel: str = "environment steps",
    ylabel: str = "win rate",
    title: str | None = None,
    bands: Mapping[str, Sequence[tuple[float, float, float]]] | None = None,
    reference: float | None = None,
) -> str:
    """One line per named series of (step, value); optional shaded (step, low, high) bands per
    name (e.g. confidence intervals) and a dashed horizontal ``reference`` (e.g. 0.5)."""
    if not series:
        raise ValueError("plot_learning_curves needs at least one series")
    if bands:
        unknown = sorted(set(bands) - set(series))
        if unknown:
            raise ValueError(f"bands given for unknown series {unknown}; series: {sorted(series)}")
    fig, ax = _figure(7.0, 4.5)
    for name, points in series.items():
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        if pts.size == 0:
            raise ValueError(f"series {name!r} has no points")
        pts = pts[np.argsort(pts[:, 0], kind="stable")]
        line = ax.plot(pts[:, 0], pts[:, 1], marker="o", markersize=3, label=name)[0]
        if bands and name in bands:
            band = np.asarray(bands[name], dtype=np.float64).reshape(-1, 3)
            band = band[np.argsort(band[:, 0], kind="stable")]
            ax.fill_between(band[:, 0], band[:, 1], band[:, 2], color=line.get_color(), alpha=0.2)
    if reference is not None:
        ax.axhline(reference, color="grey", linestyle="--", linewidth=0.8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title or "Learning curves")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best")
    return _save(fig, path)
