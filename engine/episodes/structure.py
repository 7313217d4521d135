"""The reader of a reply's structure, which every instruction check reads through.

A rule is about one part of a reply: "under 40 words" is about the post, not the line that introduces it;
"three tips as a list" is about the list items, in whatever marker style the model chose; "end with the
line Next?" is about the last line. This module reads those parts once, the same way for every check, in
Markdown or in the inline chat HTML that stands for it (``prose``: ``<li>`` is a list item, ``<b>Title</b><br>``
a bold title line; :mod:`engine.episodes.chat_html`):

- ``plain_text``: the text as it reads rendered (no emphasis marks, no heading ``#``\\s);
- ``words`` and ``sentences``; ``whole_before_cut``, what a reply cut by the token limit wrote whole, and
  ``closed_sentences``, what a text states in sentences it closed;
- ``list_items``: lines that open with a list marker of any style: bullets (``-``, ``*``, ``•``, dashes,
  arrows, emoji), digits (``1.``, ``2)``, ``(3)``, keycaps ``1️⃣``), Roman numerals (``I.``, ``ii)``), letters
  (``a)``, ``B.``) and number words (``One:``, ``Second -``). Markers that also start ordinary sentences
  (a letter, a Roman numeral, a number word, a dash or an emoji) count only when they are used as a list:
  ordered ones in sequence (``a) b)``, ``I. II.``), unordered ones on at least two lines. With no marker
  anywhere, unmarked lines one item each: under a line ending with a colon, or a paragraph of its own
  written one item a line (a heading line, then a tip on each line);
- ``read_post``: the post inside a reply, without a lead-in that introduces it (``Here's the post:``, or a
  longer paragraph ending with a colon that speaks to the user about the post) or a closing line that
  speaks to the user about it (``Let me know if you'd like changes!``, ``Would you like a shorter
  version?``, ``Happy to adjust the wording if needed.``), while a last line speaking to the post's own
  readers (``Let us know in the comments!``, ``Come by Saturday!``) stays the post's;
  horizontal rules that set the post apart bound it, with a follow-up offer after the closing one, and so
  do a block quote that holds it with commentary outside it (a note such as ``(21 words.)`` after it) and
  one pair of XML-style tags around it (``<post>...</post>``); a reply that only speaks to the user about
  the post it will write (``I'll put together a post ... Would you like it playful?``) holds none;
- ``headings`` and ``title_line``: heading lines in any markup (``#``, an underlined title, a line wholly
  in bold or italics above the text, a bare short line set apart at the top);
- ``last_line``.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from engine.episodes.chat_html import as_markdown
from engine.readers.inline import Delimiter, replace_code_spans, unwrap
from engine.readers.latex_text import latex_text
from engine.readers.rendered import rendered

# --------------------------------------------------------------------------------------------------------
# Rendered text, words and sentences

_WORD = re.compile(r"[^\W_]", re.UNICODE)

# Markdown a model adds for emphasis: **bold**, __bold__, *italic*, _italic_, and a heading's leading #s.
# Inline code spans are left exactly as written (identifiers, flags, paths). Both are found by
# engine.readers.inline in linear time: **bold** or __bold__ (the mark followed and preceded by a non-space),
# then *italic* and _italic_ (not inside a word, not touching another mark).
_EMPHASIS = (
    (Delimiter("**", re.compile(r"\*\*(?=\S)"), re.compile(r"(?<=\S)(?=\*\*)")),
     Delimiter("__", re.compile(r"__(?=\S)"), re.compile(r"(?<=\S)(?=__)"))),
    (Delimiter("*", re.compile(r"(?<![\w*])\*(?=[^\s*])"), re.compile(r"(?<=[^\s*])(?=\*(?![\w*]))")),),
    (Delimiter("_", re.compile(r"(?<![\w_])_(?=[^\s_])"), re.compile(r"(?<=[^\s_])(?=_(?![\w_]))")),),
)
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+", re.MULTILINE)


def prose(text: str) -> str:
    """The reply's lines as this module and the answer line read them: inline chat HTML read as the Markdown
    it stands for (:func:`engine.episodes.chat_html.as_markdown`: ``<b>Title</b><br>`` is a bold title line,
    ``<li>`` a list item), then the characters as they render (:func:`engine.readers.rendered.rendered`:
    ``1\\.`` is ``1.``, a no-break space a space, ``O\\u2011201`` is ``O-201``; code as written), and LaTeX
    text markup as the text it typesets (:func:`engine.readers.latex_text.latex_text`: ``\\textbf{Answer:}``
    is ``Answer:``, ``$100\\,^{\\circ}\\mathrm{C}$`` is ``100 °C``). Line numbers
    this module gives (``ListItem.line``, ``Heading.line``) count the lines of this text, which are the
    reply's own: none of these readings adds or removes a line break the reply's text holds outside its HTML."""
    return latex_text(rendered(as_markdown(text)))


@functools.lru_cache(maxsize=32)  # every check of a reply reads it rendered: render it once
def plain_text(text: str) -> str:
    """The text a reader sees once Markdown emphasis is rendered (inline chat HTML read first, ``prose``):
    ``**Next?**`` and ``<b>Next?</b>`` read ``Next?`` and ``## Garden note:`` reads ``Garden note:``. List
    markers stay (the list reader needs them); code spans stay as written."""
    spans: list[str] = []

    def hold(span: str) -> str:
        spans.append(span)
        return f"\x00{len(spans) - 1}\x00"

    body = replace_code_spans(prose(text), hold)
    for _ in range(2):  # nested emphasis: ***both*** or **_both_**
        for delimiters in _EMPHASIS:
            body = unwrap(body, delimiters, across_lines=True)
    body = _HEADING.sub("", body)
    return re.sub(r"\x00(\d+)\x00", lambda m: spans[int(m.group(1))], body)


def without_code_spans(text: str) -> str:
    """``text`` with each code span blanked to a space (names and figures a rewrite copies on purpose)."""
    return replace_code_spans(text, lambda _: " ")


def words(text: str) -> list[str]:
    """Whitespace-separated tokens holding at least one letter or digit (a bare dash or bullet is no word)."""
    return [w for w in text.split() if _WORD.search(w)]


# Tried only where a run of stops starts: from inside the run the same match failed again at every character.
_SENTENCE_END = re.compile(r"(?<![.!?…])[.!?…]+[\"'”’)\]*_]*(?=\s|$)")
# Words that end in a full stop without ending a sentence. Titles and "e.g."/"i.e." are always followed by
# more of the same sentence; the others ("etc.", "a.m.") end one only when a capital letter follows.
_NEVER_ENDS = frozenset("""
    mr mrs ms dr prof st mt jr sr vs v e.g i.e eg ie cf approx ca c no nos vol fig figs p pp al sgt capt col gen
    lt rev hon
