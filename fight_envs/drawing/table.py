"""The card table every game is drawn on: felt, cards, face-down piles, seat plates, banners.

Scene functions (``fight_envs/drawing/<game>.py``) place these widgets; the look (palette,
card proportions, fonts) lives here so the four games look like one suite.
"""

from __future__ import annotations

import math

from fight_envs.drawing.canvas import Canvas, Color, text_width

WIDTH = 960
HEIGHT = 600
"""Every scene's size (the rgb_array frames are HEIGHT x WIDTH x 3)."""

FELT: Color = (21, 94, 58)
FELT_DARK: Color = (14, 66, 41)
FELT_LINE: Color = (48, 128, 86)
WOOD: Color = (92, 58, 33)
INK: Color = (33, 33, 38)
PAPER: Color = (250, 247, 238)
MUTED: Color = (196, 222, 204)
WHITE: Color = (255, 255, 255)
GOLD: Color = (244, 196, 48)
BACK: Color = (44, 62, 140)
BACK_LINE: Color = (120, 140, 214)
RED: Color = (198, 52, 44)
SEAT_COLORS: tuple[Color, ...] = ((214, 69, 65), (52, 120, 214), (240, 170, 40), (122, 176, 66), (156, 89, 182),
                                  (32, 178, 170), (236, 112, 180), (150, 150, 150))
"""One colour per seat (Fight 5 elements, seat plates), in seat order."""

CARD_W = 46
CARD_H = 66


def seat_color(seat: int) -> Color:
    return SEAT_COLORS[seat % len(SEAT_COLORS)]


def lighten(c: Color, t: float) -> Color:
    return (round(c[0] + (255 - c[0]) * t), round(c[1] + (255 - c[1]) * t), round(c[2] + (255 - c[2]) * t))


def new_table(title: str, status: str, width: int = WIDTH, height: int = HEIGHT) -> Canvas:
    """A felt table with a wooden rim, ``title`` and ``status`` in the banner along the top."""
    c = Canvas(width, height, WOOD)
    c.rect(8, 8, width - 16, height - 16, FELT, FELT_DARK, 3, radius=26)
    c.rect(22, 50, width - 44, height - 72, None, FELT_LINE, 1.5, radius=18)
    c.backdrop = len(c.shapes)
    c.text(30, 29, title, 19, WHITE, bold=True)
    c.text(width - 30, 29, status, 14, MUTED, anchor="end", max_width=width - 60 - 14 * len(title))
    return c


def card(c: Canvas, x: float, y: float, value: str, color: Color, label: str = "", w: float = CARD_W,
         h: float = CARD_H, highlight: bool = False, dim: bool = False) -> None:
    """A face-up card: ``value`` large in the middle, a ``color`` band on top with ``label`` under it."""
    c.rect(x + 2, y + 3, w, h, (10, 40, 24), radius=w * 0.14)  # shadow
    border = GOLD if highlight else (120, 120, 120)
    face = (222, 222, 214) if dim else PAPER
    c.rect(x, y, w, h, face, border, 3 if highlight else 1, radius=w * 0.14)
    c.rect(x + 3, y + 3, w - 6, h * 0.16, color, radius=w * 0.08)
    ink = INK if not dim else (110, 110, 110)
    size = min(w * 0.5, h * 0.36)
    words = value.split(" ")
    if len(words) > 1 and text_width(value, size * 0.5) > w - 8:
        # a name: two lines, each as large as fits
        cut = max(range(1, len(words)), key=lambda k: -abs(len(" ".join(words[:k])) - len(" ".join(words[k:]))))
        lines = [" ".join(words[:cut]), " ".join(words[cut:])]
        size = min(w * 0.24, h * 0.16)
        while size > 6 and max(text_width(s, size) for s in lines) > w - 8:
            size -= 0.5
        for i, line in enumerate(lines):
            c.text(x + w / 2, y + h * 0.52 + (i - 0.5) * size * 1.15, line, size, ink, anchor="middle", bold=True,
                   max_width=w - 6)
    else:
        if len(value) > 3:  # a word, not a number: no larger than a two-line name
            size = min(size, h * 0.2)
        while size > 6 and text_width(value, size) > w - 10:
            size -= 1
        c.text(x + w / 2, y + h * 0.52, value, size, ink, anchor="middle", bold=True, max_width=w - 6)
    if label:
        size = min(11, w * 0.22)
        while size > 7 and text_width(label, size) > w - 6:
            size -= 0.5
        c.text(x + w / 2, y + h * 0.84, label, size, (90, 90, 90), anchor="middle", max_width=w - 4)


def star(c: Canvas, cx: float, cy: float, r: float, fill: Color) -> None:
    """A five-pointed star (Fight 5's star card)."""
    pts = []
    for i in range(10):
        rad = r if i % 2 == 0 else r * 0.45
        a = -math.pi / 2 + i * math.pi / 5
        pts.append((cx + rad * math.cos(a), cy + rad * math.sin(a)))
    c.polygon(pts, fill, INK, 1)


