"""Fixtures for the sandbox tests: the backends to run through, and a guard that the host stays untouched.

Backends: bubblewrap is expected on every Linux machine that runs the suite (CI installs the Debian
package), so a missing or broken bwrap FAILS these tests rather than skipping them. The docker backend runs
when SANDBOX_DOCKER_TESTS=1 (``.ci/sandbox_docker_tests.sh`` starts Podman's socket, builds the image and
sets it); then it is expected too and its absence fails. Without that variable it is skipped, and the skip
says how to turn it on.
"""

from __future__ import annotations

import os
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from engine.sandbox import Backend, make_backend

DOCKER_ENABLED = os.environ.get("SANDBOX_DOCKER_TESTS") == "1"
DOCKER_SKIP = "docker backend: set SANDBOX_DOCKER_TESTS=1 (run .ci/sandbox_docker_tests.sh)"
CONFINED = ["bubblewrap", "docker"]

_checked: dict[str, Backend] = {}


def get_backend(name: str) -> Backend:
    if name == "docker" and not DOCKER_ENABLED:
        pytest.skip(DOCKER_SKIP)
    if name not in _checked:
        backend = make_backend(name)
        backend.check()  # raises (and so fails the test) when an expected backend does not work
        _checked[name] = backend
    return _checked[name]


@pytest.fixture(params=CONFINED)
def backend(request: pytest.FixtureRequest) -> Backend:
    """Each real sandbox in turn."""
    return get_backend(request.param)


def _descendants(root: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    out: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in out:
                out.add(child)
                todo.append(child)
    return out


def processes_with(marker: str) -> list[int]:
    """Pids whose command line contains ``marker`` (the hostile programs tag what they spawn)."""
    found = []
    needle = marker.encode()
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as fh:
                    if needle in fh.read():
                        found.append(int(entry))
            except OSError:
                continue
    return found


def _environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}  # pytest's own bookkeeping


@dataclass
class LoopbackServer:
    port: int
    connections: list[bytes] = field(default_factory=list)


@dataclass
class Host:
    """What the hostile programs aim at: a planted secret file, a key in the environment, a server."""

    secret: str
    secret_file: Path
    outside_dir: Path
    marker: str
    server: LoopbackServer
    # A listening unix socket: under /usr (read-only bound into the sandbox) when this user may write there,
    # else under the test's temp dir. ``unix_connections`` counts who reached it.
    unix_socket: Path
    unix_connections: list[bytes] = field(default_factory=list)


@pytest.fixture
def host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Host]:
    secret = "sk-planted-" + secrets.token_hex(16)
    marker = "sllmb-hostile-" + secrets.token_hex(6)
    secret_dir = tmp_path / "host-secrets"
    secret_dir.mkdir()
    secret_file = secret_dir / "api_key.txt"
    secret_file.write_text(secret)
    secret_file.chmod(0o644)  # readable by anyone on the host: only the sandbox's walls keep it in
    outside = tmp_path / "outside"
    outside.mkdir()
    outside.chmod(0o777)
    for var in ("OPENAI_API_KEY", "BENCH_API_KEY", "JUDGE_API_KEY"):
        monkeypatch.setenv(var, secret)

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.2)
    server = LoopbackServer(port=listener.getsockname()[1])
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except (TimeoutError, OSError):
                continue
            with conn:
                conn.settimeout(1)
                try:
                    server.connections.append(conn.recv(4096))
                except OSError:
                    server.connections.append(b"")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()

    usr_dir = Path("/usr/lib")
    unix_path = (usr_dir if os.access(usr_dir, os.W_OK) else tmp_path) / f"{marker}.sock"
    unix_listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix_listener.bind(str(unix_path))
    unix_path.chmod(0o777)  # connectable by anyone: only the sandbox may stop it
    unix_listener.listen(8)
    unix_listener.settimeout(0.2)
    unix_connections: list[bytes] = []

    def serve_unix() -> None:
        while not stop.is_set():
            try:
                conn, _ = unix_listener.accept()
            except (TimeoutError, OSError):
                continue
            with conn:
                conn.settimeout(1)
                try:
                    unix_connections.append(conn.recv(4096))
                except OSError:
                    unix_connections.append(b"")

    unix_thread = threading.Thread(target=serve_unix, daemon=True)
    unix_thread.start()
    env_before = _environment()
    children_before = _descendants(os.getpid())
    outside_before = sorted(p.name for p in outside.iterdir())
    yield Host(secret=secret, secret_file=secret_file, outside_dir=outside, marker=marker, server=server,
               unix_socket=unix_path, unix_connections=unix_connections)
    stop.set()
    thread.join(timeout=2)
    unix_thread.join(timeout=2)
    listener.close()
    unix_listener.close()
    unix_path.unlink(missing_ok=True)

    # The host is untouched: the planted file, the environment, the process table, the outside dir.
    assert secret_file.read_text() == secret, "the planted secret file was changed"
    assert _environment() == env_before, "the host environment was changed"
    assert sorted(p.name for p in outside.iterdir()) == outside_before, "a file appeared outside scratch"
    deadline = time.monotonic() + 3
    while True:
        leftovers = processes_with(marker)
        new_children = _descendants(os.getpid()) - children_before
        if not leftovers and not new_children:
            break
        if time.monotonic() > deadline:
            raise AssertionError(f"processes outlived the run: marked {leftovers}, children {new_children}")
        time.sleep(0.1)
    assert server.connections == [], f"the sandbox reached the host's loopback server: {server.connections}"
    assert unix_connections == [], f"the sandbox reached the host's unix socket: {unix_connections}"