""".split())
_MAY_END = frozenset("etc a.m p.m am pm u.s u.k inc ltd co corp".split())
_INITIALISM = re.compile(r"^(?:[a-z]\.)+[a-z]$")


def _last_token(text: str, end: int) -> str:
    """The white-space-delimited token that ends at ``text[end - 1]``, read back from ``end`` only: splitting
    all the text before every full stop made a line of many abbreviations quadratic."""
    stop = end
    while stop > 0 and text[stop - 1].isspace():
        stop -= 1
    start = stop
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    return text[start:stop]


def _abbreviation_goes_on(line: str, end: int, after: int) -> bool:
    """True when the full stop at ``line[end - 1]`` belongs to an abbreviation or initial and the sentence
    goes on at ``after``."""
    before = _last_token(line, end)
    token = before.lstrip("(\"'“‘[").rstrip(".").casefold()
    while after < len(line) and line[after].isspace():
        after += 1
    nxt = line[after:after + 1]
    if not token or not nxt:
        return False
    if token in _NEVER_ENDS:
        return True
    # A single capital letter ("J. K. Rowling") is an initial.
    if len(token) == 1 and token.isalpha() and before.rstrip(".")[-1:].isupper():
        return True
    if token in _MAY_END or _INITIALISM.match(token):
        return not nxt.isupper()
    # Any other full stop followed by a lower-case word is no sentence end ("approx. three", "ca. ten").
    return nxt.islower()


def sentences(text: str) -> list[str]:
    """Sentences of a reply: a run of ``.``, ``!``, ``?`` followed by a space or the end closes one, and so
    does a line break (chat replies are not hard-wrapped, so a new line is a new sentence or list item).
    A list marker (of any style ``list_items`` reads) is not a sentence of its own. Markdown emphasis is
    removed first. A decimal point such as ``3.2`` or ``v1.2.3`` is not followed by a space and does not
    split; a full stop after a known abbreviation (``e.g.``, ``Dr.``, ``a.m.``) or an initial does not
    either, nor one followed by a lower-case word."""
    out: list[str] = []
    plain = plain_text(text)
    items = {item.line: item for item in list_items(plain)}
    for n, raw in enumerate(plain.splitlines()):
        line = items[n].text if n in items else raw
        start = 0
        for m in _SENTENCE_END.finditer(line):
            if m.group(0).startswith(".") and len(m.group(0).rstrip("\"'”’)]*_")) == 1 and \
                    _abbreviation_goes_on(line, m.start() + 1, m.end()):
                continue
            piece = line[start : m.end()].strip()
            if words(piece):
                out.append(piece)
            start = m.end()
        rest = line[start:].strip()
        if words(rest):
            out.append(rest)
    return out


# The stop of an ordered list's marker ("2. Seville", "b. Oslo", "iv. Porto") ends no sentence.
_MARKER_STOP = re.compile(r"^[ \t]*(?:\d{1,3}|[A-Za-z]|[ivxlcIVXLC]{1,6})$")


def _marker_stop(text: str, stop: int) -> bool:
    """Whether the stop at ``text[stop]`` closes an ordered list's marker at its line's start. Only the few
    characters before it are read, so a long line of many stops stays linear."""
    before = text[max(0, stop - 8) : stop]
    if "\n" in before:
        before = before.rsplit("\n", 1)[1]
    elif stop > 8:
        return False
    return _MARKER_STOP.match(before) is not None


def _last_sentence_end(text: str, *, at_end: bool) -> int:
    """The offset just after the last sentence end in ``text`` (0 when none); one at the very end of the
    text counts only when ``at_end``."""
    last = 0
    for m in _SENTENCE_END.finditer(text):
        if m.end() == len(text) and not at_end:
            break
        if _marker_stop(text, m.start()) or (m.group(0).startswith(".") and len(m.group(0).rstrip("\"'”’)]*_")) == 1
                                             and _abbreviation_goes_on(text, m.start() + 1, m.end())):
            continue
        last = m.end()
    return last


def whole_before_cut(text: str) -> str:
    """What a reply cut by the token limit wrote whole: its text, as written, up to the end of the last
    sentence before the one the cut fell in. The reply's last sentence is the one the cut fell in whatever it
    ends with (a cut after "38." may have taken "38.5"). Only a sentence end closes a sentence here, not a
    line break: a list of figures or an introduction ending with a colon is working towards what the cut
    took. A full stop after an abbreviation or an initial, or followed by a lower-case word, ends nothing,
    as in :func:`sentences`, and neither does an ordered list's marker ("2. Seville"). Empty when no
    sentence was whole."""
    body = text.rstrip()
    return body[: _last_sentence_end(body, at_end=False)]


def closed_sentences(text: str) -> str:
    """The lines of ``text`` each up to its last sentence end, a line with none left out: what a text states
    in sentences it closed, without a list of figures or an introduction ending with a colon, which report
    working rather than conclude it."""
    kept = (line[: _last_sentence_end(line.rstrip(), at_end=True)] for line in text.splitlines())
    return "\n".join(line for line in kept if line.strip())


def last_line(text: str) -> str:
    """The last non-blank line, as it reads rendered, without surrounding white space."""
    lines = [ln.strip() for ln in plain_text(text).splitlines() if ln.strip()]
    return lines[-1] if lines else ""


# --------------------------------------------------------------------------------------------------------
# List items

Style = Literal["bullet", "numbered"]
# How an item is marked: a bullet sign, an emoji, digits, a Roman numeral, a letter, a number word, or
# nothing (a line of a block a colon introduces: read as an item only when the reply has no marked one).
Kind = Literal["sign", "emoji", "digit", "roman", "letter", "word", "line"]


@dataclass(frozen=True)
class ListItem:
    line: int  # index of the line in the reply
    marker: str  # as written
    kind: Kind
    text: str  # the item without its marker

    @property
    def style(self) -> Style | None:
        """``bullet`` for unordered markers, ``numbered`` for ordered ones (digits, Roman numerals, letters
        and number words all number the items), None for an unmarked line."""
        if self.kind in ("sign", "emoji"):
            return "bullet"
        return None if self.kind == "line" else "numbered"


# Signs that mark a list item wherever they stand (Markdown's own and the round and square bullets).
_FIRM_SIGNS = "-*+•◦▪▫●○■□‣⁃∙"
# Signs that also open ordinary lines (a dash before a quotation's author, an arrow): items only in company.
_SOFT_SIGNS = "–—·→⇒➔➜➤➢►▸▹▶✓✔✗✘☐☑☒★☆"
_BLOCKQUOTE = re.compile(r"^[ \t]*(?:>[ \t]?)+")
_ORDERED = re.compile(
    r"^[ \t]*(?P<open>\()?(?P<token>\d{1,3}|[A-Za-z]{1,7})(?(open)\)|[.)])[ \t]+(?P<text>.*\S.*)$")
_KEYCAP = re.compile(r"^[ \t]*(?P<marker>(?:[0-9]\ufe0f?\u20e3)+)[ \t]*(?P<text>.*\S.*)$")
_NUMBER_WORD = re.compile(
    r"^[ \t]*(?P<token>one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|first|second|third"
    r"|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth)[ \t]*(?P<delim>[.):,]|[-–—][ \t])"
    r"[ \t]*(?P<text>.*\S.*)$", re.IGNORECASE)
_WORD_ORDINAL = {w: n for n, pair in enumerate(
    ["one first", "two second", "three third", "four fourth", "five fifth", "six sixth", "seven seventh",
     "eight eighth", "nine ninth", "ten tenth", "eleven eleventh", "twelve twelfth"], start=1)
    for w in pair.split()}
_ROMAN = re.compile(r"^M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})$")
_ROMAN_VALUE = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def _roman(token: str) -> int | None:
    """The value of a Roman numeral written in one case (``iv``, ``XII``), else None."""
    if not (token.isupper() or token.islower()) or not _ROMAN.match(token.upper()):
        return None
    values = [_ROMAN_VALUE[c] for c in token.upper()]
    total = sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))
    return total or None


def emoji_run(text: str, at: int = 0) -> int:
    """The length of the emoji or other symbols ``text`` opens with (``✅``, ``👉🏽``, ``★``, ``➡️``): symbol
    characters (Unicode categories So and Sk, and the soft list signs, arrows and ticks among them) with their
    variation selectors, joiners, keycap marks and skin-tone modifiers. Read by category, not from a list of
    emoji; the list reader and the answer line's label reader both read them here. From ``at`` when given."""
    i = at
    while i < len(text) and (unicodedata.category(text[i]) in ("So", "Sk") or text[i] in _SOFT_SIGNS
                             or text[i] in "\ufe0f\u200d\u20e3" or "\U0001f3fb" <= text[i] <= "\U0001f3ff"):
        i += 1
    return i - at