def card_back(c: Canvas, x: float, y: float, w: float = CARD_W, h: float = CARD_H) -> None:
    """A face-down card."""
    c.rect(x, y, w, h, BACK, WHITE, 1.5, radius=w * 0.14)
    c.rect(x + 4, y + 4, w - 8, h - 8, None, BACK_LINE, 1, radius=w * 0.1)
    c.line(x + 8, y + 8, x + w - 8, y + h - 8, BACK_LINE, 1)
    c.line(x + w - 8, y + 8, x + 8, y + h - 8, BACK_LINE, 1)


def pile(c: Canvas, x: float, y: float, count: int, label: str, w: float = CARD_W, h: float = CARD_H) -> None:
    """A face-down pile of ``count`` cards (an empty outline when 0) with ``label`` and the count under it."""
    if count <= 0:
        c.rect(x, y, w, h, None, FELT_LINE, 1.5, radius=w * 0.14)
    else:
        for k in range(min(3, (count + 9) // 10)):
            card_back(c, x + 2 * (2 - k), y - 2 * (2 - k), w, h)
        card_back(c, x, y, w, h)
    c.text(x + w / 2, y + h + 10, f"{label} {count}", 11, MUTED, anchor="middle")


def hidden_cards(c: Canvas, x: float, y: float, count: int, w: float = 22, h: float = 32, step: float = 9,
                 max_shown: int = 12) -> float:
    """``count`` small overlapping card backs (someone else's hand); returns the right edge."""
    shown = min(count, max_shown)
    for k in range(shown):
        card_back(c, x + k * step, y, w, h)
    right = x + (shown - 1) * step + w if shown else x
    if count > shown:
        c.text(right + 4, y + h / 2, f"+{count - shown}", 11, MUTED)
    return right


def seat_plate(c: Canvas, x: float, y: float, w: float, h: float, name: str, lines: list[str], color: Color,
               acting: bool = False, you: bool = False, out: bool = False) -> None:
    """A player's name plate: name in its colour, a few lines of numbers; gold rim when it is to act."""
    c.rect(x, y, w, h, FELT_DARK if not out else (40, 60, 48), GOLD if acting else FELT_LINE, 3 if acting else 1.2,
           radius=10)
    c.circle(x + 14, y + 15, 7, color, WHITE, 1)
    tag = name + ("  (you)" if you else "")
    c.text(x + 27, y + 15, tag, 14, WHITE if not out else MUTED, bold=True, max_width=w - 34 - (52 if acting else 0))
    if acting:
        c.rect(x + w - 54, y + 6, 48, 18, GOLD, radius=9)
        c.text(x + w - 30, y + 15, "TO ACT", 10, INK, anchor="middle", bold=True)
    for i, line in enumerate(lines):
        c.text(x + 10, y + 35 + 16 * i, line, 12, MUTED, max_width=w - 16)


def panel(c: Canvas, x: float, y: float, w: float, h: float, title: str = "", fill: Color = FELT_DARK) -> None:
    """A darker area of the felt with a small caption."""
    c.rect(x, y, w, h, fill, FELT_LINE, 1, radius=12)
    if title:
        c.text(x + 10, y + 12, title, 11, MUTED, bold=True, max_width=w - 16)


def footer(c: Canvas, text: str) -> None:
    """One line along the bottom of the felt (the last action, the result)."""
    c.text(c.width / 2, c.height - 30, text, 13, WHITE, anchor="middle", max_width=c.width - 80)


def hand_row(c: Canvas, x: float, y: float, w: float, cards: list[tuple[str, Color, str]], title: str,
             card_w: float = CARD_W, card_h: float = CARD_H) -> list[tuple[float, float]]:
    """The viewer's hand: face-up cards side by side, overlapping when they do not fit in ``w``.

    Returns each card's top-left corner (for marks drawn on top).
    """
    panel(c, x, y, w, card_h + 30, title, fill=(10, 52, 32))
    if not cards:
        c.text(x + w / 2, y + 16 + card_h / 2, "(empty)", 13, MUTED, anchor="middle")
        return []
    room = w - 20 - card_w
    step = min(card_w + 6, room / max(1, len(cards) - 1)) if len(cards) > 1 else 0
    corners = []
    for i, (value, color, label) in enumerate(cards):
        corners.append((x + 10 + i * step, y + 22))
        card(c, corners[-1][0], corners[-1][1], value, color, label, card_w, card_h)
    return corners


def wrapped_text(c: Canvas, x: float, y: float, text: str, size: float, width: float, max_lines: int = 3,
                 fill: Color = WHITE, line_height: float = 1.35) -> None:
    """``text`` broken into lines of at most ``width`` (the last one cut with an ellipsis)."""
    lines: list[str] = []
    for word in text.split():
        if lines and text_width(lines[-1] + " " + word, size) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    if len(lines) > max_lines:
        lines = lines[: max_lines - 1] + [" ".join(lines[max_lines - 1:])]
    for i, line in enumerate(lines):
        c.text(x, y + i * size * line_height, line, size, fill, max_width=width)
