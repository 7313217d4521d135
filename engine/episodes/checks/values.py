"""JSON values and paths into them: type-strict equality, dotted paths with ``*`` wildcards, JSON type names.

Paths into parsed JSON are dotted: ``lines.0.qty``; ``*`` stands for every element of a list or every value
of an object (``lines.*.qty``); an empty path is the whole document.
"""

from __future__ import annotations

from typing import Any, Literal, get_args


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


# The JSON type names, spelt once: the type_is field takes one, the schema check accepts them.
JsonType = Literal["null", "boolean", "integer", "number", "string", "array", "object"]
JSON_TYPES: tuple[str, ...] = get_args(JsonType)
