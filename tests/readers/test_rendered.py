"""The rendered-text reader (engine/readers/rendered.py) and the prose readers that read through it: the
answer line, the instruction checks, the tools' final-message checks. Escapes, space and hyphen variants,
full-width forms and invisible characters read as a reader sees them; code, numbers' group separators,
minus signs and dashes read as written; a wrong value behind the same bytes still fails."""

from __future__ import annotations

import time
from typing import Any

import pytest
from pydantic import TypeAdapter

from engine.episodes.answer_line import read_answer_line
from engine.episodes.checks import CheckSpec, Subject
from engine.readers.quantity import parse, quantities
from engine.readers.rendered import rendered
from engine.world import grade_episode


@pytest.mark.parametrize(("written", "seen"), [
    ("1\\. Trips", "1. Trips"),
    ("\\*\\*Answer:\\*\\* 85.80", "**Answer:** 85.80"),
    ("payments.config\\_version \\- kept", "payments.config_version - kept"),
    ("\\# not a heading, \\> no quote, a\\|b, 50\\%, \\$5", "# not a heading, > no quote, a|b, 50%, $5"),
    ("C:\\\\logs", "C:\\logs"),                   # an escaped backslash is one backslash
    ("\\\\*x", "\\*x"),                           # ...and the star after it is not escaped by it
    ("Each:\u00a0271.50", "Each: 271.50"),
    ("Each:\u202f271.50 \u2009and\u3000so", "Each: 271.50  and so"),
    ("O\u2011201 and O\u2010202", "O-201 and O-202"),
    ("call 555\u20120100", "call 555-0100"),
    ("\uff21\uff4e\uff53\uff57\uff45\uff52\uff1a\uff18\uff15", "Answer:85"),
    ("O-\u200b201 co\u00adoperate \ufeffok", "O-201 cooperate ok"),
])
def test_text_reads_as_it_renders(written, seen):
    assert rendered(written) == seen


@pytest.mark.parametrize("written", [
    "a `\\*` b",                                  # an escape inside a code span stays
    "```\nx = a\\_b  # O\u2011201\n```",          # ...and inside a fence, its lines included
    "1\u202f500 and 89\u00a0009",                 # a space between digits groups a number's thousands
    "\u221212 and 10\u201312 and 09:34 \u2013 Priya",  # minus and en dash: the quantity reader's own
    "a \u2012 b",                                 # a figure dash joining nothing is a dash
    "\\(x\\) \\[y\\] \\{z\\} 1\\,000",             # LaTeX's own escapes, for the answer line's LaTeX reading
    "\U0001f468\u200d\U0001f469 and \u0646\u200c\u0645",  # joiners join emoji and shape scripts
    "plain text, C:\\logs\\night",                # a backslash before a letter is no escape
])
def test_text_that_renders_as_written_is_left_alone(written):
    assert rendered(written) == written


def test_group_separators_still_read_as_one_number():
    # The quantity reader's rule for a no-break space between digits is kept, not overruled.
    assert [q.value for q in quantities(rendered("Total: 1\u202f500 EUR"))] == [parse("1500").value]
    assert [q.value for q in quantities(rendered("from \u22125 to 10\u201312"))][:1] == [parse("-5").value]


@pytest.mark.parametrize("reply", [
    "1\\. 22 \u00d7 2 = 44\n2\\. 181.80 \u2212 96.00 = 85.80\n\n\\*\\*Answer: 85.80\\*\\*",
    "Working.\n\n\\*\\*Answer:\\*\\* 85.80",
    "\\#\\# Answer:\u00a085.80",
    "\uff21\uff4e\uff53\uff57\uff45\uff52\uff1a\uff18\uff15.\uff18\uff10",
    "Answer:\u00a0\u200b85.80",
])
def test_the_answer_line_reads_escaped_and_typographic_labels(reply):
    line = read_answer_line(reply, "What is the saving?")
    assert line is not None and line.text == "85.80" and line.how is None


def test_a_wrong_value_behind_escaped_markup_is_still_read_as_wrong():
    line = read_answer_line("\\*\\*Answer:\\*\\* 58.80", "What is the saving?")
    assert line is not None and line.text == "58.80"


