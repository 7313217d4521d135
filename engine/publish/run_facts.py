"""The machine and the server a run ran on, in the words a model's card shows: read from the result file's
``provenance.machine`` (``engine.run.machine``) and ``provenance.server`` (the server check), never typed in.

``provenance.server`` is a free mapping written by older builds too, so every value is read as data: a
string or a number of the expected kind, clipped, or left out. The card escapes what these return.
"""

from __future__ import annotations

from typing import Any

from engine.core.schema import RunFile

NOT_RECORDED = "not recorded"
_CLIP = 100


def _gib(mb: int | None) -> str | None:
    return None if mb is None else f"{mb / 1024:.1f} GiB"


def _said(meta: dict[str, Any], key: str) -> str | None:
    value = meta.get(key)
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    text = " ".join(str(value).split())[:_CLIP]
    return text or None


def machine_text(run: RunFile) -> str:
    m = run.provenance.machine
    if m is None:
        return NOT_RECORDED
    cores = None
    if m.cpu_cores:
        cores = f"{m.cpu_cores} cores" + (f" ({m.usable_cores} usable)" if m.usable_cores and
                                          m.usable_cores != m.cpu_cores else "")
    memory = _gib(m.memory_mb)
    parts = [m.cpu_model or "CPU not reported", cores, f"{memory} memory" if memory else None, m.os]
    return ", ".join(p for p in parts if p)


def gpu_text(run: RunFile) -> str:
    m = run.provenance.machine
    if m is None:
        return NOT_RECORDED
    if m.gpus:
        listed = "; ".join(f"{g.name}" + (f" ({_gib(g.memory_mb)})" if g.memory_mb is not None else "")
                           for g in m.gpus)
        return f"{listed} (from {m.gpu_tool})"
    if m.gpu_note:
        return f"none listed: {m.gpu_note}"
    return "none reported (no nvidia-smi or rocm-smi)" if m.gpu_tool is None else f"none (from {m.gpu_tool})"


def server_text(run: RunFile) -> str:
    meta = run.provenance.server
    kind = _said(meta, "kind") or NOT_RECORDED
    version = _said(meta, "embedded_server") or _said(meta, "version")
    parts = [f"{kind} {version}" if version else kind]
    if meta.get("embedded") is True:
        parts[0] += " (embedded)"
    quant = _said(meta, "quantization") or _said(meta, "quantization_level")
    for label, value in (("quantization", quant), ("context", _said(meta, "served_context")),
                         ("slots", _said(meta, "slots")), ("KV cache K", _said(meta, "cache_type_k")),
                         ("KV cache V", _said(meta, "cache_type_v")), ("flash attention", _said(meta, "flash_attn"))):
        if value is not None:
            parts.append(f"{label} {value}")
    return ", ".join(parts)
