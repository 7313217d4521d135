"""The one scrubber: every secret the run knows is replaced in every string it stores or shows.

Secrets enter in few places (the API keys in the environment or ``.env``, credentials written into an
endpoint URL, the key a client is given) and each registers itself here; text leaves in few places too (the
checkpoint, every file written through :mod:`engine.core.fileio`, the error the CLI prints, the error text the
client builds from a server's reply), and each passes through :func:`scrub`. A server that echoes the
request's ``Authorization`` header into a 500 body therefore cannot put the key on the board.

A secret is found in its reshaped copies too, the ways a model or a server that saw it might write it back:
reversed; spaced, dotted or otherwise split between its characters (``s k - l i v e``); percent-encoded, in
part or whole; and in base64, at any alignment inside a longer encoded text. Each is matched as the whole
secret: a fragment, a prefix or a word it shares with ordinary text is left alone.
"""

from __future__ import annotations

import base64
import json
import os
import re
import threading
import urllib.parse

#: Environment variables whose values are secrets wherever they appear.
SECRET_ENV = ("BENCH_API_KEY", "JUDGE_API_KEY", "OPENAI_API_KEY")
#: What a secret becomes.
REDACTED = "[redacted]"
#: Values shorter than this are not scrubbed: a 2-letter "key" would eat ordinary words out of every file.
MIN_SECRET_CHARS = 6

# A bearer token or Basic credentials in echoed headers, known or not.
_BEARER = re.compile(r"(?i)\b((?:bearer|basic)\s+)[A-Za-z0-9._~+/=-]{8,}")
# What may stand between the characters of a spaced-out copy: white space (and its JSON escapes, since
# checkpoint lines are scrubbed as JSON), invisible joiners and the punctuation people space letters with.
_GAPS = " \t\r\n\u00a0\u200b\u200c\u200d\u2060\ufeff.,;:_*|/+~·•-"
_GAP_ESCAPES = (r"\\[nrt]", r"\\u00a0", r"\\u200[bcd]", r"\\u2060", r"\\ufeff")
#: At most this many gap characters between two characters of a spaced-out copy.
_MAX_GAP = 3
#: The shortest base64 run that counts as a copy: shorter cores of a short secret could be ordinary text.
_MIN_B64_CORE = 8

_lock = threading.Lock()
_known: set[str] = set()
_patterns: dict[str, re.Pattern[str]] = {}


def register(value: str | None) -> None:
    """Remember ``value`` as a secret for the rest of the process."""
    if value and len(value) >= MIN_SECRET_CHARS:
        with _lock:
            _known.add(value)


def register_url(url: str | None) -> None:
    """Register the credentials of ``scheme://user:password@host`` (the password, and both together)."""
    if not url or "@" not in url:
        return
    match = re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://([^/@?#]*)@", url.strip())
    if not match:
        return
    userinfo = match.group(1)
    register(userinfo)
    # httpx sends URL credentials as HTTP Basic auth: the base64 of the (percent-decoded) pair is a secret too.
    register(base64.b64encode(urllib.parse.unquote(userinfo).encode("utf-8")).decode("ascii"))
    _user, sep, password = userinfo.partition(":")
    if sep:
        register(password)


def known() -> list[str]:
    """Every secret known now, longest first (so a key that contains another is replaced whole)."""
    with _lock:
        found = set(_known)
    for name in SECRET_ENV:
        value = os.environ.get(name)
        if value and len(value) >= MIN_SECRET_CHARS:
            found.add(value)
    return sorted(found, key=len, reverse=True)


def scrub(text: str, *, bearer: bool = False) -> str:
    """``text`` with every known secret replaced, in plain and in JSON-escaped form and in its reshaped copies;
    with ``bearer``, also any ``Bearer <token>`` (text a server sent, which may echo a key this process never
    saw)."""
    if not text:
        return text
    for secret in known():
        if secret in text:
            text = text.replace(secret, REDACTED)
        escaped = json.dumps(secret, ensure_ascii=False)[1:-1]
        if escaped != secret and escaped in text:
            text = text.replace(escaped, REDACTED)
        text = _spelled_pattern(secret).sub(REDACTED, text)
        for core in _base64_cores(secret):
            text = _redact_encoded(text, core)
    return _BEARER.sub(lambda m: m.group(1) + REDACTED, text) if bearer else text


def _spelled_pattern(secret: str) -> re.Pattern[str]:
    """One pattern for the spelled-out copies of ``secret``, forwards and reversed, compiled once."""
    pattern = _patterns.get(secret)
    if pattern is None:
        pattern = re.compile(f"(?:{_spelled(secret)})|(?:{_spelled(secret[::-1])})")
        with _lock:
            _patterns[secret] = pattern
    return pattern


_B64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_")


def _redact_encoded(text: str, core: str) -> str:
    """``text`` with each base64 run that holds ``core`` replaced whole (its edges carry bits of the secret
    too). Found by plain search and widened by hand: a pattern around the core would backtrack over a long
    run quadratically."""
    out: list[str] = []
    done = 0
    at = text.find(core)
    while at >= 0:
        start, end = at, at + len(core)
        while start > done and text[start - 1] in _B64_CHARS:
            start -= 1
        while end < len(text) and text[end] in _B64_CHARS:
            end += 1
        while end < len(text) and text[end] == "=":
            end += 1
        out += [text[done:start], REDACTED]
        done = end
        at = text.find(core, done)
    return "".join(out) + text[done:] if out else text


def _spelled(secret: str) -> str:
    """The characters of ``secret`` in order, each as itself or percent-encoded (either case), with up to
    _MAX_GAP gap characters between any two. The gaps never include a character of the secret, so the match
    never has to guess where a gap ends: it stays linear in the text."""
    gap_chars = "".join(c for c in _GAPS if c not in secret)
    escapes = [e for e in _GAP_ESCAPES if "\\" not in secret]
    gap_parts = ([f"[{re.escape(gap_chars)}]"] if gap_chars else []) + escapes
    gap = f"(?:{'|'.join(gap_parts)}){{0,{_MAX_GAP}}}" if gap_parts else ""
    return gap.join(_char(c) for c in secret)


def _char(c: str) -> str:
    encoded = "".join(f"%{b:02X}" for b in c.encode("utf-8"))
    forms = {re.escape(c), re.escape(encoded), re.escape(encoded.lower())}
    if c == " ":
        forms.add(r"\+")  # form encoding
    return "(?:" + "|".join(sorted(forms, key=len, reverse=True)) + ")"


def _base64_cores(secret: str) -> set[str]:
    """The base64 text that encodes ``secret`` wherever it sits in a longer encoded text: for each of the
    three byte alignments, the characters that depend on the secret's bytes alone (the edges, which mix in
    the neighbours' bits, are cut off), in the standard and the URL-safe alphabet."""
    data = secret.encode("utf-8")
    cores: set[str] = set()
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + data).decode("ascii").rstrip("=")
        head = 4 if offset else 0  # the first group holds the neighbour's bytes
        tail = (offset + len(data)) % 3  # a last partial group holds the next neighbour's bits
        core = encoded[head: len(encoded) - (tail and tail + 1)]
        if len(core) >= _MIN_B64_CORE:
            cores.add(core)
            cores.add(core.replace("+", "-").replace("/", "_"))
    return cores
