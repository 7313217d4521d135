"""Re-deriving a result file: each forged fact is named with the trial, the field, the stored and the re-derived
value; an honest file (made by the real runner) re-derives with no problem. (The committed reference file is
re-derived once, by the pull-request check's tests.)"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine.bank.hashes import load_hash_record
from engine.core.schema import Grade, RunFile, TrialRecord
from engine.run.rederive import Problem, rederive_run
from engine.run.rescore import sandbox_factory
from tests.conftest import ROOT
from tests.helpers.honest_run import make_honest_run

TASKS = ROOT / "tasks"
BWRAP = sandbox_factory("bubblewrap")


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> RunFile:
    return make_honest_run(tmp_path_factory.mktemp("honest") / "qwen3-8b_raw_results.json")


def _forge(run: RunFile, task_id: str, index: int, change: Callable[[TrialRecord], TrialRecord]) -> RunFile:
    trials = [change(t) if (t.task_id, t.trial) == (task_id, index) else t for t in run.trials]
    return run.model_copy(update={"trials": trials})


def _problems(run: RunFile) -> list[Problem]:
    return rederive_run(run, TASKS, sandbox_factory=BWRAP)


def _grade(t: TrialRecord, **update: object) -> TrialRecord:
    assert t.grade is not None
    return t.model_copy(update={"grade": t.grade.model_copy(update=update)})


def test_an_honest_file_re_derives(honest: RunFile) -> None:
    assert _problems(honest) == []


def test_a_flipped_verdict_names_the_trial_the_field_and_both_values(honest: RunFile) -> None:
    forged = _forge(honest, "kn_slice_reverse", 1, lambda t: _grade(t, passed=True, score=1.0))
    problems = _problems(forged)
    assert {(p.where, p.field) for p in problems} == {("kn_slice_reverse#1", "grade.passed"),
                                                       ("kn_slice_reverse#1", "grade.score")}
    passed = next(p for p in problems if p.field == "grade.passed")
    assert "stored True, re-derived False" in passed.message and "sllmb rescore --in-place" in passed.message


def test_a_flipped_code_verdict_is_regraded_in_the_sandbox(honest: RunFile) -> None:
    forged = _forge(honest, "code_split_bill", 0, lambda t: _grade(t, reason="all good", breakdown={"hidden": 1.0}))
    fields = {p.field for p in _problems(forged)}
    assert fields == {"grade.reason", "grade.breakdown"}


def test_a_code_trial_with_no_sandbox_is_not_passed_unchecked(honest: RunFile) -> None:
    def no_sandbox() -> object:
        from engine.core.errors import UserError

        raise UserError("no sandbox here")

    problems = rederive_run(honest, TASKS, sandbox_factory=no_sandbox)
    assert {p.where for p in problems} == {"code_split_bill#0", "code_split_bill#1"}
    assert all("could not be regraded" in p.message and "no sandbox here" in p.message for p in problems)


def test_an_error_on_a_passing_trial_does_not_hide_it_from_the_regrade(honest: RunFile) -> None:
    forged = _forge(honest, "kn_slice_reverse", 0, lambda t: _grade(t, passed=True, score=1.0).model_copy(
        update={"error": "server hiccup"}))
    problems = _problems(forged)
    assert {p.field for p in problems} >= {"grade.passed", "grade.score", "grade.reason"}
    assert all(p.where == "kn_slice_reverse#0" for p in problems)


def test_an_excluded_trial_scores_nothing(honest: RunFile) -> None:
    forged = _forge(honest, "kn_bakery_batches", 0, lambda t: t.model_copy(update={"infra": True}))
    problems = _problems(forged)
    assert {p.field for p in problems} == {"grade", "error"}


def test_a_trial_with_no_grade_must_be_excluded(honest: RunFile) -> None:
    forged = _forge(honest, "kn_slice_reverse", 0, lambda t: t.model_copy(update={"grade": None}))
    assert [p.field for p in _problems(forged)] == ["grade"]


def _cut(t: TrialRecord) -> TrialRecord:
    turns = list(t.turns)
    turns[-1] = turns[-1].model_copy(update={"finish_reason": "length"})
    return t.model_copy(update={"turns": turns})


def test_a_cut_reply_cannot_pass_whatever_the_file_says(honest: RunFile) -> None:
    # The reply ran out of tokens, and the file calls the trial complete: refused.
    problems = _problems(_forge(honest, "kn_bakery_batches", 0, _cut))
    assert [(p.field, "finish_reason 'length'" in p.message) for p in problems] == [("truncation", True)]
    # Called a truncation but graded a pass: refused field by field.
    forged = _forge(honest, "kn_bakery_batches", 1, lambda t: _cut(t).model_copy(
        update={"truncation": "incomplete", "error": "the reply ran out"}))
    fields = {p.field for p in _problems(forged)}
    assert {"grade.passed", "grade.score", "grade.reason"} <= fields


def test_a_truncation_whose_last_reply_was_not_cut_is_refused(honest: RunFile) -> None:
    forged = _forge(honest, "kn_slice_reverse", 0, lambda t: t.model_copy(update={
        "truncation": "degenerate", "error": "cut", "grade": Grade(score=0.0, passed=False,
                                                                   reason="truncated (degenerate)",
                                                                   hard_gate="degenerate")}))
    assert [p.field for p in _problems(forged)] == ["truncation"]


def test_a_model_failure_fails_with_score_zero(honest: RunFile) -> None:
    ok = _forge(honest, "kn_slice_reverse", 0, lambda t: t.model_copy(update={
        "error": "the conversation no longer fits", "grade": Grade(score=0.0, passed=False,
                                                                   reason="context_overflow")}))
    assert _problems(ok) == []
    forged = _forge(honest, "kn_slice_reverse", 0, lambda t: t.model_copy(update={
        "error": "whatever", "grade": Grade(score=0.5, passed=False, reason="made_up")}))
    assert {p.field for p in _problems(forged)} == {"grade.reason", "grade.score"}


def test_a_forged_task_hash_and_a_past_one_are_told_apart(honest: RunFile) -> None:
    forged = _forge(honest, "kn_bakery_batches", 0, lambda t: t.model_copy(update={"task_hash": "0123456789abcdef"}))
    problems = [p for p in _problems(forged) if p.field == "task_hash"]
    assert any("which this task never had" in p.message for p in problems)
    # A hash the task had before (recorded in tasks/HASHES.yaml) is an older version: re-run, not forged.
    task, past = "adv_direct_extraction", load_hash_record(TASKS).tasks["adv_direct_extraction"][0]
    older = honest.trials[0].model_copy(update={"task_id": task, "task_hash": past, "module": "adversarial"})
    run = honest.model_copy(update={"trials": [*honest.trials, older]})
    messages = [p.message for p in _problems(run) if (p.where, p.field) == (f"{task}#0", "task_hash")]
    assert any("an older version of the task" in m and "re-issue the same `sllmb run`" in m for m in messages)


def test_trials_must_match_settings_and_seeds_the_runner_gives(honest: RunFile) -> None:
    more = honest.model_copy(update={"settings": honest.settings.model_copy(update={"trials": 3})})
    problems = _problems(more)
    assert {p.where for p in problems} == {t.task_id for t in honest.trials}
    assert all(p.field == "trials" and "missing [2]" in p.message for p in problems)

    seeded = _forge(honest, "kn_rail_pass", 1, lambda t: t.model_copy(update={"seed": 7}))
    assert [(p.where, p.field) for p in _problems(seeded)] == [("kn_rail_pass#1", "seed")]

    twice = honest.model_copy(update={"trials": [*honest.trials, honest.trials[-1]]})
    assert any("more than once" in p.message for p in _problems(twice))


def test_a_conversation_that_goes_on_after_a_cut_reply_is_refused(honest: RunFile) -> None:
    def cut_then_more(t: TrialRecord) -> TrialRecord:
        cut = t.turns[-1].model_copy(update={"finish_reason": "length"})
        return t.model_copy(update={"turns": [*t.turns[:-1], cut, *t.turns[-2:]]})

    problems = _problems(_forge(honest, "kn_rail_pass", 0, cut_then_more))
    assert ("kn_rail_pass#0", "turns") in {(p.where, p.field) for p in problems}


def test_a_cut_after_a_complete_answer_re_derives_graded_on_it(honest: RunFile) -> None:
    def cut_after_answer(t: TrialRecord) -> TrialRecord:
        assert t.grade is not None and t.grade.passed
        turns = list(t.turns)
        turns[-1] = turns[-1].model_copy(update={"content": turns[-1].content + "\n\nThat is because the",
                                                 "finish_reason": "length"})
        grade = t.grade.model_copy(update={"unsure": "check: cut by the token limit after its answer",
                                           "details": {**t.grade.details, "graded_after_cut": True}})
        return t.model_copy(update={"turns": turns, "truncation": "incomplete", "error": "ran out", "grade": grade})

    forged = _forge(honest, "kn_bakery_batches", 1, cut_after_answer)
    assert _problems(forged) == []
    # The same file with the class left out, or the cut forgotten, is refused.
    wrong = _forge(forged, "kn_bakery_batches", 1, lambda t: t.model_copy(update={"truncation": "degenerate"}))
    assert [p.field for p in _problems(wrong)] == ["truncation"]
