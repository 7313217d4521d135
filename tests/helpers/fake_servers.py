"""Loopback servers that behave like llama.cpp, Ollama, LM Studio and vLLM where a harness goes wrong.

Each is a real HTTP server on 127.0.0.1 with the endpoints, response shapes, error bodies and quirks its
namesake documents (see site_src/servers/): llama.cpp's ``/props`` and ``/health`` 503 while loading,
Ollama's silently cut prompts and ``/api/show``, LM Studio's load-on-first-request and empty streamed tool
names, vLLM's ``max_model_len`` and its tool-choice 400. What the *model* says is scripted: a ``Script``
maps each chat request to a ``Say``; the server wraps it in its own dialect.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Say:
    """What the model produces for one request, before the server's dialect is applied."""

    text: str = ""
    reasoning: str | None = None  # produced only when the server's thinking is on
    tool_calls: list[tuple[str, dict[str, Any] | str]] = field(default_factory=list)
    finish_reason: str = "stop"
    completion_tokens: int | None = None


Script = Callable[[dict[str, Any]], Say]


def always(say: Say) -> Script:
    return lambda body: say


def honest_prompt_tokens(body: dict[str, Any]) -> int:
    """What a real tokenizer would count, roughly: 4 characters a token plus a template overhead."""
    chars = 0
    for m in body.get("messages") or []:
        chars += len(str(m.get("content") or ""))
        for c in m.get("tool_calls") or []:
            chars += len(json.dumps(c))
    chars += len(json.dumps(body.get("tools") or []))
    return chars // 4 + 8 * len(body.get("messages") or []) + 4


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client hanging up mid-reply is part of the tests


