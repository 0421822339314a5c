"""Whole games as pictures: a record replayed into frames, written as a GIF, SVG files or one
self-contained HTML viewer.

A record is what an env's ``game_record()`` returns (each game's ``record.py`` replays it). The
replay rebuilds every state of the game: frame ``i`` is the table before the record's action
``i`` and the last frame is the final table. Each frame is drawn once per viewer (the spectator
and every seat), each viewer seeing only what it saw at the table, as ``render()`` does.
Frame captions say whose turn it was, never what was chosen (a face-down choice must not leak).
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fight_envs.core.errors import RecordError
from fight_envs.drawing import draw
from fight_envs.drawing.canvas import Canvas

GAMES = ("fight5", "brawl", "fifth_earth", "fight_klub")
"""The ``game`` field of every record this module replays."""


@dataclass(frozen=True)
class Frame:
    """One state of a replayed game, drawn for each viewer."""

    index: int
    """How many of the record's actions were applied before this state."""
    actor: int | None
    """The seat about to act (None on the final frame)."""
    pictures: dict[int | None, Canvas]
    """Viewer (None: spectator, else a seat) -> the table as that viewer saw it."""

    def caption(self, total: int) -> str:
        if self.actor is None:
            return f"step {self.index}/{total} · end of the game"
        return f"step {self.index}/{total} · P{self.actor} to act"


def load_record(path: str | Path) -> dict[str, Any]:
    """A record from a JSON file, with a RecordError naming the file when it is not one."""
    try:
        record = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise RecordError(f"cannot read a game record from {str(path)!r}: {exc}") from None
    if not isinstance(record, dict) or record.get("game") not in GAMES:
        got = record.get("game") if isinstance(record, dict) else type(record).__name__
        raise RecordError(f"{str(path)!r} is not a game record: its 'game' must be one of {list(GAMES)}, got {got!r}")
    return record


def num_seats(game: Any) -> int:
    n = getattr(game, "num_players", None)
    return int(n) if n is not None else len(game.players)


def replay_frames(record: dict[str, Any], viewers: list[int | None] | None = None) -> list[Frame]:
    """Every state of ``record``'s game, drawn for ``viewers`` (default: the spectator and every seat).

    Raises RecordError when the record is not one of :data:`GAMES` or does not replay.
    """
    game_name = record.get("game") if isinstance(record, dict) else None
    if game_name not in GAMES:
        raise RecordError(f"not a game record: 'game' must be one of {list(GAMES)}, got {game_name!r}")
    replay = importlib.import_module(f"fight_envs.games.{game_name}.record").replay
    frames: list[Frame] = []
    chosen: list[list[int | None]] = []

    def snapshot(game: Any, actor: int | None) -> None:
        if not chosen:
            seats = num_seats(game)
            wanted = [None, *range(seats)] if viewers is None else list(viewers)
            bad = [v for v in wanted if v is not None and not (isinstance(v, int) and 0 <= v < seats)]
            if bad:
                raise RecordError(f"viewers must be None or seats in 0..{seats - 1}, got {bad}")
            chosen.append(wanted)
        frames.append(Frame(len(frames), actor, {v: draw(game, v) for v in chosen[0]}))

    final = replay(record, on_step=lambda game, seat, action: snapshot(game, int(seat)))
    snapshot(final, None)
    return frames


def write_svgs(frames: list[Frame], folder: str | Path, viewer: int | None = None) -> list[Path]:
    """One SVG file per frame (``frame_0000.svg`` ...) as ``viewer`` saw it; returns the paths."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for f in frames:
        path = out / f"frame_{f.index:04d}.svg"
        path.write_text(_picture(f, viewer).to_svg())
        paths.append(path)
    return paths


def write_gif(frames: list[Frame], path: str | Path, viewer: int | None = None, fps: float = 2.0,
              scale: float = 0.75, every: int = 1) -> Path:
    """An animated GIF of the frames as ``viewer`` saw them (every ``every``-th frame, and the last).

    Each frame is held ``1 / fps`` seconds and the last one three times as long.
    """
    if fps <= 0 or every < 1:
        raise ValueError(f"fps must be > 0 and every >= 1, got fps={fps!r}, every={every!r}")
    from PIL import Image

    chosen = frames[::every]
    if frames and chosen[-1] is not frames[-1]:
        chosen.append(frames[-1])
    images = [_picture(f, viewer).to_image(scale).quantize(colors=128, method=Image.Quantize.MEDIANCUT)
              for f in chosen]
    if not images:
        raise RecordError("a record with no states has no animation")
    ms = round(1000 / fps)
    durations = [ms] * (len(images) - 1) + [3 * ms]
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    images[0].save(out, save_all=True, append_images=images[1:], duration=durations, loop=0, optimize=False)
    return out


def _picture(frame: Frame, viewer: int | None) -> Canvas:
    if viewer not in frame.pictures:
        raise RecordError(f"frames were drawn for viewers {list(frame.pictures)}, not {viewer!r}")
    return frame.pictures[viewer]


def write_html(frames: list[Frame], path: str | Path, title: str = "fight-envs replay") -> Path:
    """One self-contained HTML page (no network) stepping through the frames, with a seat selector."""
    from fight_envs.drawing.html import viewer_page

    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(viewer_page(frames, title))
    return out
