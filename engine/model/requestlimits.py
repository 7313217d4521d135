"""Bounds on one model request: how long each phase may take and how much a reply may hold.

A server is hostile until it has answered: it may send headers and then nothing, a keep-alive comment every
second for ever, an endless token stream, one chunk of fifty megabytes, ten thousand tool calls or a
``Retry-After`` of an hour. Every such reply ends inside these limits, as an infrastructure error or as a
reply cut at its budget, and never holds a trial for long or fills memory.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from typing import Any

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
class LimitFlags:
    """The flags that set each time limit, named in every message about it: a message must name a flag the
    command it comes from really has (``sllmb run`` has one per limit, ``sllmb judge`` one for all)."""

    connect: str = "--connect-timeout"
    first_byte: str = "--first-byte-timeout"
    idle: str = "--idle-timeout"
    total: str = "--request-timeout"


@dataclass(frozen=True)
class Prefill:
    """How long the server took before the warm-up's first data: a part that grows with the prompt (per token)
    and one that does not. Measured on a prompt of a few tokens, so the fixed overhead counts as prompt time
    too and the estimate for a long prompt errs long, the safe side of a deadline."""

    fixed_s: float
    per_token_s: float

    def expected_s(self, tokens: int) -> float:
        return self.fixed_s + max(0, tokens) * self.per_token_s

    def times(self, parallel: int) -> Prefill:
        """With ``parallel`` requests sharing the server, each prompt is read about that many times slower."""
        return Prefill(self.fixed_s * parallel, self.per_token_s * parallel)


#: The first-byte deadline of a streamed request, when the warm-up measured the server, is this many times the
#: time its prompt should take, at least ``first_byte_floor_s`` and at most ``first_byte_s``.
FIRST_BYTE_MULTIPLE = 8.0


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
    # The server check's reads (/v1/models, /props, /api/show, /api/ps, /tokenize ...): each must arrive whole
    # within check_s and hold at most max_check_bytes (a server's metadata is kilobytes).
    check_s: float = 15.0
    max_check_bytes: int = 4 << 20
    # A streamed request's first-byte deadline follows its prompt (``first_byte_for``) when the warm-up measured
    # the server (``prefill``) and the user left --first-byte-timeout to its default (``scale_first_byte``);
    # first_byte_s is then the ceiling.
    scale_first_byte: bool = True
    first_byte_floor_s: float = 20.0
    prefill: Prefill | None = None
    flags: LimitFlags = LimitFlags()

    @classmethod
    def of(cls, given: RequestLimits | float | None = None) -> RequestLimits:
        """Every form a limit is given in, as the one object (as ``httpx.Timeout`` takes a number or a
        ``Timeout``): None is the defaults; a number of seconds bounds the whole request, and no phase waits
        longer than the whole (the connection keeps its own default); limits are returned as they are."""
        if given is None:
            return cls()
        if isinstance(given, RequestLimits):
            return given
        total = float(given)
        return cls(total_s=total, first_byte_s=min(cls.first_byte_s, total), idle_s=min(cls.idle_s, total))

    def first_byte_for(self, prompt_tokens: int) -> float:
        """The first-byte deadline of a streamed request whose prompt is about ``prompt_tokens`` tokens."""
        if self.prefill is None or not self.scale_first_byte:
            return self.first_byte_s
        scaled = max(self.first_byte_floor_s, FIRST_BYTE_MULTIPLE * self.prefill.expected_s(prompt_tokens))
        return round(min(self.first_byte_s, scaled), 1)

    def with_prefill(self, prefill: Prefill | None, parallel: int) -> RequestLimits:
        """These limits with first-byte deadlines scaled to what the warm-up measured, for ``parallel``
        requests at once; unchanged when the user fixed --first-byte-timeout or nothing was measured."""
        if prefill is None or not self.scale_first_byte:
            return self
        return replace(self, prefill=prefill.times(max(1, parallel)))

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


def measured_prefill(first_data_ms: float | None, prompt_tokens: int | None, server_prompt_ms: float | None = None,
                     evaluated_tokens: int | None = None) -> Prefill | None:
    """What the warm-up says of the server's prompt speed: the time to its first data for a prompt of
    ``prompt_tokens``, split by the server's own prompt time where it reports one (llama.cpp). None when the
    figures are missing or not plain positive numbers (a server's timings are as hostile as its text)."""
    if not _positive(first_data_ms) or not prompt_tokens or prompt_tokens < 1:
        return None
    first_s = first_data_ms / 1000  # type: ignore[operator]
    counted = evaluated_tokens if evaluated_tokens and evaluated_tokens > 0 else prompt_tokens
    if _positive(server_prompt_ms) and server_prompt_ms <= first_data_ms:  # type: ignore[operator]
        prompt_s = server_prompt_ms / 1000  # type: ignore[operator]
        return Prefill(fixed_s=first_s - prompt_s, per_token_s=prompt_s / counted)
    return Prefill(fixed_s=0.0, per_token_s=first_s / prompt_tokens)


def _positive(value: float | None) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value) and value > 0


