"""A loopback server that attacks the client the way a broken or hostile model server would.

Each *behaviour* writes raw bytes on a real TCP connection: replies of the wrong JSON shape, headers and
then nothing, a keep-alive comment every so often and no data, an endless token stream, one enormous
chunk, ten thousand tool calls, a 500 that echoes the request's headers, a ``Retry-After`` of an hour, a
metadata body dripped a byte a second or claiming 600 MB. Chat requests go to the server's behaviour; any
other path to the behaviour ``routes`` names for it (``/v1/models`` answers a one-model list unless routed).
The server records what it was sent, and how many bytes it managed to write before the client hung up.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Behaviour = Callable[["_Handler", dict[str, Any]], None]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # the client hanging up on an attack is the expected end


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, *args: object) -> None:
        pass

    # -- writing --------------------------------------------------------------------------------------

    def body_reply(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.write(data)

    def stream_start(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()

    def chunk(self, data: bytes) -> None:
        self.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")

    def event(self, payload: Any) -> None:
        """One ``data:`` event holding ``payload`` as JSON, whatever its type."""
        self.chunk(f"data: {json.dumps(payload)}\n\n".encode())

    def stream_end(self) -> None:
        self.chunk(b"data: [DONE]\n\n")
        self.write(b"0\r\n\r\n")

    def write(self, data: bytes) -> None:
        self.wfile.write(data)
        self.wfile.flush()
        hostile: HostileServer = self.server.owner  # type: ignore[attr-defined]
        with hostile.lock:
            hostile.bytes_sent += len(data)

    # -- routes ---------------------------------------------------------------------------------------

    def do_GET(self) -> None:  # noqa: N802
        hostile: HostileServer = self.server.owner  # type: ignore[attr-defined]
        path = self.path.split("?")[0]
        route = hostile.routes.get(path)
        try:
            if route is not None:
                route(self, {})
            elif path == "/v1/models":
                self.body_reply(200, json.dumps({"object": "list", "data": [{"id": "hostile"}]}).encode())
            else:
                self.body_reply(404, b'{"error": "no route"}')
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        hostile: HostileServer = self.server.owner  # type: ignore[attr-defined]
        route = hostile.routes.get(self.path.split("?")[0])
        if route is None:
            with hostile.lock:
                hostile.requests.append(body)
                hostile.headers.append(dict(self.headers))
        try:
            (route or hostile.behaviour)(self, body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client closed the connection: what a bounded client does


class HostileServer:
    """``with HostileServer(behaviour) as srv: srv.url`` is the /v1 base URL."""

    def __init__(self, behaviour: Behaviour, routes: dict[str, Behaviour] | None = None):
        self.behaviour = behaviour
        self.routes = dict(routes or {})
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.bytes_sent = 0
        self.lock = threading.Lock()
        self._httpd: _Server | None = None

    @property
    def url(self) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> HostileServer:
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self  # type: ignore[attr-defined]
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._httpd is not None
        self._httpd.shutdown()
        self._httpd.server_close()


# ------------------------------------------------------------------------------------------------------
# Behaviours


def completion(message: Any, usage: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"id": "x", "object": "chat.completion",
                           "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    if usage is not None:
        out["usage"] = usage
    return out


def reply_json(payload: Any) -> Behaviour:
    """A 200 whose (unstreamed) body is ``payload``, whatever its shape."""
    return lambda h, body: h.body_reply(200, json.dumps(payload).encode())


def stream_events(*payloads: Any, done: bool = True) -> Behaviour:
    """A stream of ``data:`` events, each ``payload`` sent as given (any JSON value)."""

    def run(h: _Handler, body: dict[str, Any]) -> None:
        h.stream_start()
        for p in payloads:
            h.event(p)
        if done:
            h.stream_end()

    return run


def stall(seconds: float = 120.0) -> Behaviour:
    """Stream headers, then nothing at all."""

    def run(h: _Handler, body: dict[str, Any]) -> None:
        h.stream_start()
        time.sleep(seconds)

    return run


def drip(every_s: float = 0.2, seconds: float = 120.0, first: tuple[Any, ...] = ()) -> Behaviour:
    """Stream headers and the ``first`` events, then an SSE keep-alive comment every ``every_s`` and no data."""

    def run(h: _Handler, body: dict[str, Any]) -> None:
        h.stream_start()
        for payload in first:
            h.event(payload)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            h.chunk(b": keep-alive\n\n")
            time.sleep(every_s)

    return run


def endless_tokens(seconds: float = 60.0) -> Behaviour:
    """A stream of one-token deltas that never ends (nor honours max_tokens)."""

    def run(h: _Handler, body: dict[str, Any]) -> None:
        h.stream_start()
        end = time.monotonic() + seconds
        delta = {"choices": [{"index": 0, "delta": {"content": "la "}, "finish_reason": None}]}
        while time.monotonic() < end:
            h.event(delta)

    return run


def huge_chunk(megabytes: int = 50, stream: bool = True) -> Behaviour:
    """One reply whose single chunk (or whole body) carries ``megabytes`` of content."""
    text = "A" * (megabytes << 20)

    def run(h: _Handler, body: dict[str, Any]) -> None:
        if stream:
            h.stream_start()
            h.event({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]})
            h.stream_end()
        else:
            h.body_reply(200, json.dumps(completion({"role": "assistant", "content": text})).encode())

    return run


def many_tool_calls(count: int = 10_000) -> Behaviour:
    calls = [{"id": f"c{i}", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
             for i in range(count)]
    return reply_json(completion({"role": "assistant", "content": "", "tool_calls": calls}))


def echo_headers(status: int = 500) -> Behaviour:
    """An error whose body repeats the request's headers, Authorization included."""

    def run(h: _Handler, body: dict[str, Any]) -> None:
        echoed = "".join(f"{k}: {v}\n" for k, v in h.headers.items())
        h.body_reply(status, json.dumps({"error": {"message": f"bad request; you sent:\n{echoed}"}}).encode())

    return run


