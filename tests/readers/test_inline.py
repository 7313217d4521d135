"""Code spans and emphasis found in linear time give exactly the spans the lazy patterns they replace gave
(compared on many random texts), and stay fast where those patterns took seconds."""

from __future__ import annotations

import random
import re
import time

import pytest

from engine.episodes.answer_line import EMPHASIS as ANSWER_EMPHASIS
from engine.episodes.structure import _EMPHASIS as CHECK_EMPHASIS
from engine.episodes.structure import plain_text
from engine.readers.inline import code_spans, replace_code_spans, unwrap

# The patterns as they were: the reference the linear versions must equal.
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
CHECKS_PATTERNS = (
    re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1", re.DOTALL),
    re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])", re.DOTALL),
    re.compile(r"(?<![\w_])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w_])", re.DOTALL),
)
ANSWER_PATTERN = re.compile(r"(?<![\w*])(\*{1,3}|_{1,3})(?=\S)(.+?)(?<=\S)\1(?![\w*])")


def _random_texts(alphabet: str, count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24))) for _ in range(count)]


def test_code_spans_are_the_spans_of_the_lazy_pattern():
    for text in _random_texts("``a \n", 20_000, seed=1):
        assert code_spans(text) == [m.span() for m in CODE_SPAN.finditer(text)], text
        assert replace_code_spans(text, str.upper) == CODE_SPAN.sub(lambda m: m.group(0).upper(), text)


def test_emphasis_comes_off_as_the_lazy_patterns_took_it_off():
    for text in _random_texts("**__a \nb.", 20_000, seed=2):
        for pattern, delimiters in zip(CHECKS_PATTERNS, CHECK_EMPHASIS, strict=True):
            assert unwrap(text, delimiters, across_lines=True) == pattern.sub(
                lambda m: m.group(m.lastindex or 1), text), (pattern.pattern, text)
        assert unwrap(text, ANSWER_EMPHASIS, across_lines=False) == ANSWER_PATTERN.sub(r"\2", text), text


def test_real_markdown_reads_as_it_renders():
    text = "## Note:\n**Bold** and *it* and __b__ and _i_ but `**code**` and snake_case_name stay; 2*3*4."
    assert plain_text(text) == "Note:\nBold and it and b and i but `**code**` and snake_case_name stay; 2*3*4."


HOSTILE = ["**a ", "__a ", "*a ", "_a ", "`a", "``a`", "a", "a-", "***a ", "`" * 10_000 + "a" * 10_000]


@pytest.mark.parametrize("unit", HOSTILE, ids=[repr(u[:8]) for u in HOSTILE])
def test_a_quarter_million_characters_of_unclosed_marks_is_read_in_linear_time(unit):
    """Guard with a generous bound: 20,000 characters of ``**a `` took 13 s before, and a backtick run before
    text grew with the cube of its length (benchmarks/bench_reply_parsing.py prints the figure)."""
    text = (unit * (250_000 // len(unit) + 1))[:250_000]
    started = time.perf_counter()
    plain_text(text)
    unwrap(text, ANSWER_EMPHASIS, across_lines=False)
    assert time.perf_counter() - started < 5.0
