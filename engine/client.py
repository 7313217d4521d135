"""The one place that speaks HTTP to a model server (OpenAI-compatible chat completions, over httpx).

It sorts every failure into the model's fault (counted) or the infrastructure's (retried, then excluded),
and returns a normalised ``Reply`` whatever server answered.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from engine import servers
from engine.errors import BenchError, ContextOverflow, InfraError, ToolCallParseFailure
from engine.loopstop import LoopWatch
from engine.normalise import extract_text_tool_calls, split_reasoning
from engine.schema import Reply, Timings, ToolCall, Usage

_CONTEXT_OVERFLOW_MARKERS = (
    "exceed_context_size",
    "exceeds the available context size",
    "maximum context length",
    "context length exceeded",
    "context_length_exceeded",
    "prompt is too long",
    "requested tokens",
)
_TOOL_PARSE_MARKERS = ("parse tool call", "tool call parse", "failed to parse tool", "invalid tool call")
_AUTO_TOOL_CHOICE_MARKER = "enable-auto-tool-choice"

# Silent-truncation check. A prompt is at least this many tokens: no tokenizer we know averages more than
# about 5 characters a token on prose or code, so 8 (after collapsing whitespace and long runs of one
# character, which some tokenizers swallow whole) stays below any honest count. Prompts under the minimum
# are never checked: no server runs a window that small, so a low count there means something else.
_CHARS_PER_TOKEN_CEILING = 8
_MIN_CHECKED_FLOOR = 1024
_RUNS = re.compile(r"(\S)\1{3,}")
_SPACE = re.compile(r"\s+")


class SilentTruncation(BenchError):
    """The server reported fewer prompt tokens than the request must have held: it dropped part of the
    prompt (Ollama cuts the front of an over-long prompt and answers 200). The trial is invalid, neither
    the model's failure nor a transport error, and rerunning it on the same server would repeat it."""

    def __init__(self, message: str, *, reported: int, floor: int):
        super().__init__(message)
        self.reported = reported
        self.floor = floor


@dataclass
class ClientSettings:
    endpoint: str  # base URL ending in /v1
    model: str
    api_key: str | None = field(default=None, repr=False)
    temperature: float | None = None
    thinking: bool | None = None
    timeout_s: float = 600.0
    connect_timeout_s: float = 10.0
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
    sampler: dict[str, Any] = field(default_factory=dict)
    check_truncation: bool = True
    # --stop-loops: end a streamed reply once engine.loopstop says it is certainly degenerate; it is then
    # returned with finish_reason "length", as the token limit would have ended it.
    stop_loops: bool = False


def _classify_status(status: int, body: str, retry_after: str | None) -> Exception:
    lower = body.lower()
    if status == 400 and _AUTO_TOOL_CHOICE_MARKER in lower:
        return InfraError(f"the server cannot take tool calls: {servers.tools_fix(servers.VLLM)} "
                          f"(it answered: {body[:200]})", retryable=False)
    if status in (400, 413, 500) and any(m in lower for m in _CONTEXT_OVERFLOW_MARKERS):
        return ContextOverflow(f"the conversation does not fit the served context window: {body[:300]}")
    if status == 500 and any(m in lower for m in _TOOL_PARSE_MARKERS):
        return ToolCallParseFailure(f"the server could not parse the model's tool-call JSON: {body[:300]}")
    wait: float | None = None
    if retry_after:
        try:
            wait = float(retry_after)
        except ValueError:
            wait = None
    if status == 429 or status >= 500 or status in (401, 403, 404, 408, 409):
        return InfraError(f"server answered HTTP {status}: {body[:300]}", retry_after=wait)
    return InfraError(f"server rejected the request with HTTP {status}: {body[:300]}", retryable=False)


