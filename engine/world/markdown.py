"""Markdown compared on its structure, not its bytes.

A Markdown document is read into blocks (headings, paragraphs, list items, tables, fenced code) and each
block is given a path under the section it sits in (the chain of headings above it). :func:`markdown_paths`
turns a document into ``{path: value}``; two documents are structurally equal when their path maps are equal.

What this forgives: padding inside table cells, column alignment, trailing spaces, a ``*`` bullet written as
``-``, renumbered ordered lists, re-wrapped paragraphs, blank-line counts. What it catches: a table row with
a missing or extra cell, a lost separator row, a changed header, a bullet that lost its space (``-item`` is a
paragraph, not a bullet), a heading that lost its space, any changed, lost or added line of text.

Paragraphs and list items are keyed by their text, so inserting one line is one change, not a shift of every
line after it. Table rows are keyed by their first cell when those are unique in the table, else by position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ITEM = re.compile(r"^([ \t]*)([-*+]|\d{1,9}[.)])[ \t]+(\S.*)$")
_SEPARATOR_CELL = re.compile(r"^:?-{3,}:?$")


def _squash(text: str) -> str:
    return " ".join(text.split())


def split_row(line: str) -> list[str]:
    """Cells of a table line. Outer pipes are optional; ``\\|`` is a literal pipe inside a cell."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    cells = re.split(r"(?<!\\)\|", body)
    return [_squash(c) for c in cells]


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]]
    problems: list[str] = field(default_factory=list)


@dataclass
class _Section:
    path: str
    paragraphs: list[str] = field(default_factory=list)
    lists: list[list[str]] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    code: list[str] = field(default_factory=list)


def _parse_table(lines: list[str]) -> Table:
    header = split_row(lines[0])
    problems: list[str] = []
    if len(lines) < 2 or not all(_SEPARATOR_CELL.match(c) for c in split_row(lines[1])):
        problems.append("missing the separator row under the header")
        body = lines[1:]
    else:
        if len(split_row(lines[1])) != len(header):
            problems.append("separator row does not match the header's column count")
        body = lines[2:]
    rows = [split_row(line) for line in body]
    for i, row in enumerate(rows, 1):
        if len(row) != len(header):
            problems.append(f"row {i} has {len(row)} cells, the header has {len(header)}")
    return Table(header, rows, problems)


def _sections(text: str) -> list[_Section]:
    lines = text.replace("\r\n", "\n").split("\n")
    sections = [_Section(path="")]
    titles: list[tuple[int, str]] = []
    seen: dict[str, int] = {}
    paragraph: list[str] = []
    current_list: list[str] | None = None
    i = 0

    def flush_paragraph() -> None:
        if paragraph:
            sections[-1].paragraphs.append(_squash(" ".join(paragraph)))
            paragraph.clear()

    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        fence = _FENCE.match(line)
        if fence:
            flush_paragraph()
            current_list = None
            marker = fence.group(1)
            block = [line.rstrip()]
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(marker[0] * len(marker)):
                block.append(lines[i].rstrip())
                i += 1
            block.append(lines[i].rstrip() if i < len(lines) else "(unclosed fence)")
            sections[-1].code.append("\n".join(block))
            i += 1
            continue
        heading = _HEADING.match(line)
        if heading:
            flush_paragraph()
            current_list = None
            level, title = len(heading.group(1)), _squash(heading.group(2))
            while titles and titles[-1][0] >= level:
                titles.pop()
            titles.append((level, title))
            path = " > ".join(f"{'#' * lvl} {t}" for lvl, t in titles)
            seen[path] = seen.get(path, 0) + 1
            if seen[path] > 1:
                path = f"{path} ({seen[path]})"
            sections.append(_Section(path=path))
            i += 1
            continue
        if stripped.startswith("|"):
            flush_paragraph()
            current_list = None
            block = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                block.append(lines[i])
                i += 1
            sections[-1].tables.append(_parse_table(block))
            continue
        item = _ITEM.match(line)
        if item:
            flush_paragraph()
            indent = len(item.group(1).expandtabs(4)) // 2
            marker = "1." if item.group(2)[0].isdigit() else "-"
            if current_list is None:
                current_list = []
                sections[-1].lists.append(current_list)
            current_list.append(f"{'  ' * indent}{marker} {_squash(item.group(3))}")
            i += 1
            continue
        if not stripped:
            flush_paragraph()
            # A blank line inside a list does not end it; the next non-item line will.
            i += 1
            continue
        if current_list is not None and line[:1] in (" ", "\t") and current_list:
            current_list[-1] = f"{current_list[-1]} {_squash(stripped)}"
            i += 1
            continue
        current_list = None
        paragraph.append(stripped)
        i += 1
    flush_paragraph()
    return sections