def _symbol_marker(line: str) -> tuple[str, str, bool] | None:
    """(marker, rest, firm) when the line opens with a bullet sign or an emoji followed by white space."""
    body = line.lstrip(" \t")
    if not body:
        return None
    if body[0] in _FIRM_SIGNS or body[0] in _SOFT_SIGNS:
        marker, rest = body[0], body[1:]
        firm = body[0] in _FIRM_SIGNS
    else:
        i = emoji_run(body)
        if i == 0:
            return None
        marker, rest, firm = body[:i], body[i:], False
    if not rest[:1].isspace() or not _WORD.search(rest):
        return None
    return marker, rest.strip(), firm


@dataclass
class _Run:
    kind: str  # "roman", "letter" or "word"
    case: str
    delim: str
    last: int
    members: list[ListItem]


def list_items(text: str) -> list[ListItem]:
    """Every list item of the reply, in line order (see the module's docstring for the styles read).

    Unmarked lines are items only when no line has a marker, and then only when a line ending with a colon
    introduces at least two of them (``Three tips:`` then one tip per line) or they make a paragraph of one
    item a line (``_line_list``); the check that counts them says it read them so (``ListItem.kind ==
    "line"``)."""
    lines = [_BLOCKQUOTE.sub("", ln) for ln in plain_text(text).splitlines()]
    found: dict[int, ListItem] = {}
    soft: list[ListItem] = []
    runs: list[_Run] = []
    for n, line in enumerate(lines):
        keycap = _KEYCAP.match(line)
        if keycap:
            found[n] = ListItem(n, keycap.group("marker"), "digit", keycap.group("text").strip())
            continue
        ordered = _ORDERED.match(line)
        if ordered and ordered.group("token").isdigit():
            found[n] = ListItem(n, ordered.group(0)[: ordered.start("text")].strip(), "digit",
                                ordered.group("text").strip())
            continue
        symbol = _symbol_marker(line)
        if symbol:
            marker, rest, firm = symbol
            item = ListItem(n, marker, "emoji" if marker[0] not in _FIRM_SIGNS + _SOFT_SIGNS else "sign", rest)
            if firm:
                found[n] = item
            else:
                soft.append(item)
            continue
        worded = _NUMBER_WORD.match(line)
        if worded:
            _place(runs, ListItem(n, worded.group(0)[: worded.start("text")].strip(), "word",
                                  worded.group("text").strip()),
                   [("word", _WORD_ORDINAL[worded.group("token").casefold()])],
                   "lower" if worded.group("token")[0].islower() else "upper", worded.group("delim").strip())
            continue
        if ordered:
            token = ordered.group("token")
            readings = []
            value = _roman(token)
            if value:
                readings.append(("roman", value))
            if len(token) == 1:
                readings.append(("letter", ord(token.casefold()) - ord("a") + 1))
            if readings:
                delim = "()" if ordered.group("open") else line[ordered.end("token")]
                _place(runs, ListItem(n, ordered.group(0)[: ordered.start("text")].strip(), "letter",
                                      ordered.group("text").strip()),
                       readings, "lower" if token.islower() else "upper", delim)
    # Signs and emoji that also open ordinary lines are a list when at least two lines use them.
    if len(soft) >= 2:
        found.update({item.line: item for item in soft})
    for run in runs:
        if len(run.members) >= 2:
            found.update({m.line: ListItem(m.line, m.marker, run.kind, m.text)  # type: ignore[arg-type]
                          for m in run.members})
    if not found:
        return _unmarked_items(lines)
    return [found[n] for n in sorted(found)]


