"""The one reader of `Answer:` lines: each rule has a case that fails without it."""

from __future__ import annotations

from decimal import Decimal

import pytest

from engine.episodes.answer_line import alternatives, final_number, numbers, parse_number, read_answer_line


def text_of(reply: str) -> str | None:
    line = read_answer_line(reply)
    return None if line is None else line.text


@pytest.mark.parametrize("reply", [
    "Answer: 369",
    "**Answer:** 369",
    "**Answer: 369**",
    "*Answer*: *369*",
    "__Answer__: 369",
    "### Answer: 369",
    "- **Answer:** 369",
    "1. Answer: 369",
    "> Answer: 369",
    "Final answer: 369",
    "FINAL ANSWER: 369",
    "The final answer is: 369",
    "Answer：369",
])
def test_markdown_around_the_label_and_value_is_removed(reply):
    assert text_of(reply) == "369"


def test_a_code_span_is_kept_apart_and_its_backticks_dropped():
    line = read_answer_line("Answer: The program prints `fdb3`.")
    assert line is not None and line.spans == ("fdb3",) and line.text == "The program prints fdb3."


def test_emphasis_inside_words_and_products_survives():
    assert text_of("Answer: a_b_c") == "a_b_c"
    assert text_of("Answer: 2*3*4") == "2*3*4"


@pytest.mark.parametrize("reply", [
    "**Answer:**\n369",
    "### Final Answer\n369",
    "## Answer\n\n369",
    "Answer:\n```\n369\n```",
])
def test_a_bare_label_takes_its_value_from_the_next_line(reply):
    assert text_of(reply) == "369"


def test_the_last_answer_line_stands():
    assert text_of("Answer: 369\n\nWait, boxes are not loaves.\n\nAnswer: 367") == "367"


def test_think_blocks_are_not_the_answer():
    assert text_of("<think>Answer: 369</think>\nAnswer: 367") == "367"
    assert text_of("Answer: 369\n<think>or is it Answer: 367") == "369"


def test_boxed_is_read_on_the_line_and_alone():
    assert text_of("**Answer:** $\\boxed{369}$") == "369"
    assert text_of("So the saving is $\\boxed{85.80}$.") == "85.80"
    assert text_of("Answer: \\boxed{\\text{fdb3}}") == "fdb3"


def test_no_answer_line_and_no_box_is_none():
    assert read_answer_line("I think it is 369.") is None
    assert read_answer_line("The answer is somewhere above") is None


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
])
def test_final_number_is_the_committed_value(candidate, value):
    assert final_number(candidate) == Decimal(value)


def test_numbers_inside_words_are_not_numbers():
    assert numbers("fdb3 and VAR_12 and 16x24") == []
    assert final_number("no number here") is None


def test_parse_number_tells_thousands_from_a_decimal_comma():
    assert parse_number("8,580") == Decimal("8580")
    assert parse_number("85,80") == Decimal("85.80")
    assert parse_number("eighty") is None
