"""Whole runs against hostile servers: each ends inside its limits with every trial recorded as the
infrastructure's or the model's failure, the process stays small, and no key reaches a file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.core.errors import UserError
from engine.core.results import load_run_file
from engine.model.requestlimits import STALL_AFTER, RequestLimits
from engine.run.checkpoint import Checkpoint, checkpoint_path
from engine.run.request import RunRequest
from engine.run.runner import run_benchmark
from tests.conftest import ROOT
from tests.helpers import hostile_server as hs
from tests.helpers.hostile_server import HostileServer

FAST = RequestLimits(first_byte_s=0.5, idle_s=0.5, total_s=3.0, max_retry_after_s=0.2)


def request(url: str, out: Path, **kw) -> RunRequest:
    base = dict(model="hostile", endpoint=url, output=out, trials=2, modules=["knowledge"], pattern="kn_rail*",
                backoff_s=0.01, max_retries=1, show_progress=False, limits=FAST)
    base.update(kw)
    return RunRequest(**base)


@pytest.mark.parametrize("behaviour", [
    hs.stream_events([1, 2, 3]),
    hs.stream_events({"choices": [{"index": 0, "delta": {"content": 42}}]}),
    hs.stream_events({"choices": [], "usage": {"prompt_tokens": "lots"}}),
    hs.huge_chunk(8),
], ids=["list_chunk", "number_content", "word_count", "huge_chunk"])
def test_a_run_against_a_hostile_server_records_every_trial_as_infra_and_resumes(tmp_path, behaviour):
    out = tmp_path / "r.json"
    with HostileServer(behaviour) as srv:
        run = run_benchmark(request(srv.url, out))
        again = run_benchmark(request(srv.url, out))  # infra trials run again on resume, and end the same way
    for trials in (run.trials, again.trials):
        assert len(trials) == 2 and all(t.infra and not t.scorable for t in trials)
    assert load_run_file(out).trials == again.trials


@pytest.mark.parametrize("behaviour", [hs.stall(20), hs.drip(every_s=0.1, seconds=20)], ids=["stall", "drip"])
def test_a_run_whose_requests_keep_timing_out_stops_resumably_with_every_trial_as_infra(tmp_path, behaviour):
    out = tmp_path / "r.json"
    with HostileServer(behaviour) as srv:
        with pytest.raises(UserError, match="re-issue the same command") as stopped:
            run_benchmark(request(srv.url, out))
        # 2 trials, each request tried twice: the third timeout in a row stopped the run, not the fourth
        assert len(srv.requests) == STALL_AFTER
    assert "3 requests in a row timed out" in str(stopped.value) and "--first-byte-timeout" in str(stopped.value)
    assert not out.exists()  # the run did not finish: no result file pretends it did
    header, trials = Checkpoint(checkpoint_path(out)).read()
    assert header is not None and len(trials) == 2 and all(t.infra for t in trials)


def test_an_echoed_key_reaches_neither_the_result_file_nor_the_checkpoint(tmp_path):
    key = "sk-live-" + "5" * 24
    out = tmp_path / "r.json"
    with HostileServer(hs.echo_headers(500)) as srv:
        run = run_benchmark(request(srv.url.replace("http://", "http://user:url-pass-4242@"), out, api_key=key))
    assert all(t.infra for t in run.trials) and "[redacted]" in run.trials[0].error
    for path in tmp_path.iterdir():
        text = path.read_text(encoding="utf-8")
        assert key not in text and "url-pass-4242" not in text, path


MEASURE = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=240)
sys.stderr.write(done.stderr)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


@pytest.mark.parametrize("behaviour,expect", [
    (hs.endless_tokens(seconds=60), "model"),
    (hs.huge_chunk(50), "infra"),
    (hs.many_tool_calls(10_000), "model"),
], ids=["endless_stream", "fifty_megabyte_chunk", "ten_thousand_calls"])
def test_the_bench_process_stays_under_500_mb_against_a_flood(tmp_path, behaviour, expect):
    out = tmp_path / "r.json"
    with HostileServer(behaviour) as srv:
        command = [sys.executable, "-m", "engine", "run", "--endpoint", srv.url, "--model", "m", "-q",
                   "--modules", "knowledge", "--filter", "kn_rail*", "--trials", "1", "-o", str(out),
                   "--no-warm-up", "--request-timeout", "20"]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        done = subprocess.run([sys.executable, "-c", MEASURE, *command], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=300)
    code, peak_kb = (int(x) for x in done.stdout.split())
    assert code == 0, done.stderr
    assert peak_kb < 500 * 1024, f"peak resident memory {peak_kb // 1024} MB"
    (trial,) = load_run_file(out).trials
    assert trial.infra is (expect == "infra")
    if expect == "model":
        assert trial.scorable and not trial.passed
    assert out.stat().st_size < 2 << 20  # nothing of the flood is stored whole


def test_a_reply_with_ten_thousand_calls_keeps_the_count_refused_in_the_trial(tmp_path):
    with HostileServer(hs.many_tool_calls(10_000)) as srv:
        run = run_benchmark(request(srv.url, tmp_path / "r.json", trials=1, limits=RequestLimits()))
    turns = [t for t in run.trials[0].turns if t.role == "assistant"]
    assert turns and len(turns[0].tool_calls) == RequestLimits().max_tool_calls
    assert turns[0].tool_calls_refused == 10_000 - RequestLimits().max_tool_calls
    assert json.loads(load_run_file(tmp_path / "r.json").model_dump_json())["trials"][0]["turns"]
