"""Inline HTML in a chat reply read as the Markdown it stands for, for the readers of a reply's prose structure.

Some models answer in HTML where others write Markdown: ``<b>Answer:</b> 369`` for ``**Answer:** 369``,
``<ul><li>…</li></ul>`` for a bulleted list, ``<b>Title</b><br>`` for a bold title line. A chat window that
renders HTML shows the user the same answer line, list or title either way, so the readers of a reply's
structure (the answer line, list items, headings and the title line, sentences, the last line) read the
markup as the Markdown it stands for:

- ``b``/``strong`` become ``**bold**``, ``i``/``em`` ``*italics*``, ``u`` ``__x__``, ``s``/``del``
  ``~~x~~``, ``code`` a code span; ``a``, ``span`` and the like leave their text;
- ``br`` ends a line, ``p``, ``div`` and ``blockquote`` are paragraphs, ``hr`` a rule;
- ``li`` is a list item: ``- `` under ``ul``, ``1. ``, ``2. `` under ``ol`` (its ``start`` kept), nested
  lists indented under their item; ``h1``-``h6`` are ``#`` headings; ``pre`` is a code fence;
- entities (``&amp;``, ``&lt;``, ``&nbsp;`` …) are decoded in the text the markup holds.

This is no global normalisation: a code answer, a JSON or XML answer and a tool call are read as written
(their graders never call this), and within a reply only text that *is* markup is read as such
(:func:`is_markup`): known chat tags, balanced (an unclosed ``<b>`` is a tag named in prose: "the <b> tag
makes text bold"), outside code fences and code spans, not in quotation marks (``"<li>"``), in a reply that
is no JSON document and no XML or HTML document of its own. A ``<br>`` alone counts as markup only where it
ends a line or comes twice: "use <br> for a line break" names it. Other tags (``<post>``, ``<tool_call>``,
``<owner>``) are left as written for the readers that read them.

Everything is read in one pass over the text: the tags are found by a pattern that tries at most a bounded
stretch after each ``<``, emphasis is wrapped at most three levels deep and lists indented at most eight, so
a hostile reply (a long run of ``<``, tags never closed, 10^5 nested tags) costs time linear in its length.
"""

from __future__ import annotations

import functools
import html
import json
import re
from bisect import bisect_right
from dataclasses import dataclass, field

from engine.readers.rendered import code_ranges

# A tag: ``<b>``, ``</li>``, ``<br/>``, ``<ol start="3">``. The name must end at a space, a slash or ``>``,
# and the attributes may not hold ``<`` or ``>``, so a failed try stops at the next ``<`` or after 300
# characters: a long run of ``<`` or of tags never closed stays linear.
_TAG = re.compile(r"<(?P<close>/?)(?P<name>[A-Za-z][A-Za-z0-9]{0,9})(?=[\s/>])(?P<attrs>[^<>]{0,300})>")
_START = re.compile(r"""\bstart\s*=\s*["']?(?P<n>\d{1,6})""", re.IGNORECASE)

# Inline tags and the Markdown mark each stands for ("" leaves the text alone).
_INLINE = {"b": "**", "strong": "**", "i": "*", "em": "*", "u": "__", "ins": "__", "s": "~~", "del": "~~",
           "strike": "~~", "mark": "", "span": "", "small": "", "sub": "", "sup": "", "a": "", "font": "",
           "abbr": "", "cite": "", "q": "", "var": "", "big": ""}
_CODE = {"code", "kbd", "samp", "tt"}
# Block tags and the break around them: a paragraph is set apart by a blank line, a division by a new line.
_BLOCK = {"p": 2, "div": 1, "blockquote": 2, "section": 2, "article": 2, "center": 1}
_LISTS = {"ul", "ol"}
_HEADINGS = {f"h{n}" for n in range(1, 7)}
_VOID = {"br", "hr"}
KNOWN = frozenset(_INLINE) | _CODE | frozenset(_BLOCK) | _LISTS | _HEADINGS | _VOID | {"li", "pre"}
# Tags HTML lets a writer leave open: the next item or paragraph, or the list's end, closes them.
_OPTIONAL_CLOSE = frozenset({"li", "p"})
# A whole document, not chat text: an XML or HTML answer is read as written.
_DOCUMENT = re.compile(r"^\s*<(?:\?xml|!doctype|html[\s>])", re.IGNORECASE)
_QUOTES_OPEN, _QUOTES_CLOSE = "\"'“‘«`", "\"'”’»`"
# Nesting past these depths adds nothing a reader sees; bounding it keeps the work linear.
_EMPHASIS_DEPTH = 3
_INDENT_DEPTH = 8


