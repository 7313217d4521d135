"""What a run cost: the time spent waiting for the server against the time spent in the engine, and the
prompt tokens the server served from its prefix cache against those it computed again.

Two sources give the cache figure. A server that reports it per reply (llama.cpp's ``timings.cache_n``,
vLLM's ``prompt_tokens_details.cached_tokens``) is summed from the trial records; llama-cpp-python reports
nothing per reply, but its log says, request by request, how long a prefix it reused and how many prompt
tokens it evaluated, so for the embedded server the log is read before and after the run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from engine.schema import RunCost, TrialRecord

# llama-cpp-python writes these to stderr (verbose is on by default in its server).
_PREFIX_HIT = re.compile(r"Llama\.generate: (\d+) prefix-match hit")
_PROMPT_EVAL = re.compile(r"prompt eval time =\s*[\d.]+ ms /\s*(\d+) tokens")

LOG_SOURCE = "llama-cpp-python server log"
USAGE_SOURCE = "cached-token counts the server reported per reply"


@dataclass(frozen=True)
class PromptCounters:
    """Running totals over a server's life; subtract two snapshots for one run's share."""

    requests: int = 0
    cached: int = 0
    evaluated: int = 0

    def since(self, earlier: PromptCounters) -> PromptCounters:
        return PromptCounters(self.requests - earlier.requests, self.cached - earlier.cached,
                              self.evaluated - earlier.evaluated)


def counters_from_log(text: str) -> PromptCounters:
    """Totals from a llama-cpp-python server log: one ``prompt eval`` line per completed request, preceded
    by a ``prefix-match hit`` line whenever part of the prompt was already in the KV cache."""
    evaluated = [int(m) for m in _PROMPT_EVAL.findall(text)]
    return PromptCounters(requests=len(evaluated), cached=sum(int(m) for m in _PREFIX_HIT.findall(text)),
                          evaluated=sum(evaluated))


def read_log_counters(log: Path) -> PromptCounters:
    try:
        return counters_from_log(log.read_text(errors="replace"))
    except OSError:
        return PromptCounters()


def server_wait_s(trials: list[TrialRecord]) -> float:
    """Seconds spent inside model calls (request sent to last byte received), summed over the trials."""
    total_ms = sum(t.timings.wall_ms for tr in trials for t in tr.turns if t.role == "assistant" and t.timings)
    return total_ms / 1000


def run_cost(trials: list[TrialRecord], wall_s: float, concurrency: int,
             log_counters: PromptCounters | None = None) -> RunCost:
    """The cost of the trials one invocation ran. The log's figures win over per-reply usage because the
    embedded server reports no usage at all; for other servers the usage fields are summed when present."""
    cached: int | None = None
    evaluated: int | None = None
    source: str | None = None
    if log_counters is not None and log_counters.requests > 0:
        cached, evaluated, source = log_counters.cached, log_counters.evaluated, LOG_SOURCE
    else:
        usages = [t.usage for tr in trials for t in tr.turns if t.role == "assistant" and t.usage]
        reported = [u for u in usages if u.cached_prompt_tokens is not None]
        if reported:
            cached = sum(u.cached_prompt_tokens or 0 for u in reported)
            # Servers disagree on whether prompt_tokens includes the cached part, so only the cached count
            # is stated, never a difference that could be wrong by the whole cache.
            source = USAGE_SOURCE
    return RunCost(
        trials_run=len(trials),
        wall_s=round(wall_s, 3),
        concurrency=concurrency,
        server_wait_s=round(server_wait_s(trials), 3),
        prompt_tokens_cached=cached,
        prompt_tokens_evaluated=evaluated,
        cache_source=source,
    )


def describe(cost: RunCost) -> str:
    """One line for the scorecard."""
    if cost.trials_run == 0 or cost.wall_s <= 0:
        return "no trial was run by this invocation"
    share = cost.server_wait_s / (cost.wall_s * cost.concurrency)
    parts = [f"this invocation: {cost.trials_run} trial(s) in {cost.wall_s / 60:.1f} min, "
             f"{share * 100:.1f}% of it waiting for the server"]
    if cost.prompt_tokens_cached is not None and cost.prompt_tokens_evaluated is not None:
        total = cost.prompt_tokens_cached + cost.prompt_tokens_evaluated
        if total:
            parts.append(f"prompt tokens {cost.prompt_tokens_cached:,} from the server's cache, "
                         f"{cost.prompt_tokens_evaluated:,} computed ({cost.prompt_tokens_cached / total * 100:.0f}% "
                         "cached)")
    elif cost.prompt_tokens_cached is not None:
        parts.append(f"prompt tokens from the server's cache: {cost.prompt_tokens_cached:,}")
    return "; ".join(parts)
