"""The bubblewrap backend: Linux namespaces around the host's own ``/usr/bin/python3``.

Every namespace is new (user, PID, network, mount, IPC, UTS, cgroup), so the program sees an empty
loopback-only network, its own PID 1 and a root file system made of read-only binds of ``/usr`` plus
tmpfs for ``/tmp`` and the scratch dir. Resource limits are rlimits set on the ``bwrap`` process and
inherited inside, and, where the kernel lets the engine make one, a memory cgroup per run
(:mod:`engine.sandbox.cgroup`), which also counts the shared memory an address-space limit misses. When the
engine runs as root it first drops to a throw-away uid picked per run, so the PID cap (RLIMIT_NPROC counts
per uid) applies to this run alone and host files owned by root stay out of reach even through the
read-only binds. The seccomp filter (:mod:`engine.sandbox.seccomp`) keeps the program from widening its CPU
affinity.
"""

from __future__ import annotations

import math
import os
import resource
import secrets
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable

from engine.sandbox import seccomp
from engine.sandbox._supervise import supervise
from engine.sandbox.cgroup import MemoryCgroup, open_memory_cgroup
from engine.sandbox.core import (
    INSTALL_HINT,
    PROGRAM_NAME,
    PYTHON_FLAGS,
    ExecResult,
    Limits,
    SandboxUnavailable,
    result_of,
    signal_status,
    validate_files,
)

#: Throw-away host uids (used when the engine runs as root) are drawn from this range; none should own files.
UID_BASE = 1_700_000_000
UID_SPAN = 100_000_000
#: The uid and gid the program sees inside the sandbox.
INNER_ID = 65534
SCRATCH = "/scratch"
SANDBOX_ENV = {"PATH": "/usr/bin:/bin", "HOME": SCRATCH, "LANG": "C.UTF-8"}


def _count_processes(uid: int) -> int:
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    count += 1
            except OSError:
                continue
    return count


