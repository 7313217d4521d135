"""Reading the YAML files people write by hand (task files, models.yaml, the index's model files): one
safe loader, and errors that name the file, the field and the fix."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

from engine.core.errors import UserError
from engine.core.fileio import read_text

# libyaml's loader when PyYAML was built with it (several times faster); the same safe subset either way.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_mapping(path: Path, what: str) -> dict[str, Any]:
    """The top-level mapping of a YAML file; an unreadable file, broken YAML or another top level is a
    ``UserError`` that says which ``what`` (\"task file\", \"models file\" ...) is wrong."""
    text = read_text(path, f"the {what}")  # missing, unreadable or not UTF-8: a UserError naming the file
    try:
        raw = yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError as exc:
        raise UserError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise UserError(f"{path}: the {what} must be a mapping of keys to values at the top level")
    return raw


def invalid_file_message(
    path: Path | str,
    what: str,
    errors: Sequence[Any],
    *,
    prefix: tuple[str, ...] = (),
    name_part: Callable[[list[Any]], list[Any]] | None = None,
) -> str:
    """One message for a file that failed validation: the file, then each field and how to fix it.

    ``errors`` is pydantic's ``ValidationError.errors()``; ``prefix`` places a nested model's fields in the
    file; ``name_part`` may rewrite a location (to say which row of a list is meant, by name).
    """
    lines = [f"{path}: invalid {what}"]
    for err in errors:
        loc = [*prefix, *err["loc"]]
        if name_part is not None:
            loc = name_part(loc)
        where = ".".join(str(part) for part in loc) or "(top level)"
        hint = "unknown key; remove it or fix its spelling" if err["type"] == "extra_forbidden" else err["msg"]
        lines.append(f"  field '{where}': {hint}")
    return "\n".join(lines)
