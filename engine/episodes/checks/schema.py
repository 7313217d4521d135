"""The JSON-schema check: a small subset of JSON schema, its shape checked when the task loads."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field, field_validator

from engine.episodes.checks.base import OK, JsonCheck, Outcome, quote, regex_error
from engine.episodes.checks.values import JSON_TYPES, _json_type, has_type, same

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
        why = regex_error(schema["pattern"])
        if why is not None:
            raise ValueError(f"{where}.pattern: {why}")
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
