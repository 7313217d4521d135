"""A code reply cut by the token limit while another attempt is left is an attempt that failed, and the episode
goes on (engine/episodes/cut.py, ``goes_on_after_cut``); only a cut on the last attempt is the trial's
truncation. Every transcript runs through the real runner against the scripted loopback server, the code in
real bubblewrap, and each trial is regraded from its stored turns and re-derived as the pull-request check
would."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from engine.core.schema import RunFile, TrialRecord, Turn
from engine.episodes import MODULES
from engine.episodes.base import Env
from engine.episodes.code.module import MODULE
from engine.episodes.cut import goes_on_after_cut
from engine.run.rederive import rederive_run
from engine.run.request import RunRequest
from engine.run.rescore import rescore_run, sandbox_factory
from engine.run.runner import run_benchmark
from tests.episodes.test_code import (  # noqa: F401  (sandbox: the module-scoped bubblewrap fixture)
    PAGE_GOLD,
    SHIP_FLOOR_PLUS_ONE,
    SHIP_GOLD,
    SPLIT_GOLD,
    SPLIT_LAST_WINS_TIES,
    TASKS,
    fenced,
    sandbox,
)
from tests.helpers.replay import ROOT, assert_prefix_kept
from tests.helpers.scripted_server import Action, ScriptedServer, transcript

LOOP = "\nI will now write the function. I will now write the function." * 40
BWRAP = sandbox_factory("bubblewrap")


def cut_inside(code: str, at: str, before: str = "Here is the file:") -> str:
    """A reply cut by the token limit inside its code block, just before ``at``."""
    whole = fenced(code, before=before)
    return whole[: whole.index(at)]


def _run(task_id: str, replies: list[Action], sandbox) -> tuple[RunFile, list[dict]]:  # noqa: F811
    with ScriptedServer(transcript(replies)) as srv, tempfile.TemporaryDirectory() as tmp:
        request = RunRequest(model="scripted", endpoint=srv.url, output=Path(tmp) / "r.json", trials=1,
                             pattern=task_id, tasks_dir=ROOT / "tasks", max_retries=0, backoff_s=0.01,
                             show_progress=False)
        run = run_benchmark(request, sandbox=sandbox)
        assert_prefix_kept(srv.requests)
        return run, list(srv.requests)


def _trial(run: RunFile) -> TrialRecord:
    (trial,) = run.trials
    return trial


def _feedback(requests: list[dict]) -> list[str]:
    return [r["messages"][-1]["content"] for r in requests[1:]]


def _regrades_the_same(run: RunFile, sandbox) -> None:  # noqa: F811
    """The grade the run made is the one a stored transcript gets again (rescore), and the file re-derives."""
    trial = _trial(run)
    assert rescore_run(run, ROOT / "tasks", sandbox_factory=lambda: sandbox).changed == []
    if trial.truncation == "none":
        again = MODULE.grade(TASKS[trial.task_id], trial.turns, Env(sandbox=sandbox))
        assert again == trial.grade
    assert rederive_run(run, ROOT / "tasks", sandbox_factory=BWRAP) == []


# ------------------------------------------------------------------------------------------- should pass


@pytest.mark.parametrize("first", [
    # cut inside the function body, a line half written
    Action(text=cut_inside(SPLIT_GOLD, "rest = [total_cents"), finish_reason="length"),
    # cut after a long plan, before any code
    Action(text="Let me plan this carefully.\n\n1. Validate the input.\n2. Floor every share.\n3. Hand out the",
           finish_reason="length"),
    # looping before any code (degenerate)
    Action(text="Sure." + LOOP, finish_reason="length"),
    # the whole budget spent reasoning, no answer at all
    Action(text="", reasoning="First the validation, then the floors, then the remainders" * 40,
           finish_reason="length"),
    # the function whole but the fence never closed: not known to be complete, so not run
    Action(text=fenced(SPLIT_GOLD).rstrip().removesuffix("```"), finish_reason="length"),
], ids=["mid_code", "before_code", "looping", "reasoning_only", "fence_open"])
def test_a_cut_first_attempt_then_a_complete_fix_passes_on_the_second(first, sandbox):  # noqa: F811
    run, requests = _run("code_split_bill", [first, Action(text=fenced(SPLIT_GOLD, before="Sorry, cut off."))],
                         sandbox)
    trial = _trial(run)
    assert trial.passed and trial.grade.score == 0.85, trial.grade
    assert trial.truncation == "none" and trial.error is None and trial.grade.unsure is None
    assert trial.grade.details["passed_attempt"] == 2
    assert trial.grade.details["per_attempt"][0] == {"passed": False, "extracted": "none", "failure": "cut",
                                                     "cases_passed": 0, "cases": len(TASKS["code_split_bill"]
                                                                                     .body.cases())}
    (told,) = _feedback(requests)
    assert "cut off by the token limit" in told and "nothing was run" in told
    _regrades_the_same(run, sandbox)


def test_two_cut_attempts_then_a_fix_on_the_last_passes_at_070(sandbox):  # noqa: F811
    replies = [Action(text=cut_inside(SHIP_GOLD, "return last_price"), finish_reason="length"),
               Action(text=cut_inside(SHIP_GOLD, "for limit, price"), finish_reason="length"),
               Action(text=fenced(SHIP_GOLD))]
    run, requests = _run("code_shipping_tariff", replies, sandbox)
    trial = _trial(run)
    assert trial.passed and trial.grade.score == 0.70 and trial.truncation == "none"
    assert [a["failure"] for a in trial.grade.details["per_attempt"]] == ["cut", "cut", None]
    assert all("cut off by the token limit" in f for f in _feedback(requests))
    _regrades_the_same(run, sandbox)


def test_code_whole_before_a_cut_runs_and_its_failure_is_fed_back(sandbox):  # noqa: F811
    """A cut in the prose after a closed block: the code is whole, so it runs; its wrong answer is the
    feedback, as for any attempt, and the fix after it passes."""
    first = fenced(SHIP_FLOOR_PLUS_ONE, after="\nThis charges the extra kilograms by" + LOOP)
    run, requests = _run("code_shipping_tariff",
                         [Action(text=first, finish_reason="length"), Action(text=fenced(SHIP_GOLD))], sandbox)
    trial = _trial(run)
    assert trial.passed and trial.grade.score == 0.85 and trial.truncation == "none"
    assert trial.grade.details["per_attempt"][0]["failure"] is None
    (told,) = _feedback(requests)
    assert "quote(11000, 1000)` returned 2470" in told and "cut off" not in told
    _regrades_the_same(run, sandbox)


def test_code_whole_before_a_cut_that_passes_ends_the_trial_as_a_cut_graded_on_it(sandbox):  # noqa: F811
    first = fenced(SPLIT_GOLD, after="\nThe remainders are compared exactly, so that a tie between two people is")
    run, requests = _run("code_split_bill", [Action(text=first, finish_reason="length")], sandbox)
    trial = _trial(run)
    assert trial.passed and trial.grade.score == 1.0 and len(requests) == 1
    assert trial.truncation == "incomplete" and trial.grade.hard_gate is None
    assert trial.grade.unsure and "cut by the token limit after its answer" in trial.grade.unsure
    _regrades_the_same(run, sandbox)


# ------------------------------------------------------------------------------------------- should fail


def test_a_cut_on_the_last_attempt_is_the_trials_truncation(sandbox):  # noqa: F811
    wrong = Action(text=fenced(SPLIT_LAST_WINS_TIES))
    run, requests = _run("code_split_bill",
                         [wrong, wrong, Action(text=cut_inside(SPLIT_GOLD, "for i in sorted"), finish_reason="length")],
                         sandbox)
    trial = _trial(run)
    assert not trial.passed and trial.grade.reason == "truncated (incomplete)"
    assert trial.truncation == "incomplete" and len(requests) == 3
    _regrades_the_same(run, sandbox)


def test_a_cut_with_one_attempt_in_all_ends_the_trial(sandbox):  # noqa: F811
    cut = Action(text=cut_inside(PAGE_GOLD, '"has_next"'), finish_reason="length")
    run, requests = _run("code_page_slice", [cut, Action(text=fenced(PAGE_GOLD))], sandbox)
    trial = _trial(run)
    assert not trial.passed and trial.grade.reason == "truncated (incomplete)" and len(requests) == 1
    _regrades_the_same(run, sandbox)


def test_a_cut_then_wrong_fixes_fails_on_the_last_fix(sandbox):  # noqa: F811
    wrong = Action(text=fenced(SPLIT_LAST_WINS_TIES))
    run, _ = _run("code_split_bill",
                  [Action(text=cut_inside(SPLIT_GOLD, "return shares"), finish_reason="length"), wrong, wrong],
                  sandbox)
    trial = _trial(run)
    assert not trial.passed and 0 < trial.grade.score < 0.5 and trial.truncation == "none"
    assert trial.grade.reason.startswith("failed after 3 attempts") and "hidden" in trial.grade.reason
    _regrades_the_same(run, sandbox)


def test_cut_code_that_would_pass_if_run_is_never_run(sandbox):  # noqa: F811
    """The function is all there but the cut fell before the fence closed: the attempt failed as cut, and a
    later attempt with no code does not make it count."""
    open_fence = Action(text=fenced(SPLIT_GOLD).rstrip().removesuffix("```"), finish_reason="length")
    run, _ = _run("code_split_bill", [open_fence, Action(text="I think that was right."),
                                      Action(text="It is above.")], sandbox)
    trial = _trial(run)
    assert not trial.passed and trial.grade.score == 0.0
    assert [a["failure"] for a in trial.grade.details["per_attempt"]] == ["cut", None, None]
    _regrades_the_same(run, sandbox)


def test_a_stored_trial_graded_alone_counts_a_cut_attempt_as_failed(sandbox):  # noqa: F811
    """The grade reads the cut from the stored turn, with no record of the run (rescore): a cut reply that
    is the last attempt given is failed as cut, whatever its partial code would do."""
    task = TASKS["code_split_bill"]
    turns = [Turn(role="assistant", content=fenced(SPLIT_GOLD).rstrip().removesuffix("```"),
                  finish_reason="length")]
    grade = MODULE.grade(task, turns, Env(sandbox=sandbox))
    assert not grade.passed and grade.reason == ("failed after 1 attempt: the last reply was cut by the token "
                                                 "limit before its code was complete")


# ------------------------------------------------------------------------------------------- the rule


def test_the_rule_gives_a_further_attempt_only_where_the_task_has_one():
    code = MODULES["code"]
    assert goes_on_after_cut(code, TASKS["code_split_bill"], 1)
    assert goes_on_after_cut(code, TASKS["code_split_bill"], 2)
    assert not goes_on_after_cut(code, TASKS["code_split_bill"], 3)
    assert not goes_on_after_cut(code, TASKS["code_page_slice"], 1)
    # Modules with no attempts to give end at every cut.
    for name in ("knowledge", "long_context", "format", "multi_turn_if", "adversarial", "tools"):
        assert not goes_on_after_cut(MODULES[name], TASKS["code_split_bill"], 1)


def test_a_stored_code_trial_that_goes_on_after_a_cut_on_its_last_attempt_is_refused(sandbox):  # noqa: F811
    run, _ = _run("code_page_slice", [Action(text=fenced(PAGE_GOLD))], sandbox)
    trial = _trial(run)
    cut = trial.turns[-1].model_copy(update={"finish_reason": "length", "content": "```python\ndef page("})
    forged = trial.model_copy(update={"turns": [*trial.turns[:-1], cut,
                                                trial.turns[-2], trial.turns[-1]]})
    problems = rederive_run(run.model_copy(update={"trials": [forged]}), ROOT / "tasks", sandbox_factory=BWRAP)
    assert ("code_page_slice#0", "turns") in {(p.where, p.field) for p in problems}