def _place(runs: list[_Run], item: ListItem, readings: list[tuple[str, int]], case: str, delim: str) -> None:
    """Add an ordered item to the run it continues (same case and delimiter, the next number), or start a
    run. A token read two ways (``i`` is the Roman one and the ninth letter) continues whichever run it
    fits; a new run prefers the reading that starts a list (``i`` as Roman one, ``a`` as a letter)."""
    for run in reversed(runs):
        if run.case == case and run.delim == delim:
            for kind, value in readings:
                if kind == run.kind and value == run.last + 1:
                    run.last = value
                    run.members.append(item)
                    return
    kind, value = next(((k, v) for k, v in readings if v == 1), readings[0])
    runs.append(_Run(kind, case, delim, value, [item]))


# The most words an unmarked line may hold and still be read as one item of a list.
_ITEM_WORDS = 40
_CLOSES_SENTENCE = re.compile(r"[.!?…][\"'”’)\]]*$")


def _unmarked_items(lines: list[str]) -> list[ListItem]:
    """Unmarked lines read as a list, one item a line (the reply has no marked item; the caller checks).

    First, lines a line ending with a colon introduces, up to a blank line: the first such block of at
    least two lines of at most 40 words. Each line is read once (where each block starts and ends, and how
    many long lines come before each line), not once per colon line above it.

    Else, a paragraph of lines of its own (``_line_list``): lines with no marker, one item each, set apart
    from prose by blank lines."""
    count = len(lines)
    blank = [not line.strip() for line in lines]
    long_before = [0] * (count + 1)  # lines of more than 40 words among lines[:i]
    for i, line in enumerate(lines):
        long_before[i + 1] = long_before[i] + (len(words(line.strip())) > _ITEM_WORDS)
    next_filled, next_blank = [count] * (count + 1), [count] * (count + 1)
    for i in range(count - 1, -1, -1):
        next_filled[i] = next_filled[i + 1] if blank[i] else i
        next_blank[i] = i if blank[i] else next_blank[i + 1]
    for n, line in enumerate(lines):
        if not line.rstrip().endswith(":"):
            continue
        start = next_filled[n + 1]
        end = next_blank[start] if start < count else count
        if end - start >= 2 and long_before[end] == long_before[start]:
            return [ListItem(m, "", "line", lines[m].strip()) for m in range(start, end)]
    start = 0
    while start < count:
        start = next_filled[start]
        if start >= count:
            break
        end = next_blank[start]
        found = _line_list(lines, start, end)
        if found:
            return found
        start = end
    return []


# A label that opens a line: one to three words and a colon, then text ("Garden note: ...", "Note: ...").
_LABEL = re.compile(r"^[^\W\d_][^\W\d_'’-]*(?:[ \t]+[^\W\d_][^\W\d_'’-]*){0,2}[ \t]*:[ \t]+\S")


def _heads(block: list[str]) -> bool:
    """Whether the first line of a paragraph written one item a line is its heading, not its first item.

    It is when it introduces the lines after it: it ends with a colon; or it opens with a label that no
    line after it opens with (the opening a rule requires, ``Garden note: three tips.``; items that each
    carry a label, ``Tip: ...``, are items alike); or it has no closing stop while every line after it has
    one (a title over sentences)."""
    first, rest = block[0], block[1:]
    if first.endswith((":", "：")):
        return True
    if _LABEL.match(first) and not any(_LABEL.match(line) for line in rest):
        return True
    return _CLOSES_SENTENCE.search(first) is None and all(_CLOSES_SENTENCE.search(line) for line in rest)


def _line_list(lines: list[str], start: int, end: int) -> list[ListItem]:
    """The items of the paragraph ``lines[start:end]`` when it is a list written one item a line without
    markers (``Garden note: three tips for slugs`` then a tip on each of three lines), else [].

    Each line is one item: at most 40 words, and none runs on into the next (a line without a closing stop
    followed by one that opens in lower case is prose broken across lines). The first line is a heading,
    not an item (``_heads``), when it introduces what follows: it ends with a colon, it opens with a label
    the lines after it do not share (``Garden note: three slug-proofing tips.``, the opening a rule asks
    for), or it has no closing stop and every line after it has one. A paragraph under a heading needs two
    items; a bare one three, since two sentences on two lines read as often as a paragraph with a line
    break as a list of two. A paragraph whose one line holds three tips is no list."""
    block = [lines[m].strip() for m in range(start, end)]
    if any(len(words(line)) > _ITEM_WORDS or not words(line) for line in block):
        return []
    for here, after in zip(block, block[1:], strict=False):
        if not _CLOSES_SENTENCE.search(here) and after[:1].islower():
            return []
    headed = len(block) > 2 and _heads(block)
    first = start + 1 if headed else start
    if end - first < (2 if headed else 3):
        return []
    return [ListItem(m, "", "line", lines[m].strip()) for m in range(first, end)]


# --------------------------------------------------------------------------------------------------------
# Headings and the title line

How = Literal["atx", "setext", "html", "emphasis", "plain"]


@dataclass(frozen=True)
class Heading:
    line: int  # index of the line in the reply
    text: str  # as it reads rendered
    how: How  # the markup that makes it a heading; "plain" for a bare short line set apart


# The most words a line wholly in bold, italics or a heading tag may hold and still be read as a heading, and
# the most a bare line may (with no markup, only its length and its place say it is a title).
_MARKED_HEADING_WORDS = 20
_PLAIN_HEADING_WORDS = 12
_SETEXT_UNDERLINE = re.compile(r"^[ \t]{0,3}(?:=+|-+)[ \t]*$")
_HTML_HEADING = re.compile(r"^<(h[1-6]|b|strong|u|i|em)(?:[ \t][^<>]*)?>(?P<inner>[^<>]*)</\1>$", re.IGNORECASE)
# The emphasis marks a whole line may be wrapped in, longest first, so ``***x***`` is not read as ``*``.
_WRAPS = ("***", "___", "**", "__", "*", "_")
# Punctuation that ends a sentence or a clause: a line ending with one is a sentence, a lead-in or a
# greeting, never a bare title.
_ENDS_CLAUSE = re.compile(r"[.!?…:;,。！？：；，][\"'”’)\]]*$")
_ENDS_STATEMENT = re.compile(r"[.…。][\"'”’)\]]*$")


