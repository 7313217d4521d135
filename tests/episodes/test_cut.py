"""The rule for a reply cut by the token limit (engine/episodes/cut.py), through the real runner: a cut
after a complete answer is graded on that answer and marked unsure; a cut before it fails as a truncation."""

from __future__ import annotations

import pytest

from engine.episodes.answer_line import answered_before_cut
from engine.episodes.code.extract import code_before_cut
from engine.episodes.cut import report_closed_before_cut
from tests.helpers.replay import replay
from tests.helpers.scripted_server import Action

LOOP = " and then it loops again" * 60


@pytest.mark.parametrize("task_id, text", [
    ("kn_rail_pass", "Answer: 85.80\n\nHere is why: the pass costs 96.00 and the single fares add up to"),
    ("kn_dict_counter", "Answer: 10:3,8:1,4:1,3:1\n\nThe loop skips odd numbers above five," + LOOP),
])
def test_a_cut_after_a_complete_answer_is_graded_on_it(task_id, text):
    trial = replay(task_id, [Action(text=text, finish_reason="length")])
    assert trial.passed and trial.truncation != "none"
    assert trial.grade.unsure and "cut by the token limit after its answer" in trial.grade.unsure
    assert trial.grade.hard_gate is None


def test_a_wrong_answer_cut_afterwards_fails_on_its_answer():
    trial = replay("kn_rail_pass", [Action(text="Answer: 86\n\nBecause the pass costs", finish_reason="length")])
    assert not trial.passed and "answered" in trial.grade.reason


@pytest.mark.parametrize("text", [
    "Let me work it out: the pass costs 96.00 and the single fares add up to",   # no answer yet
    "The saving is large.\n\nAnswer: 85",                                         # the cut may clip the value
    "Antwort: 85.80",                                                             # a bare or foreign answer at the cut
    "Let me think" + LOOP,                                                        # looping, never answered
])
def test_a_cut_before_the_answer_is_complete_fails_as_truncated(text):
    trial = replay("kn_rail_pass", [Action(text=text, finish_reason="length")])
    assert not trial.passed and trial.grade.reason.startswith("truncated (")


def test_the_long_context_answer_line_first_then_cut():
    text = "Answer: Dana\n\nExplanation: early in the meeting Priya volunteered, then at 10:05 Dana said she"
    assert answered_before_cut(text)
    assert not answered_before_cut("Dana took it over from Priya at 10:05, so the owner is")


def test_code_is_complete_only_in_closed_fences():
    whole = "```python\ndef f(x):\n    return x\n```\n\nThis works because" + LOOP
    assert code_before_cut(whole, "f")
    assert not code_before_cut("```python\ndef f(x):\n    return", "f")
    assert not code_before_cut("```python\ndef f(x):\n    return x\n```\n\nUsage:\n```python\nf(", "f")
    assert not code_before_cut("def f(x):\n    return x\n\nThis works because", "f")


# ------------------------------------------------------------------------------------------------- tools

HALT_CALLS = [
    Action(tool_calls=[{"name": "get_stock_quote", "arguments": '{"symbol": "ACME"}'}]),
    Action(tool_calls=[{"name": "find_contacts", "arguments": '{"query": "risk"}'}]),
    Action(tool_calls=[{"name": "kv_set", "arguments": '{"key": "trading.acme_halt", "value": true}'}]),
    Action(tool_calls=[{"name": "send_message", "arguments": '{"to": "priya.nair@fund.example", "subject": '
                                                             '"ACME halt", "body": "ACME is down 4.2% today."}'}]),
]


def test_a_tools_report_closed_before_the_cut_is_graded_on_it():
    report = ("Done. ACME fell 4.2% today, past the 3% threshold, so I set trading.acme_halt to true and emailed "
              "Priya Nair with the subject \"ACME halt\".\n\nNote: Tom Berg is also on the risk team, so if you")
    trial = replay("tl_price_drop_halt", [*HALT_CALLS, Action(text=report, finish_reason="length")])
    assert trial.passed and trial.truncation != "none"
    assert trial.grade.unsure and "cut by the token limit after its answer" in trial.grade.unsure


@pytest.mark.parametrize("text", [
    # Working cut before its conclusion: an introduction ending with a colon, then figures with no sentence end.
    "Let me compare the figures:\n\n1. ACME: -4.2%\n2. Threshold: -3%\n\nNow I need to check whether the",
    # Cut in its first paragraph.
    "Done. ACME fell 4.2% today, so I set trading.acme_halt to true and emailed Priya Nair about",
    # A call written as text, cut before it closed.
    "I will email the lead now.\n\n<tool_call>send_message\n<arg_key>to</arg_key>\n<arg_value>priya",
])
def test_a_tools_reply_cut_before_its_report_closed_fails_as_truncated(text):
    trial = replay("tl_price_drop_halt", [*HALT_CALLS, Action(text=text, finish_reason="length")])
    assert not trial.passed and trial.grade.reason.startswith("truncated (")


def test_the_report_is_closed_only_by_a_sentence_end_before_the_cut_paragraph():
    assert report_closed_before_cut("All done.\n\nIf you want, I can also")
    assert report_closed_before_cut("Set the flag and sent the email!\n\n- next, I could")
    assert not report_closed_before_cut("Here is what I found:\n\n- ACME -4.2%\n\nSo the")
    assert not report_closed_before_cut("All done, and if you want I can also")
