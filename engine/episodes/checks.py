"""Deterministic instruction checks shared by the format and multi_turn_if modules.

A task file names its checks as data (``{check: value_equals, path: total, value: 4040}``); this module
turns each entry into a small pydantic object with a ``run`` method. Validation happens when the bank
loads, so a misspelt check name, a bad regular expression or an unknown JSON-schema keyword is an error
that names the task file and the field, never a surprise in the middle of a run.

Every check reads only the text of one reply (``Subject``). Notes describing a failure quote the model's
output through ``json.dumps`` with ASCII escaping and a length cap: model output is hostile, and a note ends
up in result files and terminals.

Paths into parsed JSON are dotted: ``lines.0.qty``; ``*`` stands for every element of a list or every value
of an object (``lines.*.qty``); an empty path is the whole document.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from engine.core import modeljson
from engine.episodes.banned import banned_hits
from engine.episodes.structure import (
    last_line,
    list_items,
    plain_text,
    read_post,
    sentences,
    without_code_spans,
    words,
)
from engine.readers.concepts import Language, Match, match, tokens
from engine.readers.quantity import compare, contexts, find, parse, quantities

# --------------------------------------------------------------------------------------------------------
# Helpers


def quote(value: Any, limit: int = 80) -> str:
    """A safe, short rendering of model-supplied data for a failure note."""
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError):
        text = ascii(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_FENCED = re.compile(r"^```[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?```$", re.DOTALL)


def word_pattern(word: str, case_sensitive: bool) -> re.Pattern[str]:
    """Whole-word match: letters, digits and underscores on either side block it; a hyphen does not, so
    ``free`` is found inside ``gluten-free`` but not inside ``freedom`` or ``retry_free``."""
    flags = 0 if case_sensitive else re.IGNORECASE
    return re.compile(rf"(?<![\w]){re.escape(word)}(?![\w])", flags)


def same(a: Any, b: Any, *, tolerance: float = 0.0, casefold: bool = False) -> bool:
    """Type-strict equality of JSON values: ``"85"`` is not ``85`` and ``true`` is not ``1``, but ``85`` and
    ``85.0`` are the same number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) or isinstance(b, (int, float)):
        return (isinstance(a, (int, float)) and isinstance(b, (int, float))
                and abs(float(a) - float(b)) <= tolerance)
    if isinstance(a, str) or isinstance(b, str):
        if not (isinstance(a, str) and isinstance(b, str)):
            return False
        return a.casefold() == b.casefold() if casefold else a == b
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y, tolerance=tolerance, casefold=casefold)
                                        for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], tolerance=tolerance, casefold=casefold)
                                            for k in a)
    return False


def same_unordered(a: Any, b: Any, *, tolerance: float = 0.0, casefold: bool = False) -> bool:
    """Two lists holding the same elements (with multiplicity) in any order."""
    if not (isinstance(a, list) and isinstance(b, list)) or len(a) != len(b):
        return False
    left = list(b)
    for item in a:
        for i, candidate in enumerate(left):
            if same(item, candidate, tolerance=tolerance, casefold=casefold):
                del left[i]
                break
        else:
            return False
    return True


def _matches_item(element: Any, item: Any, casefold: bool) -> bool:
    """An object element matches a pattern object when it holds every key of the pattern with the same
    value (a subset match); any other element must equal the pattern."""
    if isinstance(item, dict) and isinstance(element, dict):
        return all(k in element and same(element[k], v, casefold=casefold) for k, v in item.items())
    return same(element, item, casefold=casefold)


class PathError(Exception):
    """The path does not lead anywhere in the document."""


