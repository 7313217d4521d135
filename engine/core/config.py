"""Settings from flags, the environment and a ``.env`` file, in that order of precedence.

The ``.env`` file is read without touching ``os.environ``, so nothing it holds leaks into child processes
(the sandbox in particular).
"""

from __future__ import annotations

import argparse
import math
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

from engine.core import scrub
from engine.core.errors import UserError
from engine.core.fileio import read_text

T = TypeVar("T")

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def read_dotenv(path: Path) -> dict[str, str]:
    """Parse KEY=VALUE lines; blank lines and # comments are skipped, matching quotes are removed."""
    if not path.is_file():
        return {}
    values: dict[str, str] = {}
    for number, line in enumerate(read_text(path, "the .env file").split("\n"), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("export "):
            stripped = stripped[len("export "):]
        key, sep, value = stripped.partition("=")
        if not sep or not key.strip():
            raise UserError(f"{path}:{number}: expected KEY=VALUE, got {line!r}")
        if not _NAME.fullmatch(key.strip()):
            # An invisible character in a name (a zero-width space, a second byte-order mark) would make the
            # setting silently unset; a name is letters, digits and underscores.
            raise UserError(f"{path}:{number}: {key.strip()!r} is not a variable name (letters, digits and _, "
                            "not starting with a digit); retype it")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        values[key.strip()] = value
    return values


class Settings:
    """Look-ups across the layers: an explicit flag value wins, then the environment, then ``.env``."""

    def __init__(self, environ: Mapping[str, str] | None = None, dotenv: Path | None = None):
        self.environ = dict(os.environ if environ is None else environ)
        self.dotenv = read_dotenv(dotenv if dotenv is not None else Path.cwd() / ".env")

    def raw(self, name: str) -> str | None:
        value = self.environ.get(name)
        if value is None or value == "":
            value = self.dotenv.get(name)
        if name in scrub.SECRET_ENV:
            scrub.register(value)  # a key from .env is as secret as one from the environment
        return value if value not in (None, "") else None

    def get(self, name: str, flag: T | None, cast: Callable[[str], T], default: T) -> T:
        if flag is not None:
            return flag
        raw = self.raw(name)
        if raw is None:
            return default
        try:
            return cast(raw)
        except (ValueError, argparse.ArgumentTypeError) as exc:
            raise UserError(f"environment variable {name}={raw!r} is not valid: {exc}") from exc


def parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError("expected on/off, true/false, yes/no or 1/0")


# --------------------------------------------------------------------------------------------------------
# Range-checked flag types. argparse calls them at parse time and prints their message after the flag's name
# ("argument --trials/-n: ..."), then exits 2; Settings.get uses the same ones for the environment.


def int_in(low: int, high: int, fix: str = "") -> Callable[[str], int]:
    """A flag type: a whole number from ``low`` to ``high``; the message says the range and ``fix``."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low} to {high}, got {value}{fix}")
        return value

    parse.__name__ = "int"
    return parse


def float_in(low: float, high: float, fix: str = "", *, low_open: bool = False) -> Callable[[str], float]:
    """A flag type: a finite number in [low, high] (or (low, high] with ``low_open``)."""

    def parse(text: str) -> float:
        try:
            value = float(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        inside = (low < value if low_open else low <= value) and value <= high
        if not math.isfinite(value) or not inside:
            bracket = "(" if low_open else "["
            raise argparse.ArgumentTypeError(
                f"must be a number in {bracket}{low:g}, {high:g}], got {text.strip()}{fix}")
        return value

    parse.__name__ = "float"
    return parse


def endpoint_url(text: str) -> str:
    """A flag type: an http(s) base URL with a host and a valid port."""
    import httpx

    value = text.strip()
    example = "; give a base URL such as http://127.0.0.1:8080/v1"
    try:
        url = httpx.URL(value)
        port = url.port
    except (httpx.InvalidURL, ValueError) as exc:
        raise argparse.ArgumentTypeError(f"not a valid URL ({exc}): {value!r}{example}") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise argparse.ArgumentTypeError(f"expected an http:// or https:// URL with a host, got {value!r}{example}")
    if port is not None and not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port {port} is out of range (1 to 65535) in {value!r}{example}")
    scrub.register_url(value)
    return value


def endpoint_host(endpoint: str, what: str = "endpoint") -> str:
    """Host and port only, as a file records an endpoint: a URL may carry credentials (user:key@host) that
    must never reach a file. ``what`` names the endpoint in the error (the run's, the judge's)."""
    import httpx

    try:
        url = httpx.URL(endpoint)
    except (httpx.InvalidURL, TypeError) as exc:
        raise UserError(f"{what} {endpoint!r} is not a URL; give e.g. http://127.0.0.1:8080/v1") from exc
    if not url.host:
        raise UserError(f"{what} {endpoint!r} has no host; give e.g. http://127.0.0.1:8080/v1")
    return f"{url.host}:{url.port}" if url.port else url.host
