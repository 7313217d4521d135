"""The reply's language against the request's (py3langid on the prose, code left out)."""

from __future__ import annotations

import pytest

from engine.readers.language import Language, reply_language

REQUEST = ("Read the meeting notes below. Who owns the venue booking after the meeting? The notes say Priya "
           "took it at first, and later in the day the item was handed over. Think step by step if you need "
           "to, then end your reply with one line: Answer: <value>")


@pytest.mark.parametrize("reply", [
    "Priya took it first, but it was handed over later in the day, so the owner is Dana.",
    "Looking at the notes: at 10:05 Dana says she will take the booking over from Priya.",
    "The `owner` field is not in the notes; they only say who took the item.",
])
def test_an_english_reply_to_an_english_request_is_the_same_language(reply):
    assert reply_language(reply, REQUEST) is Language.SAME


@pytest.mark.parametrize("reply", [
    "Zunächst hat Priya die Buchung übernommen, dann wurde sie an Dana übergeben.",
    "D'abord Priya s'en occupait, puis la réservation a été confiée à Dana.",
    "Primero la tenía Priya, pero después se la pasaron a Dana.",
    "根据会议记录，Priya 先负责，后来交给了 Dana。",
])
def test_a_reply_in_another_language_is_another_language(reply):
    assert reply_language(reply, REQUEST) is Language.OTHER


@pytest.mark.parametrize("reply", ["Antwort: Dana", "Dana", "Result: 89009", "`VAR_TNXJV = 89009`"])
def test_too_little_prose_is_no_evidence_either_way(reply):
    assert reply_language(reply, REQUEST) is Language.UNKNOWN


def test_code_is_in_no_language():
    # Code spans and fences carry English identifiers; the prose around them is German.
    reply = ("Die Schleife überspringt `if v % 2 and v > 5: continue`, also zählt sie die Sieben nie.\n"
             "```python\nfor value in values:\n    counts[value] = counts.get(value, 0) + 1\n```")
    assert reply_language(reply, REQUEST) is Language.OTHER
    assert reply_language("```python\nfor value in values:\n    print(value)\n```", REQUEST) is Language.UNKNOWN
