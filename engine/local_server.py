"""The embedded default: a real llama.cpp server (llama-cpp-python) on a free loopback port.

With no endpoint configured, ``run`` starts it with a model file that a Python package ships, benchmarks it,
and stops it, so a new user measures a real model with no setup at all.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from engine.errors import UserError
from engine.models_file import ModelEntry
from engine.runcost import PromptCounters, read_log_counters

LOCAL_EXTRA_HINT = (
    'the embedded model server needs the "local" extra; install it with: '
    "CMAKE_ARGS=\"-DLLAVA_BUILD=OFF\" pip install -e '.[local]' "
    "(it compiles llama.cpp, about 5 minutes on 2 cores)"
)


@dataclass(frozen=True)
class LocalServer:
    endpoint: str  # base URL ending in /v1
    model: str
    context: int
    model_file: Path
    pid: int
    log: Path  # the server's stdout and stderr; its prefix-cache lines give the run's cache figures

    def prompt_counters(self) -> PromptCounters:
        return read_log_counters(self.log)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_command(entry: ModelEntry, model_file: Path, port: int, context: int, threads: int) -> list[str]:
    return [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model_file),
        "--model_alias", entry.name,
        "--host", "127.0.0.1",
        "--port", str(port),
        "--n_ctx", str(context),
        "--n_threads", str(threads),
        *entry.server_args,
    ]


def _die_with_parent() -> None:
    """Ask Linux to kill the server when the bench dies, even by SIGKILL, so no orphan keeps the port."""
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        pr_set_pdeathsig = 1
        libc = ctypes.CDLL(None, use_errno=True)
        # SIGKILL, not SIGTERM: uvicorn would otherwise wait for the generation in flight to finish.
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)


def _wait_ready(base: str, proc: subprocess.Popen[bytes], log: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:]
            raise UserError(f"the embedded llama.cpp server exited with code {proc.returncode}:\n{tail}")
        try:
            if httpx.get(f"{base}/v1/models", timeout=2.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise UserError(f"the embedded llama.cpp server did not become ready within {timeout_s:.0f} s; see {log}")


@contextmanager
def embedded_server(
    entry: ModelEntry,
    *,
    context: int | None = None,
    port: int | None = None,
    threads: int | None = None,
    ready_timeout_s: float = 180.0,
) -> Iterator[LocalServer]:
    """Start the server, yield where it listens, and always stop it (also on Ctrl-C or an error)."""
    if entry.gguf is None:
        raise UserError(f"model '{entry.name}' in models.yaml has no gguf source, so the embedded server "
                        "cannot run it; give --endpoint for a server you started yourself")
    model_file = entry.gguf.locate()
    if importlib.util.find_spec("llama_cpp") is None:
        raise UserError(LOCAL_EXTRA_HINT)
    ctx = context or entry.context or 8192
    port = port or free_port()
    threads = threads or max(1, os.cpu_count() or 1)
    log = Path(tempfile.gettempdir()) / f"sllmb-llama-server-{port}.log"
    cmd = server_command(entry, model_file, port, ctx, threads)
    with log.open("wb") as sink:
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                preexec_fn=_die_with_parent)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(base, proc, log, ready_timeout_s)
        yield LocalServer(endpoint=f"{base}/v1", model=entry.name, context=ctx, model_file=model_file, pid=proc.pid,
                          log=log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
