"""What a run cost: the time spent waiting for the server against the time spent in the engine, the prompt
tokens the server served from its prefix cache against those it computed again, and its decode rate.

Every figure comes from the trial records, that is from the server's own replies: llama.cpp (the embedded
server included) sends ``timings`` with ``cache_n`` (prompt tokens taken from the cache), ``prompt_n``
(computed) and ``predicted_per_second`` on every reply; vLLM reports
``prompt_tokens_details.cached_tokens`` alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import median

from engine.core.schema import RunCost, TrialRecord, Usage

TIMINGS_SOURCE = "llama.cpp timings (cache_n, prompt_n) of every reply"
USAGE_SOURCE = "cached-token counts the server reported per reply"


def server_wait_s(trials: list[TrialRecord]) -> float:
    """Seconds spent inside model calls (request sent to last byte received), summed over the trials."""
    total_ms = sum(t.timings.wall_ms for tr in trials for t in tr.turns if t.role == "assistant" and t.timings)
    return total_ms / 1000


def _usages(trials: list[TrialRecord]) -> list[Usage]:
    return [t.usage for tr in trials for t in tr.turns if t.role == "assistant" and t.usage]


def run_minutes(duration_s: float) -> float | None:
    """A run's run time in minutes, unrounded: the wall time of its trials (from the first trial sent to the
    last one's end), summed over every invocation that wrote the result file, so a resumed run counts each
    attempt once and the time between attempts not at all. The one figure the scorecard, the board, its card
    and the reference README quote (``engine.publish.glossary.RUN_TIME`` says it in words); None when the file
    records no time."""
    return duration_s / 60.0 if duration_s > 0 else None


def decode_median(trials: Sequence[TrialRecord]) -> float | None:
    """The median decode rate (tokens/s) over the replies whose server reported one, unrounded: the one
    computation the run cost, the scorecard and the board share (each rounds as it shows it)."""
    rates = [t.timings.decode_tps for tr in trials for t in tr.turns
             if t.role == "assistant" and t.timings and t.timings.decode_tps]
    return median(rates) if rates else None


def run_cost(trials: list[TrialRecord], wall_s: float, concurrency: int,
             loops_stopped: int | None = None, skipped_as_decided: int | None = None) -> RunCost:
    """The cost of the trials one invocation ran. Where every reply said both how many prompt tokens came
    from the cache and how many were computed, both are summed; where replies gave only the cached count,
    only that is stated, since servers disagree on whether prompt_tokens includes the cached part."""
    usages = _usages(trials)
    decode = decode_median(trials)
    cached: int | None = None
    evaluated: int | None = None
    source: str | None = None
    if usages and all(u.cached_prompt_tokens is not None and u.evaluated_prompt_tokens is not None
                      for u in usages):
        cached = sum(u.cached_prompt_tokens or 0 for u in usages)
        evaluated = sum(u.evaluated_prompt_tokens or 0 for u in usages)
        source = TIMINGS_SOURCE
    else:
        reported = [u for u in usages if u.cached_prompt_tokens is not None]
        if reported:
            cached = sum(u.cached_prompt_tokens or 0 for u in reported)
            source = USAGE_SOURCE
    return RunCost(
        trials_run=len(trials),
        wall_s=round(wall_s, 3),
        concurrency=concurrency,
        server_wait_s=round(server_wait_s(trials), 3),
        prompt_tokens_cached=cached,
        prompt_tokens_evaluated=evaluated,
        cache_source=source,
        decode_tps_median=None if decode is None else round(decode, 1),
        replies_stopped_as_loops=loops_stopped,
        trials_skipped_as_decided=skipped_as_decided,
    )


def describe(cost: RunCost) -> str:
    """One line for the scorecard."""
    if cost.trials_run == 0 or cost.wall_s <= 0:
        return "no trial was run by this invocation"
    share = cost.server_wait_s / (cost.wall_s * cost.concurrency)
    parts = [f"this invocation: {cost.trials_run} trial(s) in {cost.wall_s / 60:.1f} min at concurrency "
             f"{cost.concurrency}, {share * 100:.1f}% of it waiting for the server"]
    if cost.prompt_tokens_cached is not None and cost.prompt_tokens_evaluated is not None:
        total = cost.prompt_tokens_cached + cost.prompt_tokens_evaluated
        if total:
            parts.append(f"prompt tokens {cost.prompt_tokens_cached:,} from the server's cache, "
                         f"{cost.prompt_tokens_evaluated:,} computed ({cost.prompt_tokens_cached / total * 100:.0f}% "
                         "cached)")
    elif cost.prompt_tokens_cached is not None:
        parts.append(f"prompt tokens from the server's cache: {cost.prompt_tokens_cached:,}")
    if cost.decode_tps_median is not None:
        parts.append(f"median decode {cost.decode_tps_median:.1f} tokens/s per stream")
    if cost.replies_stopped_as_loops:
        parts.append(f"--stop-loops ended {cost.replies_stopped_as_loops} looping repl(ies) early")
    if cost.trials_skipped_as_decided:
        parts.append(f"--early-stop skipped {cost.trials_skipped_as_decided} trial(s) of tasks already failed")
    return "; ".join(parts)