def _usage(raw: dict[str, Any] | None) -> Usage:
    if not raw:
        return Usage()
    cached = (raw.get("prompt_tokens_details") or {}).get("cached_tokens")
    return Usage(
        prompt_tokens=raw.get("prompt_tokens"),
        completion_tokens=raw.get("completion_tokens"),
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
        self.usage: dict[str, Any] | None = None
        self.timings: dict[str, Any] | None = None
        self.first_token_at: float | None = None
        self._keys: dict[int, int] = {}
        # Servers that stream without usage (llama-cpp-python) send about one token per content delta.
        self.deltas = 0
        self.chunks = 0
        self.chars = 0  # content and reasoning characters so far

    def feed(self, chunk: dict[str, Any], now: float) -> None:
        self.chunks += 1
        if chunk.get("usage"):
            self.usage = chunk["usage"]
        if chunk.get("timings"):
            self.timings = chunk["timings"]
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            text = delta.get("content")
            thought = delta.get("reasoning_content") or delta.get("reasoning")
            if (text or thought or delta.get("tool_calls")) and self.first_token_at is None:
                self.first_token_at = now
            if text or thought:
                self.deltas += 1
            if text:
                self.content.append(text)
                self.chars += len(text)
            if thought:
                self.reasoning.append(thought)
                self.chars += len(thought)
            for part in delta.get("tool_calls") or []:
                self._feed_call(part)
            if choice.get("finish_reason"):
                self.finish_reason = choice["finish_reason"]


    def _feed_call(self, part: dict[str, Any]) -> None:
        """Deltas are keyed by index; later chunks may carry an empty name (LM Studio) or no id. A delta
        with a new id at an index whose call is already complete is a further call from a server that
        numbers every call 0, so it gets a slot of its own instead of being glued onto the first."""
        index = part.get("index")
        if not isinstance(index, int):  # no index at all: an id starts a call, anything else continues one
            last = max(self.calls, default=-1)
            index = last + 1 if part.get("id") or last < 0 else last
        key = self._keys.get(index, index)
        slot = self.calls.get(key)
        new_id = part.get("id") or ""
        restarted = slot is not None and bool(new_id) and bool(slot["id"]) and new_id != slot["id"]
        if slot is not None and restarted and _complete_json(slot["args"]):
            key = max(self.calls) + 1000
            self._keys[index] = key
            slot = None
        if slot is None:
            slot = self.calls.setdefault(key, {"id": "", "name": "", "args": []})
        slot["id"] = slot["id"] or new_id
        fn = part.get("function") or {}
        slot["name"] = slot["name"] or fn.get("name") or ""
        if fn.get("arguments"):
            args = fn["arguments"]
            slot["args"].append(args if isinstance(args, str) else json.dumps(args, ensure_ascii=False))


def _complete_json(parts: list[str]) -> bool:
    try:
        json.loads("".join(parts))
    except json.JSONDecodeError:
        return False
    return True


class ChatClient:
    """Async OpenAI-compatible chat client with retries and failure classification."""

    def __init__(self, settings: ClientSettings, transport: httpx.AsyncBaseTransport | None = None):
        self.settings = settings
        headers = {"Content-Type": "application/json"}
        if settings.api_key:
            headers["Authorization"] = f"Bearer {settings.api_key}"
        self.thinking_check: dict[str, Any] | None = None
        self.loops_stopped = 0  # replies --stop-loops ended
        self._http = httpx.AsyncClient(
            base_url=settings.endpoint.rstrip("/"),
            headers=headers,
            timeout=httpx.Timeout(settings.timeout_s, connect=settings.connect_timeout_s),
            transport=transport,
        )

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> ChatClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def build_request(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None,
        tool_choice: str | dict[str, Any] | None,
        max_tokens: int,
        seed: int | None,
        stream: bool,
    ) -> dict[str, Any]:
        s = self.settings
        body: dict[str, Any] = {"model": s.model, "messages": _outgoing(messages), "max_tokens": max_tokens}
        if s.temperature is not None:
            body["temperature"] = s.temperature
        if s.top_p is not None:
            body["top_p"] = s.top_p
        body.update(s.sampler)
        if seed is not None:
            body["seed"] = seed
        if tools:
            body["tools"] = tools
            if tool_choice is not None and s.server_kind != servers.OLLAMA:  # Ollama rejects tool_choice
                body["tool_choice"] = tool_choice
        if s.thinking is not None:
            body.update(servers.thinking_fields(s.server_kind, s.thinking))
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        return body

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
        max_tokens: int = 1024,
        seed: int | None = None,
    ) -> Reply:
        """Send one chat request, retrying infrastructure failures with exponential backoff.

        Raises ``SilentTruncation`` when the server's prompt count shows it dropped part of the prompt.
        """
        stream = self.settings.stream and (not tools or self.settings.stream_tool_turns)
        body = self.build_request(
            messages, tools=tools, tool_choice=tool_choice, max_tokens=max_tokens, seed=seed, stream=stream
        )
        attempt = 0
        while True:
            try:
                reply = await (self._stream(body) if stream else self._once(body))
                break
            except InfraError as exc:
                attempt += 1
                if not exc.retryable or attempt > self.settings.max_retries:
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
            names = {t["function"]["name"] for t in tools if "function" in t}
            recovered, rest = extract_text_tool_calls(reply.content, names)
            if recovered:
                reply = reply.model_copy(update={"tool_calls": recovered, "content": rest})
        self._observe_thinking(reply)
        if self.settings.check_truncation:
            self._check_prompt_count(body, reply)
        return reply

    def _observe_thinking(self, reply: Reply) -> None:
        """Record, once, whether the first reply shows the --thinking switch took effect."""
        wanted = self.settings.thinking
        if wanted is None or self.thinking_check is not None:
            return
        thought = bool(reply.reasoning)
        took = thought == wanted
        self.thinking_check = {
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
            self.thinking_check["warning"] = f"{why} {self.thinking_check['control']}"

    def _check_prompt_count(self, body: dict[str, Any], reply: Reply) -> None:
        reported = reply.usage.prompt_tokens
        if not reported:  # missing, or 0 from a server that counts only uncached tokens
            return
        floor = prompt_token_floor(body.get("messages") or [], body.get("tools"))
        served = self.settings.served_context
        if floor < _MIN_CHECKED_FLOOR:
            return
        # A prompt well inside the served window cannot have been cut: a low count there is a server that
        # counts only uncached tokens, not a truncation.
        if served is not None and floor <= served // 2:
            return
        counted = reported + (reply.usage.cached_prompt_tokens or 0)
        if counted < floor:
            raise SilentTruncation(
                f"silent truncation: the server reported {reported} prompt tokens, but the prompt holds at "
                f"least {floor}; it dropped part of the conversation (the front, where the system prompt and "
                "tools are) instead of refusing it, so this trial says nothing about the model",
                reported=reported, floor=floor,
            )

    async def _once(self, body: dict[str, Any]) -> Reply:
        started = time.perf_counter()
        try:
            response = await self._http.post("/chat/completions", json=body)
        except httpx.TimeoutException as exc:
            raise InfraError(f"request timed out: {type(exc).__name__}") from exc
        except httpx.TransportError as exc:
            raise InfraError(f"could not reach the server: {type(exc).__name__}: {exc}") from exc
        if response.status_code != 200:
            raise _classify_status(response.status_code, response.text, response.headers.get("retry-after"))
        try:
            data = response.json()
            choice = data["choices"][0]
            message = choice.get("message") or {}
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise InfraError(f"server sent a malformed chat completion: {response.text[:200]!r}") from exc
        wall = (time.perf_counter() - started) * 1000
        timings = Timings(wall_ms=wall)
        usage = _server_timings(data.get("timings"), timings, _usage(data.get("usage")))
        calls = [
            ToolCall(
                id=c.get("id") or f"call_{i}",
                name=(c.get("function") or {}).get("name") or "",
                arguments=_arguments_text((c.get("function") or {}).get("arguments")),
            )
            for i, c in enumerate(message.get("tool_calls") or [])
        ]
        return _finish(
            content=message.get("content") or "",
            reasoning=message.get("reasoning_content") or message.get("reasoning"),
            calls=calls,
            finish_reason=choice.get("finish_reason"),
            usage=usage,
            timings=timings,
        )

    async def _stream(self, body: dict[str, Any]) -> Reply:
        started = time.perf_counter()
        state = _StreamState()
        watch = LoopWatch() if self.settings.stop_loops else None
        try:
            async with self._http.stream("POST", "/chat/completions", json=body) as response:
                if response.status_code != 200:
                    text = (await response.aread()).decode("utf-8", "replace")
                    raise _classify_status(response.status_code, text, response.headers.get("retry-after"))
                saw_done = False
                async for line in response.aiter_lines():
                    if not line.startswith("data:"):
                        continue
                    payload = line[5:].strip()
                    if payload == "[DONE]":
                        saw_done = True
                        break
                    try:
                        chunk = json.loads(payload)
                    except json.JSONDecodeError as exc:
                        raise InfraError(f"server sent a malformed stream chunk: {payload[:200]!r}") from exc
                    if "error" in chunk and not chunk.get("choices"):
                        err = json.dumps(chunk["error"])
                        raise _classify_status(500, err, None)
                    state.feed(chunk, time.perf_counter())
                    if watch is not None and state.finish_reason is None and watch.due(state.chars) and watch.looping(
                            "".join(state.content), "".join(state.reasoning)):
                        # Leaving the block closes the connection, which ends the generation on the server.
                        state.finish_reason = "length"
                        self.loops_stopped += 1
                        break
        except httpx.TimeoutException as exc:
            raise InfraError(f"request timed out: {type(exc).__name__}") from exc
        except httpx.TransportError as exc:
            if state.chunks == 0:
                raise EmptyStream(f"the server closed the stream before its first chunk: {type(exc).__name__}: "
                                  f"{exc}") from exc
            raise InfraError(f"connection failed mid-reply: {type(exc).__name__}: {exc}") from exc
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
) -> Reply:
    answer, inline = split_reasoning(content)
    thoughts = "\n\n".join(p for p in (reasoning, inline) if p) or None
    return Reply(
        content=answer,
        reasoning=thoughts,
        tool_calls=calls,
        finish_reason=finish_reason,
        usage=usage,
        timings=timings,
    )


