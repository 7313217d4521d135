"""Outcome grading: gold scores 1.0, doing nothing scores 0 goal, each failure is penalised as designed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.world import World, WorldSpecError, call_budget, execute, grade_episode
from tests.world.conftest import TABLE_DOC

GOLD = [
    {"tool": "approve_order", "args": {"order_id": "O-1"}},
    {"tool": "reject_order", "args": {"order_id": "O-2", "reason": "over_budget"}},
    {"tool": "kv_set", "args": {"key": "app.mode", "value": "frozen"}},
]


def calls(*steps: tuple[str, dict[str, Any]] | dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for i, step in enumerate(steps):
        name, args = (step["tool"], step["args"]) if isinstance(step, dict) else step
        out.append({"id": f"c{i}", "name": name, "arguments": json.dumps(args)})
    return out


def test_gold_actions_score_one(seed: dict[str, Any]) -> None:
    grade = grade_episode(seed, GOLD, calls(*GOLD), {})
    assert grade.passed and grade.score == 1.0 and grade.hard_gate is None
    assert grade.breakdown == {"goal_match": 1.0, "no_side_effects": 1.0, "efficiency": 1.0, "no_loop": 1.0}
    assert grade.details["target_paths"] == 5
    assert grade.details["expected_hash"] == grade.details["final_hash"]


def test_doing_nothing_scores_zero_goal_match(seed: dict[str, Any]) -> None:
    grade = grade_episode(seed, GOLD, [], {})
    assert not grade.passed
    assert grade.breakdown["goal_match"] == 0.0
    assert grade.breakdown["efficiency"] == 0.0
    assert grade.details["reached_paths"] == 0
    assert 'orders["O-1"].status' in grade.details["missed"]


def test_half_done_is_partial_goal(seed: dict[str, Any]) -> None:
    grade = grade_episode(seed, GOLD, calls(GOLD[0]), {})
    # O-1 approved moves two paths (status, spent) of five.
    assert grade.breakdown["goal_match"] == pytest.approx(2 / 5)
    assert not grade.passed


def test_order_of_independent_calls_does_not_matter(seed: dict[str, Any]) -> None:
    grade = grade_episode(seed, GOLD, calls(*reversed(GOLD)), {})
    assert grade.passed


def test_a_side_effect_is_penalised(seed: dict[str, Any]) -> None:
    extra = calls(*GOLD, ("kv_set", {"key": "app.retries", "value": 9}))
    grade = grade_episode(seed, GOLD, extra, {"efficiency_slack": 1})
    assert grade.breakdown["goal_match"] == 1.0
    assert grade.breakdown["no_side_effects"] == 0.0
    assert grade.score == pytest.approx(0.8)
    assert not grade.passed
    assert grade.details["side_effects"] == {'kv.values["app.retries"]': {"seed": 3, "got": 9}}
    assert "outside the task" in grade.reason


def test_a_wrong_value_on_a_target_is_a_goal_miss_not_a_side_effect(seed: dict[str, Any]) -> None:
    wrong = calls(GOLD[0], GOLD[1], ("kv_set", {"key": "app.mode", "value": "Frozen"}))
    grade = grade_episode(seed, GOLD, wrong, {})
    assert grade.breakdown["goal_match"] == pytest.approx(4 / 5)
    assert grade.breakdown["no_side_effects"] == 1.0


def test_one_extra_read_is_free_two_cost_efficiency_unless_slack_allows(seed: dict[str, Any]) -> None:
    # The gold makes no read: one look before acting is allowed, a second one is not.
    looked = calls(("get_budget", {}), *GOLD)
    assert grade_episode(seed, GOLD, looked, {}).passed
    twice = calls(("get_budget", {}), ("list_orders", {}), *GOLD)
    grade = grade_episode(seed, GOLD, twice, {})
    assert grade.breakdown["efficiency"] == pytest.approx(0.5)
    assert grade.details["counted_calls"] == {"reads": 2, "writes": 3}
    assert not grade.passed
    assert grade_episode(seed, GOLD, twice, {"efficiency_slack": 1}).passed


def test_reads_and_writes_are_budgeted_apart(seed: dict[str, Any]) -> None:
    # Spare read allowance does not pay for an extra write.
    extra_write = calls(*GOLD, ("kv_set", {"key": "app.mode", "value": "frozen"}))
    grade = grade_episode(seed, GOLD, extra_write, {})
    assert grade.breakdown["efficiency"] == pytest.approx(0.75)
    assert not grade.passed


def test_a_retry_after_a_world_error_costs_no_efficiency(seed: dict[str, Any]) -> None:
    # The first approval is refused by the world (O-2 does not exist yet as typed); retrying right is sound.
    wrong_id = calls(("approve_order", {"order_id": "O-01"}), *GOLD)
    grade = grade_episode(seed, GOLD, wrong_id, {})
    assert grade.details["error_calls"] == 1 and grade.breakdown["efficiency"] == 1.0
    assert grade.passed
    # A malformed call is the model's own noise and does count.
    malformed = [{"id": "m", "name": "approve_order", "arguments": '{"order_id": 1}'}] + calls(*GOLD)
    assert grade_episode(seed, GOLD, malformed, {}).breakdown["efficiency"] == pytest.approx(0.75)


def test_a_change_outside_the_task_fails_even_when_undone(seed: dict[str, Any]) -> None:
    undone = calls(*GOLD, ("kv_set", {"key": "app.retries", "value": 9}),
                   ("kv_set", {"key": "app.retries", "value": 3}))
    grade = grade_episode(seed, GOLD, undone, {"efficiency_slack": 2})
    assert grade.details["final_hash"] == grade.details["expected_hash"]
    assert grade.breakdown["no_side_effects"] == 0.0 and not grade.passed
    assert grade.details["undone_changes"]['kv.values["app.retries"]']["went_through"] == [9]
    assert "later undone" in grade.reason


def test_a_wrong_value_on_a_target_fails_even_when_corrected(seed: dict[str, Any]) -> None:
    corrected = calls(GOLD[0], GOLD[1], ("kv_set", {"key": "app.mode", "value": "open"}), GOLD[2])
    grade = grade_episode(seed, GOLD, corrected, {"efficiency_slack": 1})
    assert grade.breakdown["goal_match"] == 1.0 and grade.breakdown["no_side_effects"] == 0.0
    assert 'kv.values["app.mode"]' in grade.details["undone_changes"]


def test_values_the_gold_passes_through_are_allowed(seed: dict[str, Any]) -> None:
    # Two approvals move the spent amount through an intermediate value; the gold does the same.
    gold = [{"tool": "approve_order", "args": {"order_id": "O-1"}},
            {"tool": "approve_order", "args": {"order_id": "O-2"}}]
    grade = grade_episode({**seed, "account": {"budget": 1000.0, "spent": 0.0}}, gold, calls(*gold), {})
    assert grade.passed and grade.details["undone_changes"] == {}


def test_loop_is_penalised(seed: dict[str, Any]) -> None:
    looping = calls(*GOLD, *[("get_budget", {})] * 3)
    grade = grade_episode(seed, GOLD, looping, {"optimal_calls": 6})
    assert grade.breakdown["no_loop"] == 0.0
    assert grade.details["loops"] == ["get_budget({})"]
    assert not grade.passed


def test_identical_means_same_arguments_whatever_their_spelling(seed: dict[str, Any]) -> None:
    spelled = [{"name": "kv_get", "arguments": a} for a in ('{"key":"a"}', '{ "key": "a" }', '{"key": "a"}')]
    grade = grade_episode(seed, [], spelled, {"optimal_calls": 3})
    assert grade.breakdown["no_loop"] == 0.0


def test_a_retry_after_a_failure_is_not_a_loop(seed: dict[str, Any]) -> None:
    spec = {"failures": [{"tool": "approve_order", "kind": "first_call", "message": "timeout; retry"}]}
    gold = [GOLD[0], GOLD[0]]
    grade = grade_episode(seed, gold, calls(*gold), spec)
    assert grade.passed and grade.breakdown["no_loop"] == 1.0


def test_giving_up_after_an_injected_failure_fails(seed: dict[str, Any]) -> None:
    spec = {"failures": [{"tool": "approve_order", "kind": "first_call", "message": "timeout; retry"}]}
    grade = grade_episode(seed, [GOLD[0], GOLD[0]], calls(GOLD[0]), spec)
    assert grade.breakdown["goal_match"] == 0.0
    assert not grade.passed


def test_forbidden_tool_is_a_hard_gate(seed: dict[str, Any]) -> None:
    bad = calls(*GOLD, ("kv_delete", {"key": "db.url"}))
    grade = grade_episode(seed, GOLD, bad, {"forbidden_tools": ["kv_delete"], "optimal_calls": 3})
    assert grade.hard_gate == "forbidden_tool"
    assert not grade.passed and grade.score == 0.0
    # The call was refused (protected key), the state is right, and still the trial fails.
    assert grade.breakdown["goal_match"] == 1.0
    assert "kv_delete" in grade.reason


def test_forbidden_call_pattern_is_a_hard_gate(seed: dict[str, Any]) -> None:
    spec = {"forbidden_calls": [{"tool": "kv_set", "args": {"key": "db.url"}}]}
    touched = calls(*GOLD, ("kv_set", {"key": "db.url", "value": "sqlite://"}))
    assert grade_episode(seed, GOLD, touched, spec).hard_gate == "forbidden_tool"
    assert grade_episode(seed, GOLD, calls(*GOLD), spec).passed


def test_call_budget_is_a_hard_gate(seed: dict[str, Any]) -> None:
    assert call_budget(3) == 6 and call_budget(5) == 10 and call_budget(0) == 3
    at_budget = calls(*GOLD, ("get_budget", {}), ("list_orders", {}), ("kv_list", {}))
    assert grade_episode(seed, GOLD, at_budget, {}).hard_gate is None
    over = at_budget + calls(("list_files", {}))
    grade = grade_episode(seed, GOLD, over, {})
    assert grade.hard_gate == "call_budget" and not grade.passed and grade.score == 0.0
    assert "7 calls" in grade.reason


def test_malformed_calls_count_towards_the_budget(seed: dict[str, Any]) -> None:
    junk = [{"name": "approve_order", "arguments": "{oops"}] * 4
    grade = grade_episode(seed, GOLD, junk + calls(*GOLD), {"loop_threshold": 10})
    assert grade.details["calls"] == 7 and grade.hard_gate == "call_budget"
    assert grade.details["error_calls"] == 4


def test_gold_that_changes_nothing(seed: dict[str, Any]) -> None:
    gold = [{"tool": "get_stock_quote", "args": {"symbol": "ACME"}}]
    assert grade_episode(seed, gold, calls(*gold), {}).passed
    fired = calls(*gold, ("send_message", {"to": "ana@example.com", "subject": "sell", "body": "ACME fell"}))
    grade = grade_episode(seed, gold, fired, {"optimal_calls": 2})
    assert grade.breakdown["goal_match"] == 1.0 and grade.breakdown["no_side_effects"] == 0.0
    assert not grade.passed


def test_a_late_correction_decides_the_final_value(seed: dict[str, Any]) -> None:
    gold = [
        {"tool": "list_requests", "args": {}},
        {"tool": "kv_set", "args": {"key": "app.retries", "value": 7}},
        {"tool": "set_request_status", "args": {"request_id": "R-1", "status": "superseded"}},
        {"tool": "set_request_status", "args": {"request_id": "R-2", "status": "applied"}},
    ]
    assert grade_episode(seed, gold, calls(*gold), {}).passed
    in_listed_order = calls(
        ("list_requests", {}),
        ("kv_set", {"key": "app.retries", "value": 7}),
        ("kv_set", {"key": "app.retries", "value": 5}),
        ("set_request_status", {"request_id": "R-2", "status": "applied"}),
        ("set_request_status", {"request_id": "R-1", "status": "applied"}),
    )
    grade = grade_episode(seed, gold, in_listed_order, {})
    assert 'kv.values["app.retries"]' in grade.details["missed"]
    assert not grade.passed


def test_markdown_edit_graded_on_structure(seed: dict[str, Any]) -> None:
    gold = [
        {
            "tool": "replace_in_file",
            "args": {
                "path": "plan.md",
                "old": "| Beta      | Ben   | open   |",
                "new": "| Beta      | Ben   | done   |",
            },
        }
    ]
    restyled = TABLE_DOC.replace("| Beta      | Ben   | open   |", "|Beta|Ben|done|").replace(
        "- keep", "* keep"
    )
    grade = grade_episode(seed, gold, calls(("write_file", {"path": "plan.md", "content": restyled})), {})
    assert grade.passed, grade.details


def test_markdown_edit_that_breaks_the_table_fails(seed: dict[str, Any]) -> None:
    gold = [
        {
            "tool": "replace_in_file",
            "args": {
                "path": "plan.md",
                "old": "| Beta      | Ben   | open   |",
                "new": "| Beta      | Ben   | done   |",
            },
        }
    ]
    broken = TABLE_DOC.replace("| Beta      | Ben   | open   |", "| Beta | done |")
    grade = grade_episode(seed, gold, calls(("write_file", {"path": "plan.md", "content": broken})), {})
    assert not grade.passed
    assert grade.breakdown["goal_match"] < 1.0
    assert any("row 2 has 2 cells" in p for p in grade.details["markdown_problems"]["plan.md"])


def test_markdown_edit_that_drops_an_untouched_line_fails(seed: dict[str, Any]) -> None:
    gold = [
        {
            "tool": "replace_in_file",
            "args": {
                "path": "plan.md",
                "old": "| Beta      | Ben   | open   |",
                "new": "| Beta      | Ben   | done   |",
            },
        }
    ]
    edited = TABLE_DOC.replace("| Beta      | Ben   | open   |", "| Beta | Ben | done |").replace(
        "- tag every release\n", ""
    )
    grade = grade_episode(seed, gold, calls(("write_file", {"path": "plan.md", "content": edited})), {})
    assert grade.breakdown["goal_match"] == 1.0 and grade.breakdown["no_side_effects"] == 0.0


def test_final_answer_checks(seed: dict[str, Any]) -> None:
    spec = {"checks": {"must_mention": ["O-2", ["350", "350.00"]], "must_not_mention": ["approved O-2"]}}
    good = grade_episode(seed, GOLD, calls(*GOLD), spec, final_text="Rejected **O-2** (350.00 EUR).")
    assert good.passed and good.breakdown["answer_checks"] == 1.0
    # A quoted note, not a report of approving O-2 (that would be a misreport: the gold rejects O-2).
    bad = grade_episode(seed, GOLD, calls(*GOLD), spec, final_text="All done; the old note said approved O-2.")
    assert bad.breakdown["answer_checks"] == pytest.approx(1 / 3)
    assert bad.score == pytest.approx(1 / 3)
    assert not bad.passed
    assert "does not mention '350'" not in " ".join(bad.details["check_failures"])
    assert any("mentions 'approved O-2'" in f for f in bad.details["check_failures"])


def test_message_checks(seed: dict[str, Any]) -> None:
    gold = [{"tool": "send_message", "args": {"to": "ben@example.com", "subject": "O-2", "body": "rejected"}}]
    spec = {
        "checks": {
            "messages": [{"to": "ben@example.com", "must_mention": ["O-2", ["over budget", "budget"]]}]
        }
    }
    ok = calls(
        ("send_message", {"to": "Ben@example.com", "subject": "About O-2", "body": "Over budget, sorry."})
    )
    assert grade_episode(seed, gold, ok, spec).passed
    vague = calls(("send_message", {"to": "ben@example.com", "subject": "Hi", "body": "See O-2."}))
    grade = grade_episode(seed, gold, vague, spec)
    assert not grade.passed and "no message to ben@example.com" in grade.details["check_failures"][0]


def test_a_fixed_subject_is_graded_apart_from_the_body(seed: dict[str, Any]) -> None:
    gold = [{"tool": "send_message", "args": {"to": "ben@example.com", "subject": "O-2 rejected", "body": "Budget."}}]
    spec = {"checks": {"messages": [{"to": "ben@example.com", "subject": "O-2 rejected", "must_mention": ["O-2"]}]}}
    same = calls(("send_message", {"to": "ben@example.com", "subject": " 'o-2 Rejected.' ", "body": "Budget."}))
    assert grade_episode(seed, gold, same, spec).passed
    # The body still carries every word the check wants; only the subject line changed.
    changed = calls(("send_message", {"to": "ben@example.com", "subject": "Your order", "body": "O-2 rejected."}))
    grade = grade_episode(seed, gold, changed, spec)
    assert not grade.passed and grade.breakdown["answer_checks"] == pytest.approx(1 / 2)
    assert "has the subject 'O-2 rejected'; it has 'Your order'" in grade.reason


def test_a_message_must_ask_for_the_action_in_whatever_words(seed: dict[str, Any]) -> None:
    gold = [{"tool": "send_message", "args": {"to": "ben@example.com", "subject": "Run", "body": "Please rerun."}}]
    rerun = {"verbs": ["run", "kick off"], "again": True}
    spec = {"checks": {"messages": [{"to": "ben@example.com", "asks": [rerun]}]}}
    def mail(body: str) -> list[dict[str, Any]]:
        return calls(("send_message", {"to": "ben@example.com", "subject": "Run", "body": body}))

    asked = mail("It failed at 03:10; could you kick it off again?")
    assert grade_episode(seed, gold, asked, spec).passed
    told = mail("It failed; no need to run it again.")
    grade = grade_episode(seed, gold, told, spec)
    assert not grade.passed and "asks its reader to run / kick off again" in grade.reason


def test_a_decision_without_a_required_lookup_fails(seed: dict[str, Any]) -> None:
    gold = [{"tool": "get_weather", "args": {"city": "Lisbon"}},
            {"tool": "get_stock_quote", "args": {"symbol": "ACME"}}]
    spec = {"required_calls": [{"tool": "get_weather", "args": {"city": "Lisbon"}},
                               {"tool": "get_stock_quote", "args": {"symbol": "ACME"}}],
            "efficiency_slack": 1}
    looked = calls(("get_weather", {"city": "lisbon"}), ("get_stock_quote", {"symbol": "ACME"}))
    assert grade_episode(seed, gold, looked, spec, final_text="Lisbon: 21.5 C").passed  # any case, as the tool
    guessed = calls(("get_stock_quote", {"symbol": "ACME"}))
    grade = grade_episode(seed, gold, guessed, spec, final_text="Lisbon: 21.5 C")
    assert not grade.passed and grade.breakdown["required_calls"] == pytest.approx(1 / 2)
    assert grade.details["missing_required_calls"] == ["get_weather(city='Lisbon')"]
    # a lookup the world answered with an error is no lookup
    failed = calls(("get_weather", {"city": "Lisbn"}), ("get_stock_quote", {"symbol": "ACME"}))
    assert not grade_episode(seed, gold, failed, spec, final_text="Lisbon: 21.5 C").passed


def test_unknown_tool_calls_replay_as_errors(seed: dict[str, Any]) -> None:
    spec = {"tools": ["kv_get", "kv_set"]}
    gold = [GOLD[2]]
    grade = grade_episode(seed, gold, calls(("approve_order", {"order_id": "O-1"}), GOLD[2]), spec)
    assert grade.breakdown["no_side_effects"] == 1.0
    assert grade.details["error_calls"] == 1


def test_outcomes_from_a_live_world_can_be_graded(seed: dict[str, Any]) -> None:
    world = World(seed)
    for c in calls(*GOLD):
        execute(world, c)
    grade = grade_episode(seed, GOLD, world.history, {})
    assert grade.passed and grade.details["final_hash"] == world.state_hash()


def test_same_input_graded_twice_gives_the_same_grade(seed: dict[str, Any]) -> None:
    model_calls = calls(GOLD[0], ("kv_set", {"key": "app.retries", "value": 9}), ("get_budget", {}))
    first = grade_episode(seed, GOLD, model_calls, {"checks": {"must_mention": ["O-1"]}}, final_text="O-1 ok")
    second = grade_episode(
        seed, GOLD, model_calls, {"checks": {"must_mention": ["O-1"]}}, final_text="O-1 ok"
    )
    assert first.model_dump() == second.model_dump()
    # The grade goes into a JSON result file as it is.
    assert json.loads(json.dumps(first.model_dump())) == first.model_dump()


def test_a_failing_gold_action_is_a_task_error(seed: dict[str, Any]) -> None:
    with pytest.raises(WorldSpecError, match="gold action 2 \\(approve_order\\)"):
        grade_episode(seed, [{"tool": "approve_order", "args": {"order_id": "O-2"}}] * 2, [], {})
    with pytest.raises(WorldSpecError, match="invalid grading spec"):
        grade_episode(seed, GOLD, [], {"forbiden_tools": []})
