"""Measure a hosted model's speed: stream one fixed prompt several times and keep the medians.

Each run sends a streaming chat request to an OpenAI-compatible provider endpoint (OpenRouter by default,
asked to route to its fastest provider) and times it on our side:

* time to first token: from sending the request to the first chunk that carries text (answer or reasoning);
* output speed: the tokens after the first, divided by the time from the first to the last text chunk, so the
  wait for the first token does not count against the stream. Token counts come from the usage the provider
  reports at the end of the stream; without it, each text chunk counts as one token.

The medians over the runs are written with the date, the provider that served them, the endpoint, and the
prompt's size. A model whose runs all fail keeps its previous figure. Keys are read from the environment by
the caller, sent only in the Authorization header and never written or printed.
"""

from __future__ import annotations

import datetime as dt
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from engine.core.errors import InfraError, UserError
from engine.index.data import atomic_write_many, entry_to_yaml, load_entries
from engine.index.schema import ModelEntry, SpeedRun

SPEED_KEY_ENV = "OPENROUTER_API_KEY"
SPEED_BASE_ENV = "INDEX_SPEED_BASE_URL"
DEFAULT_SPEED_BASE = "https://openrouter.ai/api/v1"
DEFAULT_RUNS = 5
MAX_OUTPUT_TOKENS = 400
TIMEOUT_S = 120.0

# One fixed prompt for every model, so figures compare. It asks for a long, plain answer that few models
# finish early; changing it means changing PROMPT_ID so old and new figures are not mixed silently.
PROMPT_ID = "speed-v1"
PROMPT = (
    "Explain, in about 300 words of plain prose without lists or headings, how a refrigerator moves heat "
    "from its inside to the room: the refrigerant, the compressor, the condenser, the expansion valve and "
    "the evaporator, and why the back of the appliance feels warm."
)


class SpeedError(InfraError):
    """One measurement run failed (transport, HTTP status, a stream we cannot read)."""


@dataclass(frozen=True)
class RunTiming:
    ttft_s: float
    output_tokens_per_s: float
    output_tokens: int
    prompt_tokens: int | None
    provider: str | None


@dataclass
class SpeedReport:
    measured: dict[str, SpeedRun] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)

    def summary(self) -> str:
        lines = [f"measure-speed: measured {len(self.measured)} models"]
        for model_id, run in self.measured.items():
            lines.append(
                f"  {model_id}: {run.output_tokens_per_s:.1f} tokens/s, first token {run.ttft_s:.2f} s "
                f"(median of {run.runs}, {run.provider})"
            )
        for model_id, why in self.failed.items():
            lines.append(f"  {model_id}: FAILED, figure left as it was: {why}")
        if self.skipped:
            lines.append(f"no OpenRouter id, not measured ({len(self.skipped)}): {', '.join(self.skipped)}")
        return "\n".join(lines)


def _text_of(chunk: dict) -> str:
    out = ""
    for choice in chunk.get("choices") or []:
        delta = choice.get("delta") or {}
        for key in ("content", "reasoning", "reasoning_content"):
            value = delta.get(key)
            if isinstance(value, str):
                out += value
    return out


