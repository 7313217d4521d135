"""One rule, for every server, on whether a reply answered the prompt that was sent.

Servers meet a conversation longer than their window in different ways (see site_src/servers/): llama.cpp
and vLLM refuse it with a 400, LM Studio refuses it or (its newer GGUF path) answers an empty 200 whose usage
still counts the whole prompt, and Ollama cuts it and answers 200: before 0.30 to exactly the window, in
0.30 to one token under it, since 0.31 to about half of it, after first dropping the oldest non-system
messages. The error bodies are sorted in ``client._classify_status``; this module judges the 200s, after
every reply, from the prompt tokens the server reported:

- more than the served window: the conversation did not fit, whatever the body says (``ContextOverflow``,
  the model's failure, final);
- fewer than the request must hold, whatever the window (one read at the start may have shrunk since, and
  an old Ollama reports none), or at or one under the window (no honest server can then write a reply): the
  server cut the prompt (``SilentTruncation``, an invalid trial).

What the request must hold is a lower bound, the largest of three: its text at one token a word (every
tokenizer splits at white space first) or 8 characters a token, whichever is more; the prompt count the
server reported for the same conversation one or more turns ago plus the new messages' text; and, where the
server offers a tokenizer (llama.cpp ``/tokenize``), the count of the messages' text. A bound, not the
bench's estimate of the prompt (``prompt_token_estimate``, 4 characters a token): a count under the bound is
far under the estimate, by more than any tokenizer's difference from it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from engine.core.errors import BenchError, ContextOverflow, InfraError
from engine.core.schema import Usage
from engine.model.requestlimits import RequestLimits, fetch_bounded

CONTEXT_OVERFLOW = "context_overflow"
SILENT_TRUNCATION = "silent_truncation"

# A prompt is at least this many tokens: no tokenizer we know averages more than about 5 characters a token
# on prose or code, so 8 (after collapsing whitespace and long runs of one character, which some tokenizers
# swallow whole) stays below any honest count; and every tokenizer splits text at white space before it
# merges, so each word (a run of non-space characters) is at least one token. Prompts under the minimum are
# never checked: no server runs a window that small, so a low count there means something else.
_CHARS_PER_TOKEN_CEILING = 8
_MIN_CHECKED_FLOOR = 1024
# The bench's estimate of a prompt (for its first-byte deadline): current tokenizers average about 4
# characters a token on English prose and code.
_CHARS_PER_TOKEN_ESTIMATE = 4
_RUNS = re.compile(r"(\S)\1{3,}")
_SPACE = re.compile(r"\s+")
# Tokens of an earlier request that need not recur in a later one of the same conversation: the generation
# prompt (with an empty think block, some templates), a last-turn marker. Generous: a bound must not bite.
_TEMPLATE_SLACK = 64
# A reported count this close under the window leaves no room for a reply on an honest server (llama.cpp
# refuses a prompt of n_ctx tokens; Ollama before 0.30 cut to exactly num_ctx, 0.30 to num_ctx - 1).
_AT_WINDOW = 1

TokenCounter = Callable[[str], Awaitable[int | None]]


class SilentTruncation(BenchError):
    """The server reported fewer prompt tokens than the request must have held: it dropped part of the
    prompt and answered 200. The trial is invalid, neither the model's failure nor a transport error, and
    rerunning it on the same server would repeat it."""

    def __init__(self, message: str, *, reported: int, floor: int):
        super().__init__(message)
        self.reported = reported
        self.floor = floor


def message_text(m: dict[str, Any]) -> str:
    content = m.get("content")
    if isinstance(content, list):  # content parts
        content = " ".join(str(p.get("text") or "") for p in content if isinstance(p, dict))
    parts = [str(content or "")]
    for call in m.get("tool_calls") or []:
        fn = call.get("function") or {}
        parts.append(str(fn.get("name") or ""))
        parts.append(str(fn.get("arguments") or ""))
    return " ".join(parts)


def _collapsed(messages: list[dict[str, Any]]) -> str:
    text = " ".join(message_text(m) for m in messages)
    return _SPACE.sub(" ", _RUNS.sub(r"\1", text))


def prompt_token_floor(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
    """A lower bound on the prompt tokens of messages, whatever the tokenizer.

    Counts only the message text (no template, no tool schemas), collapses whitespace and long runs of one
    character, and takes one token a word or 8 characters a token, whichever is more, so an honest server
    always reports more.
    """
    del tools  # how a template renders tool schemas varies too much to count on
    text = _collapsed(messages)
    return max(len(text) // _CHARS_PER_TOKEN_CEILING, len(text.split()))


def prompt_token_estimate(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
    """The bench's estimate of a request's prompt tokens (its text and tool schemas at 4 characters a token):
    what the first-byte deadline of a request is scaled to. Not a bound: a tokenizer may count more or less."""
    chars = len(_collapsed(messages)) + (len(json.dumps(tools, default=str)) if tools else 0)
    return chars // _CHARS_PER_TOKEN_ESTIMATE


class PromptLedger:
    """The prompt counts of requests already answered honestly, keyed by their messages and tools.

    A later request of the same conversation repeats those messages and adds some, so it holds at least the
    earlier count plus the new text. This catches Ollama dropping the oldest messages of a conversation that
    has outgrown its window, a cut the characters alone cannot show. Bounded: oldest entries go first.
    """

    def __init__(self, limit: int = 4096):
        self._counts: OrderedDict[str, int] = OrderedDict()
        self._limit = limit

    @staticmethod
    def _keys(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> list[str]:
        """keys[i] identifies messages[:i + 1] with these tools."""
        digest = hashlib.sha256(json.dumps(tools or [], sort_keys=True, default=str).encode())
        keys = []
        for m in messages:
            digest.update(json.dumps(m, sort_keys=True, default=str).encode())
            keys.append(digest.copy().hexdigest())
        return keys

    def floor(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> int:
        keys = self._keys(messages, tools)
        for n in range(len(messages) - 1, 0, -1):  # the longest earlier request this one extends
            earlier = self._counts.get(keys[n - 1])
            if earlier is not None:
                return max(0, earlier + prompt_token_floor(messages[n:]) - _TEMPLATE_SLACK)
        return 0

    def record(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, count: int) -> None:
        if not messages:
            return
        key = self._keys(messages, tools)[-1]
        self._counts[key] = max(count, self._counts.get(key, 0))
        self._counts.move_to_end(key)
        while len(self._counts) > self._limit:
            self._counts.popitem(last=False)


class PromptCheck:
    """Judges each reply's prompt count against the served window and what the request must hold."""

    def __init__(self, served_context: int | None, counter: TokenCounter | None = None, *,
                 whole_counts: bool = True):
        self.served = served_context
        self.counter = counter
        # Whether the server counts a prompt whole, its cached part included (every current server; the server
        # check's second warm-up shows it): then a low count is a cut whatever the window.
        self.whole_counts = whole_counts
        self.ledger = PromptLedger()

    async def after_reply(self, body: dict[str, Any], usage: Usage) -> None:
        """Raise ``ContextOverflow`` or ``SilentTruncation`` when the reply's count gives either away."""
        reported = usage.prompt_tokens
        if not reported:  # missing, or 0 from a server that counts only uncached tokens
            return
        messages = body.get("messages") or []
        tools = body.get("tools")
        served = self.served
        if served is not None and reported > served:
            raise ContextOverflow(
                f"context overflow: the server counted {reported} prompt tokens, more than its {served}-token "
                "window, and answered anyway (LM Studio sends an empty reply then): the conversation no longer "
                "fits the served context window"
            )
        if served is not None and served - _AT_WINDOW <= reported <= served:
            raise SilentTruncation(
                f"silent truncation: the server reported {reported} prompt tokens for a {served}-token window, "
                "a prompt that leaves no room for a reply: it cut a longer prompt to fit (keeping its end) "
                "instead of refusing it, so this trial says nothing about the model",
                reported=reported, floor=served,
            )
        counted = reported + (usage.cached_prompt_tokens or 0)
        floor = max(prompt_token_floor(messages, tools), self.ledger.floor(messages, tools))
        # Whatever the window: the one read at the start may have shrunk since (a server restarted with a
        # smaller one), and an old Ollama reports none. A server that counts only the tokens it computed (the
        # server check found it leaves a cached prompt out) may report little for a long cached prompt: there
        # only a count in the upper half of a known window, where a cut is the likelier reading, is held to it.
        near_window = served is not None and floor > served // 2
        if floor >= _MIN_CHECKED_FLOOR and (self.whole_counts or near_window) and counted < floor:
            raise _cut(reported, floor)
        if self.counter is not None and served is not None and reported >= served // 2:
            # In the band where cuts land, and the server can count exactly: ask it.
            exact = await self.counter(" ".join(message_text(m) for m in messages))
            if exact is not None and exact - _TEMPLATE_SLACK > counted:
                raise _cut(reported, exact - _TEMPLATE_SLACK)
        self.ledger.record(messages, tools, reported)


