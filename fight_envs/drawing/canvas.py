"""A tiny vector canvas with two outputs: SVG text and an RGB array (through Pillow).

A scene is drawn once, as a list of shapes (rounded rectangles, circles, lines, polygons, text),
and the same list is written as SVG or rasterised, so the picture in a GIF, a video frame and the
HTML viewer is one picture. Pillow is imported when the first picture is drawn (never by
``import fight_envs``).

Text metrics (fitting names on cards) and raster text use Pillow's bundled scalable font
(``ImageFont.load_default(size)``, Pillow >= 10.1), so frames are the same on every machine; SVG
text names a sans-serif font family, which browsers draw at nearly the same widths.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from html import escape
from typing import Any

import numpy as np

Color = tuple[int, int, int]

SUPERSAMPLE = 2
"""Rasters are drawn at this multiple of their size and reduced: smooth edges and text."""
FONT_FAMILY = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"


def hex_color(c: Color) -> str:
    return "#%02x%02x%02x" % c


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    fill: Color | None
    stroke: Color | None = None
    stroke_width: float = 1.0
    radius: float = 0.0


@dataclass(frozen=True)
class Circle:
    cx: float
    cy: float
    r: float
    fill: Color | None
    stroke: Color | None = None
    stroke_width: float = 1.0


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    stroke: Color
    width: float = 1.0


@dataclass(frozen=True)
class Polygon:
    points: tuple[tuple[float, float], ...]
    fill: Color | None
    stroke: Color | None = None
    stroke_width: float = 1.0


@dataclass(frozen=True)
class Text:
    x: float
    y: float
    text: str
    size: float
    fill: Color
    anchor: str = "start"  # "start" | "middle" | "end"; y is the vertical centre of the text
    bold: bool = False


Shape = Rect | Circle | Line | Polygon | Text


@lru_cache(maxsize=64)
def _font(size: int) -> Any:
    from PIL import ImageFont

    return ImageFont.load_default(size=size)


_METRIC_SIZE = 64


@lru_cache(maxsize=4096)
def _unit_width(text: str) -> float:
    return float(_font(_METRIC_SIZE).getlength(text)) / _METRIC_SIZE


def text_width(text: str, size: float) -> float:
    """The width ``text`` takes at font ``size`` (the raster font's metric, which scales with the
    size; SVG's sans-serif fonts are close to it)."""
    return _unit_width(text) * size


def fit_text(text: str, size: float, width: float) -> str:
    """``text``, cut with an ellipsis so that it fits in ``width``."""
    if text_width(text, size) <= width:
        return text
    while text and text_width(text + "…", size) > width:
        text = text[:-1]
    return text + "…" if text else ""


@dataclass
class Canvas:
    """Shapes in drawing order on a ``width`` x ``height`` picture with a ``background``."""

    width: int
    height: int
    background: Color = (255, 255, 255)
    shapes: list[Shape] = field(default_factory=list)
    backdrop: int = 0
    """How many leading shapes are a fixed backdrop (the same in every frame): rasterised once."""

    # --------------------------------------------------------------- drawing
    def rect(self, x: float, y: float, w: float, h: float, fill: Color | None, stroke: Color | None = None,
             stroke_width: float = 1.0, radius: float = 0.0) -> None:
        if w > 0 and h > 0:
            self.shapes.append(Rect(x, y, w, h, fill, stroke, stroke_width, min(radius, w / 2, h / 2)))

    def circle(self, cx: float, cy: float, r: float, fill: Color | None, stroke: Color | None = None,
               stroke_width: float = 1.0) -> None:
        self.shapes.append(Circle(cx, cy, r, fill, stroke, stroke_width))

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: Color, width: float = 1.0) -> None:
        self.shapes.append(Line(x1, y1, x2, y2, stroke, width))

    def polygon(self, points: list[tuple[float, float]], fill: Color | None, stroke: Color | None = None,
                stroke_width: float = 1.0) -> None:
        self.shapes.append(Polygon(tuple(points), fill, stroke, stroke_width))

    def text(self, x: float, y: float, text: str, size: float, fill: Color, anchor: str = "start",
             bold: bool = False, max_width: float | None = None) -> None:
        if max_width is not None:
            text = fit_text(text, size, max_width)
        if text:
            self.shapes.append(Text(x, y, text, size, fill, anchor, bold))

    # --------------------------------------------------------------- output
    def to_svg(self) -> str:
        """The picture as a standalone SVG document (no external references)."""
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
               f'viewBox="0 0 {self.width} {self.height}" font-family="{FONT_FAMILY}">',
               f'<rect width="{self.width}" height="{self.height}" fill="{hex_color(self.background)}"/>']
        for s in self.shapes:
            out.append(_svg_shape(s))
        out.append("</svg>")
        return "\n".join(out)

    def _repr_svg_(self) -> str:
        """Jupyter shows a canvas as its picture."""
        return self.to_svg()

    def to_image(self, scale: float = 1.0) -> Any:
        """The picture as a Pillow RGB image of ``round(width * scale)`` x ``round(height * scale)``."""
        from PIL import Image, ImageDraw

        k = scale * SUPERSAMPLE
        image = _backdrop(self.width, self.height, self.background, tuple(self.shapes[: self.backdrop]), k).copy()
        draw = ImageDraw.Draw(image)
        for s in self.shapes[self.backdrop:]:
            _raster_shape(image, draw, s, k)
        image = image.reduce(SUPERSAMPLE)
        size = (round(self.width * scale), round(self.height * scale))
        return image if image.size == size else image.resize(size, Image.Resampling.BOX)

    def to_array(self, scale: float = 1.0) -> np.ndarray:
        """The picture as an ``(height, width, 3)`` uint8 array (times ``scale``)."""
        return np.asarray(self.to_image(scale), dtype=np.uint8).copy()


