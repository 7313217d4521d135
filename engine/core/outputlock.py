"""One run per result file: a second run on the same output says who holds it and stops (exit code 2).

Two runs on one output would each run every trial and the last to write would win. The lock is an
``flock`` on ``<output>.lock``, which the kernel drops when its holder dies, so a run killed with ``kill -9``
never leaves a stale lock behind; the file's text names the holder for the message.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

from engine.core.errors import UserError


def lock_path(output: Path) -> Path:
    return output.with_name(output.name + ".lock")


def _holder(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        text = ""
    return text[:200] or "a process that has not written its name yet"


@contextlib.contextmanager
def output_lock(output: Path) -> Iterator[None]:
    """Hold the output's lock for the body of the ``with``; raise ``UserError`` when another run holds it."""
    path = lock_path(output)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot write the output {output}: its folder cannot be made ({exc.strerror or exc}); "
                        "choose another --output") from exc
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise UserError(f"cannot write the output {output}: no lock file {path} ({exc.strerror or exc}); "
                            "choose another --output") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise UserError(f"{output} is in use by another run ({_holder(path)}; lock {path}); wait for it to "
                            "finish or stop it, or choose another --output") from None
        # The holder before us may have removed the file between our open and our lock: lock the file that
        # is there now, not an unlinked one.
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        started = datetime.now(timezone.utc).isoformat(timespec="seconds")
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()} on {socket.gethostname()}, since {started}\n".encode())
        yield
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
        os.close(fd)