def markdown_paths(text: str) -> dict[str, object]:
    """The structural fingerprint of a document: ``{path: value}``, equal for structurally equal documents."""
    out: dict[str, object] = {}

    def bump(path: str) -> None:
        out[path] = int(out.get(path, 0)) + 1  # type: ignore[call-overload]

    for sec in _sections(text):
        where = f"§{sec.path}" if sec.path else "§(top)"
        if sec.path:
            out[where] = "section"
        for para in sec.paragraphs:
            bump(f"{where} ¶{{{para}}}")
        for n, items in enumerate(sec.lists):
            for entry in items:
                bump(f"{where} list{n} {{{entry}}}")
        for n, code in enumerate(sec.code):
            out[f"{where} code{n}"] = code
        for n, table in enumerate(sec.tables):
            tpath = f"{where} table{n}"
            out[f"{tpath} columns"] = " | ".join(table.header)
            firsts = [r[0] if r else "" for r in table.rows]
            by_key = len(set(firsts)) == len(firsts)
            for idx, row in enumerate(table.rows):
                rpath = f"{tpath} row[{firsts[idx]!r}]" if by_key else f"{tpath} row[{idx}]"
                if len(row) != len(table.header):
                    out[rpath] = f"malformed: {len(row)} cells for {len(table.header)} columns"
                    continue
                out[rpath] = "row"
                for col, cell in zip(table.header, row, strict=True):
                    out[f"{rpath}[{col!r}]"] = cell
            if table.problems and not all(p.startswith("row ") for p in table.problems):
                out[f"{tpath} malformed"] = "; ".join(table.problems)
    return out


def markdown_problems(text: str) -> list[str]:
    """Structural defects a reader would notice: ragged tables, bullets or headings without their space."""
    problems: list[str] = []
    for sec in _sections(text):
        where = sec.path or "(top)"
        for n, table in enumerate(sec.tables):
            problems.extend(f"{where}: table {n + 1}: {p}" for p in table.problems)
    in_fence = False
    for number, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line):
            in_fence = not in_fence
        if in_fence:
            continue
        if re.match(r"^ {0,3}#{1,6}[^#\s]", line):
            problems.append(f"line {number}: heading without a space after '#': {line.strip()[:40]!r}")
        elif re.match(r"^\s*[-*+][^\s\-*+|]", line) and not re.match(r"^\s*\*\*", line):
            problems.append(f"line {number}: bullet without a space after its marker: {line.strip()[:40]!r}")
    return problems


@dataclass
class MarkdownComparison:
    missing: dict[str, object]
    unexpected: dict[str, object]
    changed: dict[str, tuple[object, object]]
    problems: list[str]

    @property
    def equal(self) -> bool:
        return not (self.missing or self.unexpected or self.changed)


def compare_markdown(expected: str, actual: str) -> MarkdownComparison:
    """Structural difference between two documents; ``problems`` lists defects new in ``actual``."""
    exp, act = markdown_paths(expected), markdown_paths(actual)
    missing = {p: v for p, v in exp.items() if p not in act}
    unexpected = {p: v for p, v in act.items() if p not in exp}
    changed = {p: (exp[p], act[p]) for p in exp.keys() & act.keys() if exp[p] != act[p]}
    before = set(markdown_problems(expected))
    problems = [p for p in markdown_problems(actual) if p not in before]
    return MarkdownComparison(missing, unexpected, dict(sorted(changed.items())), problems)