@lru_cache(maxsize=8)
def _backdrop(width: int, height: int, background: Color, shapes: tuple[Shape, ...], k: float) -> Any:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (round(width * k), round(height * k)), background)
    draw = ImageDraw.Draw(image)
    for s in shapes:
        _raster_shape(image, draw, s, k)
    return image


def _fmt(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _svg_shape(s: Shape) -> str:
    if isinstance(s, Rect):
        attrs = f'x="{_fmt(s.x)}" y="{_fmt(s.y)}" width="{_fmt(s.w)}" height="{_fmt(s.h)}"'
        if s.radius:
            attrs += f' rx="{_fmt(s.radius)}"'
        return f"<rect {attrs}{_paint(s.fill, s.stroke, s.stroke_width)}/>"
    if isinstance(s, Circle):
        paint = _paint(s.fill, s.stroke, s.stroke_width)
        return f'<circle cx="{_fmt(s.cx)}" cy="{_fmt(s.cy)}" r="{_fmt(s.r)}"{paint}/>'
    if isinstance(s, Line):
        return (f'<line x1="{_fmt(s.x1)}" y1="{_fmt(s.y1)}" x2="{_fmt(s.x2)}" y2="{_fmt(s.y2)}" '
                f'stroke="{hex_color(s.stroke)}" stroke-width="{_fmt(s.width)}" stroke-linecap="round"/>')
    if isinstance(s, Polygon):
        pts = " ".join(f"{_fmt(x)},{_fmt(y)}" for x, y in s.points)
        return f'<polygon points="{pts}"{_paint(s.fill, s.stroke, s.stroke_width)}/>'
    weight = ' font-weight="bold"' if s.bold else ""
    return (f'<text x="{_fmt(s.x)}" y="{_fmt(s.y)}" font-size="{_fmt(s.size)}" fill="{hex_color(s.fill)}" '
            f'text-anchor="{s.anchor}" dominant-baseline="central"{weight}>{escape(s.text)}</text>')


def _paint(fill: Color | None, stroke: Color | None, width: float) -> str:
    out = f' fill="{hex_color(fill)}"' if fill is not None else ' fill="none"'
    if stroke is not None:
        out += f' stroke="{hex_color(stroke)}" stroke-width="{_fmt(width)}"'
    return out


_PIL_ANCHORS = {"start": "lm", "middle": "mm", "end": "rm"}


def _raster_shape(image: Any, draw: Any, s: Shape, k: float) -> None:
    if isinstance(s, Rect):
        box = (s.x * k, s.y * k, (s.x + s.w) * k - 1, (s.y + s.h) * k - 1)
        width = max(1, round(s.stroke_width * k)) if s.stroke is not None else 0
        draw.rounded_rectangle(box, radius=s.radius * k, fill=s.fill, outline=s.stroke, width=width)
    elif isinstance(s, Circle):
        box = ((s.cx - s.r) * k, (s.cy - s.r) * k, (s.cx + s.r) * k, (s.cy + s.r) * k)
        width = max(1, round(s.stroke_width * k)) if s.stroke is not None else 0
        draw.ellipse(box, fill=s.fill, outline=s.stroke, width=width)
    elif isinstance(s, Line):
        draw.line((s.x1 * k, s.y1 * k, s.x2 * k, s.y2 * k), fill=s.stroke, width=max(1, round(s.width * k)))
    elif isinstance(s, Polygon):
        width = max(1, round(s.stroke_width * k)) if s.stroke is not None else 0
        draw.polygon([(x * k, y * k) for x, y in s.points], fill=s.fill, outline=s.stroke, width=width)
    else:
        size = max(1, round(s.size * k))
        mask, (dx, dy) = _text_stamp(s.text, size, max(1, round(size / 28)) if s.bold else 0, _PIL_ANCHORS[s.anchor])
        image.paste(s.fill, (round(s.x * k) + dx, round(s.y * k) + dy), mask)


@lru_cache(maxsize=4096)
def _text_stamp(text: str, size: int, stroke: int, anchor: str) -> tuple[Any, tuple[int, int]]:
    """``text`` rendered once as a greyscale mask, and where its corner sits from the anchor point
    (the same words recur in every frame: drawing them anew was most of a frame's time)."""
    from PIL import Image, ImageDraw

    font = _font(size)
    left, top, right, bottom = font.getbbox(text, anchor=anchor, stroke_width=stroke)
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=font, fill=255, anchor=anchor, stroke_width=stroke,
                              stroke_fill=255)
    return mask, (left, top)