def _outgoing(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages as servers accept them: an assistant message that only calls tools carries ``content: ""``,
    never null (llama-cpp-python and some templates reject null)."""
    out = []
    for m in messages:
        if m.get("role") == "assistant" and m.get("content") is None:
            m = {**m, "content": ""}
        out.append(m)
    return out


def _message_text(m: dict[str, Any]) -> str:
    content = m.get("content")
    if isinstance(content, list):  # content parts
        content = " ".join(str(p.get("text") or "") for p in content if isinstance(p, dict))
    parts = [str(content or "")]
    for call in m.get("tool_calls") or []:
        fn = call.get("function") or {}
        parts.append(str(fn.get("name") or ""))
        parts.append(str(fn.get("arguments") or ""))
    return " ".join(parts)


def prompt_token_floor(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
    """A lower bound on the prompt tokens of a request, whatever the tokenizer.

    Counts only the message text (no template, no tool schemas), collapses whitespace and long runs of one
    character, and allows 8 characters a token, so an honest server always reports more.
    """
    del tools  # how a template renders tool schemas varies too much to count on
    text = " ".join(_message_text(m) for m in messages)
    text = _SPACE.sub(" ", _RUNS.sub(r"\1", text))
    return len(text) // _CHARS_PER_TOKEN_CEILING
