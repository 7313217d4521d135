"""Which lines of a reply sit inside Markdown code fences: read line by line, so a reply of any shape (a
run of backticks tens of thousands long, thousands of fences never closed) costs one pass."""

from __future__ import annotations

import re

# An opening or closing fence: three or more backticks or tildes, then at most an info string.
_FENCE_MARK = re.compile(r"^\s*(?P<run>`{3,}|~{3,})[^`]*$")


def fenced_lines(lines: list[str]) -> set[int]:
    """The indices of the lines inside code fences (not the fence lines themselves). A fence closes on a line
    of the same character, at least as long, and nothing else; one left open runs to the end of the reply."""
    inside: set[int] = set()
    opened: str | None = None
    for i, line in enumerate(lines):
        mark = _FENCE_MARK.match(line)
        if opened is None:
            if mark:
                opened = mark.group("run")
        elif mark and mark.group("run")[0] == opened[0] and len(mark.group("run")) >= len(opened) \
                and not line.strip().strip(opened[0]):
            opened = None
        else:
            inside.add(i)
    return inside
