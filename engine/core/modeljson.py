"""The one JSON reader for text a model wrote: tool arguments, tool calls written as text, JSON answers.

A model's text is data, and Python's ``json.loads`` is not total on it: 1.2 KB of unclosed ``[`` raises
``RecursionError``, a 5,000-digit number raises ``ValueError`` (the interpreter's limit on converting long
digit strings), ``NaN`` and ``1e999`` parse to floats that no canonical JSON can hold again, and ``"\\ud800"``
parses to a lone surrogate that no UTF-8 file can hold, so a state hash or a result file written later
fails. Every such document is refused here with a ``json.JSONDecodeError`` (a ``ValueError``) that says
what was wrong, as any other invalid JSON is, so callers keep one ``except`` and one kind of message; and
every string that comes out is valid Unicode.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

#: The longest text read as one document; model text is clipped well below this before it gets here.
MAX_CHARS = 1 << 20
#: The deepest nesting of arrays and objects; real arguments and answers nest a handful of levels.
MAX_DEPTH = 64
#: The longest number literal; no value a task uses comes near, and it keeps far from the interpreter's limit.
MAX_NUMBER_CHARS = 400

_STRUCTURE = re.compile(r'[\[\]{}"\\]')
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# A \u escape of a surrogate; paired escapes decode to one character, so only lone ones survive parsing.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class _Refused(ValueError):
    def __init__(self, message: str, literal: str):
        super().__init__(message)
        self.literal = literal


def _int(literal: str) -> int:
    if len(literal) > MAX_NUMBER_CHARS:
        raise _Refused(f"a number of {len(literal)} characters (at most {MAX_NUMBER_CHARS} are read)", literal)
    return int(literal)


def _float(literal: str) -> float:
    if len(literal) > MAX_NUMBER_CHARS:
        raise _Refused(f"a number of {len(literal)} characters (at most {MAX_NUMBER_CHARS} are read)", literal)
    value = float(literal)
    if not math.isfinite(value):
        raise _Refused(f"the number {literal[:40]} is out of range", literal)
    return value


def _constant(literal: str) -> Any:
    raise _Refused(f"{literal} is not a JSON value", literal)


_DECODER = json.JSONDecoder(parse_int=_int, parse_float=_float, parse_constant=_constant)


def clean(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD, so it can be encoded as UTF-8."""
    return _LONE_SURROGATE.sub("\ufffd", text) if _LONE_SURROGATE.search(text) else text


def cleaned(value: Any) -> Any:
    """``value`` (parsed JSON, or literals read another way) with ``clean`` applied to every string in it."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list):
        return [cleaned(v) for v in value]
    if isinstance(value, dict):
        return {clean(k) if isinstance(k, str) else k: cleaned(v) for k, v in value.items()}
    return value


def nesting_error(text: str, start: int = 0) -> tuple[str, int] | None:
    """(message, position) when the value starting at ``start`` nests deeper than ``MAX_DEPTH``; else None.

    One pass over the brackets and quotes only (strings skipped), stopping where the value closes, so it
    costs no more than reading the value."""
    depth = 0
    in_string = False
    skip_to = -1
    for m in _STRUCTURE.finditer(text, start):
        at = m.start()
        if at < skip_to:
            continue
        char = text[at]
        if in_string:
            if char == "\\":
                skip_to = at + 2
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return f"nested deeper than {MAX_DEPTH} levels", at
        elif char in "]}":
            depth -= 1
            if depth <= 0:
                return None
    return None


def _guard(text: str, start: int, *, whole: bool) -> None:
    """Refuse a document too long or too deep before the decoder sees it. For a whole document a count of
    its brackets skips the scan when it cannot nest that deep; a value read from the middle of a text is
    scanned only as far as it reaches, so reading many values of one text stays linear."""
    if len(text) - start > MAX_CHARS:
        raise json.JSONDecodeError(f"longer than {MAX_CHARS} characters", text, start + MAX_CHARS)
    if whole and text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    if not whole and not text.startswith(("[", "{"), start):
        return
    deep = nesting_error(text, start)
    if deep is not None:
        raise json.JSONDecodeError(deep[0], text, deep[1])


def _position(text: str, refused: _Refused, start: int) -> int:
    at = text.find(refused.literal, start)
    return at if at >= 0 else start


def _finish(value: Any, text: str) -> Any:
    if _SURROGATE_ESCAPE.search(text) or _LONE_SURROGATE.search(text):
        return cleaned(value)
    return value


def loads(text: str) -> Any:
    """``text`` as one JSON document (surrounding whitespace allowed), or ``json.JSONDecodeError``."""
    _guard(text, 0, whole=True)
    try:
        value = _DECODER.decode(text)
    except _Refused as exc:
        raise json.JSONDecodeError(str(exc), text, _position(text, exc, 0)) from None
    return _finish(value, text)


def raw_decode(text: str, start: int = 0) -> tuple[Any, int]:
    """The JSON value that starts at ``text[start]`` and the index just past it; what follows is left
    alone. ``json.JSONDecodeError`` when no whole value starts there."""
    _guard(text, start, whole=False)
    try:
        value, end = _DECODER.raw_decode(text, start)
    except _Refused as exc:
        raise json.JSONDecodeError(str(exc), text, _position(text, exc, start)) from None
    return _finish(value, text[start:end]), end


def try_loads(text: str) -> Any | None:
    """``loads`` or None: for callers to whom invalid JSON just means "not JSON"."""
    try:
        return loads(text)
    except json.JSONDecodeError:
        return None
