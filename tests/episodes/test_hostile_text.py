"""Every reader of a reply's text is bounded and total: hostile replies of sixty thousand characters (runs
of one character, unclosed marks, a marker repeated) are graded without an exception and in bounded time by
every module's grader, every check a task declares, and the code extractor.

These are guards with generous bounds, to catch a reader that scans the rest of the text again at every
position (the lazy patterns once took a minute or more on such replies); the measured figures are printed by
``python benchmarks/bench_reply_parsing.py``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import TypeAdapter

from engine.bank.load import load_bank
from engine.core.schema import Turn
from engine.episodes import MODULES
from engine.episodes.base import Env
from engine.episodes.checks import CheckSpec
from engine.episodes.code.extract import extract_code
from tests.helpers.replay import ROOT

CHARS = 60_000


def _hostile() -> dict[str, str]:
    """Each a reply of CHARS characters that once made some reader quadratic (or crash)."""
    def fill(unit: str) -> str:
        return (unit * (CHARS // len(unit) + 1))[:CHARS]

    half = CHARS // 2
    return {
        "spaces": fill(" "), "tabs": fill("\t"), "newlines": fill("\n"), "hashes": fill("#"),
        "no_space": fill("x"), "bold_unclosed": fill("**a "), "underscores": fill("_a "),
        "ticks_then_text": "`" * half + "a" * half, "stops_then_text": "." * half + "a" * half,
        "curly_quotes": fill("“"), "think_tags": fill("<think>"), "claims": fill("I sent "),
        "abbreviations": fill("e.g. "), "between": fill("between "), "numbered": fill("1. "),
        "digits": fill("7"), "money": "9" * 5000 + " euros 50 " + fill("a "), "brackets": fill("["),
        "code_lines": fill("@\n"), "minus": fill("-"), "answer_lines": fill("Answer: **x \n"),
        # Inline chat HTML (engine/episodes/chat_html.py): a run of "<", tags never closed, tags nested
        # thousands deep (balanced, so the reader reads them all), and HTML answer lines.
        "angles": fill("<"), "tags_unclosed": fill("<li><b>a "),
        "tags_nested": "<ul><li><b>" * (CHARS // 22) + "x" + "</b></li></ul>" * (CHARS // 22),
        "html_answer_lines": fill("<b>Answer:</b> x<br>\n"),
        # One sentence of thousands of concluding connectives, with and without a candidate after each (the
        # pick reader of engine/world/choice.py once read the rest of the sentence at every connective).
        "conclusions": fill("Answer: x "), "conclusions_picking": fill("so Porto, answer: Seville "),
        # The rendered-text reader (engine/readers/rendered.py): a run of backslashes (each pair one escape),
        # escapes of every mark, no-break spaces, hyphen variants, escapes inside code spans never closed.
        # (Between digits a no-break space is left as written, so "1\u202f" repeated costs what "1 " does:
        # tests/readers/test_rendered.py holds the reader itself to a bound on it.)
        "backslashes": fill("\\"), "escaped_marks": fill("\\*\\*Answer:\\*\\* 1\\. "),
        "no_break_spaces": fill("\u00a0"), "hyphen_variants": fill("O\u2011\u2012"),
        "escaped_ticks": fill("`\\*"),
        # Thousands of small numbers and count words (the adversarial disclosure reader compared every word
        # again for every form of every fact, and the count reader every figure with every match: "12 34 "
        # repeated took 30 to 40 s).
        "ones": fill("1 "), "ones_thin_spaces": fill("1\u202f"), "number_pairs": fill("12 34 "),
        "count_words": fill("seven letters "),
        # A run of blanks around a chat template's role header (engine/model/normalise.py's header pattern
        # once split such a run in every way: sixty thousand spaces took a minute).
        "role_header_blanks": "<|im_start|>assistant" + fill(" ")[21:],
    }


HOSTILE = _hostile()
BANK = {t.id: t for t in load_bank(ROOT / "tasks")}
# One or more tasks of every module but code (whose grade runs a sandbox; its extractor is tested below),
# chosen for the readers they use: claims and answer checks, regex and banned-word checks, JSON answers,
# answer lines and numbers, disclosure and compliance.
TASKS = ["tl_parallel_weather", "tl_markdown_rota_swap", "fmt_translated_summary", "fmt_incident_json",
         "mti_banned_word", "mti_scoped_rules", "kn_bakery_batches", "kn_slice_reverse", "lc_stale_code",
         "adv_override_discount", "adv_indirect_extraction", "adv_tool_injection"]


# The hostile replies a task's rule passes: "12 34 " repeated says 12 bare, which gives the "12 items" the task
# requires (a count said with no unit, engine.readers.quantity.states_count), and leaks nothing. Its bound is
# held all the same.
PASSES = {("adv_indirect_extraction", "number_pairs")}


@pytest.mark.parametrize("task_id", TASKS)
def test_every_hostile_reply_is_graded_in_bounded_time(task_id):
    task = BANK[task_id]
    module = MODULES[task.task.module]
    slowest = ("", 0.0)
    for name, text in HOSTILE.items():
        turns = [Turn(role="user", content="go"), Turn(role="assistant", content=text)]
        started = time.perf_counter()
        grade = module.grade(task, turns, Env())
        took = time.perf_counter() - started
        assert grade.passed is ((task_id, name) in PASSES), name
        slowest = max(slowest, (name, took), key=lambda pair: pair[1])
    assert slowest[1] < 10.0, slowest


def test_the_code_extractor_is_total_and_bounded_on_hostile_replies():
    for name, text in HOSTILE.items():
        started = time.perf_counter()
        extract_code(text, "solve")  # '-' * 100K and long attribute chains were a MemoryError / RecursionError
        assert time.perf_counter() - started < 5.0, name


def _declared(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        if isinstance(value.get("check"), str):
            yield value
        for inner in value.values():
            yield from _declared(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _declared(inner)


def _patterns(value: Any) -> Iterator[str]:
    """Patterns a task applies to strings of a reply: items_match items and JSON-schema patterns."""
    if isinstance(value, dict):
        if value.get("check") == "items_match":
            # An item given as concepts is no pattern: the concept reader is linear (tests/readers/test_concepts.py).
            yield from (item for item in value["items"].values() if isinstance(item, str))
        if isinstance(value.get("pattern"), str) and value.get("check") != "regex":
            yield value["pattern"]
        for inner in value.values():
            yield from _patterns(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _patterns(inner)


ADAPTER: TypeAdapter = TypeAdapter(CheckSpec)


def _text_checks() -> list[tuple[str, Any]]:
    """Each distinct check the bank declares that reads text (the others read JSON values, which a hostile
    reply does not parse into), with a task that declares it."""
    seen: dict[str, tuple[str, Any]] = {}
    for task in BANK.values():
        for declared in _declared(task.task.body):
            check = ADAPTER.validate_python(declared)
            if hasattr(check, "check_text"):
                seen.setdefault(check.model_dump_json(), (f"{task.id}:{declared['check']}", check))
    return sorted(seen.values(), key=lambda pair: pair[0])


TEXT_CHECKS = _text_checks()


@pytest.mark.parametrize("check", [c for _, c in TEXT_CHECKS], ids=[name for name, _ in TEXT_CHECKS])
def test_every_text_check_a_task_declares_reads_hostile_text_in_bounded_time(check):
    """Including the task's own regular expressions: a pattern such as ``^\\s*`` (multiline) is quadratic on
    a long run of blank lines, which the regex check reads shortened (engine/episodes/checks/form.py)."""
    started = time.perf_counter()
    for text in HOSTILE.values():
        check.check_text(text)
    assert time.perf_counter() - started < 10.0


def test_every_pattern_a_task_applies_to_json_strings_is_bounded():
    patterns = sorted({p for t in BANK.values() for p in _patterns(t.task.body)})
    assert patterns  # the bank has some: items_match and JSON-schema patterns
    for pattern in patterns:
        started = time.perf_counter()
        for text in HOSTILE.values():
            re.search(pattern, text, re.IGNORECASE)
        assert time.perf_counter() - started < 5.0, pattern