def _wrapped(line: str) -> str | None:
    """The inside of a line wholly wrapped in one emphasis mark or one inline HTML tag (``**Title**``,
    ``__Title__``, ``*Title*``, ``<u>Title</u>``), else None. A line with the mark inside as well
    (``**A** and **B**``) is two spans, not one wrapped line."""
    html = _HTML_HEADING.match(line)
    if html:
        return html.group("inner").strip() or None
    for mark in _WRAPS:
        if len(line) > 2 * len(mark) and line.startswith(mark) and line.endswith(mark):
            inner = line[len(mark):-len(mark)]
            # Emphasis needs no space inside its marks; the mark again inside makes two spans.
            return None if inner.strip() != inner or mark in inner else inner
    return None


def _bare_title(line: str, below: str, follows: int) -> bool:
    """Whether ``line``, the reply's first line as it reads rendered, is a title written without markup: a
    paragraph of its own (a blank line below it) of at most 12 words, opening with a letter or digit, with
    no punctuation at its end once trailing emoji and marks are set aside (``Hi there! 👋`` is a sentence)
    and none inside that ends a sentence, and more words after it than in it. A line that is not a title
    whatever its length: working (``=``), a labelled value (``Answer: Dana``, ``_LABEL``) and a line that
    speaks to the user (``Here's a quick summary``, ``_ADDRESS``), a lead-in that forgot its colon."""
    count = len(words(line))
    opening = line.lstrip("\"'“‘¡¿([")
    end = line.rstrip()
    while end and unicodedata.category(end[-1]) in ("So", "Sk", "No", "Mn", "Cf", "Zs"):
        end = end[:-1].rstrip()
    return (not below.strip() and 0 < count <= _PLAIN_HEADING_WORDS and follows > count
            and opening[:1].isalnum() and "=" not in line and not _ENDS_CLAUSE.search(end)
            and len(sentences(end)) == 1 and not _LABEL.match(line) and not _ADDRESS.search(line))


def headings(text: str) -> list[Heading]:
    """Every line of the reply that is a heading, whatever the markup:

    - a Markdown heading: ``# Title`` (ATX) or a line underlined with ``===`` or ``---`` (setext), and an
      HTML heading tag ``<h2>Title</h2>``, wherever they stand;
    - a line wholly in bold, italics or underline (``**Resumen del incidente**``, ``__Title__``,
      ``*Resumen*``, ``<u>Title</u>``) on a line of its own above more text: at most 20 words and one
      phrase, not a sentence: it holds no sentence end inside and does not end with a full stop (a whole
      emphasised sentence, ``**Harbor Sync 3.2 is out.**``, is emphasis, not a title);
    - a bare line (``Resumen semanal``) only as the reply's first line, a paragraph of its own with more
      text after it (``_bare_title``): at most 12 words, with no punctuation at its end (a line ending
      with ``.``, ``!``, ``?``, ``:`` or ``,`` is a sentence, a lead-in or a greeting). Further down, a
      short bare line is as often a label, a figure or a sign-off as a heading: there markup must say so.

    Lines in code fences, block quotes and list items are none: a title stands above the body. Emphasis
    inside a paragraph (a bold first sentence that the paragraph goes on after, on the same line) is no
    heading either."""
    raw = prose(text).splitlines()
    rendered = plain_text(text).splitlines()
    items = {item.line for item in list_items(text) if item.kind != "line"}
    fenced, inside = set(), False
    for n, line in enumerate(raw):
        if line.lstrip().startswith("```"):
            fenced.add(n)
            inside = not inside
        elif inside:
            fenced.add(n)
    # How many words the lines from n on hold: a heading is one when text follows it.
    after = [0] * (len(raw) + 1)
    for n in range(len(raw) - 1, -1, -1):
        after[n] = after[n + 1] + (0 if n in fenced else len(words(raw[n])))
    first = next((n for n, line in enumerate(raw) if line.strip()), -1)
    found: list[Heading] = []
    for n, line in enumerate(raw):
        stripped = line.strip()
        if not stripped or n in fenced or n in items or _BLOCKQUOTE.match(line) and stripped.startswith(">"):
            continue
        shown = rendered[n].strip() if n < len(rendered) else stripped
        if _HEADING.match(line):
            found.append(Heading(n, shown, "atx"))
            continue
        if n + 1 < len(raw) and _SETEXT_UNDERLINE.match(raw[n + 1]) and words(stripped) \
                and (n == 0 or not raw[n - 1].strip()) and not _RULE.match(line):
            found.append(Heading(n, shown, "setext"))
            continue
        alone_above = n == 0 or not raw[n - 1].strip()
        follows = after[n + 1]
        if not alone_above or not follows:
            continue
        html = _HTML_HEADING.match(stripped)
        if html and html.group(1).lower().startswith("h"):
            found.append(Heading(n, html.group("inner").strip(), "html"))
            continue
        inner = _wrapped(stripped)
        if inner is not None:
            phrase = plain_text(inner).strip()
            one_phrase = len(sentences(phrase)) <= 1
            if words(phrase) and len(words(phrase)) <= _MARKED_HEADING_WORDS and one_phrase \
                    and not _ENDS_STATEMENT.search(phrase):
                found.append(Heading(n, phrase, "html" if html else "emphasis"))
            continue
        if n == first and _bare_title(shown, raw[n + 1] if n + 1 < len(raw) else "", follows):
            found.append(Heading(n, shown, "plain"))
    return found


def title_line(text: str) -> Heading | None:
    """The reply's title line: a heading (``headings``) on its first non-blank line, else None."""
    first = next((n for n, line in enumerate(prose(text).splitlines()) if line.strip()), None)
    return next((h for h in headings(text) if h.line == first), None) if first is not None else None


# --------------------------------------------------------------------------------------------------------
# The post inside a reply


@dataclass(frozen=True)
class Post:
    """A reply split into what introduces the post, the post, and what follows it."""

    preamble: str
    body: str
    afterword: str
    # Why the reading of where the post ends is a guess the text cannot settle, or None.
    unsure: str | None = None


_FIRST_PERSON = re.compile(r"\bI(?:['’](?:m|d|ll|ve))?\b|\b[Mm][ey]\b")
# How a writer addresses the user about what follows: in the first person singular, to the user in the
# second person, or presenting it ("here's", "here are", "below"). Grammatical words, not a phrase list.
_ADDRESS = re.compile(r"\bI(?:['’](?:m|d|ll|ve))?\b|\b(?:me|my|you|your|yours|here|below)\b", re.IGNORECASE)
# The first person plural is the brand's own voice in a post ("we're back", "our stall"): a lead-in that
# speaks so is more of the post, whatever else it says.
_BRAND_VOICE = re.compile(r"\b(?:we|we['’](?:re|ll|ve|d)|us|our|ours|let['’]s)\b", re.IGNORECASE)
_FENCE = re.compile(r"^```[^\n]*\n(.*?)\n?```$", re.DOTALL)


