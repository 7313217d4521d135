"""What a check looks at and what it gives back: the reply (``Subject``), the ``Outcome``, and the check
bases every family builds on (a check on JSON values, a check on text, a count between bounds).

Notes describing a failure quote the model's output through ``json.dumps`` with ASCII escaping and a length
cap (``quote``): model output is hostile, and a note ends up in result files and terminals.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.core import modeljson
from engine.core.textclip import shorten
from engine.episodes.checks.values import PathError, _json_type, resolve
from engine.episodes.structure import plain_text, read_post, words
from engine.readers.concepts import Match, tokens
from engine.readers.rendered import rendered


def quote(value: Any, limit: int = 80) -> str:
    """A safe, short rendering of model-supplied data for a failure note."""
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError):
        text = ascii(value)
    return shorten(text, limit, "...")


_FENCED = re.compile(r"^```[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?```$", re.DOTALL)


def word_pattern(word: str, case_sensitive: bool) -> re.Pattern[str]:
    """Whole-word match: letters, digits and underscores on either side block it; a hyphen does not, so
    ``free`` is found inside ``gluten-free`` but not inside ``freedom`` or ``retry_free``."""
    flags = 0 if case_sensitive else re.IGNORECASE
    return re.compile(rf"(?<![\w]){re.escape(word)}(?![\w])", flags)


def _compatible(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def _compatible_folded(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def folder(case_sensitive: bool) -> Callable[[str], str]:
    """How a check with a ``case_sensitive`` option reads both its strings and the reply's before comparing:
    in Unicode's compatibility form (NFKC), so that a character written in another form of the same letter
    or digit reads as it (``CO₂`` as ``CO2``, full-width ``Ｎｅｘｔ`` as ``Next``, a no-break space as a
    space), and without case unless ``case_sensitive``."""
    return _compatible if case_sensitive else _compatible_folded


def regex_error(pattern: str) -> str | None:
    """Why a task's regular expression does not compile, or None: the one test of a pattern a check takes
    (``regex``, an ``items_match`` item, a schema's ``pattern``), run when the task loads."""
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"not a valid regular expression: {exc}"
    return None


def concepts_ok(concepts: Sequence[Sequence[str]]) -> bool:
    """Each concept a task gives the concept reader is a non-empty list of terms, each with a word."""
    return all(concept and all(tokens(t) for t in concept) for concept in concepts)


def missing_concept(concepts: Sequence[Sequence[str]], found: Match) -> str:
    """The first concept a partial match lacks, as its first three terms ("roll back / revert")."""
    return " / ".join(concepts[found.missing[0]][:3])


class Subject:
    """One reply's text and, parsed once on demand, the JSON it holds.

    ``strict`` is true when the whole reply (trimmed) is one JSON document. A reply that is a single fenced
    code block is still parsed, so its content checks are scored, but it fails ``json_only``.
    """

    def __init__(self, text: str):
        self.text = text
        self._parsed = False
        self._value: Any = None
        self._error: str | None = None
        self.strict = False
        self.fenced = False

    def _parse(self) -> None:
        if self._parsed:
            return
        self._parsed = True
        stripped = self.text.strip()
        try:
            self._value = modeljson.loads(stripped)
            self.strict = True
            return
        except json.JSONDecodeError as exc:
            first_error = f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        fence = _FENCED.match(stripped)
        if fence:
            try:
                self._value = modeljson.loads(fence.group(1))
                self.fenced = True
                return
            except json.JSONDecodeError as exc:
                first_error = (f"fenced block is not valid JSON: {exc.msg} "
                               f"at line {exc.lineno} column {exc.colno}")
        self._error = first_error if stripped else "the reply is empty"

    def json(self) -> tuple[Any, str | None]:
        self._parse()
        return self._value, self._error

    def parse_ok(self) -> tuple[bool, bool]:
        self._parse()
        return self.strict, self.fenced

    def at(self, path: str) -> tuple[list[tuple[str, Any]], str | None]:
        """Every (concrete path, value) ``path`` reaches in the reply's JSON, or, when there is none, why:
        the one reading of the JSON at a path, for the JSON checks and the text checks given a path."""
        doc, error = self.json()
        if error is not None:
            return [], f"no JSON to check ({error})"
        try:
            found = resolve(doc, path)
        except PathError as exc:
            return [], str(exc)
        if not found:
            return [], f"nothing at {path}"
        return found, None


class Outcome(tuple):  # type: ignore[type-arg]
    """What a check found: ``(held, note)``, a plain pair (``ok, note = outcome`` reads it), and ``unsure``:
    why the check could not decide from the text alone, or None. A check may also return a bare
    ``(bool, str)`` tuple, which is sure."""

    unsure: str | None

    def __new__(cls, held: bool, note: str = "", unsure: str | None = None) -> Outcome:
        self = super().__new__(cls, (held, note))
        self.unsure = unsure
        return self


def unsure_of(outcome: tuple[bool, str]) -> str | None:
    """The ``unsure`` note of an outcome, None for a sure one."""
    return getattr(outcome, "unsure", None)


OK = Outcome(True)


class CheckBase(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    # A name for the grade's breakdown; defaults to the check's kind and path.
    id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.:\-]+$")

    def breakdown_name(self) -> str:
        if self.id:
            return self.id
        path = getattr(self, "path", None)
        kind = str(getattr(self, "check"))  # noqa: B009 - every concrete check defines it
        return f"{kind}:{path}" if path else kind

    def run(self, subject: Subject) -> Outcome:  # pragma: no cover - every subclass overrides it
        raise NotImplementedError


class Bounded(CheckBase):
    """A count between ``min`` and ``max`` (at least one given), shared by the counting checks."""

    min: int | None = Field(default=None, ge=0)
    max: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _bounds(self) -> Bounded:
        _need_bound(self.min, self.max)
        return self


class JsonCheck(CheckBase):
    """A check on values inside the reply's JSON."""

    path: str = ""

    def run(self, subject: Subject) -> Outcome:
        found, missing = subject.at(self.path)
        if missing is not None:
            return False, missing
        return self.check_values(found)

    def check_values(self, found: list[tuple[str, Any]]) -> Outcome:  # pragma: no cover
        raise NotImplementedError


# The Markdown marks whose presence in a string to find makes the string a rule about the text as written:
# a code span's backtick and emphasis's asterisk. An underscore is not one: it is part of identifiers
# (``retry_backoff_ms``), which read the same either way.
_MARKS = re.compile(r"[`*]")


class TextCheck(CheckBase):
    """A check on the reply's text, or on every string a JSON path reaches when ``path`` is given.

    ``of: post`` reads the post inside the reply (``structure.read_post``: without a one-line preamble such
    as "Here's the post:" or a closing line to the user) for a rule about the post ("every post under 40
    words", "end every post with #JuniperBakes"); ``of: reply`` (the default) reads the whole reply, for a
    rule about the reply ("start every reply with ..."). When setting the preamble or the closing line aside
    is what makes the check hold, the outcome says so (``unsure``): the verdict stands, a judge may look. So
    does one where the reader could only guess where the post ends (``Post.unsure``: text after the closing
    tag of a post wrapped in tags) and the guess changed the verdict. A reply that holds no post (it only
    speaks to the user about the post it will write, or is empty) fails every rule about the post: "no post
    in the reply", unsure when the reader counted sentences that could have been the post's own."""

    path: str | None = None
    of: Literal["reply", "post"] = "reply"
    # Text checks read a reply as it reads rendered (``plain_text``: no emphasis marks, no heading #s); a
    # check about the Markdown itself (a regular expression that forbids bullet or heading lines) reads
    # the raw text. Strings inside JSON are data and are read as written.
    reads_markdown: ClassVar[bool] = False

    @model_validator(mode="after")
    def _scope(self) -> TextCheck:
        if self.of == "post" and self.path is not None:
            raise ValueError("'of: post' reads a reply's text; a check with 'path' reads JSON strings, drop one")
        return self

    def literals(self) -> list[str]:
        """The strings this check looks for in the text as given (none by default; see ``_read``)."""
        return []

    def _read(self, text: str) -> str:
        if self.reads_markdown:
            return text
        # A string to find that itself holds a Markdown mark ("`--dry-run`", "**Note:**") is a rule about
        # the characters written, not about how they render: it is matched against the text as written,
        # only its typographic variants rendered (``rendered``: full-width forms, no-break spaces,
        # escapes), with no HTML read as Markdown and no emphasis removed. So ``<code>--dry-run</code>``
        # or ``<kbd>`` is not the backticks a rule asked to keep, while ``**`--dry-run`**`` still holds them.
        if any(_MARKS.search(s) for s in self.literals()):
            return rendered(text)
        return plain_text(text)

    def run(self, subject: Subject) -> Outcome:
        if self.path is None:
            whole = self.check_text(self._read(subject.text))
            if self.of == "reply":
                return whole
            post = read_post(subject.text)
            if not words(post.body):
                # A rule about the post cannot hold where there is none: a reply that only speaks to the
                # user about it ("I'll put together a post ... Would you like it playful?"), or an empty one.
                said = post.afterword
                why = f": the reply only speaks to the user about it ({quote(said, 60)})" if words(said) else ""
                return Outcome(False, f"no post in the reply{why}", post.unsure)
            outcome = self.check_text(self._read(post.body))
            if outcome[0] and not whole[0]:
                aside = " and ".join(quote(p, 40) for p in (post.preamble, post.afterword) if p)
                return Outcome(True, outcome[1], f"holds on the post once {aside} is set aside")
            if outcome[0] != whole[0] and post.unsure:
                return Outcome(outcome[0], outcome[1], post.unsure)
            return outcome
        found, missing = subject.at(self.path)
        if missing is not None:
            return Outcome(False, missing)
        for where, value in found:
            if not isinstance(value, str):
                return Outcome(False, f"{where or '(root)'} is a {_json_type(value)}, not a string")
            ok, note = self.check_text(value)
            if not ok:
                return Outcome(False, f"{where}: {note}")
        return OK

    def check_text(self, text: str) -> Outcome:  # pragma: no cover
        raise NotImplementedError


def _need_bound(low: int | None, high: int | None) -> None:
    if low is None and high is None:
        raise ValueError("give min, max or both")
    if low is not None and high is not None and low > high:
        raise ValueError(f"min ({low}) is larger than max ({high})")


def _in_bounds(n: int, low: int | None, high: int | None, what: str) -> Outcome:
    if low is not None and n < low:
        return False, f"{n} {what}, fewer than {low}"
    if high is not None and n > high:
        return False, f"{n} {what}, more than {high}"
    return OK
