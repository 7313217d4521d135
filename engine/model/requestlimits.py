"""Bounds on one model request: how long each phase may take and how much a reply may hold.

A server is hostile until it has answered: it may send headers and then nothing, a keep-alive comment every
second for ever, an endless token stream, one chunk of fifty megabytes, ten thousand tool calls or a
``Retry-After`` of an hour. Every such reply ends inside these limits, as an infrastructure error or as a
reply cut at its budget, and never holds a trial for long or fills memory.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import httpx

from engine.core.errors import InfraError

#: No honest reply token is longer than this many characters; a reply with more characters than this times
#: max_tokens has run past its budget whatever the server says.
MAX_CHARS_PER_TOKEN = 32
#: Content deltas beyond max_tokens a stream may send before it is closed (servers round differently).
DELTA_SLACK = 16
#: A stream event is about 200 bytes of JSON around each token; this allows ten times that, plus a MiB.
BYTES_PER_TOKEN = 2048
BASE_REPLY_BYTES = 1 << 20


class RequestTimeout(InfraError):
    """A limit on time ran out. Retried at most once: a server that stalled for minutes stalls again."""


class ReplyTooLarge(InfraError):
    """The server sent more bytes than any honest reply of the requested budget holds."""


@dataclass(frozen=True)
class RequestLimits:
    """What one request may take. Each time limit has a ``sllmb run`` flag; the defaults are minutes."""

    connect_s: float = 10.0  # --connect-timeout: open the TCP connection
    first_byte_s: float = 300.0  # --first-byte-timeout: from sending to the first data (prompt processing)
    idle_s: float = 60.0  # --idle-timeout: longest gap between two data chunks of a stream
    total_s: float = 600.0  # --request-timeout: the whole request, however the server paces it
    max_retry_after_s: float = 60.0  # a server's Retry-After is obeyed up to this
    max_tool_calls: int = 32  # per reply; the rest are refused to the model and counted
    max_line_bytes: int = 1 << 20  # one SSE line (one chunk)
    max_error_bytes: int = 64 << 10  # the body of a non-200 reply
    stored_chars: int = 256_000  # content, reasoning or arguments kept per reply; the rest is clipped

    def reply_bytes(self, max_tokens: int) -> int:
        """The most bytes a reply of ``max_tokens`` may take on the wire."""
        return BASE_REPLY_BYTES + max(1, max_tokens) * BYTES_PER_TOKEN

    def retry_after(self, header: str | None) -> float | None:
        """The seconds a ``Retry-After`` header asks for, capped; ``None`` when it is not a plain number."""
        if not header:
            return None
        try:
            wait = float(header.strip())
        except ValueError:
            return None  # an HTTP date, or junk: our own backoff applies
        if wait != wait or wait < 0:  # NaN or negative
            return None
        return min(wait, self.max_retry_after_s)


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with a marker that says how much was dropped."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"… [{len(text) - limit} chars clipped]"


async def read_capped(response: httpx.Response, cap: int, what: str) -> bytes:
    """The whole body of ``response``, refusing one over ``cap`` bytes (read no further than that)."""
    _refuse_encoded(response)
    body = bytearray()
    async for piece in response.aiter_raw():
        body += piece
        if len(body) > cap:
            raise ReplyTooLarge(f"the server sent {what} of more than {cap} bytes; closed it there")
    return bytes(body)


def _refuse_encoded(response: httpx.Response) -> None:
    # We ask for identity; a compressed body could expand a thousandfold past every byte cap.
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        raise InfraError(f"the server sent a {encoding}-compressed reply although the request asked for none")


async def sse_lines(
    response: httpx.Response, *, deadline: Callable[[], tuple[float, str]], max_line_bytes: int
) -> AsyncIterator[bytes]:
    """The lines of a stream, one at a time, with the time limits enforced between reads.

    ``deadline()`` gives the monotonic time by which more must arrive and the message to raise when it does
    not; it is asked again before every read, so the caller moves it when data (not a comment) arrives.
    """
    _refuse_encoded(response)
    raw = response.aiter_raw()
    buffer = bytearray()
    while True:
        until, why = deadline()
        remaining = until - time.monotonic()
        if remaining <= 0:
            raise RequestTimeout(why)
        try:
            piece = await asyncio.wait_for(raw.__anext__(), remaining)
        except StopAsyncIteration:
            break
        except asyncio.TimeoutError:
            raise RequestTimeout(why) from None
        buffer += piece
        start = 0
        while (end := buffer.find(b"\n", start)) >= 0:
            yield bytes(buffer[start:end]).rstrip(b"\r")
            start = end + 1
        del buffer[:start]
        if len(buffer) > max_line_bytes:
            raise ReplyTooLarge(f"the server sent one stream line of more than {max_line_bytes} bytes; "
                                "closed it there")
    if buffer:
        yield bytes(buffer).rstrip(b"\r")
