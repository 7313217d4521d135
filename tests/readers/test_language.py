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


@pytest.mark.parametrize("reply", [
    "Es ist Dana.\n\nAntwort: Dana",
    "Le code est 9082.\nRéponse : 9082",
    "La dueña es Dana.\nRespuesta: Dana",
    "Il codice è 9082.\nRisposta: 9082",
    "O resultado é fdb3.\nResposta: fdb3",
    "VAR_TNXJV 的值是 89009。\n答案：89009",       # the prose of a wide-script line around a name and a number
])
def test_a_short_sentence_in_another_language_shows_it(reply):
    assert reply_language(reply, REQUEST) is Language.OTHER


@pytest.mark.parametrize("reply", ["答案：Dana", "답: 89009", "Ответ: Дана", "答え：９０８２"])
def test_a_label_in_a_script_the_request_does_not_use_is_another_language_however_short(reply):
    assert reply_language(reply, REQUEST) is Language.OTHER


@pytest.mark.parametrize("reply", [
    # too little prose: presumed to be in the request's language, whatever py3langid guesses
    "Antwort: Dana", "Dana", "Result: 89009", "Total: 369", "Winner: Tomasz", "`VAR_TNXJV = 89009`",
    # working made of identifiers, quoted strings, arrows and code spans is no prose
    'Chain: VAR_VSPGJ ← VAR_FRFDB ← VAR_GXLNP ← VAR_JQTDJ ← VAR_RQQNL ← VAR_JWQCT ← VAR_ZLBDH\n\nResult: 89009',
    '`words[1::2]` → ["birch", "delta", "fjord"]\nreversed → ["fjord", "delta", "birch"]\n'
    'initials → "fdb"\nlen → 3\n\nResult: fdb3',
    "picked = words[1::2]\nfirstLetters = fdb\nlength_total = 3\n\nOutput: fdb3",
    "« fjord » « delta » « birch »\n'fdb' + '3'\nOutput: fdb3",
    # a few English words that py3langid, alone, reads as another language
    "Handover noted\nOwner: Dana", "Slice then reverse\nResult: fdb3", "Final tally\nTotal: 369",
])
def test_too_little_prose_is_presumed_the_requests_language(reply):
    assert reply_language(reply, REQUEST) is Language.SAME


def test_code_is_in_no_language():
    # Code spans and fences carry English identifiers; the prose around them is German.
    reply = ("Die Schleife überspringt `if v % 2 and v > 5: continue`, also zählt sie die Sieben nie.\n"
             "```python\nfor value in values:\n    counts[value] = counts.get(value, 0) + 1\n```")
    assert reply_language(reply, REQUEST) is Language.OTHER
    assert reply_language("```python\nfor value in values:\n    print(value)\n```", REQUEST) is Language.SAME


def test_a_request_in_another_language_makes_english_the_other_one():
    german = "Lies die Notizen. Wer ist nach der Besprechung für die Buchung zuständig? Antworte mit Antwort: <Wert>"
    assert reply_language("Priya took it first, but it was handed over later, so the owner is Dana.",
                          german) is Language.OTHER
    assert reply_language("Zuerst Priya, dann wurde die Buchung an Dana übergeben.", german) is Language.SAME
