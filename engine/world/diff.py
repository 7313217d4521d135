"""The state as a flat map of paths, and the difference between two such maps.

``flatten_state`` walks the state: a model field adds ``.name``, a dict key adds ``["key"]``, and a leaf
value ends a path (``orders["O-1"].status -> "approved"``). Append-only lists become multisets: each item is
one path keyed by its canonical JSON (``refunds[{...}]``), whose value is how many times it occurs.
Markdown files expand into their structural paths (see :mod:`engine.world.markdown`); other files into
one path per line number, with trailing whitespace and the final newline ignored.
Fields marked ``graded=False`` are left out.

A path absent from a map is the value :data:`ABSENT`, so additions and deletions are ordinary changes.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from engine.world.markdown import markdown_paths
from engine.world.state import WorldState, canonical_json


class _Absent:
    def __repr__(self) -> str:
        return "<absent>"


ABSENT: Any = _Absent()


def _graded_dump(value: Any) -> Any:
    if isinstance(value, BaseModel):
        out = {}
        for name, info in type(value).model_fields.items():
            extra = info.json_schema_extra
            if isinstance(extra, dict) and extra.get("graded") is False:
                continue
            out[name] = _graded_dump(getattr(value, name))
        return out
    if isinstance(value, dict):
        return {k: _graded_dump(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_graded_dump(v) for v in value]
    return value


def _walk(value: Any, path: str, out: dict[str, Any]) -> None:
    if isinstance(value, BaseModel):
        for name, info in type(value).model_fields.items():
            extra = info.json_schema_extra
            if isinstance(extra, dict) and extra.get("graded") is False:
                continue
            _walk(getattr(value, name), f"{path}.{name}" if path else name, out)
    elif isinstance(value, dict):
        for key, item in value.items():
            _walk(item, f"{path}[{json.dumps(key, ensure_ascii=False)}]", out)
    elif isinstance(value, list):
        for item in value:
            key = f"{path}[{canonical_json(_graded_dump(item))}]"
            out[key] = out.get(key, 0) + 1
    else:
        out[path] = value


def file_paths(path: str, text: str) -> dict[str, Any]:
    prefix = f"files[{json.dumps(path, ensure_ascii=False)}]"
    if path.lower().endswith((".md", ".markdown")):
        body = {f"{prefix} {k}": v for k, v in markdown_paths(text).items()}
    else:
        lines = [line.rstrip() for line in text.replace("\r\n", "\n").rstrip("\n").split("\n")]
        body = {f"{prefix} line{n}": line for n, line in enumerate(lines, 1)}
    # The file's existence is its own path, so creating an empty file is still a change.
    return {prefix: "file", **body}


def flatten_state(state: WorldState) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in type(state).model_fields:
        if name == "files":
            for path, text in state.files.items():
                out.update(file_paths(path, text))
        else:
            _walk(getattr(state, name), name, out)
    return out


def same_value(a: Any, b: Any) -> bool:
    """Equality where ``True`` is not ``1`` and ``"1"`` is not ``1``, but ``2.0`` is ``2``."""
    if a is ABSENT or b is ABSENT:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    return type(a) is type(b) and bool(a == b)


def changed_paths(before: dict[str, Any], after: dict[str, Any]) -> set[str]:
    """Paths whose value differs between two flat maps (added and removed paths included)."""
    return {
        p for p in before.keys() | after.keys() if not same_value(before.get(p, ABSENT), after.get(p, ABSENT))
    }


def show(value: Any) -> Any:
    """A JSON-able rendering of a flat value for grade details."""
    return None if value is ABSENT else value
