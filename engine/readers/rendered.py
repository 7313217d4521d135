"""A reply's prose as it reads once rendered: the characters a reader sees, not the bytes a model wrote.

Models write the same visible text in different bytes: Markdown escaped with backslashes (``1\\.``,
``\\*\\*Answer:\\*\\*``, ``config\\_version``, a plain-text template's artefact), a non-breaking space after a
label (``Each:\\u00a0271.50``), a non-breaking hyphen in an id (``O\\u2011201``), full-width ASCII
(``Ａｎｓｗｅｒ：８５``), a zero-width space. A chat window shows ``1.``, ``**Answer:**``, ``config_version``,
``Each: 271.50``, ``O-201`` and ``Answer:85``; the prose readers (the answer line, the structure and
instruction checks, the tools' final-message readers) read that text, through :func:`rendered`, once:

- a CommonMark backslash escape (a backslash before ASCII punctuation) reads as the character, ``\\\\`` as
  one backslash; except an escape LaTeX gives a meaning of its own (``\\(``, ``\\[``, ``\\{``, ``\\,``,
  ``\\!``, ``\\;``, ``\\:`` and their closers), which a chat window that shows math renders as math, and which
  the answer line's LaTeX reading handles;
- the Unicode space variants (no-break, narrow no-break, figure, thin and the other fixed-width spaces, the
  ideographic space) read as a space, except between two digits: there they group a number's thousands
  (``1\\u202f500``), which the quantity reader (:mod:`engine.readers.quantity`) reads as a separator, and a
  plain space would split the number in two;
- the hyphens U+2010 and U+2011 read as ``-``, and the figure dash U+2012 where it joins two letters or
  digits (an id, a phone number); the minus sign U+2212 and the en dash stay: the quantity reader reads the
  one as a minus and the other as a range (``10–12``) or an aside (``09:34 – Priya``), never as part of an id;
- full-width ASCII (U+FF01-U+FF5E) reads as ASCII, as Unicode's compatibility form (NFKC) has it;
- invisible characters (the zero-width space, the word joiner, the zero-width no-break space or byte-order
  mark, the soft hyphen) are removed. The zero-width joiner and non-joiner stay: they join emoji and shape
  scripts.

Code is read as written: code fences (their lines and the lines inside) and code spans keep every byte, so an
escaped ``\\*`` in ``a \\* b`` inside backticks stays. So do the answers this is no reading of: code (the
code module), the JSON values the format module parses, and the checks that read the raw text on purpose
(a task's ``regex``: a pattern that forbids bullet lines reads the Markdown). A ``contains`` check ("copy the
name exactly") reads the rendered text: it already compared in NFKC, where a no-break space is a space, so a
name a reader sees whole is copied whole.

One pass of one pattern over each stretch of text outside code, so a hostile reply (a long run of
backslashes, of no-break spaces) costs time linear in its length; no character is added or removed except
an escape's backslash and an invisible character, and no line break is, so line numbers hold.
"""

from __future__ import annotations

import functools
import re

from engine.readers.fences import fenced_lines
from engine.readers.inline import code_spans

# The ASCII punctuation CommonMark lets a backslash escape, less the ones LaTeX math gives a meaning of its
# own (delimiters and spacing commands): those stay for the LaTeX readers.
_LATEX_ESCAPES = frozenset("()[]{},!;:")
# An escape, a space variant, a hyphen variant, a full-width ASCII form or an invisible character: one
# alternation, tried once at each character, so the pass is linear.
_SPACES = "\u00a0\u2000-\u200a\u202f\u205f\u3000"
_TOKEN = re.compile(
    r"\\(?P<escaped>[!-/:-@\[-`{-~])"
    rf"|(?P<space>[{_SPACES}])"
    r"|(?P<hyphen>[\u2010\u2011])"
    r"|(?<=[^\W_])(?P<figure_dash>\u2012)(?=[^\W_])"
    r"|(?P<wide>[\uff01-\uff5e])"
    r"|(?P<invisible>[\u200b\u2060\ufeff\u00ad])"
)


def _one(m: re.Match[str]) -> str:
    kind = m.lastgroup
    if kind == "escaped":
        char = m.group("escaped")
        return m.group(0) if char in _LATEX_ESCAPES else char
    if kind == "space":
        text, at = m.string, m.start()
        between_digits = 0 < at < len(text) - 1 and text[at - 1].isdigit() and text[at + 1].isdigit()
        return m.group(0) if between_digits else " "
    if kind in ("hyphen", "figure_dash"):
        return "-"
    if kind == "wide":
        return chr(ord(m.group(0)) - 0xFEE0)  # NFKC of U+FF01-U+FF5E: the ASCII character 0xFEE0 below
    return ""


def code_ranges(text: str) -> list[tuple[int, int]]:
    """The character ranges read as written (here and by :mod:`engine.readers.latex_text`): code fences
    (fence lines included) and code spans outside them."""
    lines = text.split("\n")
    inside = fenced_lines(lines)
    ranges: list[tuple[int, int]] = []
    offset = 0
    for n, line in enumerate(lines):
        end = offset + len(line)
        # A fence's own lines go with what they fence: the line before an inside line, or after one.
        if n in inside or (n + 1) in inside or (n - 1) in inside:
            if ranges and ranges[-1][1] >= offset - 1:
                ranges[-1] = (ranges[-1][0], end)
            else:
                ranges.append((offset, end))
        offset = end + 1
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges + code_spans(text)):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


@functools.lru_cache(maxsize=64)  # every prose reader of one reply asks for it: render it once
def rendered(text: str) -> str:
    """``text`` as a reader sees it once rendered (see the module's notes); code fences and spans as written."""
    if not _TOKEN.search(text):
        return text
    pieces: list[str] = []
    at = 0
    for start, end in code_ranges(text):
        pieces.append(_sub(text, at, start))
        pieces.append(text[start:end])
        at = end
    pieces.append(_sub(text, at, len(text)))
    return "".join(pieces)


def _sub(text: str, start: int, end: int) -> str:
    """``text[start:end]`` rendered, read in place so "between two digits" and "joins two letters" look at
    the characters on either side of the stretch."""
    out: list[str] = []
    at = start
    for m in _TOKEN.finditer(text, start, end):
        out += [text[at:m.start()], _one(m)]
        at = m.end()
    out.append(text[at:end])
    return "".join(out)