def resolve(doc: Any, path: str) -> list[tuple[str, Any]]:
    """Every (concrete path, value) a dotted path with ``*`` wildcards reaches; raises ``PathError``."""
    found: list[tuple[str, Any]] = [("", doc)]
    for part in [p for p in path.split(".") if p != ""] if path else []:
        nxt: list[tuple[str, Any]] = []
        for where, value in found:
            here = f"{where}.{part}" if where else part
            if part == "*":
                if isinstance(value, list):
                    nxt.extend((f"{where}.{i}" if where else str(i), v) for i, v in enumerate(value))
                elif isinstance(value, dict):
                    nxt.extend((f"{where}.{k}" if where else str(k), v) for k, v in value.items())
                else:
                    raise PathError(f"{where or '(root)'} is not a list or object")
            elif isinstance(value, dict):
                if part not in value:
                    raise PathError(f"no key {here}")
                nxt.append((here, value[part]))
            elif isinstance(value, list):
                if not part.isdigit() or int(part) >= len(value):
                    raise PathError(f"no element {here}")
                nxt.append((here, value[int(part)]))
            else:
                raise PathError(f"{where or '(root)'} is a {_json_type(value)}, not a list or object")
        found = nxt
    return found


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def has_type(value: Any, wanted: str) -> bool:
    actual = _json_type(value)
    return actual == wanted or (wanted == "number" and actual == "integer")


JSON_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")


# --------------------------------------------------------------------------------------------------------
# What a check looks at


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
        doc, error = subject.json()
        if error is not None:
            return False, f"no JSON to check ({error})"
        try:
            found = resolve(doc, self.path)
        except PathError as exc:
            return False, str(exc)
        if not found:
            return False, f"nothing at {self.path}"
        return self.check_values(found)

    def check_values(self, found: list[tuple[str, Any]]) -> Outcome:  # pragma: no cover
        raise NotImplementedError


class TextCheck(CheckBase):
    """A check on the reply's text, or on every string a JSON path reaches when ``path`` is given.

    ``of: post`` reads the post inside the reply (``structure.read_post``: without a one-line preamble such
    as "Here's the post:" or a closing line to the user) for a rule about the post ("every post under 40
    words", "end every post with #JuniperBakes"); ``of: reply`` (the default) reads the whole reply, for a
    rule about the reply ("start every reply with ..."). When setting the preamble or the closing line aside
    is what makes the check hold, the outcome says so (``unsure``): the verdict stands, a judge may look."""

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

    def _read(self, text: str) -> str:
        return text if self.reads_markdown else plain_text(text)

    def run(self, subject: Subject) -> Outcome:
        if self.path is None:
            whole = self.check_text(self._read(subject.text))
            if self.of == "reply":
                return whole
            post = read_post(subject.text)
            outcome = self.check_text(self._read(post.body))
            if outcome[0] and not whole[0]:
                aside = " and ".join(quote(p, 40) for p in (post.preamble, post.afterword) if p)
                return Outcome(True, outcome[1], f"holds on the post once {aside} is set aside")
            return outcome
        doc, error = subject.json()
        if error is not None:
            return Outcome(False, f"no JSON to check ({error})")
        try:
            found = resolve(doc, self.path)
        except PathError as exc:
            return Outcome(False, str(exc))
        if not found:
            return Outcome(False, f"nothing at {self.path}")
        for where, value in found:
            if not isinstance(value, str):
                return Outcome(False, f"{where or '(root)'} is a {_json_type(value)}, not a string")
            ok, note = self.check_text(value)
            if not ok:
                return Outcome(False, f"{where}: {note}")
        return OK

    def check_text(self, text: str) -> Outcome:  # pragma: no cover
        raise NotImplementedError


# --------------------------------------------------------------------------------------------------------
# JSON checks


class JsonOnly(CheckBase):
    """The whole reply is one JSON document: no prose around it and, unless allowed, no code fence."""

    check: Literal["json_only"]
    top: Literal["object", "array", "any"] = "any"
    fences_ok: bool = False

    def run(self, subject: Subject) -> Outcome:
        doc, error = subject.json()
        if error is not None:
            return False, error
        strict, fenced = subject.parse_ok()
        if fenced and not self.fences_ok:
            return False, "the JSON is wrapped in a code fence"
        if self.top == "object" and not isinstance(doc, dict):
            return False, f"top level is a {_json_type(doc)}, not an object"
        if self.top == "array" and not isinstance(doc, list):
            return False, f"top level is a {_json_type(doc)}, not an array"
        return OK


_SCHEMA_KEYWORDS = {
    "type", "properties", "required", "additionalProperties", "items", "enum", "const", "minItems",
    "maxItems", "uniqueItems", "minLength", "maxLength", "minimum", "maximum", "pattern",
}


