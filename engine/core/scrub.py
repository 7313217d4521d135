"""The one scrubber: every secret the run knows is replaced in every string it stores or shows.

Secrets enter in few places (the API keys in the environment or ``.env``, credentials written into an
endpoint URL, the key a client is given) and each registers itself here; text leaves in few places too (the
checkpoint, every file written through :mod:`engine.core.fileio`, the error the CLI prints, the error text the
client builds from a server's reply), and each passes through :func:`scrub`. A server that echoes the
request's ``Authorization`` header into a 500 body therefore cannot put the key on the board.
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

_lock = threading.Lock()
_known: set[str] = set()


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
    """``text`` with every known secret replaced, in plain and in JSON-escaped form; with ``bearer``, also any
    ``Bearer <token>`` (text a server sent, which may echo a key this process never saw)."""
    if not text:
        return text
    for secret in known():
        if secret in text:
            text = text.replace(secret, REDACTED)
        escaped = json.dumps(secret, ensure_ascii=False)[1:-1]
        if escaped != secret and escaped in text:
            text = text.replace(escaped, REDACTED)
    return _BEARER.sub(lambda m: m.group(1) + REDACTED, text) if bearer else text