@dataclass(frozen=True)
class _Token:
    start: int
    end: int
    name: str
    closing: bool
    attrs: str


def _tokens(text: str, protected: list[tuple[int, int]]) -> list[_Token]:
    """The known chat tags of ``text`` outside the protected ranges and outside quotation marks."""
    starts = [s for s, _ in protected]
    found = []
    for m in _TAG.finditer(text):
        name = m.group("name").lower()
        if name not in KNOWN:
            continue
        k = bisect_right(starts, m.start()) - 1
        if k >= 0 and protected[k][1] > m.start():
            continue
        before, after = text[m.start() - 1: m.start()], text[m.end(): m.end() + 1]
        if before and after and before in _QUOTES_OPEN and after in _QUOTES_CLOSE:
            continue  # "<li>" named in quotation marks
        found.append(_Token(m.start(), m.end(), name, bool(m.group("close")), m.group("attrs")))
    return found


def _balanced(tokens: list[_Token]) -> bool:
    """Whether every paired tag closes in nesting order (an item or paragraph may be left open)."""
    stack: list[str] = []
    for t in tokens:
        if t.name in _VOID:
            continue
        if not t.closing:
            stack.append(t.name)
            continue
        while stack and stack[-1] != t.name and stack[-1] in _OPTIONAL_CLOSE:
            stack.pop()
        if not stack or stack[-1] != t.name:
            return False
        stack.pop()
    return all(name in _OPTIONAL_CLOSE for name in stack)


def _breaks_line(text: str, token: _Token) -> bool:
    rest = text[token.end: token.end + 200]
    return not rest.strip(" \t") or rest.lstrip(" \t").startswith("\n")


def _is_record(text: str) -> bool:
    body = text.strip()
    if _DOCUMENT.match(body):
        return True
    if body[:1] in "{[":
        try:
            json.loads(body)
        except ValueError:
            return False
        return True
    return False


def _markup_tokens(text: str) -> tuple[list[tuple[int, int]], list[_Token]] | None:
    if "<" not in text or _is_record(text):
        return None
    protected = code_ranges(text)
    tokens = _tokens(text, protected)
    if not tokens or not _balanced(tokens):
        return None
    paired = any(t.name not in _VOID for t in tokens)
    breaks = [t for t in tokens if t.name in _VOID]
    if not paired and len(breaks) < 2 and not any(_breaks_line(text, t) for t in breaks):
        return None
    return protected, tokens


def is_markup(text: str) -> bool:
    """Whether ``text`` holds inline chat HTML to be read as markup (see the module's docstring)."""
    return _markup_tokens(text) is not None


@dataclass
class _Buffer:
    """Text being written: its parts, how many new lines it ends with, whether it holds text yet, and the
    breaks asked for before its first text (an emphasis that opens with a paragraph)."""

    parts: list[str] = field(default_factory=list)
    newlines: int = 0
    started: bool = False
    lead: int = 0

    def add(self, s: str) -> None:
        if not s:
            return
        self.parts.append(s)
        body = s.rstrip(" \t")
        if not body:
            return
        ending = len(body) - len(body.rstrip("\n"))
        self.newlines = self.newlines + ending if ending == len(body) else ending
        self.started = self.started or ending < len(body)

    def ensure(self, count: int) -> None:
        if not self.started:
            self.lead = max(self.lead, count)
            return
        while self.newlines < count:
            self.add("\n")

    @property
    def at_line_start(self) -> bool:
        return not self.started or self.newlines > 0


@dataclass
class _Open:
    name: str
    buffered: bool = False  # an emphasis with its own buffer
    list_ordered: bool = False
    counter: int = 1
    indent: str = ""  # the continuation indent in force before an item opened


