"""Checks on what a reply's text mentions: banned words, marker words, strings it must or must not hold,
phrases of a source left untranslated."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import Field

from engine.episodes.banned import banned_hits
from engine.episodes.checks.base import OK, Bounded, Outcome, TextCheck, _in_bounds, folder, quote, word_pattern
from engine.episodes.structure import without_code_spans


class BannedWords(TextCheck):
    """None of ``words`` is used, in any form a reader would still read as it (see ``engine.episodes.banned``):
    another case, a hyphenated or run-together compound (``gluten-free``, ``#FreeCoffee``, ``#cheapflights``),
    an inflection (``frees``, ``cheaper``, ``freely``), spelt out letter by letter (``F-R-E-E``) or with
    look-alike characters (``fr33``). A different word that merely holds the letters (``freedom``) is not the
    word. An entry of several words, or with punctuation, is a phrase found by its words in any form and
    spacing (``free of charge``, ``Next?`` in ``NEXT ?`` but not in "next spring"). With ``case_sensitive``
    only the exact spelling counts."""

    check: Literal["banned_words"]
    words: list[str] = Field(min_length=1)
    case_sensitive: bool = False

    def check_text(self, text: str) -> Outcome:
        hits = banned_hits(text, self.words, case_sensitive=self.case_sensitive)
        if hits:
            word, seen = hits[0]
            return False, f"uses {quote(sorted({w for w, _ in hits}))} (as {quote(seen, 50)})"
        return OK


class WordHits(Bounded, TextCheck):
    """Whole-word occurrences of ``words`` (all counted together) number between ``min`` and ``max``.
    Used, for example, to see that a summary is written in the language asked for."""

    check: Literal["word_hits"]
    words: list[str] = Field(min_length=1)
    case_sensitive: bool = False

    def check_text(self, text: str) -> Outcome:
        n = sum(len(word_pattern(w, self.case_sensitive).findall(text)) for w in self.words)
        return _in_bounds(n, self.min, self.max, "marker words")


class Contains(TextCheck):
    """Every entry of ``all`` appears verbatim (names, code, figures that must be copied as written), read
    in Unicode's compatibility form (``folder``: ``CO₂`` is ``CO2``).

    An entry is a string, or the list of the accepted forms of one answer, any one of which holds it
    (``[carbon dioxide, CO2]``: the name or its formula). The task states the forms it accepts; the check
    knows no synonyms of its own. An entry holding a Markdown mark (```--dry-run```) is read against the
    text as written (``TextCheck._read``): ``<code>--dry-run</code>`` does not hold it."""

    check: Literal["contains"]
    all: list[str | Annotated[list[Annotated[str, Field(min_length=1)]], Field(min_length=1)]] = \
        Field(min_length=1)
    case_sensitive: bool = True

    def literals(self) -> list[str]:
        return [s for entry in self.all for s in ([entry] if isinstance(entry, str) else entry)]

    def check_text(self, text: str) -> Outcome:
        fold = folder(self.case_sensitive)
        hay = fold(text)
        forms = [[entry] if isinstance(entry, str) else entry for entry in self.all]
        missing = [f[0] for f in forms if not any(fold(s) in hay for s in f)]
        return (False, f"missing {quote(missing)}") if missing else OK


class NotContains(TextCheck):
    """None of the strings of ``any`` appears anywhere (substring match, unlike ``banned_words``)."""

    check: Literal["not_contains"]
    any: list[str] = Field(min_length=1)
    case_sensitive: bool = True

    def literals(self) -> list[str]:
        return list(self.any)

    def check_text(self, text: str) -> Outcome:
        fold = folder(self.case_sensitive)
        hay = fold(text)
        found = [s for s in self.any if fold(s) in hay]
        return (False, f"contains {quote(found)}") if found else OK


_ALPHA_WORD = re.compile(r"[^\W\d_]{2,}", re.UNICODE)


def _without(text: str, keep: Sequence[str]) -> str:
    """The text with its code spans and the ``keep`` strings (names copied on purpose) blanked out."""
    text = without_code_spans(text)
    for k in sorted(keep, key=len, reverse=True):
        text = re.sub(re.escape(k), " ", text, flags=re.IGNORECASE)
    return text


class SourceOverlap(TextCheck):
    """The reply shares no run of ``n`` words with ``source`` (the text it was to translate), apart from
    the ``keep`` strings and code spans it must copy: an English phrase left in a Spanish summary is found
    wherever it stands, not only when it holds a word from a list."""

    check: Literal["source_overlap"]
    source: str = Field(min_length=1)
    n: int = Field(default=2, ge=1, le=8)
    keep: list[str] = Field(default_factory=list)

    def check_text(self, text: str) -> Outcome:
        def grams(t: str) -> list[tuple[str, ...]]:
            ws = [w.casefold() for w in _ALPHA_WORD.findall(_without(t, self.keep))]
            return [tuple(ws[i : i + self.n]) for i in range(len(ws) - self.n + 1)]

        theirs = set(grams(self.source))
        shared = [g for g in grams(text) if g in theirs]
        if shared:
            return False, f"{len(shared)} phrase(s) of the source left as written, first {quote(' '.join(shared[0]))}"
        return OK