def test_an_escaped_mark_in_a_code_span_answer_stays():
    line = read_answer_line("Answer: `a\\*b`", "Which pattern?")
    assert line is not None and line.spans == ("a\\*b",)


CHECK: TypeAdapter = TypeAdapter(CheckSpec)


def check(reply: str, **fields: Any) -> bool:
    return CHECK.validate_python(fields).run(Subject(reply))[0]


@pytest.mark.parametrize(("reply", "passes"), [
    ("Corrected.\n\n**Each:**\u00a0271.50", True),
    ("Corrected.\n\nEach:\u202f271.50", True),
    ("Corrected.\n\n\\*\\*Each:\\*\\* 271.50", True),
    ("Corrected.\n\n**Each:**\u00a0217.50", False),           # the wrong amount, however spaced
    ("Corrected.\n\n**Each:**\u00a0271.5", False),            # one decimal, not two
    ("Corrected.\n\n`Each:\u00a0271.50`", False),             # a code span is read as written
])
def test_a_labelled_number_reads_the_line_as_it_renders(reply, passes):
    assert check(reply, check="labelled_number", label="Each", value=271.50, decimals=2) is passes


def test_copy_exactly_checks_read_a_no_break_space_as_the_space_a_reader_sees():
    # "Copy the name exactly": a name a reader sees whole (Harbor\u00a0Sync renders as Harbor Sync, and the
    # check already compared in NFKC, where the two are one) is copied; a misspelt name is not, however
    # spaced. The localised figure "40\u00a0%" reads as "40 %", which the not_contains check still catches.
    assert check("Harbor\u00a0Sync 3.2", check="contains", all=["Harbor Sync"])
    assert not check("Harbour\u00a0Sync 3.2", check="contains", all=["Harbor Sync"])
    assert not check("un 40\u00a0% menos", check="not_contains", any=["40 %"])
    # A regex check reads the raw text on purpose (a pattern about the Markdown itself): no rendering there.
    assert check("1\\. item", check="regex", pattern=r"^\d+\\\.", flags=["multiline"])


def test_a_list_escaped_as_plain_text_reads_as_its_items():
    assert check("Steps:\n\n1\\. mix\n2\\. bake\n3\\. cool", check="list_items", min=3, max=3)


SEED = {"account": {"budget": 500.0, "spent": 0.0, "currency": "EUR"},
        "orders": {"O-201": {"customer": "Ana", "item": "desk", "unit_price": 420.0},
                   "O-202": {"customer": "Ben", "item": "chair", "quantity": 2, "unit_price": 180.0}}}
GOLD = [{"tool": "reject_order", "args": {"order_id": "O-201", "reason": "over_budget"}},
        {"tool": "approve_order", "args": {"order_id": "O-202"}}]
CALLS = [{"id": "c0", "name": "reject_order", "arguments": '{"order_id": "O-201", "reason": "over_budget"}'},
         {"id": "c1", "name": "approve_order", "arguments": '{"order_id": "O-202"}'}]


@pytest.mark.parametrize(("final", "passes"), [
    ("Rejected **O\u2011201** (over budget); approved O\u2011202.", True),
    ("Rejected O\u2010201; approved O\u2010202.", True),
    ("Rejected \\*\\*O\u2011201\\*\\*; approved O\u2011202.", True),
    ("Rejected O\u2011201; approved O\u2011203.", False),      # O-203 is not O-202
    ("Rejected O\u2011201; approved O\u20112020.", False),     # nor is a longer id that holds it
    ("Rejected O\u2212201; approved O\u2212202.", False),      # a minus sign joins no id
    ("Rejected `O\u2011201`; approved `O\u2011202`.", False),  # code is read as written
])
def test_the_tools_final_message_reads_ids_as_they_render(final, passes):
    spec = {"checks": {"must_mention": ["O-201", "O-202"], "must_not_mention": ["O-203"]}}
    grade = grade_episode(SEED, GOLD, CALLS, spec, final_text=final)
    assert grade.passed is passes, grade.details


def test_rendering_is_linear_in_the_text():
    for unit in ("\\", "\\*", "\u00a0", "1\u202f", "`\\*", "O\u2011"):
        text = unit * (200_000 // len(unit))
        started = time.perf_counter()
        rendered(text + "x")
        assert time.perf_counter() - started < 2.0, unit
