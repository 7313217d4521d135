"""Run one child process under a wall clock and an output cap. Standard library only.

This file has two lives. On the host, the bubblewrap and unsandboxed backends import :func:`supervise` to
watch the ``bwrap`` (or ``python``) process they start. In a container, the docker backend sends this
file's source as ``python3 -c`` and it runs as the container's PID 1 (see the ``__main__`` block): it copies
the program into the scratch tmpfs, supervises it the same way, forwards at most the capped output, and ends
with one status line so the host learns whether the run timed out or hit the output cap.

Why kill on the output cap rather than drain: reading gigabytes just to throw them away costs CPU time the
host needs, and a program that floods its output has failed already.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: After the watched process exits, how long to keep reading pipes that some descendant still holds open.
DRAIN_GRACE_S = 0.2
#: Prefix of the status line the container init writes last on its stderr.
STATUS_PREFIX = b"\n\x00sllmb-status "


@dataclass
class Outcome:
    returncode: int | None
    stdout: bytes
    stderr: bytes
    stdout_truncated: bool
    stderr_truncated: bool
    timed_out: bool
    killed_reason: str | None
    duration_s: float


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def supervise(
    argv: Sequence[str],
    *,
    timeout_s: float,
    output_bytes: int,
    env: dict[str, str],
    cwd: str | None = None,
    pass_fds: Sequence[int] = (),
    preexec_fn: Callable[[], None] | None = None,
    user: int | None = None,
    group: int | None = None,
    on_chunk: Callable[[int, bytes], None] | None = None,
) -> Outcome:
    """Start ``argv`` in a new session, read its output, kill its process group on timeout or overflow.

    ``on_chunk(fd, data)`` (fd 1 or 2) sees every kept byte as it arrives; the container init uses it to
    forward output live. Bytes past ``output_bytes`` per stream are never kept.
    """
    start = time.monotonic()
    extra: dict[str, object] = {}
    if user is not None:
        extra.update(user=user, group=group, extra_groups=[])
    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=cwd,
        pass_fds=tuple(pass_fds),
        preexec_fn=preexec_fn,
        start_new_session=True,
        close_fds=True,
        **extra,  # type: ignore[call-overload]
    )
    assert proc.stdout is not None and proc.stderr is not None
    kept = {1: bytearray(), 2: bytearray()}
    truncated = {1: False, 2: False}
    timed_out = False
    killed_reason: str | None = None
    deadline = start + timeout_s
    drain_until: float | None = None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, 1)
    sel.register(proc.stderr, selectors.EVENT_READ, 2)
    try:
        while sel.get_map():
            now = time.monotonic()
            if drain_until is None and proc.poll() is not None:
                drain_until = now + DRAIN_GRACE_S
            if drain_until is None and now >= deadline:
                timed_out, killed_reason = True, "timeout"
                break
            if drain_until is not None and now >= drain_until:
                break
            limit = deadline if drain_until is None else drain_until
            for key, _ in sel.select(timeout=min(limit - now, 0.05)):
                fd = key.data
                data = os.read(key.fd, 65536)
                if not data:
                    sel.unregister(key.fileobj)
                    continue
                room = output_bytes - len(kept[fd])
                if len(data) > room:
                    data = data[: max(room, 0)]
                    truncated[fd] = True
                kept[fd] += data
                if data and on_chunk is not None:
                    on_chunk(fd, data)
                if truncated[fd]:
                    killed_reason = "output_limit"
            if killed_reason:
                break
        if killed_reason is None and proc.poll() is None:
            # Both pipes closed but the process lives on: it still gets only the time left.
            try:
                proc.wait(timeout=max(deadline - time.monotonic(), 0))
            except subprocess.TimeoutExpired:
                timed_out, killed_reason = True, "timeout"
    finally:
        # Whatever happened, nothing the run started may survive it (for bubblewrap the group holds
        # bwrap itself, whose death takes the sandbox's whole PID namespace with it).
        _kill_group(proc.pid)
        sel.close()
        proc.stdout.close()
        proc.stderr.close()
        try:
            returncode: int | None = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL went to the group; belt and braces
            proc.kill()
            returncode = proc.wait(timeout=5)
    return Outcome(
        returncode=returncode,
        stdout=bytes(kept[1]),
        stderr=bytes(kept[2]),
        stdout_truncated=truncated[1],
        stderr_truncated=truncated[2],
        timed_out=timed_out,
        killed_reason=killed_reason,
        duration_s=time.monotonic() - start,
    )


def _oom_kills() -> int:  # pragma: no cover - runs inside the container
    """How many processes the container's memory cgroup has OOM-killed (cgroup v2 or v1 view)."""
    for path in ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"):
        try:
            with open(path) as fh:
                for line in fh:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except (OSError, ValueError):
            continue
    return 0


def _container_main(argv: list[str]) -> int:  # pragma: no cover - runs inside the container
    """PID 1 of a sandbox container: ``python3 -I -c SOURCE TIMEOUT_S OUTPUT_BYTES``."""
    import ctypes
    import shutil

    timeout_s, output_bytes = float(argv[0]), int(argv[1])
    try:
        # Not dumpable: the program (same uid, no capabilities) cannot open /proc/1/fd/1 to bypass the cap.
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 4
    except (OSError, AttributeError):
        pass
    try:
        for root, dirs, names in os.walk("/sandbox_in"):
            rel = os.path.relpath(root, "/sandbox_in")
            for d in dirs:
                os.makedirs(os.path.join("/scratch", rel, d), exist_ok=True)
            for n in names:
                shutil.copyfile(os.path.join(root, n), os.path.join("/scratch", rel, n))
    except OSError as exc:
        sys.stderr.buffer.write(STATUS_PREFIX + json.dumps({"setup_error": repr(exc)}).encode() + b"\n")
        return 0

    def forward(fd: int, data: bytes) -> None:
        stream = sys.stdout.buffer if fd == 1 else sys.stderr.buffer
        stream.write(data)
        stream.flush()

    outcome = supervise(
        [sys.executable, "-E", "-s", "main.py"],
        timeout_s=timeout_s,
        output_bytes=output_bytes,
        env={"PATH": "/usr/bin:/bin", "HOME": "/scratch", "LANG": "C.UTF-8"},
        cwd="/scratch",
        on_chunk=forward,
    )
    if outcome.killed_reason is None and outcome.returncode == -signal.SIGKILL and _oom_kills() > 0:
        outcome.killed_reason = "memory"
    status = {
        "returncode": outcome.returncode,
        "timed_out": outcome.timed_out,
        "killed_reason": outcome.killed_reason,
        "stdout_truncated": outcome.stdout_truncated,
        "stderr_truncated": outcome.stderr_truncated,
        "duration_s": outcome.duration_s,
    }
    sys.stderr.buffer.write(STATUS_PREFIX + json.dumps(status).encode() + b"\n")
    sys.stderr.buffer.flush()
    return 0


if __name__ == "__main__":  # pragma: no cover - only as the container init
    sys.exit(_container_main(sys.argv[1:]))
