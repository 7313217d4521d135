"""The server check of a run: what the server is, and what the request left open settled from it (window,
concurrency, sampler)."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from engine.episodes import SPECS
from engine.episodes.base import LoadedTask
from engine.model import gguf_header, servers
from engine.model.client import ClientSettings
from engine.model.local_server import LocalServer
from engine.model.preflight import ServerInfo, inspect_server
from engine.model.requestlimits import RequestLimits
from engine.run.request import RunRequest


@dataclass(frozen=True)
class ServerFacts:
    kind: str
    served_context: int | None  # the window one request can use, as the server says
    concurrency: int  # the request's, or the server's own default
    meta: Mapping[str, Any]  # what the result file records about the server (provenance.server)
    # The run's request limits, first-byte deadlines scaled to what the warm-up measured where they may be.
    limits: RequestLimits
    whole_prompt_counts: bool  # the server counts a prompt whole, its cached part included


def embedded_meta(server: LocalServer) -> dict[str, Any]:
    """What the result file records about the embedded server, beside what the server check finds: the
    quantization from the model file's own header, and the KV-cache types and flash attention the server was
    started with (its /props does not say them)."""
    meta: dict[str, Any] = {"embedded": True, "model_file": server.model_file.name,
                            "embedded_server": f"xllamacpp {server.version}", "threads": server.threads}
    quant = gguf_header.quantization(server.model_file)
    if quant is not None:
        meta["quantization"] = quant
        meta["quantization_source"] = "GGUF header general.file_type"
    for key in ("cache_type_k", "cache_type_v", "flash_attn"):
        if getattr(server, key) is not None:
            meta[key] = getattr(server, key)
    return meta


def _uses_tools(module: str) -> bool:
    spec = SPECS.get(module)  # an unknown --modules name is reported by the run's own planning
    return spec is not None and spec.uses_tools


async def check_server(request: RunRequest, client: ClientSettings, tasks: Sequence[LoadedTask],
                       embedded: LocalServer | None = None) -> ServerFacts:
    """The server check, with the client settings the plan resolved from the request (endpoint, sampler,
    limits): what the server is, and what the request left open settled from it."""
    needs_tools = any(_uses_tools(t.task.module) for t in tasks)
    # The embedded server runs a model whose own chat template may render no tools (SmolLM2's does not). Its
    # user cannot change that template, and the tools module lists the tools in its system prompt as well, so
    # such a run goes ahead (recorded) instead of being refused as a misconfigured server would be.
    template_may_lack_tools = embedded is not None
    info = await inspect_server(client.endpoint, client.api_key, client.model, warm=request.warm_up,
                                needs_tools=needs_tools and not template_may_lack_tools,
                                client_settings=client, ready_timeout_s=request.ready_timeout_s)
    note: dict[str, str] = {}
    if needs_tools and template_may_lack_tools and info.tool_support is False:
        note["tools_note"] = ("the model's chat template renders no tools: the model sees them only in the tools "
                              "module's system prompt and can call them as text")
        print(f"note: {note['tools_note']}", file=sys.stderr)
    # The server's facts as found, then what the run adds about it beside them (in the order the file keeps).
    meta = {**info.as_meta(), **note, "sampler": {"temperature": client.temperature, "top_p": client.top_p,
                                                  **servers.sampler_fields(info.kind, client.sampler)},
            **(embedded_meta(embedded) if embedded is not None else {})}
    concurrency = info.default_concurrency if request.concurrency is None else request.concurrency
    return ServerFacts(
        kind=info.kind,
        served_context=info.served_context,
        concurrency=concurrency,
        meta=MappingProxyType(meta),
        limits=scaled_limits(client.limits, info, concurrency),
        whole_prompt_counts=info.whole_prompt_counts,
    )


def scaled_limits(limits: RequestLimits, info: ServerInfo, concurrency: int) -> RequestLimits:
    """The limits with first-byte deadlines scaled to the warm-up's prefill speed, ``concurrency`` requests
    sharing the server. Not where requests may queue (more at once than the server has slots, or slots not
    known): a queued request's first byte waits on other requests' whole replies, which the warm-up did not
    measure, so the --first-byte-timeout ceiling stays the deadline."""
    slots = info.slots or (concurrency if info.kind == servers.VLLM else 1)  # vLLM batches all it is sent
    if concurrency > slots:
        return limits
    return limits.with_prefill(info.prefill, concurrency)
