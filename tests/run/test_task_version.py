"""A task's grading version: outside the hash (rescore regrades), inside the resume rule (old grades re-run)."""

from __future__ import annotations

from pathlib import Path

import yaml

from engine.bank.load import load_task
from engine.core.results import load_run_file
from engine.run.request import RunRequest
from engine.run.rescore import rescore_run
from engine.run.runner import run_benchmark
from tests.conftest import ROOT, knowledge_responder
from tests.helpers.scripted_server import ScriptedServer

TASK = "kn_rail_pass"


def bank_with_version(tmp_path: Path, version: int | None) -> Path:
    root = tmp_path / f"tasks_v{version}"
    (root / "knowledge").mkdir(parents=True, exist_ok=True)
    raw = yaml.safe_load((ROOT / "tasks" / "knowledge" / f"{TASK}.yaml").read_text())
    raw.pop("version", None)  # None: a file without the field (version 1), whatever the bank's file says
    if version is not None:
        raw["version"] = version
    (root / "knowledge" / f"{TASK}.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    return root


def test_the_version_is_outside_the_hash_but_a_prompt_change_is_not(tmp_path):
    plain = load_task(bank_with_version(tmp_path, None) / "knowledge" / f"{TASK}.yaml")
    bumped = load_task(bank_with_version(tmp_path, 3) / "knowledge" / f"{TASK}.yaml")
    assert plain.task.version == 1 and bumped.task.version == 3
    assert plain.hash == bumped.hash
    path = bank_with_version(tmp_path, 3) / "knowledge" / f"{TASK}.yaml"
    raw = yaml.safe_load(path.read_text())
    raw["body"]["question"] += " Show your work."
    path.write_text(yaml.safe_dump(raw))
    assert load_task(path).hash != plain.hash


def run_once(tasks_dir: Path, out: Path, srv: ScriptedServer) -> None:
    run_benchmark(RunRequest(model="scripted", endpoint=srv.url, output=out, trials=1, tasks_dir=tasks_dir,
                            backoff_s=0.01, max_retries=0, show_progress=False))


def test_rescore_regrades_a_bumped_task_and_records_its_version(tmp_path):
    out = tmp_path / "r.json"
    with ScriptedServer(knowledge_responder()) as srv:
        run_once(bank_with_version(tmp_path, None), out, srv)
    report = rescore_run(load_run_file(out), bank_with_version(tmp_path, 2))
    assert report.regraded == 1 and not report.hash_mismatch
    assert [t.task_version for t in report.run.trials] == [2]


def test_resume_reruns_a_trial_graded_under_an_older_version(tmp_path):
    out = tmp_path / "r.json"
    with ScriptedServer(knowledge_responder()) as srv:
        run_once(bank_with_version(tmp_path, None), out, srv)
        first = len(srv.requests)
        run_once(bank_with_version(tmp_path, None), out, srv)
        assert len(srv.requests) == first, "an up-to-date trial must be kept"
        bumped = bank_with_version(tmp_path, 2)
        run_once(bumped, out, srv)
        assert len(srv.requests) > first, "a trial graded under version 1 must run again under version 2"
    assert [t.task_version for t in load_run_file(out).trials] == [2]


def test_rescore_stamps_the_version_on_a_trial_that_failed_before_grading(tmp_path):
    from tests.helpers.scripted_server import Action, sequence

    out = tmp_path / "r.json"
    with ScriptedServer(sequence([Action(text="ha " * 400, finish_reason="length")])) as srv:
        run_once(bank_with_version(tmp_path, None), out, srv)
    (trial,) = load_run_file(out).trials
    assert trial.truncation == "degenerate" and trial.task_version == 1
    report = rescore_run(load_run_file(out), bank_with_version(tmp_path, 2))
    # A cut trial goes through the one rule for cuts (engine/episodes/cut.py): never answered, it fails as
    # the same truncation, now under the new version.
    assert report.regraded == 1 and report.untouched == 0 and not report.changed
    assert [t.task_version for t in report.run.trials] == [2]
    assert report.run.trials[0].grade == trial.grade