def _check_schema_shape(schema: Any, where: str = "schema") -> None:
    if not isinstance(schema, dict):
        raise ValueError(f"{where} must be a mapping")
    unknown = sorted(set(schema) - _SCHEMA_KEYWORDS)
    if unknown:
        raise ValueError(f"{where}: unsupported keyword(s) {', '.join(unknown)}; "
                         f"use only {', '.join(sorted(_SCHEMA_KEYWORDS))}")
    kinds = schema.get("type")
    for kind in [kinds] if isinstance(kinds, str) else (kinds or []):
        if kind not in JSON_TYPES:
            raise ValueError(f"{where}.type: unknown type {kind!r}; use one of {', '.join(JSON_TYPES)}")
    if "pattern" in schema:
        try:
            re.compile(schema["pattern"])
        except re.error as exc:
            raise ValueError(f"{where}.pattern: not a valid regular expression: {exc}") from exc
    for name, sub in (schema.get("properties") or {}).items():
        _check_schema_shape(sub, f"{where}.properties.{name}")
    if "items" in schema:
        _check_schema_shape(schema["items"], f"{where}.items")


def schema_errors(value: Any, schema: dict[str, Any], where: str = "") -> list[str]:
    """Every violation of a small JSON-schema subset, with the path where it occurs."""
    at = where or "(root)"
    errors: list[str] = []
    kinds = schema.get("type")
    if kinds is not None:
        allowed = [kinds] if isinstance(kinds, str) else list(kinds)
        if not any(has_type(value, k) for k in allowed):
            return [f"{at}: expected {'/'.join(allowed)}, got {_json_type(value)}"]
    if "enum" in schema and not any(same(value, v) for v in schema["enum"]):
        errors.append(f"{at}: {quote(value, 40)} is not one of {quote(schema['enum'], 60)}")
    if "const" in schema and not same(value, schema["const"]):
        errors.append(f"{at}: must be {quote(schema['const'], 40)}")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            errors.append(f"{at}: shorter than {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errors.append(f"{at}: longer than {schema['maxLength']} characters")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append(f"{at}: {quote(value, 40)} does not match {schema['pattern']}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{at}: below {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{at}: above {schema['maximum']}")
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            errors.append(f"{at}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append(f"{at}: more than {schema['maxItems']} items")
        if schema.get("uniqueItems"):
            for i, item in enumerate(value):
                if any(same(item, other) for other in value[:i]):
                    errors.append(f"{at}: item {i} repeats an earlier item")
                    break
        if "items" in schema:
            for i, item in enumerate(value):
                errors.extend(schema_errors(item, schema["items"], f"{where}.{i}" if where else str(i)))
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{at}: missing key {quote(key, 40)}")
        if schema.get("additionalProperties") is False:
            extra = [k for k in value if k not in props]
            if extra:
                errors.append(f"{at}: unexpected key(s) {quote(extra, 60)}")
        for key, sub in props.items():
            if key in value:
                errors.extend(schema_errors(value[key], sub, f"{where}.{key}" if where else key))
    return errors


class JsonSchema(JsonCheck):
    """The value at ``path`` fits a JSON schema (a subset: types, keys, enums, sizes, patterns)."""

    check: Literal["json_schema"]
    schema_: dict[str, Any] = Field(alias="schema")

    @field_validator("schema_")
    @classmethod
    def _shape(cls, value: dict[str, Any]) -> dict[str, Any]:
        _check_schema_shape(value)
        return value

    def check_values(self, found: list[tuple[str, Any]]) -> Outcome:
        errors: list[str] = []
        for where, value in found:
            errors.extend(schema_errors(value, self.schema_, where))
        if errors:
            more = f" (+{len(errors) - 3} more)" if len(errors) > 3 else ""
            return False, "; ".join(errors[:3]) + more
        return OK


class ValueEquals(JsonCheck):
    """The value at ``path`` equals ``value``, type included; lists may be compared as multisets."""

    check: Literal["value_equals"]
    value: Any
    tolerance: float = Field(default=0.0, ge=0)
    casefold: bool = False
    unordered: bool = False

    def check_values(self, found: list[tuple[str, Any]]) -> Outcome:
        for where, actual in found:
            if self.unordered:
                ok = same_unordered(actual, self.value, tolerance=self.tolerance, casefold=self.casefold)
            else:
                ok = same(actual, self.value, tolerance=self.tolerance, casefold=self.casefold)
            if not ok:
                return False, f"{where or '(root)'}: expected {quote(self.value, 60)}, got {quote(actual)}"
        return OK


class ArrayHas(JsonCheck):
    """The array at ``path`` holds (or, with ``present: false``, does not hold) an element matching
    ``item``; an object pattern matches any element that has its keys with its values."""

    check: Literal["array_has"]
    item: Any
    present: bool = True
    casefold: bool = False

    def check_values(self, found: list[tuple[str, Any]]) -> Outcome:
        for where, value in found:
            if not isinstance(value, list):
                return False, f"{where or '(root)'} is a {_json_type(value)}, not an array"
            hit = next((e for e in value if _matches_item(e, self.item, self.casefold)), None)
            if self.present and hit is None:
                return False, f"no element matching {quote(self.item, 70)}"
            if not self.present and hit is not None:
                return False, f"holds {quote(hit)}, which should not be there"
        return OK


class ValueIn(JsonCheck):
    """Every value at ``path`` is one of ``values`` (an enum)."""

    check: Literal["value_in"]
    values: list[Any] = Field(min_length=1)

    def check_values(self, found: list[tuple[str, Any]]) -> Outcome:
        for where, value in found:
            if not any(same(value, v) for v in self.values):
                return False, f"{where or '(root)'}: {quote(value, 40)} is not one of {quote(self.values)}"
        return OK


class TypeIs(JsonCheck):
    """Every value at ``path`` has JSON type ``type`` (``"12"`` is a string, not a number)."""

    check: Literal["type_is"]
    type: Literal["null", "boolean", "integer", "number", "string", "array", "object"]

    def check_values(self, found: list[tuple[str, Any]]) -> Outcome:
        for where, value in found:
            if not has_type(value, self.type):
                kind = _json_type(value)
                return False, f"{where or '(root)'}: {quote(value, 40)} is a {kind}, not {self.type}"
        return OK


class DateFormat(JsonCheck):
    """Every value at ``path`` is a string that is a real date in ``format`` (strftime codes), written
    exactly as the format writes it: ``4.2.2025`` fails ``%d.%m.%Y`` because the format pads to ``04.02``."""

    check: Literal["date_format"]
    format: str = Field(min_length=2)

    @field_validator("format")
    @classmethod
    def _has_code(cls, value: str) -> str:
        if "%" not in value:
            raise ValueError("format needs strftime codes such as %Y-%m-%d")
        return value

    def check_values(self, found: list[tuple[str, Any]]) -> Outcome:
        for where, value in found:
            if not isinstance(value, str):
                return False, f"{where or '(root)'}: {quote(value, 40)} is not a string"
            try:
                parsed = datetime.strptime(value, self.format)
            except ValueError:
                return False, f"{where or '(root)'}: {quote(value, 40)} is not a date in {self.format}"
            if parsed.strftime(self.format) != value:
                return False, f"{where or '(root)'}: {quote(value, 40)} is not written as {self.format} does"
        return OK


class Count(Bounded, JsonCheck):
    """The array (or object) at ``path`` has between ``min`` and ``max`` elements."""

    check: Literal["count"]

    def check_values(self, found: list[tuple[str, Any]]) -> Outcome:
        for where, value in found:
            if not isinstance(value, (list, dict)):
                return False, f"{where or '(root)'} is a {_json_type(value)}, not an array"
            ok, note = _in_bounds(len(value), self.min, self.max, "elements")
            if not ok:
                return False, note
        return OK


class SortedBy(JsonCheck):
    """The array at ``path`` is in order of ``keys`` (each element's values at those keys, compared in
    turn); ``descending`` reverses it."""

    check: Literal["sorted_by"]
    keys: list[str] = Field(default_factory=list)
    descending: bool = False

    def check_values(self, found: list[tuple[str, Any]]) -> Outcome:
        for where, value in found:
            if not isinstance(value, list):
                return False, f"{where or '(root)'} is a {_json_type(value)}, not an array"
            try:
                sort_keys = [tuple(_sort_key(e, k) for k in self.keys) if self.keys else (_sort_key(e, ""),)
                             for e in value]
            except (KeyError, TypeError) as exc:
                return False, f"cannot order the elements: {exc}"
            want = sorted(sort_keys, reverse=self.descending)
            if sort_keys != want:
                first = next(i for i, (a, b) in enumerate(zip(sort_keys, want, strict=True)) if a != b)
                return False, f"element {first} is out of order"
        return OK


def _sort_key(element: Any, key: str) -> tuple[int, Any]:
    value = element if not key else element[key] if isinstance(element, dict) else None
    if key and not isinstance(element, dict):
        raise TypeError("elements are not objects")
    if isinstance(value, bool) or value is None:
        raise TypeError(f"{quote(value, 20)} has no order")
    if isinstance(value, (int, float)):
        return (0, value)
    if isinstance(value, str):
        return (1, value)
    raise TypeError(f"a {_json_type(value)} has no order")


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


# --------------------------------------------------------------------------------------------------------
# Text checks


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


class ListItems(Bounded, TextCheck):
    """Between ``min`` and ``max`` list items, in any marker style the structure reader reads
    (``structure.list_items``): ``-``/``*``/``•`` and other bullets, emoji bullets, ``1.``/``2)``/``(3)``,
    Roman numerals (``I.``, ``ii)``), letters (``a)``) and number words (``One:``). ``bullet`` counts the
    unordered items, ``numbered`` the ordered ones (digits, Roman numerals, letters and number words all
    number a list). With no marker anywhere, lines a colon introduces count as items for ``any`` (one tip
    per line), and the outcome says the items were read so (``unsure``)."""

    check: Literal["list_items"]
    style: Literal["any", "bullet", "numbered"] = "any"

    def check_text(self, text: str) -> Outcome:
        items = [i for i in list_items(text) if self.style == "any" or i.style == self.style]
        kind = "list items" if self.style == "any" else f"{self.style} list items"
        ok, note = _in_bounds(len(items), self.min, self.max, kind)
        if items and all(i.kind == "line" for i in items):
            return Outcome(ok, note, f"{len(items)} unmarked lines after a colon read as list items")
        return Outcome(ok, note)


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
    """Every string of ``all`` appears verbatim (names, code, figures that must be copied as written)."""

    check: Literal["contains"]
    all: list[str] = Field(min_length=1)
    case_sensitive: bool = True

    def check_text(self, text: str) -> Outcome:
        hay = text if self.case_sensitive else text.casefold()
        missing = [s for s in self.all if (s if self.case_sensitive else s.casefold()) not in hay]
        return (False, f"missing {quote(missing)}") if missing else OK


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


class NotContains(TextCheck):
    """None of the strings of ``any`` appears anywhere (substring match, unlike ``banned_words``)."""

    check: Literal["not_contains"]
    any: list[str] = Field(min_length=1)
    case_sensitive: bool = True

    def check_text(self, text: str) -> Outcome:
        hay = text if self.case_sensitive else text.casefold()
        found = [s for s in self.any if (s if self.case_sensitive else s.casefold()) in hay]
        return (False, f"contains {quote(found)}") if found else OK


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
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"not a valid regular expression: {exc}") from exc
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


class StartsWith(TextCheck):
    """The text, leading white space and Markdown emphasis aside, starts with ``text``
    (``**Garden note:** ...`` starts with ``Garden note:``)."""

    check: Literal["starts_with"]
    text: str = Field(min_length=1)
    case_sensitive: bool = True

    def check_text(self, text: str) -> Outcome:
        body = text.lstrip()
        if self.case_sensitive:
            ok = body.startswith(self.text)
        else:
            ok = body.casefold().startswith(self.text.casefold())
        return OK if ok else (False, f"starts with {quote(body[: len(self.text) + 10], 40)}")


class EndsWith(TextCheck):
    """The text, trailing white space and Markdown emphasis aside, ends with ``text``. With ``line`` the
    text must be the whole last line (a sign-off of its own: "end with the line Next?"), not the end of a
    sentence that runs on the same line."""

    check: Literal["ends_with"]
    text: str = Field(min_length=1)
    case_sensitive: bool = True
    line: bool = False

    def check_text(self, text: str) -> Outcome:
        fold = (lambda t: t) if self.case_sensitive else str.casefold
        if self.line:
            last = last_line(text)
            if fold(last) == fold(self.text.strip()):
                return OK
            return Outcome(False, f"the last line reads {quote(last, 40)}, not {quote(self.text, 30)}")
        body = text.rstrip()
        if fold(body).endswith(fold(self.text)):
            return OK
        return Outcome(False, f"ends with {quote(body[-(len(self.text) + 10):], 40)}")


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


# --------------------------------------------------------------------------------------------------------
# Content fidelity: a rewrite (a translation, a summary, an extraction) says what its source says


_FIGURE = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?![\w])")
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
        if not all(concept and all(tokens(t) for t in concept) for concept in value):
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
            lacks = " / ".join(self.subject[near.missing[0]][:3])
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
        forward = rf"\b{_FROM_WORDS}\s+(?:\w+\s+){{0,2}}?{o}{gap}\b{_TO_WORDS}\s+(?:\w+\s+){{0,2}}?{n}"
        arrow = rf"{o}\s*\S{{0,4}}\s*{_ARROW}\s*{n}"
        backward = rf"{n}{gap}\b{_FROM_WORDS}\s+(?:\w+\s+){{0,2}}?{o}"
        return any(re.search(p, text, re.IGNORECASE) for p in (forward, arrow, backward))

    def check_text(self, text: str) -> Outcome:
        if self._states(self.after, self.before, text):
            return False, f"states the change the wrong way round ({self.after} to {self.before})"
        if not self._states(self.before, self.after, text):
            return False, f"does not state the change from {self.before} to {self.after}"
        return OK


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
                if not item or not all(concept and all(tokens(t) for t in concept) for concept in item):
                    raise ValueError(f"items.{name}: each concept is a non-empty list of terms with a word each")
                continue
            try:
                re.compile(item)
            except re.error as exc:
                raise ValueError(f"items.{name}: not a valid regular expression: {exc}") from exc
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
                partial = [(n, texts[k]) for n in missing for k, r in enumerate(reads[n])
                           if isinstance(r, Match) and r.partial]
                unsure = None
                if partial:
                    name, text = partial[0]
                    item = self.items[name]
                    assert isinstance(item, list)
                    r = match(text, item, self.language)
                    lacks = " / ".join(item[r.missing[0]][:3])
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
    for n, line in enumerate(text.splitlines()):
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


CheckSpec = Annotated[
    Union[  # noqa: UP007 - a discriminated union reads better spelt out
        JsonOnly, JsonSchema, ValueEquals, ArrayHas, ValueIn, TypeIs, DateFormat, Count, SortedBy,
        WordCount, SentenceCount, ListItems, BannedWords, WordHits, Contains, StatesQuantity, NotContains,
        Regex, NoNumerals, StartsWith, EndsWith, LetterCase, LabelledNumber, SourceOverlap, FiguresFrom,
        FigureOf, Change, ItemsMatch, InOrder,
    ],
    Field(discriminator="check"),
]

CHECK_NAMES = (
    "json_only", "json_schema", "value_equals", "array_has", "value_in", "type_is", "date_format", "count",
    "sorted_by", "word_count", "sentence_count", "list_items", "banned_words", "word_hits", "contains",
    "quantity", "not_contains", "regex", "no_numerals", "starts_with", "ends_with", "letter_case",
    "labelled_number", "source_overlap", "figures_from", "figure_of", "change", "items_match", "sequence",
)


def unique_labels(checks: Sequence[CheckBase], prefix: str = "") -> list[str]:
    """Breakdown names for a list of checks; a repeated name gets ``#2``, ``#3`` so none is lost."""
    seen: dict[str, int] = {}
    out: list[str] = []
    for c in checks:
        base = prefix + c.breakdown_name()
        seen[base] = seen.get(base, 0) + 1
        out.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return out


def run_checks(text: str, checks: Sequence[CheckBase], prefix: str = "") -> dict[str, Outcome]:
    """Run every check on one reply; the result keeps the checks' order."""
    subject = Subject(text)
    return {label: c.run(subject) for label, c in zip(unique_labels(checks, prefix), checks, strict=True)}
