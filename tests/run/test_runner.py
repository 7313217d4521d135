"""The runner end to end against the scripted server: grading, exclusions, resume, bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.core.results import load_run_file
from engine.run.request import RunRequest
from engine.run.runner import run_benchmark
from tests.conftest import ROOT, knowledge_responder
from tests.helpers.scripted_server import Action, ScriptedServer, sequence


def request(url: str, out: Path, **kw) -> RunRequest:
    base = dict(model="scripted", endpoint=url, output=out, trials=2, modules=["knowledge"],
                backoff_s=0.01, max_retries=1, show_progress=False)
    base.update(kw)
    return RunRequest(**base)


def test_knowledge_module_scores_right_and_wrong_answers(tmp_path):
    with ScriptedServer(knowledge_responder(wrong_for=("bakery",))) as srv:
        run = run_benchmark(request(srv.url, tmp_path / "r.json"))
    by_task = {}
    for t in run.trials:
        by_task.setdefault(t.task_id, []).append(t.passed)
    assert by_task["kn_bakery_batches"] == [False, False]
    assert all(all(v) for k, v in by_task.items() if k != "kn_bakery_batches")
    assert len(run.trials) == 8
    assert [t.seed for t in run.trials if t.task_id == "kn_rail_pass"] == [0, 1]
    saved = load_run_file(tmp_path / "r.json")
    assert saved == run
    assert not (tmp_path / "r.partial.jsonl").exists()


def test_infra_failures_are_recorded_and_excluded(tmp_path):
    with ScriptedServer(sequence([Action(status=503)])) as srv:
        run = run_benchmark(request(srv.url, tmp_path / "r.json", trials=1, pattern="kn_rail*"))
    (trial,) = run.trials
    assert trial.infra and not trial.scorable and "503" in trial.error


def test_truncation_fails_the_trial_with_its_class(tmp_path):
    looping = "ha " * 400
    with ScriptedServer(sequence([Action(text=looping, finish_reason="length")])) as srv:
        run = run_benchmark(request(srv.url, tmp_path / "r.json", trials=1, pattern="kn_rail*"))
    (trial,) = run.trials
    assert trial.truncation == "degenerate" and trial.scorable and not trial.passed
    assert trial.grade.hard_gate == "degenerate"


def test_endpoint_credentials_never_reach_the_result_file(tmp_path):
    with ScriptedServer(knowledge_responder()) as srv:
        url = srv.url.replace("http://", "http://user:sk-leak-999@")
        run_benchmark(request(url, tmp_path / "r.json", trials=1, api_key="sk-leak-888"))
    text = (tmp_path / "r.json").read_text()
    assert "sk-leak" not in text and "user" not in json.loads(text)["settings"]["endpoint_host"]


def test_resume_reruns_only_missing_and_changed_trials(tmp_path):
    out = tmp_path / "r.json"
    with ScriptedServer(knowledge_responder()) as srv:
        run_benchmark(request(srv.url, out))
        first = len(srv.requests)
        run_benchmark(request(srv.url, out))  # nothing left to do
        assert len(srv.requests) == first
        run_benchmark(request(srv.url, out, add_trials=1))
        assert len(srv.requests) == first + 4
    run = load_run_file(out)
    assert run.settings.trials == 3 and len(run.trials) == 12


def test_changed_settings_refuse_to_resume(tmp_path):
    from engine.core.errors import UserError

    out = tmp_path / "r.json"
    with ScriptedServer(knowledge_responder()) as srv:
        run_benchmark(request(srv.url, out, trials=1))
        with pytest.raises(UserError, match="temperature"):
            run_benchmark(request(srv.url, out, trials=1, temperature=0.7))


# ----------------------------------------------------------------------------------------------------------
# Through the real command line, in a subprocess


def cli(*args: str, cwd: Path = ROOT, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    full_env.pop("BENCH_ENDPOINT", None)
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=timeout)


def comparable(path: Path) -> list[dict]:
    """The trial content that must not depend on interruptions: everything but clocks."""
    run = load_run_file(path)
    out = []
    for t in run.trials:
        d = t.model_dump(exclude={"wall_s"})
        for turn in d["turns"]:
            turn.pop("timings", None)
        out.append(d)
    return out


def test_sigkill_at_several_points_then_resume_equals_an_uninterrupted_run(tmp_path):
    args = ["run", "--model", "scripted", "--modules", "knowledge", "--trials", "4", "-q"]
    with ScriptedServer(knowledge_responder(wrong_for=("words = ",), delay_s=0.05)) as srv:
        clean = tmp_path / "clean.json"
        done = cli(*args, "--endpoint", srv.url, "--output", str(clean))
        assert done.returncode == 0, done.stderr
        out = tmp_path / "killed.json"
        partial = tmp_path / "killed.partial.jsonl"
        for kill_after in (1, 5, 11):
            proc = subprocess.Popen([sys.executable, "-m", "engine", *args, "--endpoint", srv.url,
                                     "--output", str(out)], cwd=ROOT,
                                    env={**os.environ, "PYTHONPATH": str(ROOT)},
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                lines = partial.read_text().count("\n") if partial.exists() else 0
                if lines - 1 >= kill_after or proc.poll() is not None:
                    break
                time.sleep(0.01)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            assert not out.exists(), "no final file may appear before the run completes"
        resumed = cli(*args, "--endpoint", srv.url, "--output", str(out))
        assert resumed.returncode == 0, resumed.stderr
    assert comparable(out) == comparable(clean)
    keys = [(t["task_id"], t["trial"]) for t in comparable(out)]
    assert len(keys) == len(set(keys)) == 16


def test_unreachable_endpoint_exits_2_and_writes_nothing(tmp_path):
    out = tmp_path / "r.json"
    done = cli("run", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m", "--output", str(out), "-q")
    assert done.returncode == 2
    assert "cannot reach the endpoint" in done.stderr
    assert not out.exists() and not (tmp_path / "r.partial.jsonl").exists()


def test_malformed_task_file_names_file_and_field(tmp_path):
    bank = tmp_path / "tasks" / "knowledge"
    bank.mkdir(parents=True)
    (bank / "bad.yaml").write_text(
        "id: bad\nmodule: knowledge\ntitle: t\nwhat_this_tests: x\nfailure_mode: y\nsurprise: 1\n"
        "body: {kind: arithmetic, question: q, answer: '1'}\n")
    done = cli("tasks", "--tasks-dir", str(tmp_path / "tasks"))
    assert done.returncode == 2
    assert "bad.yaml" in done.stderr and "surprise" in done.stderr and "unknown key" in done.stderr
    (bank / "bad.yaml").write_text(
        "id: bad\nmodule: knowledge\ntitle: t\nwhat_this_tests: x\nfailure_mode: y\n"
        "body: {kind: guess, question: q, answer: '1'}\n")
    done = cli("tasks", "--tasks-dir", str(tmp_path / "tasks"))
    assert done.returncode == 2 and "body.kind" in done.stderr


def test_output_under_a_file_exits_2_and_nothing_is_half_written(tmp_path):
    blocker = tmp_path / "not_a_dir"
    blocker.write_text("keep me")
    with ScriptedServer(knowledge_responder()) as srv:
        done = cli("run", "--endpoint", srv.url, "--model", "m", "--output", str(blocker / "r.json"), "-q")
        assert srv.requests == [], "no model call may happen before the output is known to be writable"
    assert done.returncode == 2 and "cannot write the output" in done.stderr
    assert blocker.read_text() == "keep me"


def test_reasoning_is_kept_clipped_unless_save_responses(tmp_path):
    long_thought = "because " * 1000
    with ScriptedServer(sequence([Action(text="Answer: 85.80", reasoning=long_thought)])) as srv:
        clipped = run_benchmark(request(srv.url, tmp_path / "a.json", trials=1, pattern="kn_rail*"))
        full = run_benchmark(request(srv.url, tmp_path / "b.json", trials=1, pattern="kn_rail*", save_responses=True))
    kept = [t for t in clipped.trials[0].turns if t.role == "assistant"][0].reasoning
    assert kept.startswith("because") and "chars clipped" in kept and len(kept) < 4100
    assert [t for t in full.trials[0].turns if t.role == "assistant"][0].reasoning.strip() == long_thought.strip()
    assert clipped.trials[0].passed and full.trials[0].passed


def test_the_run_file_says_where_the_time_went(tmp_path):
    with ScriptedServer(knowledge_responder()) as srv:
        run = run_benchmark(request(srv.url, tmp_path / "r.json", trials=1))
        again = run_benchmark(request(srv.url, tmp_path / "r.json", trials=1, add_trials=1))
    cost = run.provenance.cost
    assert cost is not None and cost.trials_run == 4 and cost.concurrency >= 1
    calls = sum(t.timings.wall_ms for tr in run.trials for t in tr.turns if t.role == "assistant") / 1000
    assert cost.server_wait_s == pytest.approx(calls, abs=0.002) and 0 < cost.server_wait_s <= cost.wall_s
    assert cost.cache_source is None  # the scripted server reports no cached tokens
    # A resumed invocation accounts only for the trials it ran itself.
    assert again.provenance.cost.trials_run == 4 and len(again.trials) == 8


def test_the_commit_recorded_is_the_one_checked_out_when_the_run_started(tmp_path, monkeypatch):
    import engine.run.runner as runner_module

    commits = iter(["commit-at-start", "commit-made-during-the-run"])
    monkeypatch.setattr(runner_module, "_git_commit", lambda: next(commits))
    with ScriptedServer(knowledge_responder()) as srv:
        run = run_benchmark(request(srv.url, tmp_path / "r.json", trials=1))
    assert run.provenance.git_commit == "commit-at-start"
