"""The stance reader: what a reply commits to. Each rule has a case it reads one way and a near case it reads
the other way."""

from __future__ import annotations

import random
import re
import time
from decimal import Decimal

import pytest

from engine.readers.quantity import describe
from engine.readers.stance import (
    _ALT_SPLIT,
    OFFERED,
    Mention,
    _between_as_or,
    after_answer,
    alternatives,
    committed_number,
    label_commits,
    numbers,
    prose_numbers,
    revises,
    roles,
    set_aside,
)


def aside(text: str, value: str, since: int = 0) -> bool:
    at = text.index(value, since)
    return set_aside(text, at, at + len(value), since)


# ---------------------------------------------------------------------------------------- negation scope


@pytest.mark.parametrize(("text", "value", "rejected"), [
    ("Dana, not Priya", "Priya", True),
    ("Dana, not Priya", "Dana", False),                  # the negation after the comma is Priya's
    ("not 367 but 369", "367", True),
    ("not 367 but 369", "369", False),                  # "but" ends the negation's scope
    ("Priya is not the owner", "Priya", True),          # a negation after the verb
    ("Priya isnt the owner any more", "Priya", True),   # without its apostrophe, as graders normalise
    ("Priya is the owner", "Priya", False),
    ("4471 was retired", "4471", True),
    ("4471 was the first code", "4471", False),
    ("9082, replacing the old 4471", "4471", True),
    ("rather than 33652", "33652", True),
    ("the student went to 4471", "4471", False),        # "went" ends in -nt but negates nothing
    ("Priya handed it to Dana", "Priya", True),
])
def test_negation_scope(text, value, rejected):
    assert aside(text, value) is rejected


def test_a_bound_keeps_one_values_negation_from_another():
    text = "from Priya to Dana"
    assert aside(text, "Priya") and not aside(text, "Dana", since=text.index("Priya") + len("Priya"))


# ------------------------------------------------------------------------------------------ head, asides


def role_of(text: str, value: str, *others: str) -> str:
    mentions = [Mention(text.index(v), text.index(v) + len(v), v) for v in (value, *others)]
    return dict((m.key, r) for m, r in roles(text, mentions))[value]


@pytest.mark.parametrize(("text", "value", "role"), [
    ("9082 (the west store uses 5530)", "5530", "aside"),      # a trap said of its own subject
    ("9082 (5530)", "5530", "bare"),                            # a bare second value is a second answer
    ("9082, while the west door uses 5530", "5530", "aside"),
    ("9082, 5530", "5530", "bare"),
    ("9082 (or 5530 if the notice is late)", "5530", "hedged"),
    ("9082, possibly 5530", "5530", "hedged"),
    ("Dana, with Priya", "Priya", "hedged"),                    # joined to the answer
    ("Dana (Priya is on leave)", "Priya", "aside"),
    ("Dana and Priya", "Priya", "head"),
    ("Dana, not Priya", "Priya", "set aside"),
])
def test_roles_of_the_values_an_answer_line_names(text, value, role):
    first = text.split()[0].strip(",")
    assert role_of(text, value, first) == role
    assert (role in OFFERED) is (role in ("head", "hedged", "bare"))


@pytest.mark.parametrize(("value", "count"), [
    ("369", 1),
    ("369 (367 sold + 2 boxes)", 1),
    ("369 or 402", 2),
    ("369 (or 402)", 2),
    ("either 369 or 402", 2),
    ("between 367 and 369", 2),
    ("369 / 367", 2),
    ("369 (367 if the boxes do not count)", 2),
    ("9082, possibly 9028", 2),
])
def test_alternatives_split_a_hedge_and_keep_an_explanation(value, count):
    assert len(alternatives(value)) == count


# The patterns as they were: the reference the linear versions must equal (on an answer line of several
# lines, a \boxed{} value, "." stops at a newline).
LAZY_BETWEEN = re.compile(r"\bbetween\s+(.+?)\s+and\s+", re.IGNORECASE)
LAZY_ALT_SPLIT = re.compile(
    r"\s*(?:\band/or\b|\bor\b|\beither\b|\botherwise\b|\belse\b|\balternatively\b|\bmaybe\b|\bperhaps\b"
    r"|\bpossibly\b|(?<=\s)/(?=\s))\s*", re.IGNORECASE)


