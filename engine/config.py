"""Settings from flags, the environment and a ``.env`` file, in that order of precedence.

The ``.env`` file is read without touching ``os.environ``, so nothing it holds leaks into child processes
(the sandbox in particular).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

from engine.errors import UserError

T = TypeVar("T")


def read_dotenv(path: Path) -> dict[str, str]:
    """Parse KEY=VALUE lines; blank lines and # comments are skipped, matching quotes are removed."""
    if not path.is_file():
        return {}
    values: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("export "):
            stripped = stripped[len("export "):]
        key, sep, value = stripped.partition("=")
        if not sep or not key.strip():
            raise UserError(f"{path}:{number}: expected KEY=VALUE, got {line!r}")
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
        return value if value not in (None, "") else None

    def get(self, name: str, flag: T | None, cast: Callable[[str], T], default: T) -> T:
        if flag is not None:
            return flag
        raw = self.raw(name)
        if raw is None:
            return default
        try:
            return cast(raw)
        except ValueError as exc:
            raise UserError(f"environment variable {name}={raw!r} is not valid: {exc}") from exc


def parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError("expected on/off, true/false, yes/no or 1/0")