class _Reader:
    """One pass over the text, writing Markdown (see the module's docstring)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.buffers = [_Buffer()]
        self.stack: list[_Open] = []
        self.emphasis = 0
        self.code = 0
        self.pre = 0
        self.heading = 0
        self.lists: list[_Open] = []
        self.indent = ""
        self.opened: dict[str, int] = {}  # how many of each tag are open, so a close finds its own at once
        self.next_range = 0  # the first protected range not yet passed
        self.fresh = False  # an item's or heading's marker was just written: its text follows on its line

    @property
    def out(self) -> _Buffer:
        return self.buffers[-1]

    # ---- text

    def _line_text(self, s: str) -> None:
        """Text of one line: leading white space dropped at a line's start, the item's indent put there."""
        if self.out.at_line_start:
            s = s.lstrip(" \t")
            if not s:
                return
            if self.indent and self.out.started and not self.fresh:
                self.out.add(self.indent)
        self.fresh = False
        self.out.add(s)

    def _newline(self) -> None:
        if self.heading:
            self.out.add(" ")
        else:
            self.out.add("\n")

    def write(self, s: str) -> None:
        """Text between tags, entities decoded: source line breaks around it are breaks (``\\n`` between
        ``<ul>`` and ``<li>`` adds no blank line), those inside it are kept."""
        if not s:
            return
        s = html.unescape(s).replace("\xa0", " ")
        if self.pre:
            self.out.add(s)
            return
        core = s.strip()
        lead = s[: len(s) - len(s.lstrip())]
        trail = s[len(s.rstrip()):] if core else ""
        self._space(lead)
        if not core:
            return
        for k, piece in enumerate(core.split("\n")):
            if k:
                self._newline()
            self._line_text(piece)
        self._space(trail)

    def _space(self, ws: str) -> None:
        """White space around a text: a source line break is a break, a space a space (none at a line's
        start); in a heading both are a space."""
        if self.fresh:
            return
        if "\n" in ws and not self.heading:
            self.out.ensure(min(ws.count("\n"), 2))
        elif ws and not self.out.at_line_start:
            self.out.add(" ")

    def verbatim(self, s: str) -> None:
        """A code fence or code span, as written; a fence stands on lines of its own."""
        fresh, self.fresh = self.fresh, False
        if s.startswith("`") and not s.startswith("```"):
            if self.out.at_line_start and self.indent and self.out.started and not fresh:
                self.out.add(self.indent)
            self.out.add(s)
            return
        self.out.ensure(1)
        self.out.add(s)
        self.out.ensure(1)

    # ---- tags

    def _break(self, count: int) -> None:
        if self.heading or self.fresh:
            return
        if self.opened.get("li"):
            self.out.ensure(1)  # a paragraph inside an item goes on the item's next line
        else:
            self.out.ensure(count)

    def open(self, t: _Token) -> None:
        name = t.name
        if name == "br":
            if self.out.newlines < 2:
                self._newline()
            return
        if name == "hr":
            self._break(2)
            self.out.add("---")
            self._break(2)
            return
        if name in _OPTIONAL_CLOSE and self.stack and self.stack[-1].name == name:
            self.close(name)  # a new item or paragraph closes the one left open
        entry = _Open(name, indent=self.indent)
        if self.pre:
            pass
        elif name in _INLINE:
            mark = _INLINE[name]
            if mark and self.emphasis < _EMPHASIS_DEPTH and not self.code:
                self.emphasis += 1
                entry.buffered = True
                self.buffers.append(_Buffer())
        elif name in _CODE:
            self.code += 1
            if self.code == 1:
                self._line_text("`") if self.out.at_line_start else self.out.add("`")
        elif name in _BLOCK:
            self._break(_BLOCK[name])
        elif name in _LISTS:
            self.out.ensure(1)
            start = _START.search(t.attrs)
            entry.list_ordered = name == "ol"
            entry.counter = int(start.group("n")) if start and name == "ol" else 1
            self.lists.append(entry)
        elif name == "li":
            self.out.ensure(1)
            depth = min(len(self.lists), _INDENT_DEPTH)
            prefix = "  " * max(depth - 1, 0)
            owner = self.lists[-1] if self.lists else None
            if owner is not None and owner.list_ordered:
                marker = f"{owner.counter}. "
                owner.counter += 1
            else:
                marker = "- "
            self.out.add(prefix + marker)
            self.fresh = True
            self.indent = prefix + " " * len(marker)
        elif name in _HEADINGS:
            self.out.ensure(2)
            self.out.add("#" * int(name[1]) + " ")
            self.fresh = True
            self.heading += 1
        elif name == "pre":
            self.out.ensure(1)
            self.out.add("```\n")
            self.pre += 1
        self.stack.append(entry)
        self.opened[name] = self.opened.get(name, 0) + 1

    def close(self, name: str) -> None:
        if not self.opened.get(name):
            return
        while self.stack:
            entry = self.stack.pop()
            self._end(entry)
            if entry.name == name:
                return

    def _end(self, entry: _Open) -> None:
        name = entry.name
        self.opened[name] -= 1
        if entry.buffered:
            self.emphasis -= 1
            inner = self.buffers.pop()
            self._wrap(inner, _INLINE[name])
        elif self.pre and name != "pre":
            return
        elif name in _CODE:
            self.code -= 1
            if self.code == 0:
                self.out.add("`")
        elif name in _BLOCK:
            self._break(_BLOCK[name])
        elif name in _LISTS:
            if self.lists and self.lists[-1] is entry:
                self.lists.pop()
            self.out.ensure(1)
        elif name == "li":
            self.indent = entry.indent
            self.out.ensure(1)
        elif name in _HEADINGS:
            self.heading -= 1
            self.out.ensure(2)
        elif name == "pre":
            self.pre -= 1
            self.out.ensure(1)
            self.out.add("```")
            self.out.ensure(1)

    def _wrap(self, inner: _Buffer, mark: str) -> None:
        """An emphasis's text in its mark, line by line, white space outside the marks."""
        fresh, self.fresh = self.fresh, False
        if inner.lead and not fresh:
            self.out.ensure(inner.lead)
        lines = "".join(inner.parts).split("\n")
        for k, line in enumerate(lines):
            if k:
                self.out.add("\n")
            core = line.strip()
            if not core:
                self.out.add(line)
                continue
            start = len(line) - len(line.lstrip())
            wrapped = core if core.startswith(mark) and core.endswith(mark) else mark + core + mark
            head = line[:start]
            if not k and not self.out.at_line_start and not head and self.out.parts and \
                    self.out.parts[-1][-1:].isalnum() and mark in ("*", "_"):
                head = ""  # mid-word emphasis stays attached, as written
            if not k and self.out.at_line_start and self.indent and self.out.started and not fresh:
                head = self.indent + head.lstrip(" \t")
            self.out.add(head + wrapped + line[start + len(core):])

    def read(self, tokens: list[_Token], protected: list[tuple[int, int]]) -> str:
        at = 0
        for t in tokens:
            self._text_between(at, t.start, protected)
            if t.closing:
                self.close(t.name)
            else:
                self.open(t)
            at = t.end
        self._text_between(at, len(self.text), protected)
        while self.stack:
            self._end(self.stack.pop())
        return "".join(self.buffers[0].parts).strip("\n")

    def _text_between(self, start: int, end: int, protected: list[tuple[int, int]]) -> None:
        """The text from ``start`` to ``end``, protected ranges in it kept as written. The ranges are
        walked from where the last call left off, so the whole reply is walked once."""
        k = self.next_range
        while k < len(protected) and protected[k][1] <= start:
            k += 1
        at = start
        while k < len(protected) and protected[k][0] < end:
            lo, hi = max(protected[k][0], at), min(protected[k][1], end)
            self.write(self.text[at:lo])
            self.verbatim(self.text[lo:hi])
            at = hi
            if protected[k][1] > end:
                break
            k += 1
        self.write(self.text[at:end])
        self.next_range = k


@functools.lru_cache(maxsize=32)  # every reader of one reply asks for it: read it once
def as_markdown(text: str) -> str:
    """``text`` with its inline chat HTML read as the Markdown it stands for; ``text`` itself when it holds
    none (:func:`is_markup`)."""
    found = _markup_tokens(text)
    if found is None:
        return text
    protected, tokens = found
    return _Reader(text).read(tokens, protected)
