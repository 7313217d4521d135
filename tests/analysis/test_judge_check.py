"""Re-applying a judged file under the judge's rules: a file the judge wrote (through a loopback judge) passes;
each hand-made verdict the rules do not give is named with the trial and the field."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engine.analysis.judge import JudgedFile, TrialVerdict, judge_run
from engine.analysis.judge_check import rederive_judged
from engine.core.results import load_run_file
from tests.analysis.test_judge import cfg, fair_judge, write_raw
from tests.helpers.scripted_server import ScriptedServer


@pytest.fixture
def judged(tmp_path: Path) -> tuple[JudgedFile, Path]:
    raw = write_raw(tmp_path)
    with ScriptedServer(fair_judge) as srv:
        return judge_run(load_run_file(raw), raw, cfg(srv.url)), raw


def _check(judged: JudgedFile, raw: Path) -> list[tuple[str, str]]:
    return [(p.where, p.field) for p in rederive_judged(judged, raw, load_run_file(raw))]


def _edit(judged: JudgedFile, task_id: str, change: Callable[[TrialVerdict], TrialVerdict]) -> JudgedFile:
    verdicts = [change(v) if v.task_id == task_id else v for v in judged.verdicts]
    return judged.model_copy(update={"verdicts": verdicts})


def test_a_file_the_judge_wrote_re_applies(judged) -> None:
    file, raw = judged
    assert rederive_judged(file, raw, load_run_file(raw)) == []


def test_a_hard_gate_is_never_crossed(judged) -> None:
    file, raw = judged
    forged = _edit(file, "tl_gate", lambda v: v.model_copy(update={
        "status": "rescued", "final_passed": True, "final_score": 1.0, "refusal": None}))
    forged = forged.model_copy(update={"changed": file.changed + 1, "refused": file.refused - 1})
    assert set(_check(forged, raw)) == {("verdicts tl_gate#0", "status"), ("verdicts tl_gate#0", "final_score"),
                                        ("verdicts tl_gate#0", "final_passed"), ("verdicts tl_gate#0", "refusal")}


def test_an_advisory_module_keeps_its_verdict(judged) -> None:
    file, raw = judged
    forged = _edit(file, "cd_x", lambda v: v.model_copy(update={
        "status": "rescued", "final_passed": True, "final_score": 0.99}))
    forged = forged.model_copy(update={"changed": file.changed + 1})
    assert ("verdicts cd_x#0", "status") in _check(forged, raw)


def test_a_rescue_below_the_threshold_is_refused(judged) -> None:
    file, raw = judged
    forged = _edit(file, "tl_near", lambda v: v.model_copy(update={"judge_score": 0.93, "final_score": 0.93}))
    problems = rederive_judged(forged, raw, load_run_file(raw))
    assert [(p.where, p.field) for p in problems][:1] == [("verdicts tl_near#0", "status")]
    assert "stored 'rescued', the judge's rules give 'refused'" in problems[0].message


def test_a_never_judged_module_has_no_verdict(judged) -> None:
    file, raw = judged
    extra = file.verdicts[0].model_copy(update={"task_id": "kn_x", "module": "knowledge", "task_hash": "h-kn_x",
                                                "det_score": 1.0, "det_passed": True, "hard_gate": None})
    forged = file.model_copy(update={"verdicts": [*file.verdicts, extra]})
    assert ("verdicts kn_x#0", "status") in _check(forged, raw)


def test_counts_thresholds_and_the_raw_files_hash_are_re_derived(judged) -> None:
    file, raw = judged
    forged = file.model_copy(update={"changed": 9, "raw_sha256": "0" * 64,
                                     "judge": file.judge.model_copy(update={"rescue_min": 0.5})})
    assert set(_check(forged, raw)) == {("judged file", "changed"), ("judged file", "raw_sha256"),
                                        ("judged file", "judge.rescue_min")}
    # The raw file edited after judging: the hash no longer matches.
    raw.write_bytes(raw.read_bytes() + b"\n")
    assert ("judged file", "raw_sha256") in _check(file, raw)


def test_a_reply_cut_at_the_token_limit_is_never_rescued() -> None:
    from engine.analysis.judge.rules import decide, trial_hard_gate
    from engine.core.schema import Grade, TrialRecord
    from tests.analysis.test_judge import reply

    cut = TrialRecord(task_id="tl_x", task_hash="h", module="tools", trial=0, truncation="incomplete",
                      error="the reply ran out", grade=Grade(score=0.0, passed=False, reason="truncated (incomplete)"))
    gate = trial_hard_gate(cut)
    assert gate == "truncated"
    assert decide("tools", 0.0, False, gate, reply(True, 1.0)).status == "refused"
