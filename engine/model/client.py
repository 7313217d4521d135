"""The one place that speaks HTTP to a model server (OpenAI-compatible chat completions, over httpx).

It takes the conversation as ``Turn`` values, turns them into the wire format here and nowhere else
(``wire_messages``), sorts every failure into the model's fault (counted) or the infrastructure's (retried,
then excluded), and returns the reply as an ``AssistantTurn`` normalised whatever server answered: the very
value the conversation stores.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import httpx

from engine.core import modeljson, scrub
from engine.core.errors import BenchError, ContextOverflow, InfraError, ToolCallParseFailure
from engine.core.schema import AssistantTurn, Timings, ToolCall, Turn, Usage
from engine.model import servers
from engine.model.loopstop import LoopWatch
from engine.model.normalise import split_reasoning
from engine.model.overflow import (
    PromptCheck,
    SilentTruncation,
    prompt_token_estimate,
    prompt_token_floor,
    server_token_counter,
)
from engine.model.replies import Chunk, Completion, ToolCallPart, UsageBlock, ValidationError, describe
from engine.model.requestlimits import (
    DELTA_SLACK,
    MAX_CHARS_PER_TOKEN,
    ReplyTooLarge,
    RequestLimits,
    RequestTimeout,
    ServerStalled,
    TimeoutStreak,
    clip,
    read_capped,
    sse_lines,
)
from engine.model.textcalls import read_text_calls
from engine.model.tls import shared_tls_context

# What each server says when the conversation does not fit (their sources and trackers, site_src/servers/):
# llama.cpp exceed_context_size_error, vLLM "maximum context length", LM Studio "Trying to keep the first N
# tokens when context the overflows" / "greater than the context length (n_keep ...)", Ollama without context
# shift "the prompt is longer than the context length currently available". Not llama.cpp's 500 "Context
# size has been exceeded": its unified KV cache ran out while several requests shared it, which a retry on
# its own can pass, so it stays a retried infrastructure error.
_CONTEXT_OVERFLOW_MARKERS = (
    "exceed_context_size",
    "exceeds the available context size",
    "maximum context length",
    "context length exceeded",
    "context_length_exceeded",
    "prompt is too long",
    "requested tokens",
    "when context the overflows",
    "when context overflows",
    "greater than the context length",
    "longer than the context length",
)
_TOOL_PARSE_MARKERS = ("parse tool call", "tool call parse", "failed to parse tool", "invalid tool call")
# llama-server started with --no-jinja (or an old build without --jinja) answers a tools request 500.
_NEEDS_JINJA_MARKER = "requires --jinja"
_AUTO_TOOL_CHOICE_MARKER = "enable-auto-tool-choice"

@dataclass(frozen=True)
class ClientSettings:
    """Everything a client needs, resolved: built once per run by ``engine.run.plan.make_plan`` (the server
    check's warm-up client is derived from the same value), never changed afterwards."""

    endpoint: str  # base URL ending in /v1
    model: str
    api_key: str | None = field(default=None, repr=False)
    temperature: float | None = None
    thinking: bool | None = None
    max_retries: int = 4
    backoff_s: float = 1.0
    max_backoff_s: float = 30.0
    # Streaming measures time to first token; tool turns are sent without it because several servers
    # mangle streamed tool calls (an empty 200 body, names missing after the first chunk).
    stream: bool = True
    stream_tool_turns: bool = False
    top_p: float | None = None
    # What preflight found: the server kind picks the thinking field and the sampler fields; the served
    # window bounds the silent-truncation check.
    server_kind: str = servers.OTHER
    served_context: int | None = None
    # Extra sampler fields sent on every request (top-k off and such); from ``servers.sampler_fields``.
    sampler: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    check_truncation: bool = True
    # Whether the server counts a prompt whole, cached part included (preflight's second warm-up says): a low
    # count is then a cut whatever the window (engine/model/overflow.py).
    whole_prompt_counts: bool = True
    # Every time and size bound of a request, in one object (the run's --*-timeout flags; a number of
    # seconds becomes one through ``RequestLimits.of``).
    limits: RequestLimits = field(default_factory=RequestLimits)
    # --stop-loops: end a streamed reply once engine.model.loopstop says it is certainly degenerate; it is then
    # returned with finish_reason "length", as the token limit would have ended it.
    stop_loops: bool = False

    def __post_init__(self) -> None:
        # A frozen value holds no dict another holder could change under it.
        object.__setattr__(self, "sampler", MappingProxyType(dict(self.sampler)))


@dataclass(frozen=True)
class Observed:
    """What a client saw over its requests, handed back as one finished value (``ChatClient.observed``):
    the run and the server check read this, never the client's working state."""

    # Whether the --thinking switch took effect on the first reply (None: no switch asked for, or no reply).
    thinking_check: Mapping[str, Any] | None = None
    loops_stopped: int = 0  # replies --stop-loops ended
    # Why the client stopped sending (several requests in a row timed out); None while it was answered.
    stalled: str | None = None


#: Tries after a timed-out request: a server that stalled for minutes likely stalls again, and retrying it
#: max_retries times would hold one trial for most of an hour.
MAX_TIMEOUT_RETRIES = 1


def _quote(text: str, limit: int = 300) -> str:
    """Server text as it may appear in an error: secrets scrubbed, clipped."""
    return scrub.scrub(text[: limit * 4], bearer=True)[:limit]


def _error_in_200(text: str) -> str | None:
    """The error object of a 200 body that carries one instead of choices, as JSON text; else None."""
    data = modeljson.try_loads(text)  # a server's body: bounded like a model's text
    if isinstance(data, dict) and "error" in data and not data.get("choices"):
        return json.dumps(data["error"])[:2000]
    return None


def _said_by_server(marker: str, lower_body: str, sent: str) -> bool:
    """A phrase counts against the model only when the server wrote it: a body that echoes the request
    (whose messages may hold the very phrase) proves nothing."""
    return marker in lower_body and marker not in sent


def _classify_status(status: int, body: str, retry_after: str | None, *, sent: str = "",
                     limits: RequestLimits | None = None) -> Exception:
    lower = body.lower()
    sent = sent.lower()
    if status == 400 and _AUTO_TOOL_CHOICE_MARKER in lower:
        return InfraError(f"the server cannot take tool calls: {servers.tools_fix(servers.VLLM)} "
                          f"(it answered: {_quote(body, 200)})", retryable=False)
    if status in (400, 500) and _NEEDS_JINJA_MARKER in lower:
        return InfraError(f"the server cannot take tool calls: {servers.tools_fix(servers.LLAMA_CPP)} "
                          f"(it answered: {_quote(body, 200)})", retryable=False)
    if status in (400, 413, 500) and any(_said_by_server(m, lower, sent) for m in _CONTEXT_OVERFLOW_MARKERS):
        return ContextOverflow(f"the conversation does not fit the served context window: {_quote(body)}")
    if status == 500 and any(_said_by_server(m, lower, sent) for m in _TOOL_PARSE_MARKERS):
        return ToolCallParseFailure(f"the server could not parse the model's tool-call JSON: {_quote(body)}")
    wait = (limits or RequestLimits()).retry_after(retry_after)
    body = _quote(body)
    if status == 429 or status >= 500 or status in (401, 403, 404, 408, 409):
        return InfraError(f"server answered HTTP {status}: {body[:300]}", retry_after=wait)
    return InfraError(f"server rejected the request with HTTP {status}: {body[:300]}", retryable=False)


def _usage(raw: UsageBlock | None) -> Usage:
    if raw is None:
        return Usage()
    cached = raw.prompt_tokens_details.cached_tokens if raw.prompt_tokens_details else None
    return Usage(
        prompt_tokens=raw.prompt_tokens,
        completion_tokens=raw.completion_tokens,
        cached_prompt_tokens=cached,
    )


def _server_timings(raw: dict[str, Any] | None, timings: Timings, usage: Usage) -> Usage:
    """Copy llama.cpp's ``timings`` block into ours; it is the most exact decode rate there is."""
    if not raw:
        return usage
    timings.decode_tps = raw.get("predicted_per_second", timings.decode_tps)
    timings.prompt_ms = raw.get("prompt_ms", timings.prompt_ms)
    timings.prompt_tps = raw.get("prompt_per_second", timings.prompt_tps)
    if usage.cached_prompt_tokens is None and raw.get("cache_n") is not None:
        usage = usage.model_copy(update={"cached_prompt_tokens": raw.get("cache_n")})
    evaluated = raw.get("prompt_n")
    if isinstance(evaluated, int) and not isinstance(evaluated, bool) and evaluated >= 0:
        usage = usage.model_copy(update={"evaluated_prompt_tokens": evaluated})
    return usage


class EmptyStream(InfraError):
    """The server accepted a streamed request and closed it before sending a single chunk."""


class _StreamState:
    def __init__(self) -> None:
        self.content: list[str] = []
        self.reasoning: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.finish_reason: str | None = None
        self.usage: UsageBlock | None = None
        self.timings: dict[str, Any] | None = None
        self.first_token_at: float | None = None
        self._keys: dict[int, int] = {}
        # Servers that stream without usage (llama-cpp-python) send about one token per content delta.
        self.deltas = 0
        self.chunks = 0
        self.chars = 0  # content and reasoning characters so far

    def feed(self, chunk: Chunk, now: float) -> None:
        self.chunks += 1
        if chunk.usage is not None:
            self.usage = chunk.usage
        if chunk.timings is not None:
            self.timings = chunk.timings.as_dict()
        for choice in chunk.choices or []:
            if choice.delta is not None:
                self._feed_delta(choice.delta, now)
            if choice.finish_reason:
                self.finish_reason = choice.finish_reason

    def _feed_delta(self, delta: Any, now: float) -> None:
        text = delta.content
        thought = delta.reasoning_content or delta.reasoning
        if (text or thought or delta.tool_calls) and self.first_token_at is None:
            self.first_token_at = now
        if text or thought:
            self.deltas += 1
        if text:
            self.content.append(text)
            self.chars += len(text)
        if thought:
            self.reasoning.append(thought)
            self.chars += len(thought)
        for part in delta.tool_calls or []:
            self._feed_call(part)

    def over_budget(self, max_tokens: int) -> bool:
        """The stream has run past ``max_tokens`` by the server's own count or by a generous estimate."""
        counted = self.usage.completion_tokens if self.usage is not None else None
        if counted is not None and counted > max_tokens:
            return True
        return self.deltas > max_tokens + DELTA_SLACK or self.chars > max_tokens * MAX_CHARS_PER_TOKEN

    def _feed_call(self, part: ToolCallPart) -> None:
        """Deltas are keyed by index; later chunks may carry an empty name (LM Studio) or no id. A delta
        with a new id at an index whose call is already complete is a further call from a server that
        numbers every call 0, so it gets a slot of its own instead of being glued onto the first."""
        index = part.index
        if index is None:  # no index at all: an id starts a call, anything else continues one
            last = max(self.calls, default=-1)
            index = last + 1 if part.id or last < 0 else last
        key = self._keys.get(index, index)
        slot = self.calls.get(key)
        new_id = part.id or ""
        restarted = slot is not None and bool(new_id) and bool(slot["id"]) and new_id != slot["id"]
        if slot is not None and restarted and _complete_json(slot["args"]):
            key = max(self.calls) + 1000
            self._keys[index] = key
            slot = None
        if slot is None:
            slot = self.calls.setdefault(key, {"id": "", "name": "", "args": []})
        slot["id"] = slot["id"] or new_id
        fn = part.function
        if fn is None:
            return
        slot["name"] = slot["name"] or fn.name or ""
        if fn.arguments:
            args = fn.arguments
            slot["args"].append(args if isinstance(args, str) else json.dumps(args, ensure_ascii=False))


def _complete_json(parts: list[str]) -> bool:
    try:
        modeljson.loads("".join(parts))
    except json.JSONDecodeError:
        return False
    return True


class ChatClient:
    """Async OpenAI-compatible chat client with retries and failure classification."""

    def __init__(self, settings: ClientSettings, transport: httpx.AsyncBaseTransport | None = None):
        self.settings = settings
        self.limits = settings.limits
        # Identity only: a compressed body could expand past every byte cap before it is counted.
        headers = {"Content-Type": "application/json", "Accept-Encoding": "identity"}
        if settings.api_key:
            headers["Authorization"] = f"Bearer {settings.api_key}"
        scrub.register(settings.api_key)
        scrub.register_url(settings.endpoint)
        # What this client observes as it goes; handed out only as a frozen ``Observed`` (``observed``).
        self._thinking_check: dict[str, Any] | None = None
        lim = self.limits
        self._loops_stopped = 0  # replies --stop-loops ended
        # Consecutive timed-out requests: at STALL_AFTER every request of this client ends (ServerStalled).
        self.streak = TimeoutStreak()
        self._http = httpx.AsyncClient(
            base_url=settings.endpoint.rstrip("/"),
            headers=headers,
            # httpx's read timeout bounds each socket read; a stream's data deadlines are kept in _stream.
            timeout=httpx.Timeout(max(lim.first_byte_s, lim.idle_s), connect=lim.connect_s),
            transport=transport,
            verify=shared_tls_context(),
        )
        # After every reply, its prompt count against the served window (engine/model/overflow.py).
        self._prompt_check: PromptCheck | None = None
        if settings.check_truncation:
            path = servers.profile(settings.server_kind).tokenize_path
            url = servers.root_url(settings.endpoint) + path if path else None
            counter = server_token_counter(self._http, url, self.limits) if url else None
            self._prompt_check = PromptCheck(settings.served_context, counter,
                                             whole_counts=settings.whole_prompt_counts)

    @property
    def stalled(self) -> bool:
        """Several requests in a row timed out: this client sends no more (each call raises ServerStalled)."""
        return self.streak.stalled.is_set()

    def observed(self) -> Observed:
        """What this client saw so far, as a frozen record."""
        check = self._thinking_check
        return Observed(thinking_check=None if check is None else MappingProxyType(dict(check)),
                        loops_stopped=self._loops_stopped,
                        stalled=str(self.streak.error()) if self.stalled else None)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> ChatClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def build_request(
        self,
        turns: Sequence[Turn],
        *,
        tools: list[dict[str, Any]] | None,
        tool_choice: str | dict[str, Any] | None,
        max_tokens: int,
        seed: int | None,
        stream: bool,
    ) -> dict[str, Any]:
        s = self.settings
        body: dict[str, Any] = {"model": s.model, "messages": wire_messages(turns), "max_tokens": max_tokens}
        if s.temperature is not None:
            body["temperature"] = s.temperature
        if s.top_p is not None:
            body["top_p"] = s.top_p
        body.update(s.sampler)
        if seed is not None:
            body["seed"] = seed
        if tools:
            body["tools"] = tools
            # Ollama's /v1 has no tool_choice field and ignores it; left out so the request shows what applies.
            if tool_choice is not None and s.server_kind != servers.OLLAMA:
                body["tool_choice"] = tool_choice
        if s.thinking is not None:
            body.update(servers.thinking_fields(s.server_kind, s.thinking))
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        return body

    async def chat(
        self,
        turns: Sequence[Turn],
        *,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
        max_tokens: int = 1024,
        seed: int | None = None,
    ) -> AssistantTurn:
        """Send the conversation ``turns`` as one chat request, retrying infrastructure failures with
        exponential backoff; the reply comes back as the assistant turn to store.

        Raises ``SilentTruncation`` when the server's prompt count shows it dropped part of the prompt, and
        ``ContextOverflow`` when it counted more than its window (both judged in engine/model/overflow.py).
        """
        stream = self.settings.stream and (not tools or self.settings.stream_tool_turns)
        body = self.build_request(
            turns, tools=tools, tool_choice=tool_choice, max_tokens=max_tokens, seed=seed, stream=stream
        )
        attempt = timeouts = 0
        while True:
            if self.stalled:
                raise self.streak.error()
            try:
                reply = await self._bounded(self._stream(body) if stream else self._once(body))
                break
            except InfraError as exc:
                attempt += 1
                timeouts += isinstance(exc, RequestTimeout)
                if not exc.retryable or attempt > self.settings.max_retries or timeouts > MAX_TIMEOUT_RETRIES:
                    raise
                if isinstance(exc, EmptyStream) and stream:
                    # llama-cpp-python answers 200 and only then fails inside its generator (a prompt over
                    # its window, for one), so the stream just ends; the same request unstreamed gets the
                    # real status and message, which say whether the model or the server is at fault.
                    stream = False
                    body = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
                delay = exc.retry_after
                if delay is None:
                    delay = min(self.settings.max_backoff_s, self.settings.backoff_s * 2 ** (attempt - 1))
                    delay *= 0.5 + random.random() / 2
                await asyncio.sleep(delay)
        if tools and not reply.tool_calls and reply.content:
            schemas = {t["function"]["name"]: t["function"].get("parameters") or {} for t in tools if "function" in t}
            written = read_text_calls(reply.content, schemas, max_calls=self.limits.max_tool_calls)
            if written.calls:
                reply = reply.model_copy(update={"tool_calls": list(written.calls), "content": written.rest,
                                                 "tool_calls_refused": reply.tool_calls_refused + written.refused})
        self._observe_thinking(reply)
        if self._prompt_check is not None:
            await self._prompt_check.after_reply(body, reply.usage)
        return reply

    def _observe_thinking(self, reply: AssistantTurn) -> None:
        """Record, once, whether the first reply shows the --thinking switch took effect."""
        wanted = self.settings.thinking
        if wanted is None or self._thinking_check is not None:
            return
        thought = bool(reply.reasoning)
        took = thought == wanted
        self._thinking_check = {
            "requested": "on" if wanted else "off",
            "reasoning_seen": thought,
            "took_effect": took,
            "control": servers.profile(self.settings.server_kind).thinking_control,
        }
        if not took:
            if wanted:
                why = ("asked for thinking on, but the first reply carried no reasoning: the model may not "
                       "think, or the server ignored")
            else:
                why = "asked for thinking off, but the first reply still reasoned: the server ignored"
            self._thinking_check["warning"] = f"{why} {self._thinking_check['control']}"

    async def _bounded(self, request: Any) -> AssistantTurn:
        """One request under the total time limit, however the server paces its bytes, and counted in the
        streak of timeouts; it ends at once when the client stalls."""
        total = self.limits.total_s
        if self.stalled:
            request.close()  # never started: closed, so it is not left unawaited
            raise self.streak.error()
        try:
            reply = await self.streak.race(asyncio.wait_for(request, total))
        except asyncio.TimeoutError:
            exc = RequestTimeout(f"request timed out: no complete reply within {total:g} s "
                                 f"({self.limits.flags.total})")
            self.streak.timed_out(exc)
            raise exc from None
        except RequestTimeout as exc:
            self.streak.timed_out(exc)
            raise
        except ServerStalled:
            raise
        except BenchError:
            self.streak.answered()  # the server answered, if not well
            raise
        self.streak.answered()
        return reply

    def _timeout(self, exc: httpx.TimeoutException) -> RequestTimeout:
        """httpx's own deadline, as a message that names the flag behind it."""
        lim = self.limits
        if isinstance(exc, httpx.ConnectTimeout):
            return RequestTimeout(f"request timed out: could not connect within {lim.connect_s:g} s "
                                  f"({lim.flags.connect})")
        wait = max(lim.first_byte_s, lim.idle_s)
        return RequestTimeout(f"request timed out: the server sent nothing for {wait:g} s ({type(exc).__name__}; "
                              f"{lim.flags.first_byte})")

    async def _error_status(self, response: httpx.Response, body: dict[str, Any]) -> Exception:
        text = (await read_capped(response, self.limits.max_error_bytes, "an error body")).decode("utf-8", "replace")
        sent = json.dumps(body.get("messages"), ensure_ascii=False)
        return _classify_status(response.status_code, text, response.headers.get("retry-after"), sent=sent,
                                limits=self.limits)

    async def _once(self, body: dict[str, Any]) -> AssistantTurn:
        started = time.perf_counter()
        cap = self.limits.reply_bytes(int(body.get("max_tokens") or 1))
        try:
            async with self._http.stream("POST", "/chat/completions", json=body) as response:
                if response.status_code != 200:
                    raise await self._error_status(response, body)
                raw = await read_capped(response, cap, "a chat completion")
        except httpx.TimeoutException as exc:
            raise self._timeout(exc) from exc
        except httpx.TransportError as exc:
            raise InfraError(f"could not reach the server: {type(exc).__name__}: {_quote(str(exc))}") from exc
        try:
            data = Completion.model_validate_json(raw)
        except ValidationError as exc:
            text = raw.decode("utf-8", "replace")
            error = _error_in_200(text)
            if error is not None:
                # a 200 that carries an error (LM Studio answers some over-window prompts so)
                raise _classify_status(500, error, None, sent=json.dumps(body.get("messages"), ensure_ascii=False),
                                       limits=self.limits) from exc
            raise InfraError(f"server sent a malformed chat completion ({_quote(describe(exc), 200)}): "
                             f"{_quote(text, 200)!r}") from exc
        choice = data.choices[0]
        message = choice.message
        wall = (time.perf_counter() - started) * 1000
        timings = Timings(wall_ms=wall)
        usage = _server_timings(data.timings.as_dict() if data.timings else None, timings, _usage(data.usage))
        calls = [
            ToolCall(
                id=c.id or f"call_{i}",
                name=(c.function.name if c.function else None) or "",
                arguments=_arguments_text(c.function.arguments if c.function else None),
            )
            for i, c in enumerate(message.tool_calls or [])
        ]
        return _finish(
            content=message.content or "",
            reasoning=message.reasoning_content or message.reasoning,
            calls=calls,
            finish_reason=choice.finish_reason,
            usage=usage,
            timings=timings,
            limits=self.limits,
        )

    async def _stream(self, body: dict[str, Any]) -> AssistantTurn:
        started = time.perf_counter()
        state = _StreamState()
        lim = self.limits
        max_tokens = int(body.get("max_tokens") or 1)
        cap = lim.reply_bytes(max_tokens)
        sent_at = time.monotonic()
        last_data: list[float] = []  # when the latest data line came; empty until the first
        # The first data waits on the prompt being read: its deadline follows the prompt's size where the
        # warm-up measured the server (RequestLimits.first_byte_for), else it is --first-byte-timeout.
        first_byte_s = lim.first_byte_for(prompt_token_estimate(body.get("messages") or [], body.get("tools")))
        first_byte_why = f"request timed out: no data within {first_byte_s:g} s of sending ({lim.flags.first_byte}"
        first_byte_why += ("; the default scales to each prompt from the warm-up's prefill speed)"
                           if first_byte_s != lim.first_byte_s else ")")

        def deadline() -> tuple[float, str]:
            # Only data lines count: a server that sends a keep-alive comment every second still times out.
            if not last_data:
                return sent_at + first_byte_s, first_byte_why
            return last_data[0] + lim.idle_s, (f"request timed out: the stream sent no data for {lim.idle_s:g} s "
                                               f"({lim.flags.idle})")

        received = 0
        watch = LoopWatch() if self.settings.stop_loops else None
        try:
            async with self._http.stream("POST", "/chat/completions", json=body) as response:
                if response.status_code != 200:
                    raise await self._error_status(response, body)
                saw_done = False
                async for raw_line in sse_lines(response, deadline=deadline, max_line_bytes=lim.max_line_bytes):
                    received += len(raw_line) + 1
                    if received > cap:
                        raise ReplyTooLarge(f"the server streamed more than {cap} bytes for a reply of at most "
                                            f"{max_tokens} tokens; closed it there")
                    line = raw_line.decode("utf-8", "replace")
                    if not line.startswith("data:"):
                        continue
                    last_data[:] = [time.monotonic()]
                    payload = line[5:].strip()
                    if payload == "[DONE]":
                        saw_done = True
                        break
                    try:
                        chunk = Chunk.model_validate_json(payload)
                    except ValidationError as exc:
                        raise InfraError(f"server sent a malformed stream chunk ({_quote(describe(exc), 200)}): "
                                         f"{_quote(payload, 200)!r}") from exc
                    if chunk.error is not None and not chunk.choices:
                        err = json.dumps(chunk.error)
                        raise _classify_status(500, err, None, sent=json.dumps(body.get("messages"),
                                                                               ensure_ascii=False), limits=lim)
                    state.feed(chunk, time.perf_counter())
                    if state.over_budget(max_tokens):
                        # The server ran past max_tokens: the reply ends here, as if it had kept the budget.
                        state.finish_reason = "length"
                        break
                    if watch is not None and state.finish_reason is None and watch.due(state.chars) and watch.looping(
                            "".join(state.content), "".join(state.reasoning)):
                        # Leaving the block closes the connection, which ends the generation on the server.
                        state.finish_reason = "length"
                        self._loops_stopped += 1
                        break
        except httpx.TimeoutException as exc:
            raise self._timeout(exc) from exc
        except httpx.TransportError as exc:
            if state.chunks == 0:
                raise EmptyStream(f"the server closed the stream before its first chunk: {type(exc).__name__}: "
                                  f"{_quote(str(exc))}") from exc
            raise InfraError(f"connection failed mid-reply: {type(exc).__name__}: {_quote(str(exc))}") from exc
        if not saw_done and state.finish_reason is None:
            if state.chunks == 0:
                raise EmptyStream("the server closed the stream before its first chunk")
            raise InfraError("the stream ended before the reply finished (connection dropped?)")
        end = time.perf_counter()
        timings = Timings(wall_ms=(end - started) * 1000)
        usage = _usage(state.usage)
        if state.first_token_at is not None:
            timings.ttft_ms = (state.first_token_at - started) * 1000
            decode_s = end - state.first_token_at
            produced = usage.completion_tokens or state.deltas
            if decode_s > 0 and produced > 1:
                timings.decode_tps = (produced - 1) / decode_s
        usage = _server_timings(state.timings, timings, usage)
        calls = [
            ToolCall(id=slot["id"] or f"call_{i}", name=slot["name"], arguments="".join(slot["args"]))
            for i, slot in sorted(state.calls.items())
        ]
        return _finish(
            content="".join(state.content),
            reasoning="".join(state.reasoning) or None,
            calls=calls,
            finish_reason=state.finish_reason,
            usage=usage,
            timings=timings,
            limits=lim,
        )


def _arguments_text(raw: object) -> str:
    if raw is None:
        return "{}"
    return raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)


