"""Checks on the items a reply lists: how many list items, the agreed items of a JSON array, a series named
in order."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field, field_validator

from engine.episodes.checks.base import (
    OK,
    Bounded,
    JsonCheck,
    Outcome,
    TextCheck,
    _in_bounds,
    concepts_ok,
    missing_concept,
    quote,
    regex_error,
    word_pattern,
)
from engine.episodes.structure import list_items, plain_text, prose, words
from engine.readers.concepts import Language, Match, match


class ListItems(Bounded, TextCheck):
    """Between ``min`` and ``max`` list items, in any marker style the structure reader reads
    (``structure.list_items``): ``-``/``*``/``•`` and other bullets, emoji bullets, ``1.``/``2)``/``(3)``,
    Roman numerals (``I.``, ``ii)``), letters (``a)``) and number words (``One:``). ``bullet`` counts the
    unordered items, ``numbered`` the ordered ones (digits, Roman numerals, letters and number words all
    number a list). With no marker anywhere, unmarked lines one item each count as items for ``any`` (one
    tip per line: lines a colon introduces, or a paragraph of its own written one item a line under an
    optional heading line), and the outcome says the items were read so (``unsure``)."""

    check: Literal["list_items"]
    style: Literal["any", "bullet", "numbered"] = "any"

    def check_text(self, text: str) -> Outcome:
        items = [i for i in list_items(text) if self.style == "any" or i.style == self.style]
        kind = "list items" if self.style == "any" else f"{self.style} list items"
        ok, note = _in_bounds(len(items), self.min, self.max, kind)
        if items and all(i.kind == "line" for i in items):
            return Outcome(ok, note, f"{len(items)} unmarked lines read as list items, one a line")
        return Outcome(ok, note)


class ItemsMatch(JsonCheck):
    """The array of strings at ``path`` holds each agreed item, case-insensitive, and, with ``exclusive``
    (the default), nothing else: every element is one of the agreed items.

    An item is a regular expression, or a list of concepts read by the concept reader
    (:mod:`engine.readers.concepts`): ``[[roll back, revert], [runbook, procedure, steps]]`` is an element
    that names both concepts, in any order and in any form of their words ("create runbook for rolling back
    config", "write up rollback steps"). An element that names only some of an item's concepts is not that
    item, and the outcome says the check could not decide (``unsure``): the wording may be one the terms
    do not hold."""

    check: Literal["items_match"]
    items: dict[str, str | list[list[str]]] = Field(min_length=1)
    exclusive: bool = True
    language: Language = "en"

    @field_validator("items")
    @classmethod
    def _compile(cls, value: dict[str, str | list[list[str]]]) -> dict[str, str | list[list[str]]]:
        for name, item in value.items():
            if isinstance(item, list):
                if not item or not concepts_ok(item):
                    raise ValueError(f"items.{name}: each concept is a non-empty list of terms with a word each")
                continue
            why = regex_error(item)
            if why is not None:
                raise ValueError(f"items.{name}: {why}")
        return value

    def _reads(self, item: str | list[list[str]], text: str) -> Match | bool:
        if isinstance(item, str):
            return re.search(item, text, re.I) is not None
        return match(text, item, self.language)

    def check_values(self, found: list[tuple[str, Any]]) -> Outcome:
        for where, value in found:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                return False, f"{where or '(root)'} is not an array of strings"
            texts = [plain_text(v) for v in value]
            reads = {n: [self._reads(item, t) for t in texts] for n, item in self.items.items()}
            held = {n: [r.full if isinstance(r, Match) else r for r in rs] for n, rs in reads.items()}
            missing = [n for n in self.items if not any(held[n])]
            if missing:
                partial = [(n, texts[k], r) for n in missing for k, r in enumerate(reads[n])
                           if isinstance(r, Match) and r.partial]
                unsure = None
                if partial:
                    name, text, r = partial[0]
                    item = self.items[name]
                    assert isinstance(item, list)
                    lacks = missing_concept(item, r)
                    unsure = f"check: {quote(text, 60)} names part of {name} but not {quote(lacks, 40)}"
                return Outcome(False, f"no element for {quote(missing)}", unsure)
            if self.exclusive:
                extra = [t for k, t in enumerate(texts) if not any(held[n][k] for n in self.items)]
                if extra:
                    return False, f"{quote(extra[0], 60)} is none of the agreed items"
        return OK


# What separates the members of an inline series: commas, semicolons, a colon that opens the series,
# arrows, and the conjunctions of a list ("Uranus and Neptune", "tea or coffee", "then Mars").
_SERIES_SPLIT = re.compile(r"\s*(?:[,;:/]|→|⇒|->|=>|&|\band\b|\bor\b|\bthen\b)\s*", re.IGNORECASE)
_SENTENCE_BREAK = re.compile(r"(?<=[.!?…])\s+")


def _enumeration(text: str) -> list[tuple[int, str]]:
    """The members of the series a reply writes, each with the group it belongs to: the items of one
    list, or the parts of one sentence (a line without a closing stop runs on into the next, so one name
    per line is one series)."""
    items = {i.line: i for i in list_items(text)}
    out: list[tuple[int, str]] = []
    group, open_line = 0, False
    for n, line in enumerate(prose(text).splitlines()):  # the lines the item numbers count
        if n in items:
            if not (out and open_line == "list"):
                group += 1
            out.append((group, items[n].text))
            open_line = "list"  # type: ignore[assignment]
            continue
        if not line.strip():
            open_line = False
            continue
        if open_line is not True:
            group += 1
        # A parenthesis is an aside about the series, not a member of it.
        pieces = _SENTENCE_BREAK.split(re.sub(r"\([^()]*\)", " ", line).strip())
        for k, sentence in enumerate(pieces):
            if k:
                group += 1
            out.extend((group, p) for p in (x.strip(" .!?…\"'()[]") for x in _SERIES_SPLIT.split(sentence)) if p)
        open_line = not re.search(r"[.!?…][\"')\]]*$", line.strip())
    return out


def _item_like(element: str) -> bool:
    """A member that names one more thing of the series: a short name (``Pluto``, ``the Moon``), not a
    phrase about the series (``in that order``)."""
    ws = words(element)
    return len(ws) == 1 or (len(ws) <= 3 and any(w[:1].isupper() and w != "I" for w in ws))


class InOrder(TextCheck):
    """The reply names each of ``items`` (whole words, any case) in this order, as one series: a list or
    an inline enumeration (``Mercury, Venus, ... and Neptune``). With ``exclusive`` (the default) it names
    nothing else in the series: no member between two items and none right after the last in the same
    sentence or list (the eight planets, not nine). A series may start after words of its own ("the
    planets are Mercury, ...")."""

    check: Literal["sequence"]
    items: list[str] = Field(min_length=2)
    exclusive: bool = True

    def check_text(self, text: str) -> Outcome:
        patterns = [word_pattern(i, False) for i in self.items]
        elements: list[tuple[int, str]] = []
        for group, element in _enumeration(text):
            # Names with nothing between them ("mercury venus earth") are members one word each.
            several = sum(1 for p in patterns if p.search(element)) > 1
            elements.extend((group, w) for w in (element.split() if several else [element]))
        named = [[k for k, p in enumerate(patterns) if p.search(e)] for _, e in elements]
        best: Outcome = Outcome(False, f"does not name {quote(self.items[0], 30)}")
        for start in (e for e, ks in enumerate(named) if 0 in ks):
            outcome = self._from(start, elements, named)
            if outcome[0]:
                return outcome
            best = outcome
        return best

    def _from(self, start: int, elements: list[tuple[int, str]], named: list[list[int]]) -> Outcome:
        want, extras, e = 0, [], start
        while e < len(elements) and want < len(self.items):
            here = named[e]
            if want in here:
                while want < len(self.items) and want in here:
                    want += 1
                if any(k >= want for k in here):
                    return Outcome(False, f"names {quote(self.items[max(here)], 30)} out of order")
            elif here:
                return Outcome(False, f"names {quote(self.items[here[0]], 30)} where "
                                      f"{quote(self.items[want], 30)} comes next")
            elif _item_like(elements[e][1]):
                extras.append(elements[e][1])
            e += 1
        if want < len(self.items):
            return Outcome(False, f"the series stops before {quote(self.items[want], 30)}")
        last_group = elements[e - 1][0]
        while e < len(elements) and elements[e][0] == last_group and _item_like(elements[e][1]):
            extras.append(elements[e][1])
            e += 1
        if self.exclusive and extras:
            return Outcome(False, f"names {quote(extras, 60)} beside the {len(self.items)} items")
        return OK
