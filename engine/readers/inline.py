"""Markdown's inline spans (code and emphasis) found in time linear in the text, for the checks that read a
reply as it renders.

The checks once found them with lazy patterns such as ``(`+)(.+?)\\1`` and ``(\\*\\*)(?=\\S)(.+?)(?<=\\S)\\1``. Where
an opener has no closer, a regular expression engine scans to the end of the text from that opener, and then
from the next one: 20,000 characters of ``**a `` took 13 s, and a run of backticks before plain text grew with
the cube of its length. These functions give the same spans the patterns gave (the tests compare them on
random texts), from one list of opener positions and one sorted list of closer positions per delimiter: the
nearest closer after an opener is a binary search, and an opener with none means no later opener of that
delimiter has one either.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass

_TICKS = re.compile(r"`+")


def code_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each code span, left to right, as ``re.finditer(r"(`+)(.+?)\\1", text, re.DOTALL)``
    finds them: an opener at ``p`` takes the longest backtick count ``k`` that closes somewhere after it (the
    first place where ``k`` backticks follow, even inside a longer run or inside its own run)."""
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(text)]
    longest_after = [0] * (len(runs) + 1)  # longest_after[i]: the longest run among runs[i:]
    for i in range(len(runs) - 1, -1, -1):
        longest_after[i] = max(longest_after[i + 1], runs[i][1] - runs[i][0])
    spans: list[tuple[int, int]] = []
    i, p = 0, 0
    while i < len(runs):
        p = max(p, runs[i][0])
        length = runs[i][1] - p  # backticks from p to the end of this run
        later = longest_after[i + 1]
        inside = (length - 1) // 2  # the most backticks that can open and close within this run
        k = length if later >= length else max(later, inside)
        if k < 1:
            i += 1
            continue
        if later < length and k == inside:  # closes inside its own run, before any later run
            spans.append((p, p + 2 * k + 1))
            p += 2 * k + 1
            continue
        j = i + 1
        while runs[j][1] - runs[j][0] < k:  # the first later run long enough: the runs passed are inside the span
            j += 1
        spans.append((p, runs[j][0] + k))
        i, p = j, runs[j][0] + k
    return spans


def replace_code_spans(text: str, replace: Callable[[str], str]) -> str:
    """``text`` with each code span replaced by ``replace(span)``."""
    pieces, at = [], 0
    for start, end in code_spans(text):
        pieces += [text[at:start], replace(text[start:end])]
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


@dataclass(frozen=True)
class Delimiter:
    """One emphasis delimiter and where it may open and close: ``opens`` matches at an opener's position
    (lookbehinds and the delimiter, with its lookahead); ``closes`` is a zero-width pattern matching at a
    closer's first character (its lookbehind on the character before, its lookahead after)."""

    mark: str
    opens: re.Pattern[str]
    closes: re.Pattern[str]


def unwrap(text: str, delimiters: Sequence[Delimiter], *, across_lines: bool) -> str:
    """``text`` with every emphasised span replaced by its inside, as ``pattern.sub`` with a pattern of the
    form ``(?:d1|d2|...)(.+?)\\1`` does it: left to right, at each position the delimiters in the order given
    (longest first where one is a prefix of another), each span closed at the nearest closer of the same
    delimiter with at least one character inside; a span never crosses a line unless ``across_lines``."""
    never = len(text) + 1
    closers: dict[str, list[int]] = {}
    newlines = [] if across_lines else [m.start() for m in re.finditer("\n", text)]
    # Each delimiter's next opener at or after ``scan``, searched for again only once ``scan`` passes it.
    ahead = {d.mark: -1 for d in delimiters}
    alive = list(delimiters)  # a delimiter with no closer after an opener has none after any later one
    pieces: list[str] = []
    at = scan = 0
    while alive:
        for d in alive:
            if ahead[d.mark] < scan:
                found = d.opens.search(text, scan)
                ahead[d.mark] = found.start() if found else never
        p = min(ahead[d.mark] for d in alive)
        if p == never:
            break
        for d in [d for d in alive if ahead[d.mark] == p]:
            ends = closers.get(d.mark)
            if ends is None:
                ends = closers[d.mark] = [c.start() for c in d.closes.finditer(text)]
            k = bisect_left(ends, p + len(d.mark) + 1)
            if k == len(ends):
                alive.remove(d)
                continue
            close = ends[k]
            line = bisect_left(newlines, p)
            if line < len(newlines) and newlines[line] < close:
                continue  # the nearest closer is on a later line
            pieces += [text[at:p], text[p + len(d.mark):close]]
            at = scan = close + len(d.mark)
            break
        else:
            scan = p + 1
    pieces.append(text[at:])
    return "".join(pieces)