# A thematic break (Markdown's horizontal rule): three or more of one of - * _, spaces between allowed.
_RULE = re.compile(r"^[ \t]{0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
# The most words a line around the post may hold and still be read as the writer speaking to the user.
_ASIDE_WORDS = 30
# The most words of a line that ends with a colon and is read as introducing the post whatever it says
# ("Post:", "Here's the Monday post:"), and of a lead-in paragraph read so because it speaks to the user.
_SHORT_LEAD_IN_WORDS = 20
_LEAD_IN_WORDS = 60


# How a writer hands the next move to the user once the text is written, in any wording, read from its
# grammar: the user's wish or need as a question ("Would you like a shorter version?", "Do you want ..."),
# or as a condition left bare, the hedge of an offer ("if you'd like", "if you need more", "if needed",
# "should you prefer"; a condition with its own object, "Grab a loaf if you need one!", is the post
# speaking to its readers), or the writer's hope about what was just written, its subject left out and its
# object a word that points back at it ("Hope this helps!", "Hope it works for you").
_WISH = r"(?:like|love|want|wish|prefer|need|require)"
_OFFER = re.compile(
    rf"\b(?:would|do|will|should|could|can)\s+you\s+(?:\w+\s+)?{_WISH}\b"
    rf"|\b(?:if|should|in\s+case)\s+(?:you(?:['’]d|\s+would|\s+ever)?\s+{_WISH}(?:\s+(?:it|this|that|them|more|any))?"
    r"|(?:it['’]?s\s+|it\s+is\s+)?(?:needed|wanted|preferred|desired|required|necessary|helpful|useful))"
    r"(?=\s*(?:[.!?,;:)…]|$))"
    r"|^(?:I\s+)?(?:hope|hoping)\s+(?:this|that|it|these|those)\b",
    re.IGNORECASE)
# Marks that belong to a post, never to a remark to the user: a hashtag, a handle, a link.
_POST_MARK = re.compile(r"(?<![\w&])#[^\W\d_]\w*|(?<!\w)@\w|https?://|\bwww\.", re.IGNORECASE)


def _speaks_to_user(text: str) -> bool:
    """Whether ``text`` reads as the writer speaking to the user about the post, not as more of it: one
    paragraph of at most 30 words that asks the user something (it ends with a question mark: ``Want a
    shorter version too?``), in which the writer speaks in the first person singular, or which hands the
    next move to the user (``_OFFER``: ``Happy to adjust the wording if needed.``)."""
    plain = plain_text(text).strip()
    if not plain or re.search(r"\n[ \t]*\n", plain) or len(words(plain)) > _ASIDE_WORDS:
        return False
    return plain.endswith(("?", "？")) or _FIRST_PERSON.search(plain) is not None or _OFFER.search(plain) is not None


def _closing_address(paragraph: str) -> bool:
    """Whether ``paragraph``, the last of a reply with nothing else to bound its post, is the writer speaking
    to the user about the text rather than the post's own last line: the mirror of ``_lead_in`` at the
    other end. It is one line of at most 30 words without the marks of a post (a hashtag, a handle, a link)
    in which the writer speaks in the first person singular (``Let me know if you'd like it shorter!``,
    ``Shall I add allergen details?``), or which, not in the brand's voice, hands the next move to the user
    (``_OFFER``: ``Would you like a shorter version?``, ``Happy to adjust the wording if needed.``,
    ``Hope this helps!``). A last line that speaks to the post's readers stays the post's: in the brand's
    voice (``Let us know what you think in the comments!``) or as a bare invitation (``Come by Saturday!``,
    ``Will you be there?``), since the user's wish is no part of it."""
    if "\n" in paragraph:
        return False
    plain = plain_text(paragraph).strip()
    if not plain or len(words(plain)) > _ASIDE_WORDS or _POST_MARK.search(plain):
        return False
    if _FIRST_PERSON.search(plain):
        return True
    # The offer closes the paragraph: one that more of the post follows ("Do you want the crust? Come
    # early.") is the post asking its readers.
    closing = (sentences(plain) or [plain])[-1]
    return _OFFER.search(closing) is not None and not _BRAND_VOICE.search(plain)


# A note set apart as a whole: in round or square brackets ("(21 words.)", "[Word count: 21]") or in
# italics ("*21 words, hashtag last*"), the marks a writer uses for a remark about the text beside it.
_SET_APART = re.compile(r"\(.*\)[.!]?|\[.*\][.!]?|\*[^*].*\*|_[^_].*_", re.DOTALL)


def _aside(text: str) -> bool:
    """Whether ``text``, which a rule or a block quote sets apart from the post, is a remark to the user
    about the post, not more of it: it speaks to the user (``_speaks_to_user``), or it is a note of at most
    30 words set apart as a whole in brackets or italics (``(21 words, ends with the hashtag.)``)."""
    if _speaks_to_user(text):
        return True
    raw = text.strip()
    return (_SET_APART.fullmatch(raw) is not None and not re.search(r"\n[ \t]*\n", raw)
            and len(words(raw)) <= _ASIDE_WORDS)


# The writer's own next act on the text, in the first person singular with a modal or "going to": a promise
# or a plan ("I'll put together a post", "I can write it", "I'd suggest", "I'm going to"), the writer taking
# the turn ("Let me draft one") or asking for it ("Shall I ...?", "Should I ...?"), or showing its thinking
# ("Here's what I'm thinking"). Grammar, not a list of verbs: a post in a baker's own voice says what the
# baker did ("I just pulled these from the oven"), an address to the user what the writer will do.
_WRITER_INTENT = re.compile(
    r"\bI(?:['’](?:ll|d)|\s+(?:will|would|can|could|shall|should|might|may)|(?:['’]m|\s+am)\s+going\s+to)\b"
    r"|\b(?i:let)\s+me\b|\b(?i:shall|should|can|may)\s+I\b|\b(?i:what)\s+I(?:['’](?:m|ve)|\s+(?:am|have))\b")
# Marks of a post that a remark to the user never carries: a link or a handle. (A hashtag alone may be the
# required one, appended by rote to a reply that holds no post.)
_LINK_MARK = re.compile(r"(?<!\w)@\w|https?://|\bwww\.", re.IGNORECASE)
_HASHTAGS_ONLY = re.compile(r"(?:\s*(?<![\w&])#[^\W\d_]\w*)+\s*")
# The most words a sentence may hold and be read as an interjection beside the address ("Great idea!",
# "Love the idea!", "Sure, happy to help!"), counted neither as speaking to the user nor as the post's.
_INTERJECTION_WORDS = 4


def _speaks_only_to_user(text: str) -> tuple[bool, str | None]:
    """(whether ``text``, the whole of a reply with nothing to bound a post in it, only speaks to the user
    about the post it was asked for and holds no post, why that reading is unsure or None).

    It is such an address when, read sentence by sentence, the writer speaks of its own next act on the
    text (``_WRITER_INTENT``: ``I'll put together a Monday coffee post``, ``Let me know ...``, ``Shall I
    ...?``), its last sentence hands the move to the user (the first person singular, or the user's wish,
    ``_OFFER``: ``Would you like it playful or more straightforward?``), sentences like these outnumber the
    others, short interjections (``Great idea!``) aside, and no paragraph is set apart with nothing in it
    to the user but more than an interjection or a post's mark (``Rye is back! #JuniperBakes`` then ``Shall
    I make it longer?`` is a post and a remark). It holds at
    most 60 words, no link or handle and nothing in the brand's voice (``we``, ``our``): ``We'll have bread
    ...`` is the post's own voice, and so is a post that asks its readers (``Would you like a free coffee?
    Bring your cup on Monday!``: no act of the writer's). A lone hashtag sentence (the required one, added
    by rote) is read as neither. Sentences the reading counts as
    neither kind make it unsure: they could be the post's own."""
    plain = plain_text(text).strip()
    if not plain or len(words(plain)) > _LEAD_IN_WORDS or _BRAND_VOICE.search(plain) or _LINK_MARK.search(plain):
        return False, None
    blocks = _paragraphs([plain])
    paragraphs = [[s for s in sentences(p) if not _HASHTAGS_ONLY.fullmatch(s)] for p in blocks]
    said = [s for p in paragraphs for s in p]
    if not said or not any(_WRITER_INTENT.search(s) for s in said):
        return False, None

    def addresses(sentence: str) -> bool:
        return _FIRST_PERSON.search(sentence) is not None or _OFFER.search(sentence) is not None

    def other(sentence: str) -> bool:
        return not addresses(sentence) and len(words(sentence)) > _INTERJECTION_WORDS

    # A paragraph set apart with nothing in it to the user is a post when it says more than an interjection
    # or carries a post's mark, whatever follows it ("Rye is back! #JuniperBakes" then "Shall I make it
    # longer?").
    if any((any(other(s) for s in p) or _POST_MARK.search(b)) and not any(addresses(s) for s in p)
           for b, p in zip(blocks, paragraphs, strict=True)):
        return False, None
    to_user, others = [s for s in said if addresses(s)], [s for s in said if other(s)]
    if not addresses(said[-1]) or len(to_user) <= len(others):
        return False, None
    if others:
        return True, (f"read the reply as speaking to the user about the post, not as the post; {len(others)} "
                      f"of its {len(said)} sentences could be the post's own")
    return True, None


def _lead_in(text: str) -> tuple[str, str]:
    """(lead-in, rest) when the reply opens with a lead-in that introduces the post, else ("", text).

    A lead-in ends with a colon and something follows it. A first line of at most 20 words is one whatever
    it says (``Post:``, ``Here's the Monday post:``). A longer one, up to 60 words, is one when it is a
    paragraph of its own (a blank line sets it apart) and speaks to the user about the post (``Sure! Here's
    an upbeat post for your stall, kept under forty words as requested:``): the writer in the first person
    singular, the user in the second person, or a presentation of what follows (``here``, ``below``), and
    not the brand's own voice (``we``, ``our``), which makes it more of the post. A long opening in the
    post's voice that happens to end with a colon is counted with the post."""
    head, _, tail = text.partition("\n")
    if not tail.strip():
        return "", text
    plain = plain_text(head).strip()
    if not plain.endswith(":"):
        return "", text
    count = len(words(head))
    if count <= _SHORT_LEAD_IN_WORDS:
        return head.strip(), tail.strip()
    set_apart = re.match(r"[ \t]*\n", tail) is not None
    if set_apart and count <= _LEAD_IN_WORDS and _ADDRESS.search(plain) and not _BRAND_VOICE.search(plain):
        return head.strip(), tail.strip()
    return "", text


def _rules(lines: list[str]) -> list[int]:
    """The lines that are horizontal rules. A line of dashes right under a line of text underlines a
    heading in Markdown (a setext heading) and is no rule."""
    return [n for n, line in enumerate(lines) if _RULE.match(line)
            and not (line.strip()[0] == "-" and n > 0 and lines[n - 1].strip())]


def _between_rules(text: str) -> tuple[str, str, str] | None:
    """(introduction, post, afterword) when horizontal rules set the post apart, else None.

    The last rule closes the post when nothing follows it or what follows speaks to the user (a follow-up
    offer: ``Want me to add the market's address?``); a rule before it opens the post, and a short text
    before that opening rule is an introduction. A last rule followed by more of the post (a hashtag line,
    a second paragraph in the brand's voice) closes nothing: the rules are then part of the post."""
    lines = text.splitlines()
    rules = _rules(lines)
    if not rules:
        return None
    close = rules[-1]
    after = "\n".join(lines[close + 1:]).strip()
    if after and not _aside(after):
        return None
    opening = rules[0] if rules[0] < close else None
    intro = "\n".join(lines[:opening]).strip() if opening is not None else ""
    if opening is not None and (not intro or len(words(intro)) <= _ASIDE_WORDS):
        body = "\n".join(lines[opening + 1:close]).strip()
    else:
        intro, body = "", "\n".join(lines[:close]).strip()
    if not words(body):
        return None
    return intro, body, after


def _paragraphs(lines: list[str]) -> list[str]:
    return [p.strip() for p in re.split(r"\n[ \t]*\n", "\n".join(lines)) if p.strip()]


def _in_quote(text: str) -> tuple[str, str, str] | None:
    """(introduction, post, afterword) when one Markdown block quote holds the post and what stands outside
    it is commentary, else None.

    The quote is the one run of ``>`` lines (blank lines inside it allowed). Every paragraph outside it must
    be an aside (``_aside``: it speaks to the user, or it is a note set apart in brackets or italics, ``(21
    words.)``), or, before the quote, a line ending with a colon that presents it; and the quote must hold
    more words than everything outside it. A quote of the user's request with the post written after it
    (``> Next post: on Mondays ...`` then the post) leaves a paragraph that is no aside, or more words
    outside than in, so the quote is not read as the post: the reply is then read as a whole."""
    lines = text.splitlines()
    quoted = [n for n, line in enumerate(lines) if _BLOCKQUOTE.match(line)]
    if not quoted:
        return None
    first, last = quoted[0], quoted[-1]
    if any(lines[n].strip() and not _BLOCKQUOTE.match(lines[n]) for n in range(first, last + 1)):
        return None
    before, after = _paragraphs(lines[:first]), _paragraphs(lines[last + 1:])
    if not before and not after:
        return None
    presents = before[-1:] if before and plain_text(before[-1]).rstrip().endswith(":") else []
    if not all(_aside(p) for p in before if p not in presents) or not all(_aside(p) for p in after):
        return None
    body = "\n".join(_BLOCKQUOTE.sub("", line) for line in lines[first:last + 1]).strip()
    if len(words(body)) <= sum(len(words(p)) for p in before + after):
        return None
    return "\n\n".join(before), body, "\n\n".join(after)


# An XML-style tag a writer wraps a post in (``<post>``, ``<answer>``, ``<tweet id="3">``), opening or closing.
_TAG = re.compile(r"<(/?)([A-Za-z][\w.:-]{0,40})(?:[ \t][^<>\n]{0,200})?>")


def _in_tags(text: str) -> tuple[str, str, str, bool] | None:
    """(introduction, post, afterword, afterword_is_aside) when one pair of XML-style tags wraps the post,
    else None. The introduction ends with the opening tag and the afterword starts with the closing one.

    The pair is the only tag outside the post: one tag name, opened once and closed once after it, with no
    other tag before the opening or after the closing one (tags inside are the post's own). What the tags
    hold must have more words than everything outside them, as with a block quote: ``<b>Monday post</b>``
    over the post is a label in a tag, not the post. The writer's own tags say where the post ends, so text
    after the closing tag is no part of it even when it is no remark to the user
    (``<post>Rye is back!</post> #JuniperBakes`` does not end with the hashtag); the fourth value says
    whether it was a remark, so a check can say it was unsure. Two pairs (``<post>`` and ``<hashtags>``, or
    two of ``<post>``) bound nothing: the reply is then read whole."""
    tags = list(_TAG.finditer(text))
    if len(tags) < 2:
        return None
    opening, closing = tags[0], tags[-1]
    name = opening.group(2).casefold()
    if opening.group(1) or not closing.group(1) or closing.group(2).casefold() != name:
        return None
    if sum(1 for t in tags if t.group(2).casefold() == name) != 2:
        return None
    body, after = text[opening.end():closing.start()].strip(), text[closing.end():].strip()
    if len(words(body)) <= len(words(text[:opening.start()])) + len(words(after)):
        return None
    # The tags go with what they set apart, so a note on the reading can name them.
    return text[:opening.end()].strip(), body, text[closing.start():].strip(), not words(after) or _aside(after)


def read_post(text: str) -> Post:
    """The post a reply holds: the reply without a lead-in that introduces it (``_lead_in``: ``Here's the
    post:``, or a longer paragraph ending with a colon that speaks to the user) and without an afterword
    (its last paragraph or two, when each is a closing line to the user about the text, ``_closing_address``:
    ``Let me know if you'd like it shorter!``, ``Would you like a shorter version?``, ``Happy to adjust the
    wording if needed.``). Horizontal rules (``---``, ``***``, ``___``) that
    set the post apart bound it (``_between_rules``): what follows the closing rule is an afterword when it
    speaks to the user (a question or the first person) or is a note set apart in brackets or italics,
    what precedes the opening rule an introduction. A block quote that holds the post with commentary
    outside it bounds it the same way (``_in_quote``: ``> Rye is back! #JuniperBakes`` then ``(21
    words.)``). A post wrapped whole in a code fence, a block quote or quotation marks is read without
    them. With nothing to bound a post, a reply that only speaks to the user about the post it will write
    holds none (``_speaks_only_to_user``): the body is empty and the reply is the afterword."""
    afterword, unsure = "", None
    preamble, rest = _lead_in(text.strip())
    tagged = _in_tags(rest)
    bounded = tagged[:3] if tagged else _between_rules(rest) or _in_quote(rest)
    if tagged and not tagged[3]:
        unsure = "read the post as what its tags hold; the text after the closing tag is no part of it"
    if bounded is not None:
        intro, body, afterword = bounded
        preamble = "\n".join(p for p in (preamble, intro) if p)
    else:
        spoken, why = _speaks_only_to_user(rest)
        if spoken:  # no post at all: the whole reply is the writer speaking to the user about it
            return Post(preamble=preamble, body="", afterword=rest, unsure=why)
        paragraphs = [p.strip() for p in re.split(r"\n[ \t]*\n", rest) if p.strip()]
        closing: list[str] = []
        # Two remarks at most ("Want it shorter?" then "Hope this helps!"), as two paragraphs of their own.
        while len(paragraphs) > 1 and len(closing) < 2 and _closing_address(paragraphs[-1]):
            closing.insert(0, paragraphs.pop())
        afterword = "\n\n".join(closing)
        body = "\n\n".join(paragraphs)
    fence = _FENCE.match(body)
    if fence:
        body = fence.group(1).strip()
    if all(ln.lstrip().startswith(">") for ln in body.splitlines() if ln.strip()):
        body = "\n".join(_BLOCKQUOTE.sub("", ln) for ln in body.splitlines()).strip()
    quoted = re.fullmatch(r"[\"“](.*)[\"”]", body, re.DOTALL)
    if quoted and not re.search(r"[\"“”]", quoted.group(1)):
        body = quoted.group(1).strip()
    wrapped = _in_tags(body)
    if wrapped and _TAG.fullmatch(wrapped[0]) and _TAG.fullmatch(wrapped[2]):  # tags inside the rules or fence
        body = wrapped[1]
    return Post(preamble=preamble, body=body, afterword=afterword, unsure=unsure)