def _finish(
    *,
    content: str,
    reasoning: str | None,
    calls: list[ToolCall],
    finish_reason: str | None,
    usage: Usage,
    timings: Timings,
    limits: RequestLimits,
) -> AssistantTurn:
    keep = limits.stored_chars
    shown = clip(content, keep)
    answer, inline = split_reasoning(shown)
    thoughts = "\n\n".join(p for p in (reasoning, inline) if p) or None
    calls = [c.model_copy(update={"name": clip(c.name, 200), "arguments": clip(c.arguments, keep)})
             if len(c.name) > 200 or len(c.arguments) > keep else c for c in calls]
    reply = AssistantTurn(
        content=answer,
        reasoning=clip(thoughts, keep) if thoughts else None,
        # Inline reasoning is in the text the server returned as content: kept as the user saw it.
        visible=shown if inline else None,
        tool_calls=calls,
        finish_reason=finish_reason,
        usage=usage,
        timings=timings,
    )
    return _cap_calls(reply, limits)


def _cap_calls(reply: AssistantTurn, limits: RequestLimits) -> AssistantTurn:
    """At most ``max_tool_calls`` calls of one reply are kept for execution; the rest are counted, so the
    module can tell the model they were refused, and never run."""
    extra = len(reply.tool_calls) - limits.max_tool_calls
    if extra <= 0:
        return reply
    return reply.model_copy(update={"tool_calls": reply.tool_calls[: limits.max_tool_calls],
                                    "tool_calls_refused": reply.tool_calls_refused + extra})


def wire_messages(turns: Sequence[Turn]) -> list[dict[str, Any]]:
    """The OpenAI message list of ``turns``: the one place the conversation takes the wire's shape. Built
    afresh for every request from the same turns, so each request's prefix is identical to the previous
    one's and a server's prompt cache can reuse it. ``content`` is always a string (``Turn`` holds no null):
    an assistant message that only calls tools carries ``""``, which every server accepts (llama-cpp-python
    and some templates reject null)."""
    out: list[dict[str, Any]] = []
    for t in turns:
        msg: dict[str, Any] = {"role": t.role, "content": t.content}
        if t.tool_calls:
            msg["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in t.tool_calls
            ]
        if t.role == "tool":
            msg["tool_call_id"] = t.tool_call_id
            if t.name:
                msg["name"] = t.name
        out.append(msg)
    return out


__all__ = ["ChatClient", "ClientSettings", "Observed", "SilentTruncation", "prompt_token_floor", "wire_messages"]
