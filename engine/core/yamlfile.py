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
# The most values a file may hold once its aliases are expanded. An alias (*a) repeats the anchored value
# (&a) without copying it, so nine nested lines can stand for a billion values, which any walk over the data
# (validation, the task hash) would then build. The largest file in the repository holds about 1,500.
MAX_EXPANDED_VALUES = 100_000


def _expanded_size(root: yaml.Node) -> int | None:
    """How many values ``root`` stands for with every alias expanded; None past the bound or for an alias
    that contains itself. Iterative (a deeply nested file must not exhaust Python's stack); each shared
    node is counted once and its size reused, so a bomb costs no more than its text."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        else:
            children = []
        if children_done:
            open_nodes.discard(id(node))
            size = 1 + sum(sizes[id(c)] for c in children)
            if size > MAX_EXPANDED_VALUES:
                return None
            sizes[id(node)] = size
            continue
        if id(node) in sizes:
            continue
        if id(node) in open_nodes:
            return None  # an alias inside its own anchor: endless once expanded
        open_nodes.add(id(node))
        stack.append((node, True))
        for child in children:
            if id(child) in open_nodes:
                return None
            if id(child) not in sizes:
                stack.append((child, False))
    return sizes[id(root)]


def _load(text: str, path: Path, what: str) -> Any:
    loader = _LOADER(text)
    try:
        node = loader.get_single_node()
        if node is not None and _expanded_size(node) is None:
            raise UserError(f"{path}: the {what} stands for more than {MAX_EXPANDED_VALUES:,} values once its "
                            "aliases (*name) are expanded, or an alias contains itself; write the values out "
                            "instead of repeating anchors")
        return None if node is None else loader.construct_document(node)
    finally:
        loader.dispose()


def read_mapping(path: Path, what: str) -> dict[str, Any]:
    """The top-level mapping of a YAML file; an unreadable file, broken YAML, an alias bomb or another top
    level is a ``UserError`` that says which ``what`` (\"task file\", \"models file\" ...) is wrong."""
    text = read_text(path, f"the {what}")  # missing, unreadable or not UTF-8: a UserError naming the file
    try:
        raw = _load(text, path, what)
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
