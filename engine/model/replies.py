"""Pydantic models of what an OpenAI-compatible server sends back: a chat completion and a stream chunk.

Everything a server sends is hostile until checked. These models type every field the client reads, so a
chunk that is a list, a ``content`` of 42 or a ``prompt_tokens`` of "lots" is a ``ValidationError`` here,
which the client turns into an infrastructure error that quotes the server, instead of a traceback from
deep inside a trial. Strict mode: no coercion, so "5" is not a count and 42 is not text.

Unknown keys are ignored here, unlike in the file models: every server adds fields of its own
(``system_fingerprint``, ``logprobs``, vendor blocks), and none of them is read.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

__all__ = ["Chunk", "Completion", "ValidationError", "describe"]

_Count = int | None


def _measured(value: Any) -> Any:
    # Infinity and NaN (a rate over a zero duration, or a server's bug) measure nothing: not reported, so
    # that no such number reaches a result file (JSON cannot hold one) or the board ("inf tok/s").
    return None if isinstance(value, float) and not math.isfinite(value) else value


# A duration or rate the server measured: a finite number, or not reported.
_Measure = Annotated[float | None, BeforeValidator(_measured)]


class _Part(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)


class FunctionPart(_Part):
    name: str | None = None
    # The model's JSON as text (OpenAI), or already parsed (Ollama's native shape).
    arguments: str | dict[str, Any] | list[Any] | None = None


class ToolCallPart(_Part):
    index: int | None = None
    id: str | None = None
    type: str | None = None
    function: FunctionPart | None = None


class Delta(_Part):
    role: str | None = None
    content: str | None = None
    reasoning_content: str | None = None
    reasoning: str | None = None
    tool_calls: list[ToolCallPart] | None = None


class ChunkChoice(_Part):
    index: int | None = None
    delta: Delta | None = None
    finish_reason: str | None = None


class PromptDetails(_Part):
    cached_tokens: _Count = Field(default=None, ge=0)


class UsageBlock(_Part):
    prompt_tokens: _Count = Field(default=None, ge=0)
    completion_tokens: _Count = Field(default=None, ge=0)
    total_tokens: _Count = Field(default=None, ge=0)
    prompt_tokens_details: PromptDetails | None = None


class TimingsBlock(BaseModel):
    """llama.cpp's ``timings``. Its known fields are typed (a non-finite duration or rate is taken as not
    reported); anything else it adds is kept as sent, and never read."""

    model_config = ConfigDict(extra="allow", strict=True)

    cache_n: _Count = Field(default=None, ge=0)
    prompt_n: _Count = Field(default=None, ge=0)
    prompt_ms: _Measure = Field(default=None, ge=0)
    prompt_per_token_ms: _Measure = None
    prompt_per_second: _Measure = Field(default=None, ge=0)
    predicted_n: _Count = Field(default=None, ge=0)
    predicted_ms: _Measure = Field(default=None, ge=0)
    predicted_per_token_ms: _Measure = None
    predicted_per_second: _Measure = Field(default=None, ge=0)
    draft_n: _Count = Field(default=None, ge=0)
    draft_n_accepted: _Count = Field(default=None, ge=0)

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.model_dump().items() if v is not None}


class Chunk(_Part):
    """One ``data:`` line of a streamed reply."""

    choices: list[ChunkChoice] | None = None
    usage: UsageBlock | None = None
    timings: TimingsBlock | None = None
    # An error sent inside the stream (vLLM, llama.cpp): any JSON; only its text is quoted.
    error: Any = None


class Message(_Part):
    role: str | None = None
    content: str | None = None
    reasoning_content: str | None = None
    reasoning: str | None = None
    tool_calls: list[ToolCallPart] | None = None


class Choice(_Part):
    index: int | None = None
    message: Message
    finish_reason: str | None = None


class Completion(_Part):
    """An unstreamed chat completion."""

    choices: list[Choice] = Field(min_length=1)
    usage: UsageBlock | None = None
    timings: TimingsBlock | None = None


def describe(exc: ValidationError) -> str:
    """The first problem of a validation error, as ``field: what was wrong`` (plus how many more)."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "(top level)"
    more = exc.error_count() - 1
    return f"{where}: {first['msg']}" + (f" (and {more} more)" if more > 0 else "")
