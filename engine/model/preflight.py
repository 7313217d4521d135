"""Before the first task: is the server there and ready, what is it, how large is its window, can it call
tools, and does a first request go through.

Each server says these things in its own place (llama.cpp ``/props``, Ollama ``/api/show`` and ``/api/ps``,
LM Studio ``/api/v1/models`` (``/api/v0/models`` before 0.4), vLLM ``max_model_len`` in ``/v1/models``,
llama-cpp-python its OpenAPI document). Preflight reads them, waits while a model loads, sends one warm-up
request, refuses a tool run that the server cannot serve (naming the flag or model that fixes it), and
returns everything for the run's meta. Only the warm-up and the tool-call check call the model; they are
skipped unless ``warm`` is set. (The task probe, ``sllmb probe``, is another thing: engine/analysis/task_probe.py.)
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import time
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import httpx

from engine.core.errors import InfraError, ModelFailure, UserError
from engine.core.schema import AssistantTurn, Turn
from engine.model import servers
from engine.model.client import ChatClient, ClientSettings, wire_messages
from engine.model.overflow import prompt_token_estimate
from engine.model.requestlimits import Prefill, RequestLimits, fetch_bounded, measured_prefill
from engine.model.tls import shared_tls_context

_READY = "Reply with the single word: ready"
# The warm-up's prompt is a few hundred tokens, so that the time to its first data is mostly reading it: what a
# streamed request's first-byte deadline is scaled from (a prompt of a few tokens would time the overhead).
_MEASURE = "\n".join(f"Line {i} of 20: this text is here only so that the warm-up can time how fast the server "
                     "reads a prompt." for i in range(1, 21))
WARM_UP_MESSAGES = (Turn(role="user", content=f"{_MEASURE}\n\n{_READY}"),)
_TOOL_CHECK_MESSAGES = (Turn(role="user", content=_READY),)
_CHECK_TOOL = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "Return the current time.",
        "parameters": {"type": "object", "properties": {}, "required": []},
    },
}


@dataclass
class ServerInfo:
    """What the server check found. Filled in as the check goes, and frozen (``freeze``) before
    ``inspect_server`` returns it: whatever the run adds about the server goes beside it, never into it."""

    kind: str = servers.OTHER
    version: str | None = None
    # The window one request can use now (per slot on llama.cpp), and the most the model was trained for.
    served_context: int | None = None
    trained_context: int | None = None
    slots: int | None = None
    models: list[str] = field(default_factory=list)
    # True/False when the server says (or the tool-call check showed); None when nothing said either way.
    tool_support: bool | None = None
    tool_support_source: str | None = None
    ready_wait_s: float = 0.0
    warmup_ms: float | None = None
    # How fast the warm-up's prompt was read: what a streamed request's first-byte deadline is scaled to.
    prefill: Prefill | None = None
    # Whether the server counts a prompt whole, its cached part included (False: it counts what it computed).
    whole_prompt_counts: bool = True
    details: dict[str, Any] = field(default_factory=dict)
    _frozen: bool = field(default=False, init=False, repr=False, compare=False)

    def __setattr__(self, name: str, value: Any) -> None:
        if getattr(self, "_frozen", False):
            raise dataclasses.FrozenInstanceError(f"the server check has returned: cannot assign to {name}")
        super().__setattr__(name, value)

    def freeze(self) -> ServerInfo:
        """These facts, final: no field can be assigned, and the lists and details are read-only."""
        self.models = tuple(self.models)  # type: ignore[assignment]
        self.details = MappingProxyType(dict(self.details))  # type: ignore[assignment]
        self._frozen = True
        return self

    @property
    def default_concurrency(self) -> int:
        return servers.default_concurrency(self.kind, self.slots)

    def as_meta(self) -> dict[str, Any]:
        meta: dict[str, Any] = {
            "kind": self.kind,
            "version": self.version,
            "served_context": self.served_context,
            "trained_context": self.trained_context,
            "slots": self.slots,
            "tool_support": self.tool_support,
            "tool_support_source": self.tool_support_source,
            "default_concurrency": self.default_concurrency,
            "thinking_control": servers.profile(self.kind).thinking_control,
            "ready_wait_s": round(self.ready_wait_s, 3),
            "warmup_ms": None if self.warmup_ms is None else round(self.warmup_ms, 1),
        }
        if self.prefill is not None:
            meta["warmup_prefill"] = {"fixed_s": round(self.prefill.fixed_s, 4),
                                      "per_token_s": round(self.prefill.per_token_s, 6)}
        meta.update(self.details)
        return meta


class _Reader:
    """Every read of the server check, each bounded: the whole answer within ``limits.check_s`` and at most
    ``limits.max_check_bytes``. A server that drips its metadata or sends an endless body is not one the bench
    can measure, so either ends the check with a message that says what it did."""

    def __init__(self, http: httpx.AsyncClient, endpoint: str, limits: RequestLimits):
        self.http = http
        self.endpoint = endpoint
        self.limits = limits

    async def read(self, url: str, *, post: dict[str, Any] | None = None) -> tuple[int, bytes] | None:
        """Status and body; None when nothing answers there (no connection)."""
        method = "POST" if post is not None else "GET"
        what = f"the answer to {method} {httpx.URL(url).path}"
        try:
            return await fetch_bounded(self.http, method, url, body=post, deadline_s=self.limits.check_s,
                                       cap=self.limits.max_check_bytes, what=what)
        except httpx.TransportError:
            return None
        except InfraError as exc:
            raise UserError(f"the server check stopped: {exc}. A model server answers it with a few kilobytes "
                            f"at once; check that the server at {self.endpoint} is healthy and is the one "
                            "--endpoint should name") from exc

    async def status(self, url: str) -> int | None:
        got = await self.read(url)
        return None if got is None else got[0]

    async def json(self, url: str, *, post: dict[str, Any] | None = None) -> Any | None:
        """The JSON a 200 holds; None for anything else (no route, an error, not JSON, nested past parsing)."""
        got = await self.read(url, post=post)
        if got is None or got[0] != 200:
            return None
        try:
            return json.loads(got[1])
        except (ValueError, RecursionError):
            return None


def _obj(value: object) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one: a server's metadata is read, never trusted."""
    return value if isinstance(value, dict) else {}


