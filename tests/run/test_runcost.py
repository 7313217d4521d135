"""Where a run's time and prompt tokens went: the cost record from the servers' own replies, and the job
order."""

from __future__ import annotations

from engine.core.schema import Timings, TrialRecord, Turn, Usage
from engine.run.runcost import TIMINGS_SOURCE, USAGE_SOURCE, describe, run_cost
from engine.run.runner import job_list


def _trial(task: str, trial: int, waits_ms: list[float], cached: int | None = None,
           evaluated: int | None = None, tps: float | None = None) -> TrialRecord:
    turns = [Turn(role="user", content="q")]
    for ms in waits_ms:
        turns.append(Turn(role="assistant", content="a", timings=Timings(wall_ms=ms, decode_tps=tps),
                          usage=Usage(prompt_tokens=100, cached_prompt_tokens=cached,
                                      evaluated_prompt_tokens=evaluated)))
    return TrialRecord(task_id=task, task_hash="h", module="knowledge", trial=trial, turns=turns)


def test_cost_from_llama_cpp_timings_sums_cached_and_computed_tokens_and_the_waits():
    trials = [_trial("a", 0, [1500.0, 500.0], cached=600, evaluated=100, tps=120.0),
              _trial("b", 0, [1000.0], cached=13, evaluated=613, tps=100.0)]
    cost = run_cost(trials, wall_s=4.0, concurrency=1)
    assert (cost.trials_run, cost.server_wait_s, cost.wall_s) == (2, 3.0, 4.0)
    assert (cost.prompt_tokens_cached, cost.prompt_tokens_evaluated) == (1213, 813)
    assert cost.cache_source == TIMINGS_SOURCE and cost.decode_tps_median == 120.0
    line = describe(cost)
    assert "75.0% of it waiting for the server" in line and "60% cached" in line
    assert "median decode 120.0 tokens/s" in line


def test_a_reply_without_a_computed_count_leaves_only_the_cached_total():
    trials = [_trial("a", 0, [1000.0], cached=40, evaluated=10), _trial("b", 0, [1000.0], cached=40)]
    cost = run_cost(trials, wall_s=2.0, concurrency=2)
    assert (cost.prompt_tokens_cached, cost.prompt_tokens_evaluated, cost.cache_source) == (80, None, USAGE_SOURCE)
    assert "at concurrency 2" in describe(cost)


def test_cost_from_usage_states_only_what_the_server_reported():
    cost = run_cost([_trial("a", 0, [1000.0, 1000.0], cached=40)], wall_s=2.5, concurrency=1)
    assert (cost.prompt_tokens_cached, cost.prompt_tokens_evaluated, cost.cache_source) == (80, None, USAGE_SOURCE)
    assert "prompt tokens from the server's cache: 80" in describe(cost)
    silent = run_cost([_trial("a", 0, [1000.0])], wall_s=1.0, concurrency=1)
    assert silent.prompt_tokens_cached is None and silent.cache_source is None
    assert silent.decode_tps_median is None and silent.replies_stopped_as_loops is None
    assert "cache" not in describe(silent)


def test_replies_ended_by_stop_loops_are_counted_in_the_summary():
    cost = run_cost([_trial("a", 0, [1000.0])], wall_s=1.0, concurrency=1, loops_stopped=3)
    assert cost.replies_stopped_as_loops == 3 and "--stop-loops ended 3" in describe(cost)


def test_job_order_runs_a_tasks_trials_back_to_back_and_skips_done_ones():
    class T:
        def __init__(self, tid: str):
            self.id = tid

    a, b = T("a"), T("b")
    by_task = [(t.id, i) for t, i in job_list([a, b], 2, {("a", 1)})]
    assert by_task == [("a", 0), ("b", 0), ("b", 1)]
    by_trial = [(t.id, i) for t, i in job_list([a, b], 2, set(), order="trial")]
    assert by_trial == [("a", 0), ("b", 0), ("a", 1), ("b", 1)]
