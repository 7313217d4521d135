"""A real OpenAI-compatible HTTP server on loopback that plays scripted replies and faults.

Tests and ``sllmb graders`` drive the engine against it exactly as they would a real server: over TCP, with
real status codes, real SSE streams, real dropped connections. A *responder* decides each reply from the
request body, so replies can depend on the conversation (stateless, safe under concurrency and across process
restarts).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Action:
    """One reply of the scripted server."""

    text: str = ""
    tool_calls: list[dict[str, Any]] | None = None  # [{"name": ..., "arguments": "<json text>"}]
    reasoning: str | None = None
    finish_reason: str = "stop"
    status: int = 200
    error_body: str | None = None  # raw body for a non-200 reply
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # sleep before answering (client time-outs)
    drop: bool = False  # close the connection without a reply
    drop_mid_stream: bool = False  # send part of a stream, then close
    empty_stream: bool = False  # 200 and stream headers, then end the body with no chunk (llama-cpp-python)
    malformed: bool = False  # 200 with a body that is not JSON
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    timings: dict[str, Any] | None = None


Responder = Callable[[dict[str, Any]], Action]


def assistant_turns(body: dict[str, Any]) -> int:
    return sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")


def transcript(replies: Sequence[Action]) -> Responder:
    """Reply i to the request that already holds i assistant messages: replays one conversation."""

    def respond(body: dict[str, Any]) -> Action:
        index = assistant_turns(body)
        if index >= len(replies):
            return Action(text="(the scripted transcript has no more replies)")
        return replies[index]

    return respond


def sequence(actions: Sequence[Action], then: Action | None = None) -> Responder:
    """Reply with the actions in the order requests arrive (for fault sequences), then ``then``."""
    lock = threading.Lock()
    state = {"n": 0}

    def respond(body: dict[str, Any]) -> Action:
        with lock:
            n = state["n"]
            state["n"] += 1
        if n < len(actions):
            return actions[n]
        return then or actions[-1]

    return respond


def tool_call(name: str, arguments: dict[str, Any] | str, call_id: str | None = None) -> dict[str, Any]:
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"name": name, "arguments": args, "id": call_id}


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (a test of time-outs) is expected; anything else is printed."""
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class ScriptedServer:
    """Context manager: ``with ScriptedServer(responder) as srv: srv.url`` is the /v1 base URL."""

    def __init__(
        self,
        responder: Responder,
        *,
        models: list[dict[str, Any]] | None = None,
        props: dict[str, Any] | None = None,
        extra_routes: dict[tuple[str, str], Callable[[dict[str, Any] | None], tuple[int, Any]]] | None = None,
    ):
        self.responder = responder
        self.models = models if models is not None else [{"id": "scripted", "object": "model"}]
        self.props = props
        self.extra_routes = extra_routes or {}
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self._httpd is not None
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> ScriptedServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # TCP_NODELAY, as real servers set it: without it a reply written in two parts (headers, then
            # body) waits on the client's delayed ACK (40 ms on Linux) before its second part leaves.
            disable_nagle_algorithm = True
            # Buffered: a reply leaves in one write (handle_one_request flushes after each request), as a
            # real server sends it; the fault paths flush before they cut the connection.
            wbufsize = -1

            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def _route(self, method: str) -> bool:
                path = self.path.split("?")[0]
                route = server.extra_routes.get((method, path))
                if route is None:
                    return False
                body = None
                if method == "POST":
                    length = int(self.headers.get("Content-Length") or 0)
                    body = json.loads(self.rfile.read(length) or b"null")
                status, payload = route(body)
                self._json(status, payload)
                return True

            def do_GET(self) -> None:  # noqa: N802
                if self._route("GET"):
                    return
                path = self.path.split("?")[0]
                if path == "/v1/models":
                    self._json(200, {"object": "list", "data": server.models})
                elif path == "/props" and server.props is not None:
                    self._json(200, server.props)
                elif path == "/health":
                    self._json(200, {"status": "ok"})
                else:
                    self._json(404, {"error": {"message": f"no route {path}"}})

            def do_POST(self) -> None:  # noqa: N802
                if self.path.split("?")[0] != "/v1/chat/completions":
                    if not self._route("POST"):
                        self._json(404, {"error": {"message": "not found"}})
                    return
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length))
                with server._lock:
                    server.requests.append(body)
                action = server.responder(body)
                if action.delay_s:
                    time.sleep(action.delay_s)
                if action.drop:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if action.status != 200:
                    err = action.error_body or json.dumps({"error": {"message": f"scripted {action.status}"}})
                    self._json(action.status, err.encode(), action.headers)
                    return
                if action.malformed:
                    self._json(200, b"{this is not json", action.headers)
                    return
                if body.get("stream"):
                    self._stream(body, action)
                else:
                    self._json(200, _completion(body, action), action.headers)

            def _stream(self, body: dict[str, Any], action: Action) -> None:
                # Chunked transfer encoding on a kept-alive connection, as real servers stream.
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                if action.empty_stream:  # what llama-cpp-python does when its generator raises
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                    return
                chunks = list(_chunks(body, action))
                cut = len(chunks) // 2 if action.drop_mid_stream else None
                parts = []
                for i, chunk in enumerate(chunks):
                    if cut is not None and i == cut:
                        self._send_chunk("".join(parts).encode())
                        self.wfile.flush()
                        self.close_connection = True
                        self.connection.shutdown(2)
                        return
                    parts.append(f"data: {json.dumps(chunk)}\n\n")
                parts.append("data: [DONE]\n\n")
                self._send_chunk("".join(parts).encode())
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

            def _send_chunk(self, data: bytes) -> None:
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")

        self._httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        # A short poll interval: shutdown() waits for the next poll, and tests start hundreds of servers.
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None