def _cut(reported: int, floor: int) -> SilentTruncation:
    return SilentTruncation(
        f"silent truncation: the server reported {reported} prompt tokens, but the prompt holds at least "
        f"{floor}; it dropped part of the conversation (the front, where the system prompt, the tools and the "
        "oldest turns are) instead of refusing it, so this trial says nothing about the model",
        reported=reported, floor=floor,
    )


def server_token_counter(http: httpx.AsyncClient, url: str, limits: RequestLimits) -> TokenCounter:
    """A counter that asks the server's own tokenizer (llama.cpp ``POST /tokenize``), each answer within the
    server check's deadline and a size cap (the token list of the text, generously). Any failure, or an
    answer not shaped as documented, counts as no answer: the check then rests on the other bounds. A
    tokenizer that timed out or flooded is not asked again: it would cost every later reply the same wait."""
    dead = False

    async def count(text: str) -> int | None:
        nonlocal dead
        if dead:
            return None
        try:
            status, raw = await fetch_bounded(
                http, "POST", url, body={"content": text, "add_special": False}, deadline_s=limits.check_s,
                cap=_TOKENIZE_BASE_BYTES + _TOKENIZE_BYTES_PER_CHAR * len(text), what="the /tokenize answer")
        except (InfraError, httpx.HTTPError):
            dead = True
            return None
        if status != 200:
            return None
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            return None
        tokens = data.get("tokens") if isinstance(data, dict) else None
        return len(tokens) if isinstance(tokens, list) else None

    return count


# A token list is at most one id (up to 7 digits and a comma, or an object with its piece) per character.
_TOKENIZE_BASE_BYTES = 64 << 10
_TOKENIZE_BYTES_PER_CHAR = 16
