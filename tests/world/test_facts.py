"""Identifiers a final message states must come from what the episode showed the model: the tools' answers,
the request, its own successful calls. Each rule has a reply it accepts and a near miss it refuses."""

from __future__ import annotations

from typing import Any

import pytest

from engine.world.episode import WorldEpisode
from engine.world.facts import identifiers, invented, shown, unshown
from engine.world.grading import grade_episode

SHIPMENT: dict[str, Any] = {
    "world": {"orders": {"O-88": {"customer": "Ines Duarte", "item": "LMP-01 reading lamp", "quantity": 2,
                                  "unit_price": 64.5, "status": "approved"}}},
    "tools": ["get_order", "create_shipment"],
    "gold_actions": [
        {"tool": "get_order", "args": {"order_id": "O-88"}},
        {"tool": "create_shipment", "args": {
            "order_id": "O-88", "service": "express",
            "address": {"name": "Ines Duarte", "street": "Rua das Flores 112", "city": "Porto",
                        "postal_code": "4050-262", "country": "PT"},
            "items": [{"sku": "LMP-01", "quantity": 2}]}},
    ],
    "checks": {"facts_from_tools": True},
}
REQUEST = "Order O-88 is approved; please book its shipment to Rua das Flores 112, 4050-262 Porto."


def test_identifiers_are_code_like_tokens_not_figures():
    text = ("Shipped O-88 (SKU **LMP-01**, ref `A1B2C3`) via express, tracking PT8842601-EX, ticket 12345678; "
            "22km/h winds, 10am, the 3rd parcel, 27.5 °C, 129.00 EUR, docs/q3-plan.md.")
    assert identifiers(text) == ["O-88", "LMP-01", "A1B2C3", "PT8842601-EX", "12345678", "docs/q3-plan.md"]


def test_an_identifier_matches_only_whole():
    known = shown(['{"order_id": "O-88", "status": "shipped"}'], "", [])
    assert invented("Booked O-88.", known) == []
    assert invented("Booked O-8.", known) == ["O-8"]          # not found inside O-88
    assert invented("Booked o-88.", known) == []              # case does not matter


def test_the_request_and_the_models_own_call_arguments_count_as_shown():
    known = shown([], REQUEST, [{"path": "notes/run-42.md", "body": "ref ZX-991 inside free text"}])
    assert invented("Order O-88, postal code 4050-262, notes in notes/run-42.md.", known) == []
    # a code the model wrote into free text (a message body) was still never shown to it
    assert invented("Your reference is ZX-991.", known) == ["ZX-991"]


def _grade(final_text: str, *, facts: bool = True):
    episode = WorldEpisode.model_validate({**SHIPMENT, "checks": {"facts_from_tools": facts}})
    return episode.grade([{"name": a.tool, "arguments": a.args} for a in episode.gold_actions], final_text)


def test_an_invented_tracking_number_fails_the_trial_whatever_the_state():
    grade = _grade("Shipment booked for O-88.\n\n- Service: express\n- Tracking number: PT8842601-EX")
    assert not grade.passed and grade.hard_gate == "invented_fact"
    assert "PT8842601-EX" in grade.reason
    assert grade.details["invented_facts"] == ["PT8842601-EX"]


@pytest.mark.parametrize("text", [
    "Shipment booked for O-88: 2 × LMP-01, express, insured for 129.00 with signature.",
    "Done — O-88 is shipped by express to 4050-262 Porto.",
    "",
])
def test_facts_the_episode_showed_pass(text):
    grade = _grade(text)
    assert grade.hard_gate is None and grade.passed, grade.reason


def test_a_task_that_does_not_ask_for_the_check_is_not_gated():
    assert _grade("Tracking number: PT8842601-EX", facts=False).passed


@pytest.mark.parametrize("text", [
    "- LMP-01 x2\n- LMP-BULB-4 x1",
    "2x LMP-01, ×1 LMP-BULB-4",
    "LMP-01: 2 pcs",
])
def test_a_quantity_written_beside_an_item_is_no_identifier(text):
    assert identifiers(text) == [t for t in ("LMP-01", "LMP-BULB-4") if t in text]


@pytest.mark.parametrize(("text", "made_up"), [
    ("Tracking: X2-991", ["X2-991"]),     # a code that starts like a multiplier
    ("Parcel ref X2.", ["X2"]),           # upper case: a code, not "two of"
    ("Label 2x4B attached.", ["2x4B"]),   # more of a code follows the multiplier
])
def test_invented_codes_that_look_like_quantities_are_still_caught(text, made_up):
    assert invented(text, shown([], REQUEST, [])) == made_up


# ------------------------------------------------------------------------------------------------------
# The facts a sent message states (engine.world.facts.unshown), through the message check's facts_shown.

DIRECTORY: dict[str, Any] = {
    "world": {"contacts": {"c-31": {"name": "Nils Eriksen", "email": "n.eriksen@fleet.example", "team": "billing"}}},
    "tools": ["send_message"],
    "gold_actions": [{"tool": "send_message", "args": {
        "to": "n.eriksen@fleet.example", "subject": "Invoice run 2291 failed",
        "body": "Invoice run 2291 failed at 03:10 and needs a rerun."}}],
    "checks": {"messages": [{"to": "n.eriksen@fleet.example", "subject": "Invoice run 2291 failed",
                             "facts_shown": True}]},
}
RUN_REQUEST = "Please email Nils that invoice run 2291 failed at 03:10 and needs a rerun."


def _send(body: str, *, facts: bool = True):
    checks = {"messages": [{**DIRECTORY["checks"]["messages"][0], "facts_shown": facts}]}
    call = {"name": "send_message", "arguments": {"to": "n.eriksen@fleet.example",
                                                  "subject": "Invoice run 2291 failed", "body": body}}
    return grade_episode(DIRECTORY["world"], DIRECTORY["gold_actions"], [call],
                         {"tools": DIRECTORY["tools"], "checks": checks}, final_text="Sent.", request=RUN_REQUEST)


@pytest.mark.parametrize("body", [
    "Invoice run 2291 failed at 03:10 and needs a rerun.",
    "Hi Nils, run 2291 failed today at 3:10 am. Could you run it again?",
    "Run 2291 failed at 3.10 a.m.; please rerun it.",
    "Run 2291 failed overnight; please rerun it.",   # no time stated: nothing to compare
])
def test_a_message_stating_the_facts_it_was_shown_passes(body):
    grade = _send(body)
    assert grade.passed, grade.reason


@pytest.mark.parametrize(("body", "wrong"), [
    ("Invoice run 2291 failed today at 13:10 and needs a rerun.", "13:10"),
    ("Run 2291 failed at 3:10 pm, please rerun.", "3:10 pm"),
    ("Run 2291 failed at 03:10 (incident INC-4471); please rerun.", "INC-4471"),
])
def test_a_message_stating_a_wrong_fact_fails(body, wrong):
    grade = _send(body)
    assert not grade.passed and grade.breakdown["answer_checks"] < 1
    assert repr(wrong) in grade.reason


def test_a_message_check_that_does_not_ask_for_facts_does_not_compare_them():
    assert _send("Invoice run 2291 failed today at 13:10 and needs a rerun.", facts=False).passed


def test_unshown_reads_times_in_any_notation_and_names_each_once():
    known = "The job failed at 03:10; the service is down until 18:00."
    assert unshown("Failed at 3:10 AM, back at 6 pm.", known) == []
    assert unshown("Failed at 13:10, then again at 13:10.", known) == ["13:10"]