def _int(value: object) -> int | None:
    try:
        number = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


async def wait_ready(reader: _Reader, endpoint: str, *, timeout_s: float, poll_s: float = 0.5) -> float:
    """Wait while the server says it is loading (llama.cpp ``/health`` 503, a 503 on ``/v1/models``).

    Returns the seconds waited. A server that cannot be reached at all is a setting to fix, not a wait.
    """
    started = time.monotonic()
    root = servers.root_url(endpoint)
    while True:
        models = await reader.status(f"{endpoint.rstrip('/')}/models")
        if models is None:
            raise UserError(
                f"cannot reach the endpoint {endpoint}; start the server, or fix "
                "--endpoint / BENCH_ENDPOINT (it must end in /v1, e.g. http://127.0.0.1:8080/v1)"
            )
        if models in (401, 403):
            raise UserError(f"the endpoint {endpoint} refused the credentials (HTTP {models}); "
                            "set BENCH_API_KEY to a valid key")
        health = await reader.status(f"{root}/health")
        loading = models == 503 or health == 503
        if not loading:
            return time.monotonic() - started
        if time.monotonic() - started > timeout_s:
            raise UserError(f"the server at {endpoint} was still loading its model after {timeout_s:.0f} s "
                            "(HTTP 503); wait for it to finish, or check its log for an error")
        await asyncio.sleep(poll_s)


async def identify(reader: _Reader, endpoint: str, model: str) -> ServerInfo:
    """Which server this is, and what it says about its window, slots and tools. Makes no model call."""
    info = ServerInfo()
    root = servers.root_url(endpoint)
    data = _obj(await reader.json(f"{endpoint.rstrip('/')}/models")).get("data")
    entries = [e for e in data if isinstance(e, dict)] if isinstance(data, list) else []
    info.models = [str(e.get("id", "")) for e in entries]

    props = _obj(await reader.json(f"{root}/props"))
    if isinstance(props.get("default_generation_settings"), dict):
        _llama_cpp(info, props, entries)
        return info
    version = _obj(await reader.json(f"{root}/api/version"))
    if "version" in version:
        await _ollama(info, reader, root, model, str(version["version"]))
        return info
    if await _lm_studio(info, reader, root, model):
        return info
    if any("max_model_len" in e or e.get("owned_by") == "vllm" for e in entries):
        info.kind = servers.VLLM
        entry = next((e for e in entries if e.get("id") == model), entries[0])
        info.served_context = _int(entry.get("max_model_len"))
        vv = _obj(await reader.json(f"{root}/version"))
        info.version = str(vv["version"]) if "version" in vv else None
        return info
    api_info = _obj(_obj(await reader.json(f"{root}/openapi.json")).get("info"))
    if "llama.cpp python" in str(api_info.get("title", "")).lower():
        info.kind = servers.LLAMA_CPP_PYTHON
        info.version = str(api_info.get("version") or "") or None
        info.slots = 1
    return info


