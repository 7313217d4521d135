"""The rule for a reply cut by the token limit (engine/episodes/cut.py), through the real runner: a cut
after a complete answer is graded on that answer and marked unsure; a cut before it fails as a truncation."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from engine.episodes.answer_line import answered_before_cut
from engine.episodes.code.extract import code_before_cut
from engine.episodes.structure import closed_sentences, whole_before_cut
from engine.run.request import RunRequest
from engine.run.rescore import rescore_run
from engine.run.runner import run_benchmark
from tests.helpers.replay import ROOT, replay
from tests.helpers.scripted_server import Action, ScriptedServer, transcript

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
    # Cut in its first sentence.
    "I set trading.acme_halt to true and emailed Priya Nair about",
    # A call written as text, cut before it closed.
    "I will email the lead now.\n\n<tool_call>send_message\n<arg_key>to</arg_key>\n<arg_value>priya",
])
def test_a_tools_reply_cut_before_a_whole_sentence_fails_as_truncated(text):
    trial = replay("tl_price_drop_halt", [*HALT_CALLS, Action(text=text, finish_reason="length")])
    assert not trial.passed and trial.grade.reason.startswith("truncated (")


def test_a_task_that_asks_nothing_of_the_final_message_grades_its_whole_sentences():
    # tl_price_drop_halt checks the state and the email, nothing in the final words: "Done." carries all the
    # answer checks ask, so the cut in the explanation after it takes nothing the grade needs.
    report = "Done. ACME fell 4.2% today, so I set trading.acme_halt to true and emailed Priya Nair about"
    trial = replay("tl_price_drop_halt", [*HALT_CALLS, Action(text=report, finish_reason="length")])
    assert trial.passed and "cut by the token limit after its answer" in trial.grade.unsure


# tl_wind_hold: look Oslo up (38 km/h, not above 40), change nothing, and state the wind ("38" must be said).
OSLO = [Action(tool_calls=[{"name": "get_weather", "arguments": '{"city": "Oslo"}'}])]


@pytest.mark.parametrize("text", [
    # A trailing aside (the b10 case).
    "The current wind speed in Oslo is 38 km/h, which is below the 40 km/h threshold, so I have not changed "
    "event.outdoor and have not contacted the events coordinator. Conditions are described as overcast with "
    "strong gusts, so it may be worth keeping an eye on the forecast and having a backup plan in case the wind "
    "picks up later this",
    # A sign-off after a Markdown report.
    "**Wind in Oslo:** 38 km/h — below the 40 km/h limit.\n\nNo settings changed, no email sent.\n\n"
    "Let me know if there is anything else I can do, happy to",
    # An offer of more help, in the same paragraph as the answer.
    "Oslo's wind is 38 km/h right now! That is under the threshold, so the launch stays outdoors. Would you "
    "like me to check the forecast again closer to the start at",
    # The answer in a list, each item a whole sentence, then a cut closing note.
    "Here is the result:\n- Wind in Oslo: 38 km/h.\n- Threshold (above 40 km/h) not reached.\n\nNote: the "
    "gusts are described as strong, e.g. up to",
])
def test_a_tools_answer_whole_before_the_cut_is_graded_on_it(text):
    trial = replay("tl_wind_hold", [*OSLO, Action(text=text, finish_reason="length")])
    assert trial.passed and trial.truncation != "none"
    assert trial.grade.unsure and "cut by the token limit after its answer" in trial.grade.unsure


@pytest.mark.parametrize("text", [
    # Cut in the middle of the answer sentence.
    "The current wind speed in Oslo is 38 km/h, which is below the 40 km/h thresh",
    # Cut before the required figure, after a whole sentence that does not give it.
    "I checked the weather in Oslo. Conditions are overcast with strong gusts, and the wind is currently",
    # The figure only in the last sentence, which the cut may have clipped ("38." could have gone on "38.5").
    "I checked Oslo and left everything as it was. The wind there is 38.",
    # The figure only in a list with no sentence end, cut in its working.
    "Let me compare:\n\n1. Oslo wind: 38 km/h\n2. Threshold: 40 km/h\n\nSince 38 is",
])
def test_a_tools_reply_cut_before_its_answer_was_whole_fails_as_truncated(text):
    trial = replay("tl_wind_hold", [*OSLO, Action(text=text, finish_reason="length")])
    assert not trial.passed and trial.grade.reason.startswith("truncated (")


@pytest.mark.parametrize("text, passed", [
    ("The wind in Oslo is 38 km/h, below the 40 km/h threshold. I left everything as it was. If you like, I", True),
    ("I looked Oslo up. The wind in Oslo is currently", False),
])
def test_rescore_grades_a_cut_tools_trial_as_the_run_did(text, passed):
    replies = [*OSLO, Action(text=text, finish_reason="length")]
    with ScriptedServer(transcript(replies)) as srv, tempfile.TemporaryDirectory() as tmp:
        request = RunRequest(model="scripted", endpoint=srv.url, output=Path(tmp) / "r.json", trials=1,
                             pattern="tl_wind_hold", tasks_dir=ROOT / "tasks", max_retries=0, backoff_s=0.01,
                             show_progress=False)
        run = run_benchmark(request)
    (trial,) = run.trials
    assert trial.passed is passed and trial.truncation != "none"
    report = rescore_run(run, ROOT / "tasks")
    assert report.changed == [] and report.regraded == 1
    assert report.run.trials[0].grade == trial.grade


def test_a_choice_cut_after_its_working_fails_as_truncated():
    # Every figure is there in a list, and a whole sentence follows it, but the choice is what the cut took.
    lookups = [Action(tool_calls=[{"name": "get_weather", "arguments": f'{{"city": "{c}"}}'}
                                  for c in ("Porto", "Seville", "Valencia", "Bilbao")])]
    text = ("Comparing the four cities:\n\n- Porto: 19.5 °C, cloudy\n- Seville: 31.0 °C, rain showers\n"
            "- Valencia: 27.5 °C, sunny\n- Bilbao: 17.0 °C, drizzle\n\nNext I will rule out the rainy ones. "
            "Seville has showers, so")
    trial = replay("tl_parallel_weather", [*lookups, Action(text=text, finish_reason="length")])
    assert not trial.passed and trial.grade.reason.startswith("truncated (")
    answered = text.replace("Seville has showers, so", "So the pick is Valencia at 27.5 °C. Want me to")
    trial = replay("tl_parallel_weather", [*lookups, Action(text=answered, finish_reason="length")])
    assert trial.passed and "cut by the token limit after its answer" in trial.grade.unsure


def test_the_claims_of_the_whole_part_are_held_to_the_log():
    # The answer is whole, but the whole part also says an email went out that the log does not show.
    text = ("The wind in Oslo is 38 km/h, below the 40 km/h threshold. I have emailed the events coordinator to "
            "let them know. If the wind picks up later this")
    trial = replay("tl_wind_hold", [*OSLO, Action(text=text, finish_reason="length")])
    assert not trial.passed and not trial.grade.reason.startswith("truncated (")
    assert trial.grade.hard_gate == "unbacked_claim"


def test_the_whole_part_ends_at_the_last_sentence_before_the_cut():
    assert whole_before_cut("All done.\n\nIf you want, I can also") == "All done."
    assert whole_before_cut("Set the flag! Sent the email? Then I") == "Set the flag! Sent the email?"
    assert whole_before_cut("Wind: 38 km/h. Dr. Lee said e.g. gusts. See") == "Wind: 38 km/h. Dr. Lee said e.g. gusts."
    # The last sentence is the one the cut fell in, whatever it ends with.
    assert whole_before_cut("Done. The wind is 38.") == "Done."
    assert whole_before_cut("Done.\n\n") == ""
    # No sentence end: a colon, a list marker, a decimal point, a figure at a line's end close nothing.
    assert whole_before_cut("Here is what I found:\n\n- ACME -4.2%\n\nSo the") == ""
    assert whole_before_cut("1. Porto: 19.5 °C\n2. Seville: 31.0 °C\n3. Val") == ""
    assert whole_before_cut("All done, and if you want I can also") == ""


def test_closed_sentences_leave_out_lines_that_close_none():
    text = "Comparing:\n\n1. Oslo: 38 km/h\n2. Limit: 40 km/h\n\n- Wind is 38 km/h. Below the limit"
    assert closed_sentences(text) == "- Wind is 38 km/h."
    assert closed_sentences("No change made! Wind: **38 km/h.**") == "No change made! Wind: **38 km/h.**"
    assert closed_sentences("🌬️ Wind in Oslo: **38 km/h**\n✅ Coordinator not contacted") == ""
