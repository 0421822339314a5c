"""The command-line pieces of the pictures: ``fight-envs replay`` and the record savers of
``play --save-record`` and ``eval --save-records``.

``fight_envs.train.cli`` only wires these in (argument definitions and one call each), so the
logic lives beside what it drives:

    fight-envs replay RECORD.json [--gif out.gif] [--svg DIR] [--html out.html] [--seat N]
    fight-envs replay RECORD.json          # no output named: RECORD.html beside it
    fight-envs play --save-record game.json
    fight-envs eval heuristic random --save-records records/
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fight_envs.core.errors import RecordError

RECORD_NAME = "game_{:05d}.json"
"""File names of the records ``eval --save-records DIR`` writes, in the order the games ended."""


# ----------------------------------------------------------------------------- replay
def add_replay_parser(sub: Any) -> None:
    """The ``replay`` subcommand on ``sub`` (an argparse subparsers object)."""
    p = sub.add_parser("replay", help="pictures of a game record: an animated GIF, SVG files, an HTML viewer")
    p.add_argument("record", help="a game record (JSON: game_record(), play --save-record, eval --save-records)")
    p.add_argument("--gif", default=None, metavar="FILE", help="write an animated GIF of the game here")
    p.add_argument("--svg", default=None, metavar="DIR", help="write one SVG per step into DIR")
    p.add_argument("--html", default=None, metavar="FILE",
                   help="write a self-contained HTML viewer here (every seat's view, a seat selector); "
                        "with no --gif, --svg or --html, the viewer goes beside the record (RECORD.html)")
    p.add_argument("--seat", type=int, default=None,
                   help="whose view the GIF and SVGs show (default: a spectator, who sees no hand)")
    p.add_argument("--fps", type=float, default=2.0, help="GIF: steps per second (default 2)")
    p.add_argument("--every", type=int, default=1, help="GIF: keep every N-th step, and the last (default 1)")
    p.set_defaults(func=cmd_replay)


def cmd_replay(args: argparse.Namespace) -> int:
    from fight_envs.drawing.replay import load_record, replay_frames, write_gif, write_html, write_svgs

    if not (args.gif or args.svg or args.html):
        # With no output named, the most useful one: the viewer, next to the record it shows.
        args.html = str(Path(args.record).with_suffix(".html"))
    try:
        record = load_record(args.record)
        viewers = None if args.html else [args.seat]  # the page holds every seat's view
        frames = replay_frames(record, viewers)
        who = "a spectator" if args.seat is None else f"P{args.seat}"
        if args.gif:
            path = write_gif(frames, args.gif, viewer=args.seat, fps=args.fps, every=args.every)
            shown = len(frames[::args.every]) + (1 if (len(frames) - 1) % args.every else 0)
            print(f"wrote {path} ({shown} frames, as {who} saw the game)")
        if args.svg:
            paths = write_svgs(frames, args.svg, viewer=args.seat)
            print(f"wrote {len(paths)} SVG files into {args.svg} (as {who} saw the game)")
        if args.html:
            title = f"{record['game']} replay: {Path(args.record).name}"
            print(f"wrote {write_html(frames, args.html, title=title)} ({len(frames)} steps, every seat's view)")
    except (RecordError, ValueError) as exc:
        raise SystemExit(f"fight-envs replay: {exc}") from None
    return 0


# ----------------------------------------------------------------------------- saving records
def add_save_record_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--save-record", default=None, metavar="FILE",
                   help="write the game's record here (JSON; show it with fight-envs replay)")


def add_save_records_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--save-records", default=None, metavar="DIR",
                   help=f"write every game's record into DIR ({RECORD_NAME.format(0)}, ...; "
                        "show one with fight-envs replay)")


def game_record(env: Any) -> dict[str, Any]:
    return getattr(env, "unwrapped", env).game_record()


def save_record(env: Any, path: str | Path | None) -> Path | None:
    """Write ``env``'s game record to ``path`` as JSON (nothing when ``path`` is None)."""
    if path is None:
        return None
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(game_record(env)))
    print(f"record: {out} (fight-envs replay {out} --html {out.with_suffix('.html').name})")
    return out


class _RecordSaver:
    """An env that writes each finished game's record into a folder when the next game starts,
    and the last one when it is closed; everything else is the wrapped env's."""

    def __init__(self, env: Any, folder: Path, counter: list[int]) -> None:
        self._env = env
        self._folder = folder
        self._counter = counter
        self._pending = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._env, name)

    def _flush(self) -> None:
        if self._pending:
            record = game_record(self._env)
            if record.get("actions"):
                self._folder.mkdir(parents=True, exist_ok=True)
                (self._folder / RECORD_NAME.format(self._counter[0])).write_text(json.dumps(record))
                self._counter[0] += 1
        self._pending = False

    def reset(self, *args: Any, **kwargs: Any) -> Any:
        self._flush()
        out = self._env.reset(*args, **kwargs)
        self._pending = True
        return out

    def close(self) -> None:
        self._flush()
        self._env.close()


def records_saving_factory(env_fn: Callable[[], Any], folder: str | Path | None) -> Callable[[], Any]:
    """``env_fn`` whose envs save every game's record into ``folder`` (``env_fn`` itself when None).

    Records are numbered across every env the factory builds, in the order the games end.
    """
    if folder is None:
        return env_fn
    out = Path(folder)
    counter = [0]
    return lambda: _RecordSaver(env_fn(), out, counter)
