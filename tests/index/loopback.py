"""A small real HTTP server on loopback for the index's sync and speed tests.

Each route is a function from the request (method, path with query, headers, body) to a list of
``(delay_s, bytes)`` pieces written in order with a flush after each, so a test can script a slow first token
followed by a fast stream. The connection closes after the reply (HTTP/1.0), which ends a streamed body.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Reply:
    status: int = 200
    pieces: list[tuple[float, bytes]] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/json"

    @staticmethod
    def json(body: object, status: int = 200, **headers: str) -> Reply:
        return Reply(status, [(0.0, json.dumps(body).encode())], dict(headers))


Handler = Callable[[Request], Reply]


@dataclass
class Loopback:
    base: str
    routes: dict[str, Handler]
    requests: list[Request]


@contextmanager
def loopback() -> Iterator[Loopback]:
    routes: dict[str, Handler] = {}
    seen: list[Request] = []

    class _Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            request = Request(
                self.command,
                self.path,
                {k.lower(): v for k, v in self.headers.items()},
                self.rfile.read(length),
            )
            seen.append(request)
            handler = routes.get(self.path) or routes.get(self.path.split("?")[0])
            reply = handler(request) if handler else Reply.json({"error": "not found"}, 404)
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            for key, value in reply.headers.items():
                self.send_header(key, value)
            self.end_headers()
            for delay, data in reply.pieces:
                if delay:
                    time.sleep(delay)
                self.wfile.write(data)
                self.wfile.flush()

        do_GET = do_POST = _serve  # noqa: N815 (http.server's naming)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield Loopback(f"http://127.0.0.1:{httpd.server_address[1]}", routes, seen)
    finally:
        httpd.shutdown()
        httpd.server_close()
