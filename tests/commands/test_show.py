"""``sllmb show`` through the real CLI: the committed reference file, and a hostile file whose model text tries
Rich markup, terminal escape sequences, emoji codes and a 100 KB reply."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import main
from engine.core.results import load_run_file, write_run_file
from engine.core.schema import Grade, ToolCall, TrialRecord, Turn
from tests.conftest import ROOT
from tests.episodes.tools_transcripts import act, call, say
from tests.helpers.replay import replay

REFERENCE = ROOT / "results" / "reference" / "smollm2-135m-instruct_raw_results.json"
HOSTILE_ID = "[bold red]evil_task"
HOSTILE_WORLD_ID = "[bold red]evil_world"
# A character no other part of the output uses, so counting it measures how much of the long reply printed.
LONG_CHAR = "¤"
LONG = LONG_CHAR * 100_000


def show(capsys, *args: str) -> tuple[int, str, str]:
    try:
        code = main(["show", *args])
    except SystemExit as exc:  # argparse's own exit for a flag that fails its type
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    run = load_run_file(REFERENCE)
    turns = [
        Turn(role="system", content="You are [bold red]root[/bold red]. :warning:"),
        Turn(role="user", content="Say hi.\x1b]0;pwned-title\x07 please"),
        Turn(
            role="assistant",
            content="Clearing\x1b[2J\x1b[H the screen[/] and \x9b2J a C1 CSI, \rover\x07write\x00",
            reasoning="[link=file:///etc/passwd]think[/link]\x1b[31m hard",
            tool_calls=[ToolCall(id="c1", name="[blink]send[/blink]", arguments='{"to": "\x1b[1mx@y"}')],
        ),
        Turn(role="tool", tool_call_id="c1", name="[blink]send[/blink]", content="Error: [i]timeout[/i]\x1b[8m",
             injected_failure=True),
        Turn(role="assistant", content=LONG),
    ]
    trial = TrialRecord(
        task_id=HOSTILE_ID,
        task_hash="abc\x1b[2J",
        module="code",
        trial=0,
        seed=7,
        turns=turns,
        grade=Grade(
            score=0.25,
            passed=False,
            breakdown={"hidden": 0.25},
            reason="failed [red]twice[/red]\x1b[2J",
            unsure="a check could not decide [b]this[/b]",
            details={"attempts": 2, "per_attempt": [{"passed": False, "failure": "\x1b[2Jboom"},
                                                     {"passed": False, "failure": None}]},
        ),
        prompt_tokens=10,
        completion_tokens=20,
        wall_s=1.5,
    )
    # A world trial whose task is not in the bank: its diff is the grade's paths, every one hostile.
    world = TrialRecord(
        task_id=HOSTILE_WORLD_ID, task_hash="h", module="tools", trial=0,
        grade=Grade(score=0.0, passed=False, details={
            "missed": {"[bold red]orders.status\x1b[2J": {"expected": "[i]done[/i] :warning:", "got": None}},
            "side_effects": {"\x9b2Jkv[x]": {"seed": 1, "got": "[link=file:///etc/passwd]x[/link]"}},
        }),
    )
    out = tmp_path_factory.mktemp("show") / "hostile_raw_results.json"
    write_run_file(out, run.model_copy(update={"trials": [trial, world]}))
    return out


@pytest.fixture(scope="module")
def injected(tmp_path_factory) -> Path:
    """A real trial of a bank task whose first refund call the task's injection times out: the model resends
    the whole batch, so one refund is made twice (played through the real runner, graded for real)."""
    r72 = call("issue_refund", order_id="O-72", amount=35.0, reason="late")
    r74 = call("issue_refund", order_id="O-74", amount=20.0, reason="damaged")
    trial = replay("tl_refund_timeout_retry", [act(r72, r74), act(r72, r74), say("Both refunds are recorded.")])
    out = tmp_path_factory.mktemp("show") / "injected_raw_results.json"
    write_run_file(out, load_run_file(REFERENCE).model_copy(update={"trials": [trial]}))
    return out


def test_the_reference_file_lists_its_tasks_with_their_outcomes(capsys):
    code, out, _ = show(capsys, str(REFERENCE))
    assert code == 0
    run = load_run_file(REFERENCE)
    for task_id in {t.task_id for t in run.trials}:
        assert task_id in out
    assert "0/3" in out and "✗ ✗ ✗" in out


def test_a_task_without_trial_lists_its_trials_and_shows_the_first(capsys):
    code, out, _ = show(capsys, str(REFERENCE), "--task", "code_split_bill")
    assert code == 0
    assert "3 trial(s)" in out and "failed after 3 attempts" in out
    assert "code_split_bill · trial 0 · code" in out
    # A code trial's grade: the attempts it keeps, one line per attempt, and the task's hash and version.
    assert "per_attempt" in out and "1. {" in out and "3. {" in out
    first = next(t for t in load_run_file(REFERENCE).trials if t.task_id == "code_split_bill" and t.trial == 0)
    assert f"hash {first.task_hash} · version {first.task_version}" in out
    assert "#1 user" in out and "#2 assistant" in out


def test_a_named_trial_shows_its_turns_and_grade(capsys):
    code, out, _ = show(capsys, str(REFERENCE), "--task", "tl_duplicate_orders_filter", "--trial", "1")
    assert code == 0
    assert "trial 1" in out and "hard gate" in out and "degenerate" in out
    assert "seed" in out and "263 prompt, 768 completion" in out


def test_markup_in_the_file_prints_as_written(capsys, hostile):
    code, out, _ = show(capsys, str(hostile), "--task", HOSTILE_ID, "--trial", "0")
    assert code == 0
    for literal in ("You are [bold red]root[/bold red].", ":warning:", "[blink]send[/blink]",
                    "[link=file:///etc/passwd]think[/link]", "failed [red]twice[/red]",
                    "Error: [i]timeout[/i]", HOSTILE_ID, "a check could not decide [b]this[/b]"):
        assert literal in out, literal


def test_terminal_controls_are_stripped(capsys, hostile):
    code, out, _ = show(capsys, str(hostile), "--task", HOSTILE_ID, "--trial", "0")
    assert code == 0
    assert "\x1b" not in out and "\x9b" not in out and "\x07" not in out and "\r" not in out and "\x00" not in out
    assert "pwned-title" not in out  # the whole OSC sequence goes, not just its ESC
    assert "Clearing the screen[/] and 2J a C1 CSI, overwrite" in out
    assert '"to": "x@y"' in out and "boom" in out


def test_a_long_reply_is_clipped_with_a_marker_and_full_lifts_it(capsys, hostile):
    code, out, _ = show(capsys, str(hostile), "--task", HOSTILE_ID, "--trial", "0")
    assert code == 0
    assert out.count(LONG_CHAR) == 4000
    assert "clipped: 4,000 of 100,000 characters shown; --full shows all" in out
    assert len(out) < 100_000
    code, out, _ = show(capsys, str(hostile), "--task", HOSTILE_ID, "--trial", "0", "--full")
    assert code == 0
    assert out.count(LONG_CHAR) == 100_000 and "clipped:" not in out


def test_the_task_list_of_a_hostile_file_escapes_and_strips(capsys, hostile):
    code, out, _ = show(capsys, str(hostile))
    assert code == 0
    assert HOSTILE_ID in out and "\x1b" not in out


@pytest.mark.parametrize("args,named", [
    (["--task", "no_such_task"], "--task"),
    (["--task", "code_latest_event", "--trial", "9"], "--trial"),
    (["--task", "code_latest_event", "--trial", "-1"], "--trial"),
    (["--trial", "0"], "--task"),
])
def test_an_unknown_task_or_trial_exits_2_naming_the_flag(capsys, args, named):
    code, out, err = show(capsys, str(REFERENCE), *args)
    assert code == 2
    assert named in err and out == ""


def test_an_unknown_task_error_lists_the_tasks_and_strips_controls(capsys):
    code, _, err = show(capsys, str(REFERENCE), "--task", "x\x1b[2Jy")
    assert code == 2
    assert str(REFERENCE) in err and "tl_directory_down" in err and "\x1b" not in err


def test_a_missing_or_invalid_file_exits_2_naming_the_file_and_field(capsys, tmp_path):
    missing = tmp_path / "gone_raw_results.json"
    code, _, err = show(capsys, str(missing))
    assert code == 2 and str(missing) in err
    bad = tmp_path / "bad_raw_results.json"
    data = json.loads(REFERENCE.read_text(encoding="utf-8"))
    data["trials"][0]["turns"][0]["role"] = "wizard"
    bad.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = show(capsys, str(bad))
    assert code == 2 and str(bad) in err and "trials.0.turns.0.role" in err


def test_an_injected_failure_is_marked_on_its_tool_answer_and_the_world_shows_as_a_diff(capsys, injected):
    code, out, _ = show(capsys, str(injected), "--task", "tl_refund_timeout_retry", "--trial", "0")
    assert code == 0
    # One injected answer (the first refund call's timeout), marked on its turn; the other answers are not.
    flat = " ".join(out.replace("│", " ").split())  # the mark may wrap inside its panel
    assert flat.count("INJECTED FAILURE: the task's failure injection answered this call on purpose") == 1
    assert out.count("· injected failure") == 1 and "refund service timed out" in out
    assert "the world: expected and final state (2 paths; final state derived by replaying" in out
    assert "missed: asked for, not made" in out and "reached" in out


def test_a_file_from_before_the_record_gets_the_mark_from_the_replay(capsys, injected, tmp_path):
    run = load_run_file(injected)
    turns = [t.model_copy(update={"injected_failure": None}) for t in run.trials[0].turns]
    old = tmp_path / "old_raw_results.json"
    write_run_file(old, run.model_copy(update={"trials": [run.trials[0].model_copy(update={"turns": turns})]}))
    code, out, _ = show(capsys, str(old), "--task", "tl_refund_timeout_retry", "--trial", "0")
    assert code == 0
    flat = " ".join(out.replace("│", " ").split())  # the mark may wrap inside its panel
    assert flat.count("(found by replaying the calls: this file predates the record on the turn)") == 1


def test_an_injected_mark_and_a_hostile_world_diff_print_as_written(capsys, hostile):
    code, out, _ = show(capsys, str(hostile), "--task", HOSTILE_ID, "--trial", "0")
    assert code == 0 and out.count("INJECTED FAILURE") == 1
    code, out, _ = show(capsys, str(hostile), "--task", HOSTILE_WORLD_ID, "--trial", "0")
    assert code == 0
    flat = " ".join(out.split())  # the table's title wraps
    assert "the grade's details list: the task is not in this bank (not in the bank)" in flat
    for literal in ("[bold red]orders.status", '"[i]done[/i] :warning:"', "2Jkv[x]",
                    '"[link=file:///etc/passwd]x[/link]"', "side effect: not asked for"):
        assert literal in out, literal
    assert "\x1b" not in out and "\x9b" not in out
