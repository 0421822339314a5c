"""Pictures of games: a card table drawn from an engine's state, as SVG or an RGB array.

``draw(game, viewer)`` returns a :class:`~fight_envs.drawing.canvas.Canvas` of one state seen
from ``viewer``'s chair (``None``: a spectator, no hand): ``.to_svg()``, ``.to_array()``,
``.to_image()`` (and a notebook shows it inline). It shows what the game's text renderer shows and nothing the viewer may not
see. ``rgb_array(game, viewer)`` is the ``(600, 960, 3)`` uint8 frame behind
``render_mode="rgb_array"``. Whole records become GIFs, SVG folders and an HTML viewer in
:mod:`fight_envs.drawing.replay`.

Each game has one scene module here (``fight5``, ``brawl``, ``fifth_earth``, ``fight_klub``)
that reads its engine and places the shared widgets of :mod:`fight_envs.drawing.table`.
Rasters need Pillow (a dependency of the package, imported only when a raster is made).
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from fight_envs.drawing.canvas import Canvas
from fight_envs.drawing.table import HEIGHT, WIDTH

SCENES = {
    "Fight5Game": "fight5",
    "BrawlGame": "brawl",
    "FifthEarthGame": "fifth_earth",
    "FightKlubGame": "fight_klub",
}
"""Engine class name -> scene module in this package."""
FRAME_SHAPE = (HEIGHT, WIDTH, 3)
"""Shape of every ``rgb_array`` frame."""

__all__ = ["FRAME_SHAPE", "SCENES", "Canvas", "draw", "rgb_array", "svg"]


def draw(game: Any, viewer: int | None = None) -> Canvas:
    """The card table of ``game`` as ``viewer`` sees it (``None``: spectator, no private cards)."""
    name = type(game).__name__
    if name not in SCENES:
        raise TypeError(f"no picture for {name}; drawable engines are {sorted(SCENES)}")
    module = importlib.import_module(f"fight_envs.drawing.{SCENES[name]}")
    return module.scene(game, viewer)


def rgb_array(game: Any, viewer: int | None = None) -> np.ndarray:
    """``draw(game, viewer)`` as a ``FRAME_SHAPE`` uint8 array."""
    return draw(game, viewer).to_array()


def svg(game: Any, viewer: int | None = None) -> str:
    """``draw(game, viewer)`` as an SVG document."""
    return draw(game, viewer).to_svg()