def _llama_cpp(info: ServerInfo, props: dict[str, Any], entries: list[dict[str, Any]]) -> None:
    info.kind = servers.LLAMA_CPP
    settings = props["default_generation_settings"]
    # n_ctx here is per slot, what one request can use: -c / np with an explicit -np and split slots, the
    # whole -c with the unified KV cache (-kvu, the default when the slot count is automatic).
    info.served_context = _int(settings.get("n_ctx")) or _int(props.get("n_ctx"))
    info.slots = _int(props.get("total_slots"))
    info.version = str(props.get("build_info"))[:100] if props.get("build_info") else None
    for entry in entries:
        meta = _obj(entry.get("meta"))
        info.trained_context = _int(meta.get("n_ctx_train")) or info.trained_context
    caps = props.get("chat_template_caps")
    if isinstance(caps, dict):
        supports = caps.get("supports_tools", caps.get("supports_tool_calls"))
        if isinstance(supports, bool):
            info.tool_support = supports
            info.tool_support_source = "/props chat_template_caps"
    params = settings.get("params") if isinstance(settings.get("params"), dict) else settings
    info.details["cache_prompt"] = params.get("cache_prompt", True) is not False
    if props.get("model_path"):
        info.details["model_file"] = str(props["model_path"]).replace("\\", "/").rsplit("/", 1)[-1][:200]
    # The model file's quantization as the server read it from the GGUF header (model_ftype, newer builds;
    # /v1/models meta.ftype otherwise).
    ftype = props.get("model_ftype") or next((_obj(e.get("meta")).get("ftype") for e in entries
                                              if _obj(e.get("meta")).get("ftype")), None)
    if isinstance(ftype, str) and ftype.strip():
        info.details["quantization"] = ftype.strip()[:50]


async def _ollama(info: ServerInfo, reader: _Reader, root: str, model: str, version: str) -> None:
    info.kind = servers.OLLAMA
    info.version = version[:100]
    info.slots = 1
    show = await reader.json(f"{root}/api/show", post={"model": model})
    if not isinstance(show, dict):
        names = ", ".join(info.models[:10]) or "none"
        raise UserError(f"Ollama has no model named '{model}' (POST /api/show failed); run `ollama pull "
                        f"{model}` or pass one of the models it has with --model: {names}")
    caps = show.get("capabilities")
    if isinstance(caps, list):
        info.tool_support = "tools" in caps
        info.tool_support_source = "/api/show capabilities"
        info.details["capabilities"] = [str(c)[:50] for c in caps[:20]]
    for key, value in _obj(show.get("model_info")).items():
        if str(key).endswith(".context_length"):
            info.trained_context = _int(value)
    match = re.search(r"(?m)^\s*num_ctx\s+(\d+)", str(show.get("parameters") or ""))
    if match:  # set in the Modelfile: the window Ollama will allocate
        info.served_context = int(match.group(1))
        info.details["context_source"] = "Modelfile num_ctx"
    details = _obj(show.get("details"))
    for key in ("parameter_size", "quantization_level", "family"):
        if details.get(key):
            info.details[key] = str(details[key])[:100]
    if details.get("quantization_level"):
        info.details["quantization"] = str(details["quantization_level"])[:50]  # the key every kind uses


async def _ollama_loaded(info: ServerInfo, reader: _Reader, root: str, model: str) -> None:
    """After the warm-up loaded the model, /api/ps says the window actually allocated (newer versions)."""
    listed = _obj(await reader.json(f"{root}/api/ps")).get("models")
    wanted = servers.ollama_model_name(model)
    for entry in listed if isinstance(listed, list) else []:
        if not isinstance(entry, dict):
            continue
        names = {servers.ollama_model_name(str(entry.get(k))) for k in ("name", "model") if entry.get(k)}
        if wanted not in names:  # /api/ps lists "qwen3:latest" for a model asked for as "qwen3"
            continue
        allocated = _int(entry.get("context_length"))
        if allocated:
            info.served_context = allocated
            info.details["context_source"] = "/api/ps context_length"


async def _lm_studio(info: ServerInfo, reader: _Reader, root: str, model: str) -> bool:
    """LM Studio, if this is it. Its documented list is ``/api/v1/models`` (0.4 and later): per loaded
    instance, ``config.context_length`` (the window a request gets) and ``config.parallel``. The older
    ``/api/v0/models`` carries ``loaded_context_length``, which is not documented; it is read only when the
    v1 list says nothing, and for the model's state, format and quantisation."""
    listing = await reader.json(f"{root}/api/v1/models")
    documented = isinstance(listing, dict) and isinstance(listing.get("models"), list)
    native = await reader.json(f"{root}/api/v0/models")
    older = isinstance(native, dict) and isinstance(native.get("data"), list)
    if not documented and not older:
        return False
    info.kind = servers.LM_STUDIO
    info.slots = info.slots or 1
    if documented:
        _lm_studio_v1(info, listing["models"], model)  # type: ignore[index]
    if older:
        _lm_studio_v0(info, native["data"], model)  # type: ignore[index]
    return True