class FakeServer:
    """Base: routing, recording, SSE. Subclasses define ``routes`` and ``chat``."""

    kind = "other"
    reasoning_field = "reasoning_content"

    def __init__(self, script: Script | None = None, *, model: str = "test-model"):
        self.script = script or always(Say(text="ready"))
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    # -- plumbing ---------------------------------------------------------------------------------------
    @property
    def root(self) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def url(self) -> str:
        return f"{self.root}/v1"

    @property
    def chats(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if "messages" in r]

    def __enter__(self) -> FakeServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _send(self, status: int, payload: Any, content_type: str = "application/json") -> None:
                data = (
                    payload
                    if isinstance(payload, bytes)
                    else (payload.encode() if isinstance(payload, str) else json.dumps(payload).encode())
                )
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _handle(self, method: str) -> None:
                path = self.path.split("?")[0]
                body = None
                if method == "POST":
                    length = int(self.headers.get("Content-Length") or 0)
                    body = json.loads(self.rfile.read(length) or b"null")
                if path == "/v1/chat/completions" and method == "POST":
                    with server._lock:
                        server.requests.append(body)
                    result = server.chat(body)
                    if isinstance(result, list):  # SSE events
                        self.send_response(200)
                        self.send_header("Content-Type", "text/event-stream")
                        self.send_header("Connection", "close")
                        self.end_headers()
                        self.close_connection = True
                        for event in result:
                            self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                        self.wfile.write(b"data: [DONE]\n\n")
                        self.wfile.flush()
                        return
                    status, payload = result
                    self._send(status, payload)
                    return
                route = server.routes().get((method, path))
                if route is None:
                    self._send(404, server.not_found(path))
                    return
                status, payload = route(body)
                self._send(status, payload)

            def do_GET(self) -> None:  # noqa: N802
                self._handle("GET")

            def do_POST(self) -> None:  # noqa: N802
                self._handle("POST")

        self._httpd = _Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        self.started = time.monotonic()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    # -- behaviour --------------------------------------------------------------------------------------
    def routes(self) -> dict[tuple[str, str], Callable[[Any], tuple[int, Any]]]:
        return {
            ("GET", "/v1/models"): lambda _: (
                200,
                {"object": "list", "data": [{"id": self.model, "object": "model"}]},
            )
        }

    def not_found(self, path: str) -> Any:
        return {"error": {"message": f"no route {path}"}}

    def thinking_on(self, body: dict[str, Any]) -> bool:
        return True

    def chat(self, body: dict[str, Any]) -> tuple[int, Any] | list[dict[str, Any]]:
        say = self.script(body)
        return self.reply(body, say, prompt_tokens=honest_prompt_tokens(body))

    def message(self, body: dict[str, Any], say: Say) -> dict[str, Any]:
        msg: dict[str, Any] = {"role": "assistant", "content": say.text}
        if say.reasoning and self.thinking_on(body):
            msg[self.reasoning_field] = say.reasoning
        if say.tool_calls:
            msg["content"] = say.text or None
            msg["tool_calls"] = [
                {
                    "id": f"call_{i}",
                    "type": "function",
                    "function": {"name": n, "arguments": a if isinstance(a, str) else json.dumps(a)},
                }
                for i, (n, a) in enumerate(say.tool_calls)
            ]
        return msg

    def usage(self, say: Say, prompt_tokens: int) -> dict[str, int]:
        completion = say.completion_tokens
        if completion is None:
            completion = max(1, (len(say.text) + len(say.reasoning or "")) // 4)
        return {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion,
            "total_tokens": prompt_tokens + completion,
        }

    def reply(
        self, body: dict[str, Any], say: Say, *, prompt_tokens: int, extra: dict[str, Any] | None = None
    ) -> tuple[int, Any] | list[dict[str, Any]]:
        finish = "tool_calls" if say.tool_calls and say.finish_reason == "stop" else say.finish_reason
        if body.get("stream"):
            return self.stream(body, say, finish, prompt_tokens)
        out = {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model"),
            "choices": [{"index": 0, "message": self.message(body, say), "finish_reason": finish}],
            "usage": self.usage(say, prompt_tokens),
        }
        out.update(extra or {})
        return 200, out

    def tool_deltas(self, say: Say) -> list[dict[str, Any]]:
        deltas = []
        for i, (name, args) in enumerate(say.tool_calls):
            text = args if isinstance(args, str) else json.dumps(args)
            half = len(text) // 2
            deltas.append(
                {
                    "tool_calls": [
                        {
                            "index": i,
                            "id": f"call_{i}",
                            "type": "function",
                            "function": {"name": name, "arguments": text[:half]},
                        }
                    ]
                }
            )
            deltas.append({"tool_calls": [{"index": i, "function": {"arguments": text[half:]}}]})
        return deltas

    def stream(self, body: dict[str, Any], say: Say, finish: str, prompt_tokens: int) -> list[dict[str, Any]]:
        base = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": body.get("model"),
        }
        deltas: list[dict[str, Any]] = [{"role": "assistant"}]
        if say.reasoning and self.thinking_on(body):
            deltas += [
                {self.reasoning_field: say.reasoning[i : i + 6]} for i in range(0, len(say.reasoning), 6)
            ]
        deltas += [{"content": say.text[i : i + 6]} for i in range(0, len(say.text), 6)]
        deltas += self.tool_deltas(say)
        events = [{**base, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
        events.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        if (body.get("stream_options") or {}).get("include_usage"):
            events.append({**base, "choices": [], "usage": self.usage(say, prompt_tokens)})
        return events


# ----------------------------------------------------------------------------------------------------------


class FakeLlamaCpp(FakeServer):
    """llama-server: /props (per-slot n_ctx, total_slots, chat_template_caps), /health 503 while loading,
    400 exceed_context_size_error, timings on every reply, tools dropped silently by a template without
    them, thinking by chat_template_kwargs.enable_thinking with reasoning in reasoning_content, POST
    /tokenize. ``jinja=False`` (--no-jinja) answers a tools request 500 "tools param requires --jinja flag".
    ``context_shift_truncates`` is a build from before the truncation was removed, started with context
    shift on: an over-window prompt keeps its last blocks of n_ctx/2 tokens, is answered 200, and the
    reported prompt count is the cut one (tools/server/tests/unit/test_ctx_shift.py: 301 tokens into a
    128-token slot keep the last 109)."""

    kind = "llama.cpp"

    def __init__(
        self,
        script: Script | None = None,
        *,
        n_ctx: int = 8192,
        slots: int = 2,
        supports_tools: bool = True,
        loading_s: float = 0.0,
        build: str = "b6543-1a2b3c4",
        jinja: bool = True,
        context_shift_truncates: bool = False,
        **kw: Any,
    ):
        super().__init__(script, **kw)
        self.jinja, self.context_shift_truncates = jinja, context_shift_truncates
        self.tokenized = 0
        self.n_ctx, self.slots, self.supports_tools, self.loading_s, self.build = (
            n_ctx,
            slots,
            supports_tools,
            loading_s,
            build,
        )

    def loading(self) -> bool:
        return time.monotonic() - self.started < self.loading_s

    def _unavailable(self) -> tuple[int, Any]:
        return 503, {"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}}

    def routes(self) -> dict[tuple[str, str], Callable[[Any], tuple[int, Any]]]:
        def models(_: Any) -> tuple[int, Any]:
            if self.loading():
                return self._unavailable()
            return 200, {
                "object": "list",
                "data": [
                    {
                        "id": self.model,
                        "object": "model",
                        "owned_by": "llamacpp",
                        "meta": {"n_ctx_train": 32768, "n_params": 494032768},
                    }
                ],
            }

        def props(_: Any) -> tuple[int, Any]:
            if self.loading():
                return self._unavailable()
            return 200, {
                "default_generation_settings": {
                    "n_ctx": self.n_ctx,
                    "params": {"cache_prompt": True, "temperature": 0.8},
                },
                "total_slots": self.slots,
                "model_path": "/models/qwen2.5-0.5b-instruct-q4_k_m.gguf",
                "chat_template": "{% for m in messages %}...{% endfor %}",
                "chat_template_caps": {
                    "supports_tools": self.supports_tools,
                    "supports_tool_calls": self.supports_tools,
                    "supports_system_role": True,
                },
                "build_info": self.build,
            }

        def health(_: Any) -> tuple[int, Any]:
            return self._unavailable() if self.loading() else (200, {"status": "ok"})

        def tokenize(body: Any) -> tuple[int, Any]:
            self.tokenized += 1
            text = str((body or {}).get("content") or "")
            return 200, {"tokens": list(range(len(text) // 4))}

        return {
            ("GET", "/v1/models"): models,
            ("GET", "/props"): props,
            ("GET", "/health"): health,
            ("POST", "/tokenize"): tokenize,
        }

    def thinking_on(self, body: dict[str, Any]) -> bool:
        return (body.get("chat_template_kwargs") or {}).get("enable_thinking", True) is not False

    def chat(self, body: dict[str, Any]) -> tuple[int, Any] | list[dict[str, Any]]:
        if self.loading():
            return self._unavailable()
        if body.get("tools") and not self.jinja:
            return 500, {"error": {"code": 500, "message": "tools param requires --jinja flag", "type": "server_error"}}
        prompt = honest_prompt_tokens(body)
        if prompt >= self.n_ctx and self.context_shift_truncates:
            block = self.n_ctx // 2  # n_keep 0
            prompt -= (prompt - block) // block * block
            body = {**body, "messages": body["messages"][-1:]}  # only the tail reaches the model
        if prompt >= self.n_ctx:
            return 400, {
                "error": {
                    "code": 400,
                    "message": "the request exceeds the available context size, try increasing it",
                    "type": "exceed_context_size_error",
                    "n_prompt_tokens": prompt,
                    "n_ctx": self.n_ctx,
                }
            }
        if not self.supports_tools:
            body = {k: v for k, v in body.items() if k not in ("tools", "tool_choice")}  # dropped silently
        say = self.script(body)
        timings = {
            "cache_n": 0,
            "prompt_n": prompt,
            "prompt_ms": 12.5,
            "prompt_per_second": 800.0,
            "predicted_n": 5,
            "predicted_ms": 50.0,
            "predicted_per_second": 100.0,
        }
        result = self.reply(body, say, prompt_tokens=prompt, extra={"timings": timings})
        if isinstance(result, list):
            result[-1 if "usage" not in result[-1] else -2]["timings"] = timings
        return result


def ollama_display_name(name: str) -> str:
    """How Ollama lists a model (/api/ps, /v1/models): with its tag, ``latest`` when none was given."""
    last = name.rsplit("/", 1)[-1]
    return name if ":" in last else f"{name}:latest"


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3])


class FakeOllama(FakeServer):
    """Ollama: /api/version, /api/show (capabilities, model_info context_length, Modelfile parameters),
    /api/ps (allocated context_length, names listed with their tag: ``qwen3`` as ``qwen3:latest``); 400 for
    tools on a model without them; reasoning in message.reasoning, switched by reasoning_effort ("none" =
    off), on by default; tool_choice ignored (its /v1 request has no such field).

    A prompt over the window, as its source does it (server/prompt.go, llm/llama_server.go, the runners):
    first the oldest non-system messages are dropped until the rest fits (every version); a last message
    still too long is cut, keeping its end, to exactly num_ctx before 0.30, to num_ctx - 1 in 0.30, and
    since 0.31 to num_ctx - (num_ctx - num_keep) / 2, about half; or, since 0.31, refused with a 400 on a
    model without context shift (``context_shift=False``, e.g. the deepseek2 family). Each is answered 200
    with the cut count as prompt_tokens. Requests past ``parallel`` wait in a queue; only past
    ``max_queue`` (OLLAMA_MAX_QUEUE, 512) is one answered 503."""

    kind = "ollama"
    reasoning_field = "reasoning"
    num_keep = 4

    def __init__(
        self,
        script: Script | None = None,
        *,
        num_ctx: int = 4096,
        trained: int = 40960,
        capabilities: tuple[str, ...] = ("completion", "tools", "thinking"),
        version: str = "0.12.6",
        modelfile_num_ctx: int | None = None,
        parallel: int = 1,
        max_queue: int = 512,
        work_s: float = 0.0,
        ps_context: bool = True,
        context_shift: bool = True,
        **kw: Any,
    ):
        kw.setdefault("model", "qwen3:0.6b")
        super().__init__(script, **kw)
        self.num_ctx, self.trained, self.capabilities, self.version = num_ctx, trained, capabilities, version
        self.modelfile_num_ctx, self.work_s, self.context_shift = modelfile_num_ctx, work_s, context_shift
        self.parallel, self.max_queue = parallel, max_queue
        self.ps_context = ps_context  # older versions leave context_length out of /api/ps
        self._slots = threading.Semaphore(parallel)
        self.waiting = 0
        self.rejected_busy = 0
        self.loaded = False

    def knows(self, name: Any) -> bool:
        return isinstance(name, str) and ollama_display_name(name).lower() == ollama_display_name(self.model).lower()

    def routes(self) -> dict[tuple[str, str], Callable[[Any], tuple[int, Any]]]:
        def show(body: Any) -> tuple[int, Any]:
            if not self.knows((body or {}).get("model")):
                return 404, {"error": f"model '{(body or {}).get('model')}' not found"}
            params = "temperature 0.6\ntop_k 20"
            if self.modelfile_num_ctx:
                params += f"\nnum_ctx {self.modelfile_num_ctx}"
            return 200, {
                "modelfile": "FROM ...",
                "parameters": params,
                "template": "{{ .Prompt }}",
                "details": {"family": "qwen3", "parameter_size": "751.63M", "quantization_level": "Q4_K_M"},
                "model_info": {"general.architecture": "qwen3", "qwen3.context_length": self.trained},
                "capabilities": list(self.capabilities),
            }

        def ps(_: Any) -> tuple[int, Any]:
            name = ollama_display_name(self.model)
            entry: dict[str, Any] = {"name": name, "model": name, "size": 1}
            if self.ps_context:
                entry["context_length"] = self.window()
            models = [entry]
            return 200, {"models": models if self.loaded else []}

        return {
            ("GET", "/api/version"): lambda _: (200, {"version": self.version}),
            ("POST", "/api/show"): show,
            ("GET", "/api/ps"): ps,
            ("GET", "/"): lambda _: (200, "Ollama is running"),
            ("GET", "/v1/models"): lambda _: (
                200,
                {
                    "object": "list",
                    "data": [
                        {"id": ollama_display_name(self.model), "object": "model", "created": 0,
                         "owned_by": "library"}
                    ],
                },
            ),
        }

    def not_found(self, path: str) -> Any:
        return "404 page not found"

    def window(self) -> int:
        return self.modelfile_num_ctx or self.num_ctx

    def thinking_on(self, body: dict[str, Any]) -> bool:
        return "thinking" in self.capabilities and body.get("reasoning_effort") != "none"

    def fit(self, body: dict[str, Any]) -> tuple[int, list[dict[str, Any]]] | None:
        """The prompt count and the messages the model gets, or None for the 400 of no context shift."""
        window, msgs = self.window(), body.get("messages") or []

        def count(kept: list[dict[str, Any]]) -> int:
            return honest_prompt_tokens({"messages": kept, "tools": body.get("tools")})

        kept = msgs
        for i in range(len(msgs)):  # chatPrompt: drop from the front, keep system messages and the last one
            kept = [m for m in msgs[:i] if m.get("role") == "system"] + msgs[i:]
            if count(kept) <= window or i == len(msgs) - 1:
                break
        prompt, version = count(kept), _version(self.version)
        if prompt <= (window - 1 if version >= (0, 30) else window):
            return prompt, kept
        if version < (0, 30):
            cut = window
        elif version < (0, 31):
            cut = window - 1
        elif not self.context_shift:
            return None
        else:
            cut = window - max((window - self.num_keep) // 2, 1)
        return cut, kept[-1:]  # the front of the prompt is gone: the reply is about the tail only

    def chat(self, body: dict[str, Any]) -> tuple[int, Any] | list[dict[str, Any]]:
        with self._lock:
            if self.waiting >= self.parallel + self.max_queue:
                self.rejected_busy += 1
                return 503, {
                    "error": {
                        "message": "server busy, please try again.  maximum pending requests exceeded",
                        "type": "api_error",
                    }
                }
            self.waiting += 1
        try:
            with self._slots:
                time.sleep(self.work_s)
                self.loaded = True
                return self._answer(body)
        finally:
            with self._lock:
                self.waiting -= 1

    def _answer(self, body: dict[str, Any]) -> tuple[int, Any] | list[dict[str, Any]]:
        if body.get("tools") and "tools" not in self.capabilities:
            return 400, {
                "error": {
                    "message": f"registry.ollama.ai/library/{self.model} does not support tools",
                    "type": "api_error",
                    "param": None,
                    "code": None,
                }
            }
        fitted = self.fit(body)
        if fitted is None:
            return 400, {
                "error": {
                    "message": "the prompt is longer than the context length currently available to the model; "
                    "shorten the prompt, adjust the context length in settings, or use a model with a longer "
                    "context length",
                    "type": "invalid_request_error",
                }
            }
        prompt, kept = fitted
        say = self.script({**body, "messages": kept})
        return self.reply(body, say, prompt_tokens=prompt)


class FakeLMStudio(FakeServer):
    """LM Studio: /api/v1/models (documented: max_context_length, loaded_instances[].config.context_length
    and parallel), the older /api/v0/models (max_context_length, state and the undocumented
    loaded_context_length, left out with ``v0_window=False``); the first request loads the model (seconds)
    or, with just-in-time loading off, 404 "No models loaded"; streamed tool-call chunks after the first
    carry an empty name (before 0.3.16); no usage in a stream unless include_usage is asked for.

    A prompt over the loaded window is refused with a 400 "Trying to keep the first N tokens when context
    the overflows ..." (``overflow="error"``; with a 200 status, as lmstudio-bug-tracker #2322 reports of
    0.4.21, ``overflow="error-200"``), or, on the newer GGUF path (``overflow="empty"``), answered 200 with no
    content at all and a usage that counts the whole prompt (lmstudio-bug-tracker #2339)."""

    kind = "lm-studio"

    def __init__(
        self,
        script: Script | None = None,
        *,
        max_ctx: int = 32768,
        loaded_ctx: int = 4096,
        loaded: bool = False,
        jit: bool = True,
        load_s: float = 0.0,
        parallel: int = 4,
        api_v1: bool = True,
        v0_window: bool = True,
        overflow: str = "error",
        **kw: Any,
    ):
        kw.setdefault("model", "qwen2.5-7b-instruct")
        super().__init__(script, **kw)
        self.parallel, self.api_v1, self.v0_window, self.overflow = parallel, api_v1, v0_window, overflow
        self.max_ctx, self.loaded_ctx, self.loaded, self.jit, self.load_s = (
            max_ctx,
            loaded_ctx,
            loaded,
            jit,
            load_s,
        )

    def routes(self) -> dict[tuple[str, str], Callable[[Any], tuple[int, Any]]]:
        def native(_: Any) -> tuple[int, Any]:
            entry: dict[str, Any] = {
                "id": self.model,
                "object": "model",
                "type": "llm",
                "publisher": "lmstudio",
                "arch": "qwen2",
                "compatibility_type": "gguf",
                "quantization": "Q4_K_M",
                "state": "loaded" if self.loaded else "not-loaded",
                "max_context_length": self.max_ctx,
            }
            if self.loaded and self.v0_window:
                entry["loaded_context_length"] = self.loaded_ctx
            return 200, {"object": "list", "data": [entry]}

        def documented(_: Any) -> tuple[int, Any]:
            instances = [
                {
                    "id": self.model,
                    "config": {"context_length": self.loaded_ctx, "eval_batch_size": 512,
                               "parallel": self.parallel, "flash_attention": True},
                }
            ]
            return 200, {
                "models": [
                    {
                        "type": "llm",
                        "publisher": "lmstudio-community",
                        "key": self.model,
                        "display_name": self.model,
                        "architecture": "qwen2",
                        "quantization": {"name": "Q4_K_M", "bits_per_weight": 4},
                        "loaded_instances": instances if self.loaded else [],
                        "max_context_length": self.max_ctx,
                        "format": "gguf",
                        "capabilities": {"vision": False, "trained_for_tool_use": True},
                    }
                ]
            }

        def models(_: Any) -> tuple[int, Any]:
            return 200, {
                "object": "list",
                "data": [{"id": self.model, "object": "model", "owned_by": "organization_owner"}],
            }

        routes = {("GET", "/api/v0/models"): native, ("GET", "/v1/models"): models}
        if self.api_v1:
            routes[("GET", "/api/v1/models")] = documented
        return routes

    def not_found(self, path: str) -> Any:
        return {"error": f"Unexpected endpoint or method. (GET {path})"}

    def thinking_on(self, body: dict[str, Any]) -> bool:
        return (body.get("chat_template_kwargs") or {}).get("enable_thinking", True) is not False

    def chat(self, body: dict[str, Any]) -> tuple[int, Any] | list[dict[str, Any]]:
        if not self.loaded:
            if not self.jit:
                return 404, {
                    "error": {
                        "message": "No models loaded. Please load a model in the developer page "
                        "or use the `lms load` command.",
                        "type": "invalid_request_error",
                        "param": "model",
                        "code": "model_not_found",
                    }
                }
            time.sleep(self.load_s)
            self.loaded = True
        prompt = honest_prompt_tokens(body)
        if prompt > self.loaded_ctx and self.overflow in ("error", "error-200"):
            return 400 if self.overflow == "error" else 200, {
                "error": f"Trying to keep the first {prompt} tokens when context the overflows. However, the "
                f"model is loaded with context length of only {self.loaded_ctx} tokens, which is not enough. "
                "Try to load the model with a larger context length, or provide a shorter input."
            }
        if prompt > self.loaded_ctx:
            return self.reply(body, Say(text="", completion_tokens=0), prompt_tokens=prompt)
        return self.reply(body, self.script(body), prompt_tokens=prompt)

    def tool_deltas(self, say: Say) -> list[dict[str, Any]]:
        deltas = []
        for i, (name, args) in enumerate(say.tool_calls):
            text = args if isinstance(args, str) else json.dumps(args)
            deltas.append(
                {
                    "tool_calls": [
                        {
                            "index": i,
                            "id": f"{100 + i}",
                            "type": "function",
                            "function": {"name": name, "arguments": ""},
                        }
                    ]
                }
            )
            for start in range(0, len(text), 5):
                deltas.append(
                    {
                        "tool_calls": [
                            {
                                "index": i,
                                "id": f"{100 + i}",
                                "type": "function",
                                "function": {"name": "", "arguments": text[start : start + 5]},
                            }
                        ]
                    }
                )
        return deltas


class FakeVLLM(FakeServer):
    """vLLM: max_model_len in /v1/models, /version; tool_choice auto (or tools without tool_choice) is a 400
    unless started with --enable-auto-tool-choice; over-length is a 400 (or 500 on some versions) saying
    "maximum context length"; reasoning in ``reasoning`` with a parser, inline <think> without; omitted
    sampling fields come from the model's generation config (recorded in ``defaulted``)."""

    kind = "vllm"
    reasoning_field = "reasoning"

    def __init__(
        self,
        script: Script | None = None,
        *,
        max_model_len: int = 8192,
        auto_tool_choice: bool = True,
        reasoning_parser: bool = True,
        overflow_status: int = 400,
        version: str = "0.11.0",
        honours_thinking_switch: bool = True,
        **kw: Any,
    ):
        kw.setdefault("model", "Qwen/Qwen3-8B")
        super().__init__(script, **kw)
        self.max_model_len, self.auto_tool_choice, self.reasoning_parser = (
            max_model_len,
            auto_tool_choice,
            reasoning_parser,
        )
        self.overflow_status, self.version, self.honours = overflow_status, version, honours_thinking_switch
        self.defaulted: list[list[str]] = []

    def routes(self) -> dict[tuple[str, str], Callable[[Any], tuple[int, Any]]]:
        return {
            ("GET", "/v1/models"): lambda _: (
                200,
                {
                    "object": "list",
                    "data": [
                        {
                            "id": self.model,
                            "object": "model",
                            "created": 0,
                            "owned_by": "vllm",
                            "root": self.model,
                            "parent": None,
                            "max_model_len": self.max_model_len,
                            "permission": [],
                        }
                    ],
                },
            ),
            ("GET", "/version"): lambda _: (200, {"version": self.version}),
            ("GET", "/health"): lambda _: (200, ""),
        }

    def not_found(self, path: str) -> Any:
        return {"detail": "Not Found"}

    def thinking_on(self, body: dict[str, Any]) -> bool:
        if not self.honours:
            return True
        return (body.get("chat_template_kwargs") or {}).get("enable_thinking", True) is not False

    def _error(self, status: int, message: str) -> tuple[int, Any]:
        return status, {
            "object": "error",
            "message": message,
            "type": "BadRequestError",
            "param": None,
            "code": status,
        }

    def chat(self, body: dict[str, Any]) -> tuple[int, Any] | list[dict[str, Any]]:
        self.defaulted.append(
            [k for k in ("temperature", "top_p", "top_k", "repetition_penalty") if k not in body]
        )
        if body.get("tools") and body.get("tool_choice", "auto") == "auto" and not self.auto_tool_choice:
            return self._error(
                400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'
            )
        prompt = honest_prompt_tokens(body)
        wanted = prompt + (body.get("max_tokens") or 0)
        if wanted > self.max_model_len:
            return self._error(
                self.overflow_status,
                f"This model's maximum context length is {self.max_model_len} "
                f"tokens. However, you requested {wanted} tokens ({prompt} in the messages, "
                f"{body.get('max_tokens')} in the completion). Please reduce the length of the "
                "messages or completion.",
            )
        say = self.script(body)
        if say.reasoning and not self.reasoning_parser and self.thinking_on(body):
            say = Say(
                text=f"<think>{say.reasoning}</think>{say.text}",
                tool_calls=say.tool_calls,
                finish_reason=say.finish_reason,
                completion_tokens=say.completion_tokens,
            )
        return self.reply(body, say, prompt_tokens=prompt)


class FakeOpenAICompat(FakeServer):
    """A minimal other server (no /props, no native API): a llama-cpp-python-like stand-in that rejects an
    assistant message with content null, as llama-cpp-python's chatml-function-calling format does."""

    def chat(self, body: dict[str, Any]) -> tuple[int, Any] | list[dict[str, Any]]:
        for m in body.get("messages") or []:
            if m.get("role") == "assistant" and m.get("content") is None:
                return 400, {
                    "error": {"message": "content: Input should be a valid string", "type": "invalid_request"}
                }
        return super().chat(body)


def prompt_text(body: dict[str, Any]) -> str:
    return " ".join(str(m.get("content") or "") for m in body.get("messages") or [])


def has_marker(body: dict[str, Any], marker: str) -> bool:
    return re.search(re.escape(marker), prompt_text(body)) is not None