@pytest.mark.parametrize(("value", "offered"), [
    # a chain of working is one candidate, committed to its last value; " / " in it divides
    ("16 × 24 − 17 + ⌊17 / 6⌋ = 384 − 17 + 2 = 369", ["369"]),
    ("(738 / 2) = 369", ["369"]),
    ("738 / 2 ≈ 369", ["369"]),
    # a slash after the last equals sign, or with no working, still offers a second value
    ("738 / 2 = 369 / 367", ["369", "367"]),
    ("369 / 367", ["369", "367"]),
    ("16 × 24 = 384 or 369", ["384", "369"]),
])
def test_a_chain_of_working_is_one_candidate(value, offered):
    assert [describe(committed_number(c)) for c in alternatives(value)] == offered


def test_between_and_the_alternative_split_read_as_the_lazy_patterns_did():
    rng = random.Random(5)
    pieces = ["between", "Between", "and", "AND", "band", "and/or", "or", "/", "maybe", "x", "12", ",",
              " ", "  ", "   ", "\t", "\n"]
    for _ in range(30_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        assert _between_as_or(text) == LAZY_BETWEEN.sub(r"\1 or ", text), text
        assert _ALT_SPLIT.split(text) == LAZY_ALT_SPLIT.split(text), text


@pytest.mark.parametrize("text", [
    "between " * 40_000,              # no "and" after any of them: each once scanned to the end
    "between x\n" * 40_000,           # an "and" only far away, lines later
    "between   " * 30_000 + "and x",  # runs of spaces before the one "and"
    " " * 200_000 + "x",              # the split tried again inside one run of spaces
    "1 / " * 50_000 + "= 2",          # a chain of working read back from its equals sign once
])
def test_alternatives_read_a_long_line_in_linear_time(text):
    started = time.perf_counter()
    alternatives(text)
    assert time.perf_counter() - started < 2.0


# ------------------------------------------------------------------------------------- committed number


@pytest.mark.parametrize(("candidate", "value"), [
    ("369", "369"),
    ("367 + 2 = 369", "369"),
    ("367 + 2 → 369", "369"),
    ("369 (367 + 2)", "369"),
    ("369 (= 367 + 2)", "369"),
    ("She saves 85.80 with the pass (96.00 instead of 181.80).", "85.80"),
    ("367 loaves sold and 2 boxes, total 369", "369"),
    ("369 total, i.e. 367 + 2", "369"),
    ("$1,234.50", "1234.50"),
    ("€85,80", "85.80"),
    ("−17", "-17"),
    ("369 loaves.", "369"),
    ("not 367 but 369", "369"),
    ("three hundred sixty-nine", "369"),
])
def test_committed_number(candidate, value):
    found = committed_number(candidate)
    assert found is not None and found.value == Decimal(value)


def test_no_number_is_none_and_a_pronoun_in_prose_is_no_number():
    assert committed_number("no number here") is None
    assert [describe(q) for q in numbers("Answer: one")] == ["1"]
    assert prose_numbers("this one and that one") == []


# ------------------------------------------------------------------------------ prose after the answer


def number_mentions(sentence: str) -> list[Mention]:
    return [Mention(q.start, q.end, q.value) for q in prose_numbers(sentence)]


def after(tail: str, answer: str = "369"):
    return after_answer(tail, Decimal(answer), number_mentions)


def test_a_revision_after_the_answer_line_is_the_answer():
    revised = after("Actually, wait: boxes are not loaves, so the answer should be 367.").revised
    assert revised is not None and revised.key == Decimal(367)
    # the working restated, with other numbers and no revision, changes nothing
    quiet = after("That is 367 loaves sold plus 2 full boxes; 5 loaves stay loose.")
    assert quiet.revised is None and quiet.hedged is None


def test_the_last_revision_wins_and_a_return_to_the_answer_undoes_it():
    back = after("Actually, the boxes should not count: 367 + 0 = 367. No, 369 is what was asked.")
    assert back.revised is None and back.hedged is None
    # "actually" inside a sentence is emphasis, not a revision
    assert after("The pass actually costs 96.00, less than 181.80.", "85.80").revised is None


def test_a_hedge_after_the_answer_line_counts_as_a_hedge():
    assert after("(or 402 if the partial batch counts)").hedged
    assert after("If only loaves count, it would be 367.").hedged
    # a condition that explains, with no other answer offered, is no hedge
    assert not after("If she buys the pass she pays 96.00 instead of 181.80.", "85.80").hedged


@pytest.mark.parametrize(("tail", "hedged"), [
    # a fallback in case the answer fails, on the line after it: the condition's negation ends with it
    ("If that doesn't open it, try 4471.", True),
    ("if that doesnt open it, try 4471", True),  # apostrophes stripped, as the long-context grader reads it
    ("Try 4471 if that does not work.", True),
    ("If not, 4471.", True),
    ("Failing that, use 4471.", True),
    ("In case 9082 is rejected, 4471 is the fallback.", True),
    ("Should that fail, use 4471.", True),
    ("The keypad may be reset; should 9082 fail, enter 4471.", True),
    # near cases that are no fallback: the other value is what the condition is about, is refused too,
    # the condition is the reader's act, or no other value is offered
    ("If 4471 is rejected, that is because it was retired.", False),
    ("If it fails, do not use 4471 either.", False),
    ("If you don't round down, 17 batches would need 51 kg.", False),
    ("If that does not open it, check the battery.", False),
    ("If that doesn't open it, 9082 may need entering again.", False),
    # "should" inside a clause is a modal, not an inverted condition
    ("The old code 4471 should not be used any more.", False),
])
def test_a_fallback_offered_after_the_answer_is_a_hedge(tail, hedged):
    assert (after_answer(tail, Decimal(9082), number_mentions).hedged is not None) is hedged


def test_a_retraction_without_a_new_value_and_a_doubt():
    assert after("Wait, that's wrong.").retracted
    assert not after("Wait, let me check: yes, that's right.").retracted
    doubt = after("I'm not completely sure about the boxes, though.")
    assert doubt.doubt and not doubt.hedged and not doubt.retracted


# ------------------------------------------------------------------------------- without an answer line


def test_a_head_that_only_rejects_hands_the_answer_to_the_aside_after_it():
    text = "Priya isn't the owner any more; Dana is"
    assert role_of(text, "Dana", "Priya") == "head"
    assert role_of("9082 (the west store uses 5530)", "5530", "9082") == "aside"


def test_a_negation_is_shared_across_a_coordination():
    assert role_of("Tomasz (not Odile or Ines)", "Ines", "Tomasz", "Odile") == "set aside"
    assert role_of("Tomasz. Odile and Ines never went", "Odile", "Tomasz", "Ines") == "set aside"
    assert role_of("Tomasz (or Ines)", "Ines", "Tomasz") == "hedged"
    assert role_of("Tomasz or Ines", "Ines", "Tomasz") == "head"


def test_a_revising_sentence_that_lands_on_the_answer_again_revises_nothing():
    assert after("Let me recheck: 16 × 24 = 384, 384 − 17 = 367, 367 + 2 = 369.").revised is None
    assert after("Let me recheck: 16 × 24 = 384, 384 − 17 = 367, 367 + 0 = 367.").revised is not None


def test_an_answer_affirmed_again_undoes_a_hedge_and_a_modal_on_a_verb_offers_nothing():
    assert not after("Or 402? No, 369 is right.").hedged
    assert after("If only loaves count, it would be 367.").hedged
    # a modal word on a verb is no offer of another value
    assert not after("The bakery probably sells 367 loaves on a Monday.").hedged
    # a condition about something else's figure offers no answer
    assert not after("If she bought single tickets, she would pay 181.80.", "85.80").hedged


def test_the_reader_stays_fast_on_a_reply_of_any_length():
    import time

    filler = "so 367 loaves (not 384) and 2 boxes, or maybe 402 if wait; " * 3000  # about 180,000 characters
    started = time.monotonic()
    after(filler.replace("; ", ".\n"))
    roles(filler, [Mention(m, m + 3, "367") for m in range(3, len(filler), 60)][:2000])
    assert time.monotonic() - started < 20


# ------------------------------------------------------------------------------ a qualified label


@pytest.mark.parametrize(("qualifier", "commits"), [
    # any qualifier commits unless the grammar says otherwise: the words that commit are not listed
    ("", True), ("Final ", True), ("Corrected ", True), ("revised final ", True), ("Updated ", True),
    ("New ", True), ("Short ", True), ("amended ", True),
    # a negation or an error, a date, a possibility, an illustration
    ("Wrong ", False), ("Incorrect ", False), ("not the ", False), ("Previous ", False), ("Initial ", False),
    ("old ", False), ("Alternative ", False), ("Possible ", False), ("Example ", False), ("sample ", False),
])
def test_a_qualified_label_commits_unless_its_qualifier_sets_it_aside(qualifier, commits):
    assert label_commits(qualifier) is commits


def test_an_alternative_answer_after_the_answer_line_is_a_hedge():
    assert after_answer("Alternative answer: 4471", Decimal(9082), number_mentions).hedged
    assert after_answer("Possible answer: 4471.", Decimal(9082), number_mentions).hedged
    # a label that calls its value wrong offers nothing
    assert not after_answer("Wrong answer: 4471.", Decimal(9082), number_mentions).hedged


@pytest.mark.parametrize(("sentence", "expect"), [
    ("Correction - I misread my own notes there: O-304 is still pending.", True),
    ("Actually, the copy I rejected is O-302.", True),
    ("Wait, I meant config_version, not the endpoint.", True),
    ("Sorry, my mistake: O-203 is untouched.", True),
    ("Rejected O-304 and O-305.", False),
    ("O-304 is still pending.", False),
    ("So the rejected ids are O-302 and O-305.", False),
])
def test_a_sentence_that_takes_back_what_came_before_revises(sentence: str, expect: bool) -> None:
    assert revises(sentence) is expect


# ------------------------------------------------------------------------------ a postscript


@pytest.mark.parametrize(("tail", "value"), [
    # a postscript is prose after the answer like any other: a revising sentence there is the answer
    ("P.S. On second thought, boxes and loaves are different things, so adding them together doesn't make "
     "sense. The total should be 367, not 369.", 367),
    ("PS: actually it's 367, the boxes are not loaves.", 367),
    ("P.S.: on second thought the boxes should not be counted, so the total is 367.", 367),
    ("Note: the total should be 367 rather than 369.", 367),
    ("Edit - wait, the boxes don't count: it's 367.", 367),
    ("Edit: not 369 but 367, since 5 loaves stay loose.", 367),
    ("On second thought, leave the boxes out: 367.", 367),
    ("N.B. the figure to report is 367 instead of 369.", 367),
])
def test_a_revising_postscript_changes_the_answer(tail, value):
    revised = after("\n" + tail).revised
    assert revised is not None and revised.key == Decimal(value)


@pytest.mark.parametrize("tail", [
    "P.S. The total is 369.",  # the same value restated
    "P.S. 5 loaves stay loose.",  # another number about something else
    "PS: the 17 left over fill 2 boxes, with 5 loose loaves.",
    "P.S. I double-checked: 367 + 2 = 369.",  # a postscript that confirms
    "P.S. On second thought, yes, 369 is right.",
    "Note: that's 369, not 367, because the boxes count too.",  # the answer kept, the other value rejected
    "P.S. 369 is not the number of loaves sold; that is 367.",  # a negation on another predicate
    "P.S. 369 counts the 2 boxes, not just the 367 loaves.",
])
def test_a_postscript_that_restates_confirms_or_talks_of_something_else_changes_nothing(tail):
    read = after("\n" + tail)
    assert read.revised is None and read.hedged is None and read.retracted is None


def test_a_value_set_against_the_answer_revises_and_a_note_label_opens_a_marker():
    # the contrast revises with no discourse marker, for names as for numbers: the value nearest the answer
    def names(sentence: str) -> list[Mention]:
        return [Mention(m.start(), m.end(), m.group()) for m in re.finditer(r"Dana|Priya", sentence)]

    owner = after_answer("P.S. The owner is really Priya, not Dana.", "Dana", names)
    assert owner.revised is not None and owner.revised.key == "Priya"
    assert after_answer("P.S. Dana took it over from Priya, not the other way round.", "Dana", names).revised is None
    contrast = after_answer("so the total is 367 rather than 369, and 5 stay loose", Decimal(369), number_mentions)
    assert contrast.revised is not None and contrast.revised.key == Decimal(367)
    assert revises("Edit: actually, the copy I rejected is O-302.")
    assert not revises("Edit: the copy I rejected is O-302.")
    assert not revises("Refund issued: no, the order is still pending.")  # a label's value, not a marker
    assert revises("No, the order is still pending.")