def _lm_studio_v1(info: ServerInfo, models: list[Any], model: str) -> None:
    for entry in models:
        if not isinstance(entry, dict):
            continue
        instances = [i for i in entry.get("loaded_instances") or [] if isinstance(i, dict)]
        if model != entry.get("key") and model not in {i.get("id") for i in instances}:
            continue
        info.trained_context = _int(entry.get("max_context_length")) or info.trained_context
        instance = next((i for i in instances if i.get("id") == model), instances[0] if instances else None)
        config = (instance or {}).get("config")
        if isinstance(config, dict):
            info.served_context = _int(config.get("context_length")) or info.served_context
            info.slots = _int(config.get("parallel")) or info.slots
            info.details["context_source"] = "/api/v1/models loaded_instances[].config.context_length"
        return


def _lm_studio_v0(info: ServerInfo, data: list[Any], model: str) -> None:
    entry = next((e for e in data if isinstance(e, dict) and e.get("id") == model), None)
    if entry is None:
        return
    info.trained_context = info.trained_context or _int(entry.get("max_context_length"))
    from_v1 = str(info.details.get("context_source", "")).startswith("/api/v1")
    if not from_v1 and _int(entry.get("loaded_context_length")):
        info.served_context = _int(entry.get("loaded_context_length"))
        info.details["context_source"] = "/api/v0/models loaded_context_length"
    state = entry.get("state")
    info.details["state"] = state[:50] if isinstance(state, str) else None
    for key in ("arch", "quantization", "compatibility_type"):
        if entry.get(key):
            info.details[key] = str(entry[key])[:100]


def _lm_studio_no_model(message: str) -> bool:
    return "no models loaded" in message.lower()


async def warm_up(client: ChatClient, info: ServerInfo, model: str) -> AssistantTurn:
    """One request of a few hundred prompt tokens and a one-word reply: loads the model where the server loads
    on demand, shows the request shape (sampler and thinking fields) is accepted, and measures how fast the
    server reads a prompt (``info.prefill``; where it loaded the model too, the load counts, and the deadlines
    stay long). Sets ``info.warmup_ms`` and returns the reply."""
    started = time.perf_counter()
    try:
        reply = await client.chat(WARM_UP_MESSAGES, max_tokens=16)
    except InfraError as exc:
        text = str(exc)
        if _lm_studio_no_model(text):
            raise UserError(f"LM Studio has no model loaded: load '{model}' (`lms load {model}`, or in the "
                            "app) or turn on just-in-time model loading, then run again") from exc
        if "HTTP 404" in text:
            names = ", ".join(info.models[:10]) or "none listed"
            raise UserError(f"the server does not serve a model named '{model}' (HTTP 404); pass the name it "
                            f"uses with --model (it lists: {names})") from exc
        raise UserError(f"the warm-up request to {info.kind} failed: {text}; fix the server or its settings "
                        "and run again") from exc
    except ModelFailure as exc:
        raise UserError(f"the warm-up request failed: {exc}") from exc
    timings, usage = reply.timings, reply.usage
    # Unstreamed, the first data is the whole reply (a few tokens): longer, so the deadlines err long. The
    # fewer of the server's count and the bench's estimate: the deadlines err long again.
    first = timings.ttft_ms if timings.ttft_ms is not None else timings.wall_ms
    tokens = min(n for n in (usage.prompt_tokens, prompt_token_estimate(wire_messages(WARM_UP_MESSAGES))) if n)
    info.prefill = measured_prefill(first, tokens, timings.prompt_ms, usage.evaluated_prompt_tokens)
    info.warmup_ms = (time.perf_counter() - started) * 1000
    return reply


async def check_prompt_counts(client: ChatClient, info: ServerInfo, first: AssistantTurn) -> None:
    """Whether the server counts a prompt whole, its cached part included: the warm-up once more, its prompt
    now in the server's cache. Every current server counts it as before (or says what came from the cache);
    one that reports a fraction counts only what it computed, and a low count from it is no proof of a cut
    (engine/model/overflow.py). Asked only of a server that reported the first count."""
    before = first.usage.prompt_tokens
    if not before or before < _COUNT_CHECK_MIN_TOKENS:
        return
    try:
        again = await client.chat(WARM_UP_MESSAGES, max_tokens=16)
    except (InfraError, ModelFailure):
        return  # not known: the rule for current servers stands
    if again.usage.prompt_tokens is None:
        return
    counted = again.usage.prompt_tokens + (again.usage.cached_prompt_tokens or 0)
    if counted < before // 2:
        info.whole_prompt_counts = False
        info.details["prompt_counts"] = (f"uncached tokens only: the warm-up's prompt was counted {before} "
                                         f"tokens, then {counted} when sent again")


