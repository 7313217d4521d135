"""Checks on the numbers a reply states: a quantity, no numerals, a labelled number, figures kept from a
source and what they are said of, a change from one value to another."""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from pydantic import Field, field_validator

from engine.episodes.checks.base import OK, Outcome, TextCheck, concepts_ok, missing_concept, quote
from engine.episodes.structure import list_items, without_code_spans
from engine.readers.concepts import Language, Match, match
from engine.readers.quantity import compare, contexts, find, parse, quantities


class StatesQuantity(TextCheck):
    """The reply states ``quantity`` (``"100 °C"``, ``"12%"``, ``"369"``) in any notation the quantity reader
    reads (:mod:`engine.readers.quantity`): digits in any locale, words ("one hundred degrees Celsius"), or
    with no unit where the question named it ("100 degrees"). The unit asked is part of the instruction: the
    value converted into another unit of what it measures (212 °F) holds only with ``converted: true`` (for
    a question that names no unit). The right number in a wrong unit ("100 °F") fails, even beside the right
    one; a number found only inside another ("1000") is no match. For an answer that is a figure;
    ``contains`` is for text that must be copied as written."""

    check: Literal["quantity"]
    quantity: str = Field(min_length=1, max_length=64)
    converted: bool = False

    @field_validator("quantity")
    @classmethod
    def _readable(cls, value: str) -> str:
        if parse(value) is None:
            raise ValueError(f"{value!r} is not one quantity the quantity reader reads: write one figure with its "
                             "unit, such as '100 °C' or '12%'")
        return value

    def check_text(self, text: str) -> Outcome:
        expected = parse(self.quantity)
        assert expected is not None  # checked when the task loads
        stated = quantities(text)
        found = find(expected, stated)
        if found.wrong_unit is not None:
            return Outcome(False, f"states {quote(found.wrong_unit.text, 40)}: the number of {self.quantity} in a "
                                  "wrong unit")
        if not self.converted:
            want = expected.readings[0].unit
            # Stated in the unit asked, or with none ("100 degrees" when the question said Celsius).
            as_asked = [q for q in stated if q.readings[0].unit in (None, want)
                        or q.readings[0].unit.symbol == "°"]
            in_asked = find(expected, as_asked)
            if in_asked.quantity is None and found.quantity is not None:
                return Outcome(False, f"states {quote(found.quantity.text, 40)}, not in the unit of {self.quantity}")
            found = in_asked
        if found.quantity is None:
            return Outcome(False, f"does not state {self.quantity}")
        return Outcome(True, "", f"check: {found.unsure}" if found.unsure else None)


# Unicode's number categories: decimal digits in any script (ASCII, full-width, Arabic-Indic), letter-like
# numerals (Roman numeral characters such as Ⅳ) and other numerals (superscripts, circled ①, fractions ½).
# Ideographs such as 三 have a numeric value too but are words of their script, not numerals.
_NUMERAL_CATEGORIES = ("Nd", "Nl", "No")


class NoNumerals(TextCheck):
    """No number is written as a numeral ("no digits; write numbers out in words"): no character that
    Unicode counts as a numeral (``unicodedata.numeric`` with a number category: ``7``, full-width ``７``,
    superscript ``²``, circled ``①``, ``Ⅳ``, ``½``) and no list numbered with Roman numerals (``I.``,
    ``II.``, ``III.``, as the structure reader reads list markers). The word "I" and a letter such as the
    C of "Vitamin C" are no numerals: a Roman numeral counts only where it numbers a list."""

    check: Literal["no_numerals"]

    def check_text(self, text: str) -> Outcome:
        for c in text:
            if unicodedata.category(c) in _NUMERAL_CATEGORIES and unicodedata.numeric(c, None) is not None:
                return False, f"writes the numeral {quote(c)}"
        roman = [i.marker for i in list_items(text) if i.kind == "roman"]
        if roman:
            # Roman numerals are letters: a reader may hold that "no digits" leaves them free, so say so.
            return Outcome(False, f"numbers a list with Roman numerals ({quote(roman[:3], 40)})",
                           "check: Roman numerals are numerals but not digits; read as numbers not written in words")
        return OK


_NUMBER_TEXT = r"-?\d+(?:\.\d+)?"


class LabelledNumber(TextCheck):
    """The last non-blank line reads ``<label>: <number>`` (or, with ``last_line: false``, some line does;
    the last such line counts). ``decimals`` fixes how many digits follow the point; ``value`` the number."""

    check: Literal["labelled_number"]
    label: str = Field(min_length=1)
    value: float | None = None
    tolerance: float = Field(default=0.0, ge=0)
    decimals: int | None = Field(default=None, ge=0)
    last_line: bool = True

    def check_text(self, text: str) -> Outcome:
        pattern = re.compile(rf"^\s*{re.escape(self.label)}:[ \t]*({_NUMBER_TEXT})\s*$")
        lines = [ln for ln in text.splitlines() if ln.strip()]
        candidates = lines[-1:] if self.last_line else lines
        matches = [m for m in (pattern.match(ln) for ln in candidates) if m]
        if not matches:
            where = "the last line" if self.last_line else "any line"
            seen = f" (it reads {quote(lines[-1].strip(), 50)})" if lines and self.last_line else ""
            return False, f"{where} is not '{self.label}: <number>'{seen}"
        number = matches[-1].group(1)
        if self.decimals is not None:
            places = len(number.partition(".")[2])
            if places != self.decimals:
                return False, f"{quote(number, 20)} has {places} decimals, not {self.decimals}"
        if self.value is not None and abs(float(number) - self.value) > self.tolerance:
            return False, f"{self.label} is {quote(number, 20)}, expected {self.value}"
        return OK