class BubblewrapBackend:
    """Run programs with ``bwrap``. ``python`` is the interpreter inside; it must live under ``/usr``."""

    name = "bubblewrap"
    confined = True

    def __init__(self, bwrap: str | None = None, python: str = "/usr/bin/python3"):
        self.bwrap = bwrap or shutil.which("bwrap") or "/usr/bin/bwrap"
        self.python = python
        self._checked = False

    def describe(self) -> str:
        return f"bubblewrap ({self.bwrap}, {self.python})"

    # -- preparing one run -------------------------------------------------------------------------

    def _root_layout(self) -> list[str]:
        args = ["--ro-bind", "/usr", "/usr"]
        for top in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
            path = f"/{top}"
            if os.path.islink(path):
                args += ["--symlink", os.readlink(path), path]
            elif os.path.isdir(path):
                args += ["--ro-bind", path, path]
        if os.path.exists("/etc/ld.so.cache"):
            args += ["--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
        return args

    def _argv(
        self, limits: Limits, file_args: list[str], privileged: bool, seccomp_fd: int | None = None
    ) -> list[str]:
        scratch_bytes = str(limits.scratch_mb * 1024 * 1024)
        argv = [
            self.bwrap,
            "--unshare-all",
            "--unshare-user",
            "--disable-userns",
            "--die-with-parent",
            "--new-session",
            "--hostname", "sandbox",
            *self._root_layout(),
            "--proc", "/proc",
            # bwrap's /dev holds only null, zero, full, random, urandom, tty and pts; it is made read-only
            # below, and /dev/shm gets a size like /tmp, so neither takes host memory without bound.
            "--dev", "/dev",
            "--size", scratch_bytes, "--tmpfs", "/dev/shm",
            "--size", scratch_bytes, "--tmpfs", "/tmp",
            "--size", scratch_bytes, "--tmpfs", SCRATCH,
            *file_args,
            "--remount-ro", "/dev",
            "--remount-ro", "/",
            "--clearenv",
        ]
        for key, value in SANDBOX_ENV.items():
            argv += ["--setenv", key, value]
        argv += ["--uid", str(INNER_ID), "--gid", str(INNER_ID), "--chdir", SCRATCH]
        if privileged:  # only meaningful (and only accepted) when bwrap itself holds capabilities
            argv += ["--cap-drop", "ALL"]
        if seccomp_fd is not None:  # no unix sockets: a host socket under a read-only bind stays unreachable
            argv += ["--seccomp", str(seccomp_fd)]
        argv += [self.python, *PYTHON_FLAGS, PROGRAM_NAME]
        return argv

    @staticmethod
    def _child_setup(limits: Limits, timeout_s: float, nproc: int, uid: int | None,
                     group: MemoryCgroup | None) -> Callable[[], None]:
        memory = limits.memory_mb * 1024 * 1024
        fsize = limits.file_size_mb * 1024 * 1024
        cpu = math.ceil(timeout_s) + 1
        cpus = sorted(os.sched_getaffinity(0))
        keep = set(cpus[: max(1, math.ceil(limits.cpus))])

        def apply() -> None:  # runs in the child between fork and exec
            if group is not None:
                group.join()  # while still root: the cgroup's files are root's
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
            resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            os.sched_setaffinity(0, keep)
            if uid is not None:  # last: joining the cgroup above needed root
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)

        return apply

    def _identity(self, limits: Limits) -> tuple[int | None, int]:
        """The host uid to run as (None: stay as we are) and the RLIMIT_NPROC that caps this run's pids."""
        if os.geteuid() == 0:
            # bwrap plus its init inside the PID namespace count against the cap too.
            return UID_BASE + secrets.randbelow(UID_SPAN), limits.pids + 2
        # Not root: RLIMIT_NPROC counts every process of our uid, so allow what already runs plus the cap.
        return None, _count_processes(os.getuid()) + limits.pids + 2

    @staticmethod
    def _descriptor(data: bytes) -> int:
        """An unlinked temp file holding ``data``, open at its start, for bwrap to read."""
        with tempfile.TemporaryFile() as tmp:
            tmp.write(data)
            tmp.flush()
            fd = os.dup(tmp.fileno())
        os.lseek(fd, 0, os.SEEK_SET)
        return fd

    # -- the Backend interface --------------------------------------------------------------------

    def check(self) -> None:
        if self._checked:
            return
        if not sys.platform.startswith("linux"):
            raise SandboxUnavailable(f"bubblewrap: runs on Linux only. {INSTALL_HINT}")
        if not os.path.exists(self.bwrap):
            raise SandboxUnavailable(f"bubblewrap: `bwrap` is not installed. {INSTALL_HINT}")
        if not self.python.startswith("/usr/") or not os.path.exists(self.python):
            raise SandboxUnavailable(
                f"bubblewrap: the interpreter {self.python} is missing or outside /usr "
                "(install Debian's python3: `apt-get install -y python3`)"
            )
        probe = self.run("print('ok')", {}, limits=Limits(), timeout_s=10.0)
        if probe.stdout.strip() != "ok" or probe.exit_code != 0:
            detail = (probe.stderr or probe.stdout).strip()[-500:]
            raise SandboxUnavailable(
                f"bubblewrap: a test run failed (exit {probe.exit_code}): {detail}. Unprivileged user "
                "namespaces must be enabled (sysctl user.max_user_namespaces > 0; on Ubuntu 24.04 also an "
                f"AppArmor profile for bwrap). {INSTALL_HINT}"
            )
        self._checked = True

    def enforced_limits(self, limits: Limits) -> list[str]:
        """Which limits hold on this host, in words, for the result file."""
        group, how = open_memory_cgroup(limits.memory_mb * 1024 * 1024)
        if group is not None:
            group.close()
            memory = how
        else:
            memory = (f"memory: address-space rlimit {limits.memory_mb} MB only (no cgroup: {how}); shared "
                      "memory the program unmaps is not counted, /dev/shm and /tmp are capped tmpfs")
        affinity = ("refused by seccomp" if seccomp.program() is not None else "NOT refused (no seccomp filter "
                    "for this architecture)")
        return [
            memory,
            f"cpu: {max(1, math.ceil(limits.cpus))} core(s) by affinity (widening it: {affinity}); CPU time rlimit",
            f"processes: {limits.pids} (RLIMIT_NPROC on a throw-away uid when run as root)",
            f"files: {limits.file_size_mb} MB each, tmpfs {limits.scratch_mb} MB for /scratch, /tmp and /dev/shm",
            f"output: {limits.output_bytes} bytes per stream; network: none (own namespace)",
        ]

    def run(self, program: str, files: dict[str, str], *, limits: Limits, timeout_s: float) -> ExecResult:
        named = validate_files(files)
        uid, nproc = self._identity(limits)
        group, _ = open_memory_cgroup(limits.memory_mb * 1024 * 1024)
        opened: list[int] = []
        file_args: list[str] = []
        made_dirs: set[str] = set()
        try:
            for name, content in [(PROGRAM_NAME, program), *named.items()]:
                parent = os.path.dirname(name)
                parts = parent.split("/") if parent else []
                for i in range(1, len(parts) + 1):
                    d = "/".join(parts[:i])
                    if d not in made_dirs:
                        file_args += ["--dir", f"{SCRATCH}/{d}"]
                        made_dirs.add(d)
                # An unlinked temp file per entry: bwrap copies it in through the inherited descriptor,
                # so the program's files never sit in a host directory.
                fd = self._descriptor(content.encode("utf-8"))
                opened.append(fd)
                file_args += ["--perms", "0644", "--file", str(fd), f"{SCRATCH}/{name}"]
            seccomp_fd = None
            filter_program = seccomp.program()
            if filter_program is not None:
                seccomp_fd = self._descriptor(filter_program)
                opened.append(seccomp_fd)
            argv = self._argv(limits, file_args, privileged=False, seccomp_fd=seccomp_fd)
            outcome = supervise(
                argv,
                timeout_s=timeout_s,
                output_bytes=limits.output_bytes,
                env={},
                cwd="/",
                pass_fds=opened,
                preexec_fn=self._child_setup(limits, timeout_s, nproc, uid, group),
            )
            if outcome.killed_reason is None and group is not None and group.oom_killed():
                outcome.killed_reason = "memory"
        except (OSError, subprocess.SubprocessError) as exc:
            raise SandboxUnavailable(
                f"bubblewrap: could not start {self.bwrap}: {exc}. {INSTALL_HINT}"
            ) from exc
        finally:
            for fd in opened:
                os.close(fd)
            if group is not None:
                group.close()
        return result_of(outcome, self.name, signal_status(outcome.returncode))

