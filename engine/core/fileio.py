"""Crash-safe file writes: a reader sees the old file or the new one, never half of either.

A write goes to a temporary file beside its target, named ``.<name>.<pid>.<random>.tmp``, then is renamed
over it. A process killed mid-write (``kill -9``, a power cut) leaves its temporary file behind; the next write
of the same target removes those whose process is gone, so none stays forever.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from pathlib import Path

from engine.core.errors import UserError
from engine.core.scrub import scrub

# A temporary file of the older naming (no process id in it) is stale once it is this old.
STALE_UNNAMED_S = 600.0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def _remove_stale_temps(path: Path) -> None:
    """Remove the temporary files earlier writes of ``path`` left when their process died mid-write."""
    prefix = f".{path.name}."
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if not (name.startswith(prefix) and name.endswith(".tmp")):
            continue
        pid_text = name[len(prefix):].split(".", 1)[0]
        with contextlib.suppress(OSError):
            if pid_text.isdigit():
                if int(pid_text) == os.getpid() or _alive(int(pid_text)):
                    continue  # a write in progress, ours or another process's
            elif time.time() - entry.stat().st_mtime < STALE_UNNAMED_S:
                continue
            os.unlink(entry.path)


def write_error(path: Path, exc: OSError, what: str = "it") -> UserError:
    """The message for a write the system refused (a full disk, a read-only folder, a quota)."""
    return UserError(f"{path}: cannot write {what}: {exc.strerror or exc}; free some space or choose another "
                     "place, then issue the command again")


def atomic_write_text(path: Path, text: str) -> None:
    """Write to a temporary file beside ``path``, fsync it, then rename it over ``path``. Every secret the run
    knows is scrubbed from the text first: this is how each file the engine writes leaves it. A write the
    system refuses (a full disk ...) is a ``UserError`` naming the file; ``path`` is then left as it was."""
    text = scrub(text)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale_temps(path)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise write_error(path, exc) from exc
    try:
        os.fchmod(fd, 0o644)  # mkstemp makes files private (0600); results and docs are meant to be read
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise write_error(path, exc) from exc
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
    """The UTF-8 text of ``path``, without the byte-order mark some editors put first (it would otherwise
    become part of the first key of a .env or YAML file). A missing, unreadable or non-UTF-8 file is a
    ``UserError`` that names the file, where the bad byte is, and ``fix``."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UserError(f"{path}: cannot read {what}: {exc.strerror or exc}{fix}") from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: {what} is not UTF-8 text (byte {exc.start}: {data[exc.start:exc.start + 1]!r}); "
                        f"save it as UTF-8{fix}") from exc
