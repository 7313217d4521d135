"""Crash-safe file writes: a reader sees the old file or the new one, never half of either."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from engine.core.errors import UserError
from engine.core.scrub import scrub


def atomic_write_text(path: Path, text: str) -> None:
    """Write to a temporary file beside ``path``, fsync it, then rename it over ``path``. Every secret the run
    knows is scrubbed from the text first: this is how each file the engine writes leaves it."""
    text = scrub(text)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o644)  # mkstemp makes files private (0600); results and docs are meant to be read
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def set_aside(path: Path) -> Path | None:
    """Move ``path`` out of the way as ``<name>.bak`` (or ``.bak1``, ``.bak2`` ... when taken) instead of
    deleting anyone's work; None when there is nothing there."""
    if not path.exists():
        return None
    backup = path.with_name(path.name + ".bak")
    n = 1
    while backup.exists():
        backup = path.with_name(f"{path.name}.bak{n}")
        n += 1
    path.rename(backup)
    return backup


def read_text(path: Path, what: str, fix: str = "") -> str:
    """The UTF-8 text of ``path``. A missing, unreadable or non-UTF-8 file is a ``UserError`` that names the
    file, where the bad byte is, and ``fix``."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UserError(f"{path}: cannot read {what}: {exc.strerror or exc}{fix}") from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: {what} is not UTF-8 text (byte {exc.start}: {data[exc.start:exc.start + 1]!r}); "
                        f"save it as UTF-8{fix}") from exc
