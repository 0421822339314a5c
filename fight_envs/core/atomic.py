"""Atomic file writes: a reader (or a resumed run) sees the old file or the new one, never half of one.

Every file of a training run goes through these: the content is written to a temporary file in
the same directory, flushed and fsynced, then renamed over the target (``os.replace``, atomic on
POSIX and Windows within one file system). A process killed mid-write leaves at most a stray
``.<name>.<random>.tmp`` file, which readers never look at.

``atomic_directory`` does the same for a directory a library writes itself (an RLlib
checkpoint): it is written under a temporary name and swapped in by two renames; the previous
version stays at ``<name>.old`` until the new one is in place, so one of the two always exists.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

OLD_SUFFIX = ".old"
"""Where ``atomic_directory`` keeps the previous version while it swaps the new one in."""


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows cannot open directories
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; when the block ends normally it replaces ``path``.

    Whatever writes to the yielded path (``torch.save``, ``zipfile``, a library's ``save``) may
    be killed at any moment: ``path`` keeps its previous content. On an exception the temporary
    file is removed and the exception propagates.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        os.chmod(tmp, _default_mode())  # mkstemp makes 0600; a run's files get the usual permissions
        yield tmp
        with open(tmp, "rb+") as f:
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
        _fsync_dir(target.parent)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write(path: str | Path, data: bytes | str, encoding: str = "utf-8") -> Path:
    """Write ``data`` (bytes, or text in ``encoding``) to ``path`` atomically; returns ``path``."""
    payload = data.encode(encoding) if isinstance(data, str) else bytes(data)
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            f.write(payload)
    return Path(path)


@contextlib.contextmanager
def atomic_directory(path: str | Path) -> Iterator[Path]:
    """Yield a fresh temporary directory beside ``path``; when the block ends it becomes ``path``.

    The previous ``path`` is renamed to ``<path>.old`` first and removed only once the new one is
    in place, so a kill at any point leaves ``path`` or ``<path>.old`` complete (readers try
    ``path`` and then ``<path>.old``: :func:`existing_directory`).
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    old = target.with_name(target.name + OLD_SUFFIX)
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if target.exists():
        if old.exists():
            shutil.rmtree(old)
        os.replace(target, old)
    os.replace(tmp, target)
    _fsync_dir(target.parent)
    shutil.rmtree(old, ignore_errors=True)


def existing_directory(path: str | Path) -> Path | None:
    """``path`` if it is a directory, else the ``<path>.old`` an interrupted swap left, else None."""
    target = Path(path)
    if target.is_dir():
        return target
    old = target.with_name(target.name + OLD_SUFFIX)
    return old if old.is_dir() else None
