"""A world trial's evidence (``engine/publish/world_view.py``): the expected and the final state as a diff with
what the grade found, and the tool answers a failure injection gave, for the site and ``sllmb show`` alike.

The trials are real: a scripted reply list played through the real runner against the bank's
``tl_refund_timeout_retry`` (whose first refund call the task's injection times out), graded by the real
grader; the diff replays those recorded calls through the simulated world.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.bank.load import load_task
from engine.core.results import load_run_file
from engine.core.schema import Grade, TrialRecord
from engine.publish.evidence import trial_evidence
from engine.publish.world_view import MAX_VALUE, bank_tasks, injected_turns, world_view
from tests.episodes.tools_transcripts import act, call, say
from tests.helpers.replay import ROOT, replay

TASK = "tl_refund_timeout_retry"
R72 = call("issue_refund", order_id="O-72", amount=35.0, reason="late")
R74 = call("issue_refund", order_id="O-74", amount=20.0, reason="damaged")
REF72 = 'refunds[{"amount":35.0,"order_id":"O-72","reason":"late"}]'
REF74 = 'refunds[{"amount":20.0,"order_id":"O-74","reason":"damaged"}]'
HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)> {{ 7*7 }} 🚀"


@pytest.fixture(scope="module")
def resent() -> TrialRecord:
    """The model resends the whole batch after the timeout: O-74 is refunded twice (a missed path: the
    expected count is 1), O-72 once after its retry (reached)."""
    return replay(TASK, [act(R72, R74), act(R72, R74), say("Retried the refunds; both are recorded now.")])


@pytest.fixture(scope="module")
def task():
    return load_task(ROOT / "tasks" / "tools" / f"{TASK}.yaml")


def test_the_final_state_is_replayed_and_each_path_carries_what_the_grade_found(resent, task) -> None:
    assert not resent.grade.passed and REF74 in resent.grade.details["missed"]
    view = world_view(resent, task)
    assert view is not None and view.source == "replay" and view.note == ""
    rows = {r.path: r for r in view.rows}
    assert set(rows) == {REF72, REF74} and view.total_rows == 2
    assert (rows[REF74].seed, rows[REF74].expected, rows[REF74].final, rows[REF74].finding) == (
        "(absent)", "1", "2", "missed")
    assert (rows[REF72].expected, rows[REF72].final, rows[REF72].finding) == ("1", "1", "reached")


def test_the_injected_timeout_is_recorded_on_its_tool_turn_and_found_by_the_replay_alike(resent, task) -> None:
    tools = [i for i, t in enumerate(resent.turns) if t.role == "tool"]
    assert [resent.turns[i].injected_failure for i in tools] == [True, False, False, False]
    view = world_view(resent, task)
    assert view.injected_calls == (True, False, False, False)
    assert injected_turns(resent, view) == {tools[0]: "recorded"}
    # A file from before the record (the field absent): the replay finds the same turn, and says so.
    old = resent.model_copy(update={"turns": [t.model_copy(update={"injected_failure": None})
                                              for t in resent.turns]})
    assert injected_turns(old, world_view(old, task)) == {tools[0]: "replayed"}
    # A recorded "no" is never overruled by the replay.
    denied = resent.model_copy(update={"turns": [t.model_copy(update={"injected_failure": False})
                                                 if t.role == "tool" else t for t in resent.turns]})
    assert injected_turns(denied, world_view(denied, task)) == {}


def test_a_changed_task_file_is_not_replayed_and_the_grades_paths_stand_alone(resent, task) -> None:
    stale = resent.model_copy(update={"task_hash": "0" * 16})
    view = world_view(stale, task)
    assert view.source == "grade" and "changed since this trial ran" in view.note and "0" * 16 in view.note
    assert [(r.path, r.expected, r.final, r.finding) for r in view.rows] == [(REF74, "1", "2", "missed")]
    assert injected_turns(stale, view) == {min(i for i, t in enumerate(stale.turns) if t.role == "tool"): "recorded"}


def test_a_task_outside_the_bank_shows_the_grades_paths_and_a_trial_without_a_world_shows_none(resent) -> None:
    assert bank_tasks({"no_such_task"}) == {"no_such_task": "not in the bank"}
    view = world_view(resent, "not in the bank")
    assert view.source == "grade" and "not in this bank (not in the bank)" in view.note
    code = next(t for t in load_run_file(ROOT / "results" / "reference" / "smollm2-135m-instruct_raw_results.json")
                .trials if t.module == "code")
    assert world_view(code, bank_tasks({code.task_id})[code.task_id]) is None


def test_hostile_paths_and_values_are_kept_as_text_and_long_values_cut() -> None:
    details = {
        "missed": {HOSTILE: {"expected": HOSTILE, "got": "x" * (MAX_VALUE * 3)}},
        "side_effects": {"{{ 7*7 }}": {"seed": None, "got": HOSTILE}},
        "undone_changes": {"<b>path</b>": {"allowed": [None], "went_through": [HOSTILE]}},
        "not a map": 3,
    }
    trial = TrialRecord(task_id=HOSTILE, task_hash="h", module="tools", trial=0,
                        grade=Grade(score=0.0, passed=False, details=details))
    view = world_view(trial, "not in the bank")
    found = {r.finding: r for r in view.rows}
    assert found["missed"].path == HOSTILE and found["missed"].expected == f'"{HOSTILE}"'
    assert found["missed"].final.endswith(f"… ({MAX_VALUE * 3 + 2:,} characters)")
    assert found["side effect"].path == "{{ 7*7 }}" and found["undone"].note == f'held "{HOSTILE}" along the way'
    # The site's document carries the same rows, as data.
    doc = trial_evidence(trial, None, "not in the bank")
    assert doc["world"]["rows"][0]["path"] == HOSTILE and doc["injected"] == {}


def test_the_sites_document_holds_the_diff_and_the_injected_turns(resent, task, tmp_path: Path) -> None:
    doc = trial_evidence(resent, None, task)
    assert doc["world"]["source"] == "replay" and len(doc["world"]["rows"]) == 2
    first_tool = min(i for i, t in enumerate(resent.turns) if t.role == "tool")
    assert doc["injected"] == {str(first_tool): "recorded"}
    assert doc["turns"][first_tool]["injected_failure"] is True