_FIGURE = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?![\w])")


class FiguresFrom(TextCheck):
    """Every figure in the reply is one the ``source`` holds, written the same way: none invented, none
    changed (a rewrite that turns 40% into 60% or adds a figure of its own fails)."""

    check: Literal["figures_from"]
    source: str = Field(min_length=1)

    def check_text(self, text: str) -> Outcome:
        known = set(_FIGURE.findall(without_code_spans(self.source)))
        extra = [f for f in _FIGURE.findall(without_code_spans(text)) if f not in known]
        return (False, f"figures not in the source: {quote(sorted(set(extra)))}") if extra else OK


class FigureOf(TextCheck):
    """Each time the reply states ``figure`` it is said of the source's subject: the clause the figure
    stands in (or, unsure, its sentence) names every concept of ``subject`` through the concept reader
    (:mod:`engine.readers.concepts`), in the reply's ``language``. "Cut failed nightly jobs by 40%"
    rewritten as "uploads 40% faster" keeps the figure and changes what it is said of, and fails. A clause
    that names only some of the concepts fails and says the check is unsure."""

    check: Literal["figure_of"]
    figure: str = Field(min_length=1, max_length=64)
    subject: list[list[str]] = Field(min_length=1)
    language: Language = "en"

    @field_validator("figure")
    @classmethod
    def _readable(cls, value: str) -> str:
        if parse(value) is None:
            raise ValueError(f"{value!r} is not one quantity the quantity reader reads, such as '40%'")
        return value

    @field_validator("subject")
    @classmethod
    def _terms(cls, value: list[list[str]]) -> list[list[str]]:
        if not concepts_ok(value):
            raise ValueError("each concept of subject is a non-empty list of terms with a word each")
        return value

    def check_text(self, text: str) -> Outcome:
        expected = parse(self.figure)
        assert expected is not None  # checked when the task loads
        stated = [q for q in quantities(text) if compare(expected, q)[0]]
        if not stated:
            return Outcome(False, f"does not state {self.figure}")
        unsure = None
        named: dict[tuple[int, int], Match] = {}  # a clause or sentence holding many figures is read once

        def read(span: tuple[int, int]) -> Match:
            if span not in named:
                named[span] = match(text[span[0]:span[1]], self.subject, self.language)
            return named[span]

        for clause, sentence in contexts(text, stated):
            if read(clause).full:
                continue
            said = quote(text[clause[0]:clause[1]].strip(), 70)
            if read(sentence).full:
                unsure = unsure or f"check: {self.figure} is said in the sentence that names its subject, " \
                                   f"not in its clause {said}"
                continue
            near = read(clause)
            lacks = missing_concept(self.subject, near)
            why = f"check: the clause names part of the subject but not {quote(lacks, 40)}" if near.partial else None
            return Outcome(False, f"{self.figure} is said of something else: {said}", why)
        return Outcome(True, "", unsure)


# Words that mark the old and the new value of a change, in the languages the tasks use.
_FROM_WORDS = (r"(?:from|de|desde|von|du|previously|formerly|before|antes|anteriormente|instead\s+of"
               r"|en\s+lugar\s+de|frente\s+a|vs\.?)")
_TO_WORDS = r"(?:to|a|hasta|auf|à|en|now|ahora)"
_ARROW = r"(?:→|->|=>|⟶|➝|➔)"


class Change(TextCheck):
    """The reply states that a value changed from ``before`` to ``after`` and never the other way round:
    ``from 200 to 750``, ``de 200 a 750``, ``200 → 750`` or ``750 (antes 200)`` hold; ``de 750 a 200`` fails
    even though both figures appear."""

    check: Literal["change"]
    before: str = Field(min_length=1)
    after: str = Field(min_length=1)
    # How far apart (in characters) the two figures of one statement may stand.
    window: int = Field(default=40, ge=5, le=200)

    def _states(self, old: str, new: str, text: str) -> bool:
        o = rf"(?<![\d.,]){re.escape(old)}(?![\d])"
        n = rf"(?<![\d.,]){re.escape(new)}(?![\d])"
        gap = rf".{{0,{self.window}}}?"
        # A marker is read as the longest one that starts where it stands, and the words skipped after it
        # are no marker of the other role: the "en" of "en lugar de" (instead of) opens the old value, so
        # "un valor de 750 en lugar de 200" states 200 -> 750, not "de 750 en ... 200" (750 -> 200).
        to = rf"\b(?!{_FROM_WORDS}\b){_TO_WORDS}\s+(?:(?!{_FROM_WORDS}\b)\w+\s+){{0,2}}?"
        forward = rf"\b{_FROM_WORDS}\s+(?:\w+\s+){{0,2}}?{o}{gap}{to}{n}"
        arrow = rf"{o}\s*\S{{0,4}}\s*{_ARROW}\s*{n}"
        backward = rf"{n}{gap}\b{_FROM_WORDS}\s+(?:\w+\s+){{0,2}}?{o}"
        return any(re.search(p, text, re.IGNORECASE) for p in (forward, arrow, backward))

    def check_text(self, text: str) -> Outcome:
        if self._states(self.after, self.before, text):
            return False, f"states the change the wrong way round ({self.after} to {self.before})"
        if not self._states(self.before, self.after, text):
            return False, f"does not state the change from {self.before} to {self.after}"
        return OK