def echo_request(status: int = 500) -> Behaviour:
    """An error whose body repeats the request itself (whose messages may hold any phrase)."""
    return lambda h, body: h.body_reply(status, json.dumps({"error": {"message": json.dumps(body)}}).encode())


def retry_after(seconds: str, then: Behaviour) -> Behaviour:
    """A 429 asking for ``seconds`` of patience on the first request, ``then`` on the rest."""
    state = {"n": 0}

    def run(h: _Handler, body: dict[str, Any]) -> None:
        state["n"] += 1
        if state["n"] == 1:
            h.body_reply(429, b'{"error": "slow down"}', {"Retry-After": seconds})
        else:
            then(h, body)

    return run


def ok_text(text: str = "ok") -> Behaviour:
    def run(h: _Handler, body: dict[str, Any]) -> None:
        if body.get("stream"):
            stream_events({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]})(h, body)
        else:
            reply_json(completion({"role": "assistant", "content": text}))(h, body)

    return run


def first_then(first: Behaviour, count: int, then: Behaviour) -> Behaviour:
    """``first`` for the first ``count`` chat requests (the warm-up, say), ``then`` for every later one."""
    seen = {"n": 0}
    lock = threading.Lock()

    def run(h: _Handler, body: dict[str, Any]) -> None:
        with lock:
            seen["n"] += 1
            n = seen["n"]
        (first if n <= count else then)(h, body)

    return run


def drip_body(every_s: float = 1.0, seconds: float = 120.0) -> Behaviour:
    """A 200 that promises a kilobyte of JSON and sends it one byte every ``every_s``."""

    def run(h: _Handler, body: dict[str, Any]) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", "1024")
        h.end_headers()
        h.wfile.flush()
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            h.write(b" ")
            time.sleep(every_s)

    return run


def flood_body(claimed: int = 600 << 20) -> Behaviour:
    """A 200 that claims ``claimed`` bytes of JSON and writes them as fast as the client takes them."""
    piece = b'{"pad": "' + b"A" * (64 << 10)

    def run(h: _Handler, body: dict[str, Any]) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(claimed))
        h.end_headers()
        sent = 0
        while sent < claimed:
            h.write(piece)
            sent += len(piece)

    return run


def llama_props(slots: int = 4, n_ctx: int = 8192) -> Behaviour:
    """llama.cpp's /props: the server is llama.cpp, with ``slots`` slots of ``n_ctx`` tokens."""
    props = {"default_generation_settings": {"n_ctx": n_ctx, "params": {}}, "total_slots": slots,
             "build_info": "b0-hostile"}
    return lambda h, body: h.body_reply(200, json.dumps(props).encode())