#: Requests in a row that may time out before a client stops sending: the server has stalled, and every
#: further request would only wait out the same deadline.
STALL_AFTER = 3


class ServerStalled(InfraError):
    """Several requests in a row timed out: the server stopped answering. Never retried; every request of the
    client, waiting or new, ends with it at once."""

    def __init__(self, message: str):
        super().__init__(message, retryable=False)


class TimeoutStreak:
    """Consecutive timed-out requests of one client, whatever their order or concurrency: any request that
    ends otherwise (a reply, an error status) ends the streak. At ``limit`` the client is stalled for good."""

    def __init__(self, limit: int = STALL_AFTER):
        self.limit = limit
        self.count = 0
        self.last = ""
        self.stalled = asyncio.Event()

    def timed_out(self, exc: Exception) -> None:
        if self.stalled.is_set():
            return
        self.count += 1
        self.last = str(exc)
        if self.count >= self.limit:
            self.stalled.set()

    def answered(self) -> None:
        if not self.stalled.is_set():
            self.count = 0

    def error(self) -> ServerStalled:
        return ServerStalled(f"the server stopped answering: {self.count} requests in a row timed out "
                             f"(the last: {self.last})")

    async def race(self, request: Any) -> Any:
        """Await ``request`` unless the client stalls first; then cancel it and raise ``ServerStalled``."""
        work = asyncio.ensure_future(request)
        stall = asyncio.ensure_future(self.stalled.wait())
        try:
            await asyncio.wait({work, stall}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for pending in (work, stall):
                if not pending.done():
                    pending.cancel()
            if not work.done():
                await asyncio.gather(work, return_exceptions=True)  # let it close its connection
        if not work.cancelled():
            return work.result()
        raise self.error()


async def fetch_bounded(http: httpx.AsyncClient, method: str, url: str, *, body: Any = None, deadline_s: float,
                        cap: int, what: str) -> tuple[int, bytes]:
    """One whole exchange (connect, headers, body) within ``deadline_s`` and at most ``cap`` bytes of body,
    however the server paces or pads it: a drip of one byte a second or an endless body ends at the bound as
    ``RequestTimeout`` or ``ReplyTooLarge``. A connection that cannot be made raises httpx's own error."""

    async def exchange() -> tuple[int, bytes]:
        async with http.stream(method, url, json=body) as response:
            return response.status_code, await read_capped(response, cap, what)

    try:
        return await asyncio.wait_for(exchange(), deadline_s)
    except asyncio.TimeoutError:
        raise RequestTimeout(f"{what} did not arrive in full within {deadline_s:g} s") from None
    except httpx.ConnectTimeout:
        raise
    except httpx.TimeoutException as exc:
        raise RequestTimeout(f"{what} did not arrive in full within {deadline_s:g} s ({type(exc).__name__})") \
            from exc


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


_BOM = b"\xef\xbb\xbf"


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
    started = False  # a byte-order mark may open the stream (the SSE standard says to skip one there)
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
        if not started:
            if len(buffer) < len(_BOM) and _BOM.startswith(bytes(buffer)):
                continue  # the mark may come split over pieces: wait for the rest of it
            started = True
            if buffer.startswith(_BOM):
                del buffer[: len(_BOM)]
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