def _usage(body: dict[str, Any], action: Action) -> dict[str, int]:
    prompt = action.prompt_tokens
    if prompt is None:
        prompt = sum(_message_tokens(m) for m in body.get("messages", [])) + 1
    completion = action.completion_tokens
    if completion is None:
        completion = max(1, len(action.text) // 4)
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _message_tokens(message: dict[str, Any]) -> int:
    """About what a tokenizer counts for one message: 4 characters a token, and never fewer tokens than words
    (every tokenizer splits at white space first), its tool calls included. Per message, so that a
    conversation's count is the sum of its messages', as a real server's is."""
    parts = [str(message.get("content") or "")]
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {} if isinstance(call, dict) else {}
        parts += [str(function.get("name") or ""), str(function.get("arguments") or "")]
    text = " ".join(parts)
    return max(len(text) // 4, len(text.split()))


def _calls(action: Action) -> list[dict[str, Any]]:
    return [
        {"id": c.get("id") or f"call_{i}", "type": "function",
         "function": {"name": c["name"], "arguments": c["arguments"]}}
        for i, c in enumerate(action.tool_calls or [])
    ]


def _completion(body: dict[str, Any], action: Action) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": action.text}
    if action.reasoning is not None:
        message["reasoning_content"] = action.reasoning
    if action.tool_calls:
        message["tool_calls"] = _calls(action)
    out = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "model": body.get("model", "scripted"),
        "choices": [{"index": 0, "message": message,
                     "finish_reason": "tool_calls" if action.tool_calls and action.finish_reason == "stop"
                     else action.finish_reason}],
        "usage": _usage(body, action),
    }
    if action.timings:
        out["timings"] = action.timings
    return out


def _chunks(body: dict[str, Any], action: Action):
    base = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "model": body.get("model", "")}
    yield {**base, "choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]}
    if action.reasoning:
        yield {**base, "choices": [{"index": 0, "delta": {"reasoning_content": action.reasoning}}]}
    text = action.text
    for start in range(0, len(text), 8):
        yield {**base, "choices": [{"index": 0, "delta": {"content": text[start:start + 8]}, "finish_reason": None}]}
    for i, call in enumerate(_calls(action)):
        args = call["function"]["arguments"]
        yield {**base, "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": i, "id": call["id"], "type": "function",
             "function": {"name": call["function"]["name"], "arguments": args[: len(args) // 2]}}]}}]}
        # Later deltas of one call carry no id and an empty name, as LM Studio sends them.
        yield {**base, "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": i, "function": {"name": "", "arguments": args[len(args) // 2:]}}]}}]}
    finish = "tool_calls" if action.tool_calls and action.finish_reason == "stop" else action.finish_reason
    final = {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}
    if action.timings:
        final["timings"] = action.timings
    yield final
    if (body.get("stream_options") or {}).get("include_usage"):
        yield {**base, "choices": [], "usage": _usage(body, action)}
