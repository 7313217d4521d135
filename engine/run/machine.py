"""The machine a run ran on, as the machine reports it: CPU, cores, memory, GPUs and the OS, gathered once
per invocation (the plan holds it; the result file's ``provenance.machine``), so no one types it in.

Everything read here comes from outside the bench and is treated as such: ``/proc`` files are read bounded,
and a GPU tool (``nvidia-smi``, ``rocm-smi``, whichever is on ``PATH``) runs with a short deadline and a cap on
what it may print; a tool that hangs, floods or prints something unreadable costs at most that deadline and
leaves a note, never the run. Only names and sizes are kept (no serial numbers, UUIDs or bus ids).
"""

from __future__ import annotations

import json
import os
import platform
import select
import shutil
import signal
import subprocess
import time
from pathlib import Path

from engine.core.schema import GpuInfo, MachineInfo

# A GPU tool answers in well under a second; one that takes longer is stuck.
TOOL_TIMEOUT_S = 5.0
# A few GPUs' names and sizes are a few hundred bytes; far more is not an answer.
TOOL_OUTPUT_CAP = 64 * 1024
# /proc/cpuinfo is about 1 KiB per logical CPU; the model name is in the first block.
PROC_READ_CAP = 256 * 1024
TEXT_MAX = 200
MAX_GPUS = 64


def _clean(text: str, limit: int = TEXT_MAX) -> str:
    """A name from the machine as one line of printable text, clipped."""
    return " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())[:limit]


def _read_proc(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            return handle.read(PROC_READ_CAP).decode("utf-8", "replace")
    except OSError:
        return ""


def _cpu_model(cpuinfo: str) -> str | None:
    # x86 says "model name"; arm64 kernels often say nothing but "CPU part" (left out: a number, not a name).
    for line in cpuinfo.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() in ("model name", "hardware", "processor name", "cpu model"):
            name = _clean(value)
            if name:
                return name
    return _clean(platform.processor()) or None


def _memory_mb(meminfo: str) -> int | None:
    for line in meminfo.splitlines():
        if line.startswith("MemTotal:"):
            parts = line.split()
            if len(parts) >= 2 and parts[1].isdigit():
                return int(parts[1]) // 1024  # kB
    return None


def _usable_cores() -> int | None:
    try:
        return len(os.sched_getaffinity(0)) or None
    except AttributeError:  # not Linux
        return None


def run_tool(argv: list[str], *, timeout_s: float = TOOL_TIMEOUT_S,
             cap: int = TOOL_OUTPUT_CAP) -> tuple[str | None, str]:
    """What a tool printed on stdout, read within ``timeout_s`` and at most ``cap`` bytes: (text, "") or
    (None, why not). The tool is killed (its whole process group) on either limit."""
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    except OSError as exc:
        return None, f"could not start: {exc.strerror or exc}"
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    got = bytearray()
    why = ""
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                why = f"did not answer within {timeout_s:g} s"
                break
            ready, _, _ = select.select([fd], [], [], min(left, 0.5))
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            got += chunk
            if len(got) > cap:
                why = f"printed more than {cap // 1024} KiB"
                break
    finally:
        if why:
            _kill(proc)
        proc.stdout.close()
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _kill(proc)
            why = why or f"did not exit within {timeout_s:g} s"
            proc.wait()
    if why:
        return None, why
    if proc.returncode != 0:
        return None, f"exited with code {proc.returncode}"
    return got.decode("utf-8", "replace"), ""


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the tool's own children too (its session is its own)
    except OSError:
        proc.kill()


def parse_nvidia_smi(text: str) -> list[GpuInfo] | None:
    """``nvidia-smi --query-gpu=name,memory.total --format=csv,noheader,nounits``: one "name, MiB" line per
    GPU. None when a line is not that shape (the output is not read as GPUs at all)."""
    gpus = []
    for line in text.splitlines():
        if not line.strip():
            continue
        name, sep, memory = line.rpartition(",")
        memory = memory.strip()
        if not sep or not _clean(name) or not (memory.isdigit() or memory in ("[N/A]", "N/A")):
            return None
        gpus.append(GpuInfo(name=_clean(name), memory_mb=int(memory) if memory.isdigit() else None))
    return gpus[:MAX_GPUS]


def parse_rocm_smi(text: str) -> list[GpuInfo] | None:
    """``rocm-smi --showproductname --showmeminfo vram --json``: an object of cards, each with its product
    name and ``VRAM Total Memory (B)``. None when it is not that shape."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    gpus = []
    for key, card in data.items():
        if not str(key).lower().startswith("card") or not isinstance(card, dict):
            continue
        name = next((card[k] for k in ("Card Series", "Card series", "Card model", "Card Model", "Marketing Name")
                     if isinstance(card.get(k), str) and card[k].strip()), None)
        vram = card.get("VRAM Total Memory (B)")
        memory = int(vram) // (1024 * 1024) if isinstance(vram, str | int) and str(vram).isdigit() else None
        gpus.append(GpuInfo(name=_clean(name) if name else "AMD GPU (name not reported)", memory_mb=memory))
    return gpus[:MAX_GPUS]


# The tools tried, in order: the first found on PATH answers for the machine.
GPU_TOOLS = (
    ("nvidia-smi", ["--query-gpu=name,memory.total", "--format=csv,noheader,nounits"], parse_nvidia_smi),
    ("rocm-smi", ["--showproductname", "--showmeminfo", "vram", "--json"], parse_rocm_smi),
)


def gpus(timeout_s: float = TOOL_TIMEOUT_S) -> tuple[list[GpuInfo], str | None, str | None]:
    """(the GPUs, the tool that listed them, a note when it could not) from the first GPU tool on PATH."""
    for name, args, parse in GPU_TOOLS:
        path = shutil.which(name)
        if path is None:
            continue
        text, why = run_tool([path, *args], timeout_s=timeout_s)
        if text is None:
            return [], name, f"{name} {why}"
        found = parse(text)
        if found is None:
            return [], name, f"{name} printed something that is not a GPU list"
        return found, name, None
    return [], None, None


def gather_machine(*, gpu_timeout_s: float = TOOL_TIMEOUT_S) -> MachineInfo:
    """This machine, as it reports itself."""
    listed, tool, note = gpus(gpu_timeout_s)
    return MachineInfo(
        os=_clean(f"{platform.system()} {platform.release()} ({platform.machine()})"),
        cpu_model=_cpu_model(_read_proc(Path("/proc/cpuinfo"))),
        cpu_cores=os.cpu_count(),
        usable_cores=_usable_cores(),
        memory_mb=_memory_mb(_read_proc(Path("/proc/meminfo"))),
        gpus=listed,
        gpu_tool=tool,
        gpu_note=note,
    )
