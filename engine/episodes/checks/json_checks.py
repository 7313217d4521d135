"""Checks on the shape and values of the JSON a reply holds: JSON only, values, enums, types, dates, counts, order."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field, field_validator

from engine.episodes.checks.base import OK, Bounded, CheckBase, JsonCheck, Outcome, Subject, _in_bounds, quote
from engine.episodes.checks.values import JsonType, _json_type, _matches_item, has_type, same, same_unordered


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
    type: JsonType

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
