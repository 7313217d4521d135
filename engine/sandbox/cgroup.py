"""A memory cgroup per sandboxed run, where the kernel lets us make one.

Why a cgroup and not only ``RLIMIT_AS``: an address-space limit counts what a process maps, not what it
holds. Shared memory written and then unmapped (a SysV segment, a file on a tmpfs, a ``memfd``) stays in the
host's memory after the mapping is gone, so a program under a 256 MB ``RLIMIT_AS`` could hold gigabytes. The
memory controller charges every page the program's processes touch, page cache and shared memory included,
and its OOM killer ends the group when the limit is reached.

A child group is made below the engine's own memory cgroup (cgroup v1's ``memory`` hierarchy, or the unified
v2 hierarchy where the controller is enabled for children). Making one needs write access there: as root on
most hosts, or in a delegated subtree. Where it cannot be made, :func:`open_memory_cgroup` says why and the
caller falls back to the rlimit, recording which limit held.
"""

from __future__ import annotations

import os
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")


def _own_cgroup_dirs(proc_cgroup: str) -> list[tuple[str, Path]]:
    """The candidate parents for a memory cgroup, from ``/proc/self/cgroup``: (version, directory)."""
    found: list[tuple[str, Path]] = []
    for line in proc_cgroup.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        rel = path.lstrip("/")
        if "memory" in controllers.split(","):
            found.append(("v1", CGROUP_ROOT / "memory" / rel))
        elif controllers == "":
            for base in (CGROUP_ROOT, CGROUP_ROOT / "unified"):
                if (base / "cgroup.controllers").is_file():
                    found.append(("v2", base / rel))
    return found


@dataclass
class MemoryCgroup:
    """One run's group: join it from the child, read whether its OOM killer fired, remove it after."""

    version: str
    path: Path
    limit_bytes: int

    @property
    def procs_file(self) -> Path:
        return self.path / "cgroup.procs"

    def join(self) -> None:
        """Move the calling process into the group (runs in the child between fork and exec, as root)."""
        with open(self.procs_file, "w") as fh:
            fh.write(str(os.getpid()))

    def oom_killed(self) -> bool:
        try:
            if self.version == "v2":
                for line in (self.path / "memory.events").read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key in ("oom_kill", "oom_group_kill") and int(value) > 0:
                        return True
                return False
            for line in (self.path / "memory.oom_control").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill" and int(value) > 0:
                    return True
            return int((self.path / "memory.failcnt").read_text().strip() or 0) > 0 and \
                int((self.path / "memory.max_usage_in_bytes").read_text().strip() or 0) >= self.limit_bytes
        except (OSError, ValueError):
            return False

    def close(self) -> None:
        """Kill whatever is left in the group and remove it. Never raises."""
        for _ in range(50):
            try:
                pids = [int(p) for p in self.procs_file.read_text().split()]
            except (OSError, ValueError):
                pids = []
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.01)
        for _ in range(50):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.01)

    def describe(self) -> str:
        return (f"memory: kernel cgroup ({self.version}) limit {self.limit_bytes // (1024 * 1024)} MB on every "
                "page the program holds (shared memory, tmpfs files and memfd included)")


def open_memory_cgroup(limit_bytes: int) -> tuple[MemoryCgroup | None, str]:
    """A fresh memory cgroup limited to ``limit_bytes`` (swap off), or None and why it could not be made."""
    try:
        proc = Path("/proc/self/cgroup").read_text()
    except OSError as exc:
        return None, f"no /proc/self/cgroup ({exc.strerror})"
    reasons = []
    for version, parent in _own_cgroup_dirs(proc):
        path = parent / f"sllmb-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            path.mkdir()
        except OSError as exc:
            reasons.append(f"cannot make a {version} group under {parent} ({exc.strerror})")
            continue
        group = MemoryCgroup(version, path, limit_bytes)
        try:
            if version == "v2":
                (path / "memory.max").write_text(str(limit_bytes))
                if (path / "memory.swap.max").exists():
                    (path / "memory.swap.max").write_text("0")
            else:
                (path / "memory.limit_in_bytes").write_text(str(limit_bytes))
                if (path / "memory.memsw.limit_in_bytes").exists():
                    (path / "memory.memsw.limit_in_bytes").write_text(str(limit_bytes))
        except OSError as exc:
            group.close()
            reasons.append(f"cannot set the {version} memory limit ({exc.strerror}; is the memory controller "
                           "enabled for child groups?)")
            continue
        return group, group.describe()
    return None, "; ".join(reasons) or "no memory cgroup hierarchy is mounted"
