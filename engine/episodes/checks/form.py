"""Checks on the form of a reply's text: its length in words and sentences, its headings and title line,
how it starts and ends, its letter case, a regular expression over the raw text."""

from __future__ import annotations

import re
from typing import ClassVar, Literal

from pydantic import Field, field_validator

from engine.episodes.checks.base import OK, Bounded, Outcome, TextCheck, _in_bounds, folder, quote, regex_error
from engine.episodes.structure import headings, last_line, sentences, words


class WordCount(Bounded, TextCheck):
    """Between ``min`` and ``max`` words (tokens holding a letter or digit)."""

    check: Literal["word_count"]

    def check_text(self, text: str) -> Outcome:
        return _in_bounds(len(words(text)), self.min, self.max, "words")


class SentenceCount(Bounded, TextCheck):
    """Between ``min`` and ``max`` sentences (see ``sentences`` for how they are counted)."""

    check: Literal["sentence_count"]

    def check_text(self, text: str) -> Outcome:
        return _in_bounds(len(sentences(text)), self.min, self.max, "sentences")


class Headings(Bounded, TextCheck):
    """Between ``min`` and ``max`` heading lines, in any markup the structure reader reads
    (``structure.headings``): ``# Title``, an underlined title, ``<h2>``, a line wholly in bold, italics or
    underline standing above the text, and a bare short line without closing punctuation set apart as its
    own paragraph above it (``Resumen semanal``). ``max: 0`` is "no heading, no title line". A bare line is
    read as a title from its length and place alone, so a failure on one says so (``unsure``)."""

    check: Literal["headings"]
    reads_markdown: ClassVar[bool] = True

    def check_text(self, text: str) -> Outcome:
        found = headings(text)
        outcome = _in_bounds(len(found), self.min, self.max, "heading lines")
        if outcome[0] or not found:
            return outcome
        first = found[0]
        note = f"{outcome[1]}: {quote(first.text, 40)} ({_HOW[first.how]})"
        guessed = all(h.how == "plain" for h in found)  # no markup: only its length and place say title
        return Outcome(False, note, "a bare short line set apart above the text read as a title" if guessed else None)


# Chat HTML is read as the Markdown it stands for (``structure.prose``), so ``<h2>`` is a heading and a line
# wholly in ``<b>`` a bold line; "html" is left for a tag in a reply not read as markup.
_HOW = {"atx": "a heading (# or <h1>-<h6>)", "setext": "an underlined heading",
        "html": "an HTML heading or emphasis tag", "emphasis": "a line wholly in bold, italics or underline",
        "plain": "a short line standing alone above the text"}


_FLAGS = {"ignorecase": re.IGNORECASE, "multiline": re.MULTILINE, "dotall": re.DOTALL}


# A task's pattern reads runs of more than this many white-space characters as this many: no check counts
# that far, and a pattern such as ``^\s*`` (multiline) tried again at every character of a long run of blank
# lines is quadratic. tests/episodes/test_hostile_text.py holds every pattern of the bank to a time bound.
_SPACE_RUN = 64
_LONG_SPACE = re.compile(rf"(?<!\s)\s{{{_SPACE_RUN + 1},}}")


class Regex(TextCheck):
    """``pattern`` is found in the text (``expect: present``) or nowhere in it (``expect: absent``). The raw
    text, Markdown included, so a pattern can forbid bullet or heading lines."""

    check: Literal["regex"]
    reads_markdown: ClassVar[bool] = True
    pattern: str = Field(min_length=1)
    expect: Literal["present", "absent"] = "present"
    flags: list[Literal["ignorecase", "multiline", "dotall"]] = Field(default_factory=list)
    # Says in words what the pattern is for; shown in failure notes.
    meaning: str | None = None

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        why = regex_error(value)
        if why is not None:
            raise ValueError(why)
        return value

    def compiled(self) -> re.Pattern[str]:
        flags = 0
        for name in self.flags:
            flags |= _FLAGS[name]
        return re.compile(self.pattern, flags)

    def check_text(self, text: str) -> Outcome:
        hit = self.compiled().search(_LONG_SPACE.sub(lambda m: m.group(0)[:_SPACE_RUN], text))
        what = self.meaning or f"/{self.pattern}/"
        if self.expect == "present" and hit is None:
            return False, f"{what}: not found"
        if self.expect == "absent" and hit is not None:
            return False, f"{what}: found {quote(hit.group(0), 40)}"
        return OK


class StartsWith(TextCheck):
    """The text, leading white space and Markdown emphasis aside, starts with ``text``
    (``**Garden note:** ...`` starts with ``Garden note:``)."""

    check: Literal["starts_with"]
    text: str = Field(min_length=1)
    case_sensitive: bool = True

    def check_text(self, text: str) -> Outcome:
        body = text.lstrip()
        fold = folder(self.case_sensitive)
        ok = fold(body).startswith(fold(self.text))
        return OK if ok else (False, f"starts with {quote(body[: len(self.text) + 10], 40)}")


class EndsWith(TextCheck):
    """The text, trailing white space and Markdown emphasis aside, ends with ``text``. With ``line`` the
    text must be the whole last line (a sign-off of its own: "end with the line Next?"), not the end of a
    sentence that runs on the same line. With ``expect: absent`` the text must not end so: a cancelled
    sign-off ("stop ending with Next?") is checked where it was, at the end, so a reply may still name it
    ("I'll drop the Next? line") anywhere else."""

    check: Literal["ends_with"]
    text: str = Field(min_length=1)
    case_sensitive: bool = True
    line: bool = False
    expect: Literal["present", "absent"] = "present"

    def check_text(self, text: str) -> Outcome:
        ends, why = self._ends(text)
        if self.expect == "present":
            return OK if ends else (False, why)
        return (False, f"still ends with {quote(self.text, 30)}") if ends else OK

    def _ends(self, text: str) -> tuple[bool, str]:
        """Whether the text ends with ``text`` (as the whole last line with ``line``), and what it ends with."""
        fold = folder(self.case_sensitive)
        if self.line:
            last = last_line(text)
            return (fold(last) == fold(self.text.strip()),
                    f"the last line reads {quote(last, 40)}, not {quote(self.text, 30)}")
        body = text.rstrip()
        return fold(body).endswith(fold(self.text)), f"ends with {quote(body[-(len(self.text) + 10):], 40)}"


class LetterCase(TextCheck):
    """``upper``: letters appear and none is lower case. ``lower``: none is upper case. ``mixed``: some
    letter is lower case (the text is not shouted)."""

    check: Literal["letter_case"]
    case: Literal["upper", "lower", "mixed"]

    def check_text(self, text: str) -> Outcome:
        letters = [c for c in text if c.isalpha()]
        if self.case == "upper":
            low = [c for c in letters if c.islower()]
            if not letters:
                return False, "no letters"
            return (False, f"{len(low)} lower-case letters") if low else OK
        if self.case == "lower":
            up = [c for c in letters if c.isupper()]
            return (False, f"{len(up)} upper-case letters") if up else OK
        return OK if any(c.islower() for c in letters) else (False, "no lower-case letters")
