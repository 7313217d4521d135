"""The tools module: its agent loop, its grader and its 13 tasks, through the scripted loopback server.

Gold and near-miss transcripts live in ``tools_transcripts.py``. Every transcript is replayed through the
real runner (client, loop, world boundary, grader); the near misses must fail for the reason they were
written for, as the grade's gate, details and breakdown show.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

import tests.helpers.replay as replay_helper
from engine.bank.load import load_bank, load_task, select
from engine.core.errors import UserError
from engine.core.schema import Grade, Turn
from engine.episodes import MODULES
from engine.episodes.agent.gates import left_undone, loop_gate, premature_stop
from engine.episodes.agent.prompt import SYSTEM_PROMPT
from engine.episodes.agent.transcript import read_transcript
from engine.episodes.base import Env
from engine.run.request import RunRequest
from engine.run.runner import run_benchmark
from engine.world import Finding
from tests.episodes.tools_transcripts import (
    CASES,
    DIRECTORY_DOWN_IN_OTHER_WORDS,
    NESTED_SHIPMENT_RECOVERED,
    Expect,
    act,
    call,
    say,
)
from tests.helpers.replay import ROOT, replay
from tests.helpers.scripted_server import ScriptedServer, transcript
from tests.world.conftest import executed, record_worlds

TOOLS = MODULES["tools"]
TASK_DIR = ROOT / "tasks" / "tools"


def _task(task_id: str):
    return load_task(TASK_DIR / f"{task_id}.yaml")


@pytest.fixture(autouse=True, scope="module")
def only_this_module(tmp_path_factory):
    """Replay against a bank of the tools tasks only: other modules' work in progress in the shared tree
    cannot break these tests, and each replay loads a small bank."""
    root = tmp_path_factory.mktemp("bank")
    (root / "tasks").mkdir()
    (root / "tasks" / "tools").symlink_to(TASK_DIR)
    real = replay_helper.ROOT
    replay_helper.ROOT = root
    yield
    replay_helper.ROOT = real


def _bank():
    return load_bank(replay_helper.ROOT / "tasks")


def _check_failure(grade: Grade, expect: Expect) -> None:
    d = grade.details
    assert not grade.passed
    assert grade.hard_gate == expect.gate, (grade.hard_gate, grade.reason)
    if expect.gate in (None, "premature_stop"):  # another gate may come with a premature stop too
        assert d["premature_stop"] is (expect.gate == "premature_stop")
    if expect.gate is not None:
        assert grade.score == 0.0
    if expect.missed is not None:
        assert any(expect.missed in p for p in d["missed"]), (expect.missed, list(d["missed"]))
    if expect.side_effect is not None:
        assert any(expect.side_effect in p for p in d["side_effects"]), (expect.side_effect,
                                                                          list(d["side_effects"]))
    if expect.check is not None:
        assert any(expect.check in f for f in d["check_failures"]), (expect.check, d["check_failures"])
    if expect.markdown is not None:
        problems = [p for probs in d.get("markdown_problems", {}).values() for p in probs]
        assert any(expect.markdown in p for p in problems), problems
    if expect.stopped is not None:
        assert d["stopped"] == expect.stopped
    if expect.required is not None:
        missing = d.get("missing_required_calls", [])
        assert any(expect.required in m for m in missing), (expect.required, missing)


# --------------------------------------------------------------------------------------------------------
# The bank


def test_the_bank_has_thirteen_tools_tasks_six_of_them_fast():
    tasks = select(_bank(), modules=["tools"])
    assert len(tasks) == 13
    assert sorted(t.id for t in tasks) == sorted(CASES)
    assert sum(t.task.fast for t in tasks) == 6
    for t in tasks:
        assert t.task.what_this_tests.strip() and t.task.failure_mode.strip()


def test_fast_tasks_fit_the_bundled_8k_model_with_room_to_spare():
    for t in select(_bank(), profile="fast", modules=["tools"]):
        need = TOOLS.required_context(t)
        assert need < 5000, (t.id, need)


@pytest.mark.parametrize("task_id", sorted(CASES))
def test_every_task_ships_at_least_two_near_misses(task_id):
    assert len(CASES[task_id].near_misses) >= 2


# --------------------------------------------------------------------------------------------------------
# Gold and near misses, through the real runner


@pytest.mark.parametrize("task_id", sorted(CASES))
def test_gold_transcript_passes_with_full_score(task_id):
    trial = replay(task_id, CASES[task_id].gold)
    assert trial.error is None
    assert trial.passed, trial.grade.reason
    assert trial.grade.score == 1.0
    assert trial.grade.details["premature_stop"] is False
    assert trial.grade.details["replay_mismatch"] == 0
    assert trial.grade.details["reached_paths"] == trial.grade.details["target_paths"]


@pytest.mark.parametrize(
    ("task_id", "miss"), [(t, m) for t, case in sorted(CASES.items()) for m in sorted(case.near_misses)]
)
def test_near_miss_fails_for_its_reason(task_id, miss):
    replies, expect = CASES[task_id].near_misses[miss]
    trial = replay(task_id, replies)
    assert trial.error is None and not trial.infra
    _check_failure(trial.grade, expect)


def test_work_left_half_done_is_a_goal_miss_with_the_leftovers_listed_not_a_premature_stop():
    replies, _ = CASES["tl_order_queue_budget"].near_misses["stopped_at_first_misfit"]
    grade = replay("tl_order_queue_budget", replies).grade
    assert grade.hard_gate is None and grade.details["premature_stop"] is False
    assert 'orders["O-204"].status' in grade.details["left_undone"]
    assert "requested change(s) left untouched" in grade.reason
    assert 0.0 < grade.score < 1.0


def test_a_rerun_asked_for_in_other_words_passes():
    trial = replay("tl_directory_down", DIRECTORY_DOWN_IN_OTHER_WORDS)
    assert trial.passed, trial.grade.reason


def test_a_corrected_call_still_passes():
    trial = replay("tl_nested_shipment", NESTED_SHIPMENT_RECOVERED)
    assert trial.passed, trial.grade.reason
    assert trial.grade.details["error_calls"] == 1


# --------------------------------------------------------------------------------------------------------
# The loop


def test_loop_sends_tools_and_returns_each_result_as_a_tool_message():
    replies = CASES["tl_refund_timeout_retry"].gold
    with ScriptedServer(transcript(replies)) as srv:
        run = run_benchmark(RunRequest(
            model="scripted", endpoint=srv.url, output=_tmp_output(), trials=1,
            pattern="tl_refund_timeout_retry",
            tasks_dir=replay_helper.ROOT / "tasks", max_retries=0, show_progress=False,
        ))
        requests = list(srv.requests)
    first = requests[0]
    assert [t["function"]["name"] for t in first["tools"]] == ["get_order", "issue_refund"]
    system = first["messages"][0]
    assert system["role"] == "system" and system["content"].startswith(SYSTEM_PROMPT)
    assert "- issue_refund(order_id, amount, reason)" in system["content"]
    # Two parallel calls in reply 1 get two tool messages, in order, before the model is asked again.
    second = requests[1]["messages"]
    tool_msgs = [m for m in second if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_msgs] == ["call_0", "call_1"]
    assert tool_msgs[0]["content"].startswith("Error: refund service timed out")
    assert json.loads(tool_msgs[1]["content"])["refunded"] == 20.0
    assert len(requests) == 3
    trial = run.trials[0]
    roles = ["system", "user", "assistant", "tool", "tool", "assistant", "tool", "assistant"]
    assert [t.role for t in trial.turns] == roles
    assert trial.grade.details["most_calls_in_one_turn"] == 2
    # The task's injected timeout is recorded on the tool turn it answered, the real answers as such; the
    # record stays out of what the model is sent.
    assert [t.injected_failure for t in trial.turns if t.role == "tool"] == [True, False, False]
    assert all("injected_failure" not in m for r in requests for m in r["messages"])


def _tmp_output() -> Path:
    import tempfile

    return Path(tempfile.mkdtemp()) / "run.json"


def test_max_turns_ends_the_loop_and_is_recorded():
    endless = [act(call("get_weather", city="Porto"))] * 5
    trial = replay("tl_parallel_weather", endless)
    assert sum(1 for t in trial.turns if t.role == "assistant") == 2
    assert trial.grade.details["stopped"] == "max_turns"
    assert "ran out of turns (2)" in trial.grade.reason
    assert not trial.passed


def test_malformed_calls_are_answered_recorded_and_do_not_crash():
    replies = [
        act(
            {"name": "kv_list", "arguments": "{prefix: payments"},  # not JSON
            call("kv_rename", old="a", new="b"),  # no such tool
            call("kv_set", key=5, value="x"),  # wrong type
            {"name": "kv_list", "arguments": "[1, 2]"},  # JSON, but not an object
        ),
        act(call("kv_list", prefix="payments.")),
        act(call("kv_set", key="payments.endpoint", value="https://pay-v2.internal/api")),
        say("Switched the endpoint."),
    ]
    trial = replay("tl_two_part_half_done", replies)
    assert trial.error is None and not trial.infra and trial.grade is not None
    malformed = trial.grade.details["malformed_calls"]
    kinds = ["invalid_json", "unknown_tool", "invalid_arguments", "invalid_json"]
    assert [m["kind"] for m in malformed] == kinds
    assert all(m["turn"] == 1 for m in malformed)
    tool_msgs = [t.content for t in trial.turns if t.role == "tool"]
    assert all(c.startswith("Error:") for c in tool_msgs[:4])
    assert "available tools: kv_list, kv_get, kv_set" in tool_msgs[1]
    # The state is right, but six calls for an optimum of two (plus one of slack) is not efficient.
    assert trial.grade.breakdown["goal_match"] == 1.0
    assert trial.grade.breakdown["efficiency"] < 1.0
    assert "4 malformed call(s)" in trial.grade.reason
    assert not trial.passed


def test_calls_written_as_text_are_executed_and_flagged():
    replies = [
        say('<tool_call>{"name": "kv_list", "arguments": {"prefix": "payments."}}</tool_call>'),
        say('<tool_call>{"name": "kv_set", "arguments": {"key": "payments.endpoint", '
            '"value": "https://pay-v2.internal/api"}}</tool_call>'),
        say("The version was already bumped; I switched the endpoint."),
    ]
    trial = replay("tl_two_part_half_done", replies)
    assert trial.passed, trial.grade.reason
    assert trial.grade.details["text_calls"] == 2
    assert "2 call(s) written as text" in trial.grade.reason
    calls = [c for t in trial.turns for c in t.tool_calls]
    assert all(c.from_text for c in calls)


_CITIES = ("Porto", "Seville", "Valencia", "Bilbao")
_WEATHER_AS_TEXT = {
    "hermes_tags": "\n".join(f'<tool_call>{{"name": "get_weather", "arguments": {{"city": "{c}"}}}}</tool_call>'
                              for c in _CITIES),
    "llama_python_tag_semicolons": "<|python_tag|>" + "; ".join(
        f'{{"name": "get_weather", "parameters": {{"city": "{c}"}}}}' for c in _CITIES) + "<|eom_id|>",
    "llama_function_tags": "".join(f'<function=get_weather>{{"city": "{c}"}}</function>' for c in _CITIES),
    "qwen_coder_parameters": "".join(
        f"<tool_call>\n<function=get_weather>\n<parameter=city>\n{c}\n</parameter>\n</function>\n</tool_call>\n"
        for c in _CITIES),
    "mistral_list": "[TOOL_CALLS] " + json.dumps([{"name": "get_weather", "arguments": {"city": c}} for c in _CITIES]),
    "mistral_v11": "".join(f'[TOOL_CALLS]get_weather[ARGS]{{"city": "{c}"}}' for c in _CITIES),
    "granite": "<|tool_call|>" + json.dumps([{"name": "get_weather", "arguments": {"city": c}} for c in _CITIES]),
    "gemma_tool_code": "Checking all four.\n```tool_code\n" + "\n".join(
        f'get_weather(city="{c}")' for c in _CITIES) + "\n```",
    "internlm_actions": "I will check each city.\n" + "\n".join(
        f'<|action_start|><|plugin|>\n{{"name": "get_weather", "parameters": {{"city": "{c}"}}}}<|action_end|>'
        for c in _CITIES),
    "phi4_functools": "functools" + json.dumps([{"name": "get_weather", "arguments": {"city": c}} for c in _CITIES]),
    "escaped_arguments": "\n".join(
        "<tool_call>" + json.dumps({"name": "get_weather", "arguments": json.dumps({"city": c})}) + "</tool_call>"
        for c in _CITIES),
}


@pytest.mark.parametrize("text", list(_WEATHER_AS_TEXT.values()), ids=list(_WEATHER_AS_TEXT))
def test_an_episode_goes_on_after_calls_written_in_any_text_format(text):
    """A server without a tool parser passes the model's calls through as text: the client reads them, the
    episode executes them and asks again, and the trial is graded like one with native calls."""
    trial = replay("tl_parallel_weather", [say(text), say(CASES["tl_parallel_weather"].gold[-1].text)])
    assert trial.passed, trial.grade.reason
    assert trial.grade.details["text_calls"] == 4
    tool_messages = [t.content for t in trial.turns if t.role == "tool"]
    assert len(tool_messages) == 4 and all('"temp_c"' in m for m in tool_messages)
    assert "get_weather" not in trial.turns[2].content  # the markup left the stored answer text


def test_a_text_call_that_cannot_be_read_is_answered_recorded_and_the_model_tries_again():
    replies = [
        say('Listing first.\n<tool_call>{"name": "kv_list", "arguments": {"prefix": payments.}}</tool_call>'),
        say('<tool_call>{"name": "kv_list", "arguments": {"prefix": "payments."}}</tool_call>'),
        say('<tool_call>{"name": "kv_set", "arguments": {"key": "payments.endpoint", '
            '"value": "https://pay-v2.internal/api"}}</tool_call>'),
        say("The version was already bumped; I switched the endpoint."),
    ]
    trial = replay("tl_two_part_half_done", replies)
    assert trial.error is None and trial.grade.details["stopped"] == "answered"
    first = trial.turns[2]
    assert first.role == "assistant" and first.content == "Listing first."
    assert first.tool_calls[0].from_text and "payments.}" in first.tool_calls[0].arguments
    assert [t.content for t in trial.turns if t.role == "tool"][0].startswith(
        "Error: the arguments of kv_list are not valid JSON")
    malformed = trial.grade.details["malformed_calls"]
    assert [(m["turn"], m["tool"], m["kind"]) for m in malformed] == [(1, "kv_list", "invalid_json")]
    assert trial.grade.breakdown["goal_match"] == 1.0


def test_a_final_answer_that_only_contains_text_is_not_mistaken_for_a_call():
    # JSON naming a tool the task does not offer stays plain text: the episode ends, nothing is executed.
    trial = replay("tl_wind_hold", [say('{"name": "delete_everything", "arguments": {}}')])
    assert trial.grade.details["model_turns"] == 1
    assert trial.grade.hard_gate == "premature_stop"


# --------------------------------------------------------------------------------------------------------
# The grader is a pure function of the stored transcript


def test_grading_the_same_transcript_twice_gives_the_same_grade():
    a = replay("tl_request_correction", CASES["tl_request_correction"].near_misses["listed_order"][0])
    b = replay("tl_request_correction", CASES["tl_request_correction"].near_misses["listed_order"][0])
    assert a.grade == b.grade
    task = _task("tl_request_correction")
    again = TOOLS.grade(task, a.turns, Env())
    assert again == a.grade == TOOLS.grade(task, a.turns, Env())


def test_regrading_ignores_the_stored_tool_messages_and_flags_a_tampered_one():
    trial = replay("tl_refund_timeout_retry", CASES["tl_refund_timeout_retry"].gold)
    turns = [t.model_copy() for t in trial.turns]
    first_tool = next(i for i, t in enumerate(turns) if t.role == "tool")
    turns[first_tool] = turns[first_tool].model_copy(update={"content": '{"refunded": 35.0}'})
    regraded = TOOLS.grade(_task("tl_refund_timeout_retry"), turns, Env())
    assert regraded.passed  # the grade comes from replaying the calls, not from what the transcript says
    assert regraded.details["replay_mismatch"] == 1


def test_grading_replays_the_gold_once_and_each_call_once(monkeypatch):
    task = _task("tl_order_queue_budget")
    trial = replay("tl_order_queue_budget", CASES["tl_order_queue_budget"].gold)
    worlds = record_worlds(monkeypatch)
    assert TOOLS.grade(task, trial.turns, Env()) == trial.grade
    model_ids = [c.id for t in trial.turns for c in t.tool_calls]
    gold_ids = [f"gold-{i}" for i in range(len(task.body.gold_actions))]
    assert executed(worlds) == [gold_ids, model_ids]


def test_an_episode_executes_each_call_live_once_and_its_grade_replays_it_once(monkeypatch):
    task = _task("tl_refund_timeout_retry")
    worlds = record_worlds(monkeypatch)
    with ScriptedServer(transcript(CASES["tl_refund_timeout_retry"].gold)) as srv:
        run = run_benchmark(RunRequest(
            model="scripted", endpoint=srv.url, output=_tmp_output(), trials=1, max_retries=0,
            show_progress=False,
        ), tasks=[task])
    trial = run.trials[0]
    assert trial.passed, trial.grade.reason
    model_ids = [c.id for t in trial.turns for c in t.tool_calls]
    gold_ids = [f"gold-{i}" for i in range(len(task.body.gold_actions))]
    # The live episode, then the grade's one replay (the gold, then the stored calls): the grade depends
    # only on the stored turns, so that rescore can regrade without a model.
    assert executed(worlds) == [model_ids, gold_ids, model_ids]


def test_the_transcript_says_how_the_episode_ended():
    asked = Turn(role="user", content="go")
    calling = Turn(role="assistant", content="", tool_calls=[{"id": "a", "name": "get_weather",
                                                              "arguments": "{}", "from_text": True}])
    told = Turn(role="tool", content="sunny", tool_call_id="a", name="get_weather")
    done = Turn(role="assistant", content="Sunny.")
    answered = read_transcript([asked, calling, told, done])
    assert answered.stopped == "answered" and answered.final_text == "Sunny."
    assert [c.id for c in answered.calls] == ["a"] and answered.tool_messages == ("sunny",)
    assert answered.text_calls == 1
    cut = read_transcript([asked, calling])
    assert cut.stopped == "max_turns" and cut.final_text == ""
    assert read_transcript([asked]).stopped == "no_reply"


def test_the_module_gates_read_the_replay_and_the_transcript():
    task = _task("tl_two_part_half_done")
    said_done = read_transcript([Turn(role="assistant", content="All done.")])
    idle = task.body.replay(said_done.calls)
    untouched = left_undone(idle)
    assert untouched and set(untouched) == idle.targets
    stop = premature_stop(said_done, idle, untouched, task.body.optimal)
    assert stop.gate == "premature_stop" and stop.details["premature_stop"] is True
    assert loop_gate(Finding(details={"loops": []}), 3) == Finding()
    assert loop_gate(Finding(details={"loops": ["kv_list({})"]}), 3).gate == "loop"


def test_an_empty_transcript_grades_as_no_reply():
    task = _task("tl_wind_hold")
    grade = TOOLS.grade(task, [Turn(role="user", content="hi")], Env())
    assert not grade.passed and grade.details["stopped"] == "no_reply"
    assert grade.hard_gate is None


def test_gates_zero_the_score_but_keep_the_breakdown():
    trial = replay("tl_directory_down", CASES["tl_directory_down"].near_misses["kept_retrying"][0])
    assert trial.grade.hard_gate == "loop" and trial.grade.score == 0.0
    assert trial.grade.breakdown["no_loop"] == 0.0
    assert "goal_match" in trial.grade.breakdown


# --------------------------------------------------------------------------------------------------------
# Task files: bad input is a clear error


def _write_task(tmp_path: Path, body_change: dict) -> Path:
    data = yaml.safe_load((TASK_DIR / "tl_wind_hold.yaml").read_text())
    data["body"].update(body_change)
    folder = tmp_path / "tools"
    folder.mkdir(exist_ok=True)
    path = folder / "tl_wind_hold.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"tools": ["get_weather", "get_wether"]}, "unknown tool 'get_wether'"),
        ({"tools": []}, "at least one"),
        ({"forbidden_tools": ["kv_delete"]}, "not offered"),
        ({"gold_actions": [{"tool": "kv_set", "args": {"key": "event.outdoor"}}]}, "gold action 1"),
        ({"promt": "typo"}, "field .body.promt.: unknown key"),
    ],
)
def test_broken_task_bodies_are_user_errors_naming_the_field(tmp_path, change, message):
    with pytest.raises(UserError, match=message) as info:
        load_task(_write_task(tmp_path, change))
    assert "tl_wind_hold.yaml" in str(info.value)