# A warm-up counted at fewer tokens than this is too short to tell a cached count from an honest one.
_COUNT_CHECK_MIN_TOKENS = 64


async def check_tool_calls(client: ChatClient | None, info: ServerInfo) -> None:
    """The tool-call check: refuse a tool run on a server that says it cannot call tools, naming the fix;
    with a client, send one request with a tool and refuse the run if the server rejects it."""
    fix = servers.tools_fix(info.kind)
    if info.tool_support is False:
        raise UserError(f"{servers.profile(info.kind).label} reports no tool support "
                        f"({info.tool_support_source}), and the selected tasks call tools: {fix}. "
                        "Or deselect the tool tasks with --modules.")
    if client is None:
        return
    try:
        await client.chat(_TOOL_CHECK_MESSAGES, tools=[_CHECK_TOOL], tool_choice="auto", max_tokens=16)
    except InfraError as exc:
        text = str(exc)
        if ("HTTP 400" in text or not exc.retryable) and "tool" in text.lower():
            raise UserError(f"{servers.profile(info.kind).label} rejected a request with tools: {fix}. "
                            f"(It answered: {text[:300]})") from exc
        raise UserError(f"a request with tools failed on {info.kind}: {text}") from exc
    except ModelFailure:
        pass  # the model's own trouble with the check's request is not the server's
    if info.tool_support is None:
        info.tool_support = True
        info.tool_support_source = "tools request accepted"


async def inspect_server(
    endpoint: str,
    api_key: str | None,
    model: str,
    *,
    ready_timeout_s: float = 300.0,
    poll_s: float = 0.5,
    warm: bool = False,
    needs_tools: bool = False,
    client_settings: ClientSettings | None = None,
    limits: RequestLimits | None = None,
) -> ServerInfo:
    """The server check: wait until the server is ready, identify it, and (with ``warm``) send the warm-up
    and, for a run with tool tasks, the tool-call check. Each read is bounded by ``limits`` (check_s,
    max_check_bytes); the model calls by the client's own limits.

    Anything the user must fix raises ``UserError`` with the fix in its message.
    """
    lim = limits or (client_settings.limits if client_settings else RequestLimits())
    # Identity only: a compressed body could expand past the byte cap before it is counted.
    headers = {"Accept-Encoding": "identity", **({"Authorization": f"Bearer {api_key}"} if api_key else {})}
    async with httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(lim.check_s, connect=lim.connect_s),
                                 verify=shared_tls_context()) as http:
        reader = _Reader(http, endpoint, lim)
        waited = await wait_ready(reader, endpoint, timeout_s=ready_timeout_s, poll_s=poll_s)
        info = await identify(reader, endpoint, model)
        info.ready_wait_s = waited
        if info.kind == servers.VLLM and info.models and model not in info.models:
            raise UserError(f"vLLM serves {', '.join(info.models[:10])}, not '{model}'; pass --model "
                            f"{info.models[0]} (or the --served-model-name you started it with)")
        client = None
        if warm:
            base = client_settings or ClientSettings(endpoint=endpoint, model=model, api_key=api_key)
            settings = dataclasses.replace(base, server_kind=info.kind, check_truncation=False,
                                           sampler=servers.sampler_fields(info.kind, base.sampler),
                                           max_retries=max(base.max_retries, 3), stop_loops=False)
            client = ChatClient(settings)
        try:
            if client is not None:
                await check_prompt_counts(client, info, await warm_up(client, info, model))
                if info.kind == servers.OLLAMA:
                    await _ollama_loaded(info, reader, servers.root_url(endpoint), model)
                if info.kind == servers.LM_STUDIO:  # loaded by the warm-up: the window is known now
                    await _lm_studio(info, reader, servers.root_url(endpoint), model)
                thinking = client.observed().thinking_check
                info.details["warmup_thinking"] = None if thinking is None else dict(thinking)
            if needs_tools:
                await check_tool_calls(client, info)
        finally:
            if client is not None:
                await client.aclose()
    if info.details.get("warmup_thinking") is None:
        info.details.pop("warmup_thinking", None)
    return info.freeze()
