"""Where a run's time and prompt tokens went: the log reader, the cost record, and the job order."""

from __future__ import annotations

from engine.runcost import LOG_SOURCE, USAGE_SOURCE, PromptCounters, counters_from_log, describe, run_cost
from engine.runner import job_list
from engine.schema import Timings, TrialRecord, Turn, Usage

# Lines as the llama-cpp-python 0.3 server writes them: a cold request, then one that reused a prefix.
LOG = """\
INFO:     127.0.0.1:45168 - "POST /v1/chat/completions HTTP/1.1" 200 OK
llama_perf_context_print:        load time =       0.78 ms
llama_perf_context_print: prompt eval time =    7116.03 ms /   676 tokens (   10.53 ms per token,    95.00 tokens per second)
llama_perf_context_print:        eval time =  121445.22 ms /   555 runs   (  218.82 ms per token,     4.57 tokens per second)
INFO:     127.0.0.1:59528 - "POST /v1/chat/completions HTTP/1.1" 200 OK
Llama.generate: 1213 prefix-match hit, remaining 137 prompt tokens to eval
llama_perf_context_print:        load time =       0.78 ms
llama_perf_context_print: prompt eval time =    1830.45 ms /   137 tokens (   13.36 ms per token,    74.84 tokens per second)
llama_perf_context_print:        eval time =   55924.25 ms /   220 runs   (  254.20 ms per token,     3.93 tokens per second)
"""  # noqa: E501


def _trial(task: str, trial: int, waits_ms: list[float], cached: int | None = None) -> TrialRecord:
    turns = [Turn(role="user", content="q")]
    for ms in waits_ms:
        turns.append(Turn(role="assistant", content="a", timings=Timings(wall_ms=ms),
                          usage=Usage(prompt_tokens=100, cached_prompt_tokens=cached)))
    return TrialRecord(task_id=task, task_hash="h", module="knowledge", trial=trial, turns=turns)


def test_log_counters_count_requests_cached_and_evaluated_tokens():
    assert counters_from_log(LOG) == PromptCounters(requests=2, cached=1213, evaluated=676 + 137)
    assert counters_from_log("") == PromptCounters()


def test_counters_since_take_only_the_run_share():
    before = counters_from_log(LOG.split("INFO:     127.0.0.1:59528")[0])
    assert counters_from_log(LOG).since(before) == PromptCounters(requests=1, cached=1213, evaluated=137)


def test_cost_from_the_log_sums_the_waits_of_every_call():
    trials = [_trial("a", 0, [1500.0, 500.0]), _trial("b", 0, [1000.0])]
    cost = run_cost(trials, wall_s=4.0, concurrency=1, log_counters=PromptCounters(2, 1213, 813))
    assert (cost.trials_run, cost.server_wait_s, cost.wall_s) == (2, 3.0, 4.0)
    assert (cost.prompt_tokens_cached, cost.prompt_tokens_evaluated, cost.cache_source) == (1213, 813, LOG_SOURCE)
    line = describe(cost)
    assert "75.0% of it waiting for the server" in line and "60% cached" in line


def test_cost_from_usage_states_only_what_the_server_reported():
    cost = run_cost([_trial("a", 0, [1000.0, 1000.0], cached=40)], wall_s=2.5, concurrency=1)
    assert (cost.prompt_tokens_cached, cost.prompt_tokens_evaluated, cost.cache_source) == (80, None, USAGE_SOURCE)
    assert "prompt tokens from the server's cache: 80" in describe(cost)
    silent = run_cost([_trial("a", 0, [1000.0])], wall_s=1.0, concurrency=1)
    assert silent.prompt_tokens_cached is None and silent.cache_source is None
    assert "cache" not in describe(silent)


def test_job_order_runs_a_tasks_trials_back_to_back_and_skips_done_ones():
    class T:
        def __init__(self, tid: str):
            self.id = tid

    a, b = T("a"), T("b")
    by_task = [(t.id, i) for t, i in job_list([a, b], 2, {("a", 1)})]
    assert by_task == [("a", 0), ("b", 0), ("b", 1)]
    by_trial = [(t.id, i) for t, i in job_list([a, b], 2, set(), order="trial")]
    assert by_trial == [("a", 0), ("b", 0), ("a", 1), ("b", 1)]