def stream_once(
    http: httpx.Client,
    url: str,
    model: str,
    clock: Callable[[], float] = time.perf_counter,
) -> RunTiming:
    """Send the fixed prompt once, streaming, and time it."""
    body = {
        "model": model,
        "messages": [{"role": "user", "content": PROMPT}],
        "max_tokens": MAX_OUTPUT_TOKENS,
        "temperature": 0,
        "stream": True,
        "stream_options": {"include_usage": True},
        # OpenRouter's routing preference; other OpenAI-compatible servers ignore unknown fields.
        "provider": {"sort": "throughput"},
    }
    start = clock()
    first = last = None
    chunks = 0
    usage: dict = {}
    provider: str | None = None
    try:
        with http.stream("POST", url, json=body) as response:
            if response.status_code != 200:
                response.read()
                detail = "the key was refused" if response.status_code in (401, 403) else "see the provider"
                raise SpeedError(
                    f"POST {url}: HTTP {response.status_code} ({detail})",
                    retryable=response.status_code == 429 or response.status_code >= 500,
                )
            for line in response.iter_lines():
                if not line.startswith("data:"):
                    continue  # blank separators and ": keep-alive" comments
                payload = line[5:].strip()
                if payload == "[DONE]":
                    break
                try:
                    chunk = json.loads(payload)
                except ValueError as exc:
                    raise SpeedError(f"POST {url}: a stream line is not JSON", retryable=False) from exc
                if not isinstance(chunk, dict):
                    continue
                if "error" in chunk:
                    raise SpeedError(f"POST {url}: the stream reported an error mid-way", retryable=True)
                provider = chunk.get("provider") if isinstance(chunk.get("provider"), str) else provider
                if isinstance(chunk.get("usage"), dict):
                    usage = chunk["usage"]
                if _text_of(chunk):
                    now = clock()
                    first = now if first is None else first
                    last = now
                    chunks += 1
    except httpx.HTTPError as exc:
        raise SpeedError(f"POST {url} failed: {exc.__class__.__name__}") from exc
    if first is None or last is None:
        raise SpeedError(f"POST {url}: the stream carried no text", retryable=False)
    reported = usage.get("completion_tokens")
    tokens: int = reported if isinstance(reported, int) else chunks
    span = last - first
    if tokens < 2 or span <= 0:
        raise SpeedError(f"POST {url}: too little output to time ({tokens} tokens)", retryable=False)
    prompt_tokens = usage.get("prompt_tokens") if isinstance(usage.get("prompt_tokens"), int) else None
    return RunTiming(first - start, (tokens - 1) / span, tokens, prompt_tokens, provider)


def measure_model(
    http: httpx.Client, url: str, model: str, runs: int, endpoint: str, today: dt.date
) -> SpeedRun:
    timings: list[RunTiming] = []
    errors: list[str] = []
    for _ in range(runs):
        try:
            timings.append(stream_once(http, url, model))
        except SpeedError as exc:
            errors.append(str(exc))
            if not exc.retryable:
                break
    if len(timings) < max(1, (runs + 1) // 2):
        why = errors[-1] if errors else "no run completed"
        raise SpeedError(f"{len(timings)} of {runs} runs completed; last error: {why}")
    providers = sorted({t.provider for t in timings if t.provider})
    prompt_tokens = [t.prompt_tokens for t in timings if t.prompt_tokens]
    return SpeedRun(
        output_tokens_per_s=round(statistics.median(t.output_tokens_per_s for t in timings), 2),
        ttft_s=round(statistics.median(t.ttft_s for t in timings), 3),
        runs=len(timings),
        prompt_id=PROMPT_ID,
        prompt_tokens=int(statistics.median(prompt_tokens)) if prompt_tokens else None,
        prompt_chars=len(PROMPT),
        max_output_tokens=MAX_OUTPUT_TOKENS,
        provider=", ".join(providers) if providers else "not reported",
        endpoint=endpoint,
        measured=today,
    )


def measure_speed(
    data_dir: Path,
    base: str,
    api_key: str,
    today: dt.date,
    models: list[str] | None = None,
    runs: int = DEFAULT_RUNS,
    client: httpx.Client | None = None,
) -> SpeedReport:
    """Measure the chosen models (default: every model with an OpenRouter id) and write their figures."""
    if runs < 1:
        raise UserError(f"--runs must be at least 1 (got {runs})")
    entries = {e.id: e for e in load_entries(data_dir)}
    if models:
        unknown = [m for m in models if m not in entries]
        if unknown:
            raise UserError(f"--models: no model file for {', '.join(unknown)} in {data_dir}")
        chosen = [entries[m] for m in models]
    else:
        chosen = list(entries.values())
    url = f"{base.rstrip('/')}/chat/completions"
    parts = urlsplit(base)
    endpoint = f"{parts.netloc}{parts.path}".rstrip("/")
    report = SpeedReport()
    changed: list[ModelEntry] = []
    http = client or httpx.Client(timeout=TIMEOUT_S)
    http.headers.update({"Authorization": f"Bearer {api_key}", "User-Agent": "small-llm-bench measure-speed"})
    try:
        for entry in chosen:
            if not entry.openrouter_id:
                report.skipped.append(entry.id)
                continue
            try:
                run = measure_model(http, url, entry.openrouter_id, runs, endpoint, today)
            except SpeedError as exc:
                report.failed[entry.id] = str(exc)
                continue
            report.measured[entry.id] = run
            changed.append(ModelEntry.model_validate(entry.model_copy(update={"speed": run}).model_dump()))
    finally:
        if client is None:
            http.close()
    atomic_write_many((data_dir / f"{e.id}.yaml", entry_to_yaml(e)) for e in changed)
    return report
