"""The one reader of ``Answer: <value>`` lines, shared by the knowledge and long_context graders.

Models are asked to end with ``Answer: <value>`` and answer in many styles: the label in bold or italics, a
heading or a bullet in front, the value in a code span, in ``\\boxed{}`` or display math, with a currency
sign, a unit, a thousands separator or a full stop, with the working on the line (``Answer: 367 + 2 =
369``), with the value on the line under a bare ``Answer:`` label or a ``**Final Answer**`` heading. This
module finds the answer and reads it the same way whatever the style, so that a grader compares values and
never formatting:

- reasoning (a ``<think>`` block, closed or not) is removed first; only the answer text counts;
- the reply is read as it renders (:func:`engine.episodes.structure.prose`): inline chat HTML as the
  Markdown it stands for (:mod:`engine.episodes.chat_html`: ``<b>Answer:</b> 369<br>`` is ``**Answer:**
  369``; a tag the reply only names stays as written), backslash escapes as their character
  (``\\*\\*Answer:\\*\\* 369``), Unicode space and hyphen variants and full-width forms as plain ASCII
  (:mod:`engine.readers.rendered`), code spans and fences as written;
- of several answer lines the last one stands (a model that revises itself ends with the revision); with no
  labelled line, the last ``\\boxed{}`` is the answer;
- a label may carry a qualifier of a word or two ("Corrected answer:", "Revised final answer:", "My updated
  answer:"), read by its grammar, not from a list of the words that commit: a qualifier that makes the value
  something other than the answer committed to (a negation or an error, "Wrong answer:"; a date, "Previous
  answer:"; a possibility, "Alternative answer:"; an illustration, "Example answer:") makes the line no
  answer line (:func:`engine.readers.stance.label_commits`), and the prose reader reads it in the tail;
- Markdown emphasis, headings, bullets, block quotes and LaTeX wrappers are removed from the line, and code
  spans are kept apart (``spans``) so a grader can compare the quoted value alone;
- the text after the answer is kept (``tail``): prose there can revise, hedge or retract the answer, which
  the stance reader (:mod:`engine.readers.stance`) reads, with the candidates a line offers and the number
  it commits to;
- a reply that answers in another language labels its answer in that language ("Antwort: Dana",
  "答案：Tomasz", "답: 89009", "Réponse : 369"). Such a label is read by its structure, not from a list of
  words: with no English label anywhere, a short label (at most three words of letters, no digits) and a
  colon, half- or full-width, on one of the reply's last two lines, holding a value after it, in a reply that
  is not written in the request's language (:mod:`engine.readers.language`): in English, "Total: 369" or
  "Output: fdb3" is another label, not a translation of the one asked for, and gives no answer line;
- a reply that is only the value (one line of at most three words, no label, alone or in a code fence or
  display math of its own, and not a record: a JSON object, an XML element, a YAML ``key: value``) is that
  value. A line inside a code fence is data, never a label in another language: ``owner: Dana`` in a YAML
  block is a key (an English ``Answer:`` line in a fence is still an answer line).

The last two readings say so (``how``): a grader marks a verdict that rests on them unsure.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from engine.episodes.structure import emoji_run, prose
from engine.model.normalise import split_reasoning
from engine.readers.fences import fenced_lines
from engine.readers.inline import Delimiter, unwrap
from engine.readers.language import Language, reply_language
from engine.readers.stance import label_commits

# A block quote, then a heading mark or a bullet / list number, in front of the label.
_LEAD = re.compile(r"^\s*(?:>\s*)*(?:#{1,6}\s+|(?:[-*+•]|\d{1,2}[.)])\s+)?")
# Emphasis pairs (*x*, _x_, **x**, __x__) that do not sit inside a word (so a_b_c and 2*3*4 survive): the
# spans ``(?<![\w*])(\*{1,3}|_{1,3})(?=\S)(.+?)(?<=\S)\1(?![\w*])`` finds, found in linear time.
EMPHASIS = tuple(
    Delimiter(mark, re.compile(rf"(?<![\w*]){re.escape(mark)}(?=\S)"),
              re.compile(rf"(?<=\S)(?={re.escape(mark)}(?![\w*]))"))
    for mark in ("***", "**", "*", "___", "__", "_")
)
# Nested emphasis comes off one layer a pass; real text nests two or three deep, so more passes only ever
# serve a reply built to be slow.
_EMPHASIS_PASSES = 8
# A qualifier of the label: a word or two of letters before "answer" ("Corrected", "revised final"), read by
# the stance reader for whether it commits (``label_commits``).
_QUALIFIER = r"(?P<qualifier>(?:[^\W\d_]+[\s-]+){0,2}?)"
_LABEL = re.compile(
    r"^[\s*_`]*(?:(?:so|thus|therefore|hence)[,\s]+)?(?:(?:the|my|our)\s+)?" + _QUALIFIER + r"answer"
    r"(?:\s+is)?[\s*_`]*[:：]",
    re.IGNORECASE,
)
# A heading that is the label alone ("## Final Answer", "**Final Answer**", "**Corrected Answer**"), without
# a colon: its value is on the next line.
_HEADING_LABEL = re.compile(
    r"^\s*(?:#{1,6}\s+[*_]*" + _QUALIFIER + r"answer[*_]*|(?P<mark>[*_]{1,3})"
    + _QUALIFIER.replace("qualifier", "qualifier2") + r"answer(?P=mark))\s*$", re.IGNORECASE)
# Lines under a bare label that hold no value: a code fence, display-math delimiters.
_FENCE = re.compile(r"^\s*(?:`{3,}\S*|~{3,}\S*|\\\[|\\\]|\$\$)\s*$")
# A code span: a run of backticks, text, the next run. Tried only where a run starts: from inside a run the
# same failing match was tried again at every backtick.
_SPAN = re.compile(r"(?<!`)`+([^`]+)`+")
# The distinct arguments of one LaTeX command unwrapped: each is a replace over the whole text.
_LATEX_ARGUMENTS = 64
# One-line records (:func:`_is_record`): an element with its closing tag, a key (an identifier) with a value.
_XML_ELEMENT = re.compile(r"^<(?P<tag>[^\W\d][\w.:-]*)(?:\s[^>]*)?>.*</(?P=tag)\s*>$")
_MAPPING_ENTRY = re.compile(r"^[^\W\d][\w.-]*:\s+\S")
# Lines looked at under a bare "Answer:" label for its value.
_LOOKAHEAD_LINES = 4
# A label in any language: one to three words of letters (any script; CJK has no spaces, so a word may be a
# few characters), then a colon, ASCII or full-width, and the value. No digits in the label, so a clock
# ("Um 10:05 hat …") or a ratio is never one.
_ANY_LABEL = re.compile(r"^(?P<label>[^\W\d_]{1,20}(?:[ '’-][^\W\d_]{1,20}){0,2})\s?[:：]\s*(?P<value>\S.*)$")
# Of the reply's last lines, how many may hold the labelled answer (a closing sign-off may follow it).
_LAST_LINES = 2
# A reply that is only the value: one line, this short. A value is a word or a few ("Dana", "89 009",
# "10:3,8:1,4:1,3:1", "Dana, not Priya"); four make a sentence ("She would save 85.80."), which is no
# answer line.
_BARE_CHARS = 60
_BARE_WORDS = 3


@dataclass(frozen=True)
class AnswerLine:
    """The value of the last answer line: Markdown removed (``text``), its code spans (``spans``) and the
    reply's text after it (``tail``)."""

    text: str
    spans: tuple[str, ...] = ()
    tail: str = ""
    # How the answer was found when not by an English label or \boxed{}: a note a grader shows as unsure.
    how: str | None = None


def _latex_value(text: str, command: str) -> list[str]:
    """The brace-balanced arguments of every ``\\command{...}`` in ``text``."""
    out = []
    start = 0
    needle = "\\" + command + "{"
    while (at := text.find(needle, start)) >= 0:
        depth, i = 1, at + len(needle)
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        out.append(text[at + len(needle): i - 1] if depth == 0 else text[at + len(needle):])
        start = i
    return out


def _unlatex(text: str) -> str:
    """``$\\boxed{\\text{fdb3}}$`` -> ``fdb3``; text without LaTeX is returned as it is."""
    if "\\" not in text:
        return text
    # Formatting commands (\text{}, \textbf{}, \mathrm{}) and spacing were read with the prose
    # (engine.readers.latex_text); \boxed{} is the answer line's own: it marks the answer.
    for inner in list(dict.fromkeys(_latex_value(text, "boxed")))[:_LATEX_ARGUMENTS]:
        text = text.replace("\\boxed{" + inner + "}", inner)
    text = re.sub(r"\\[()\[\]]", "", text)
    text = text.replace("\\$", "$").replace("\\%", "%")
    # Math-mode dollars in pairs ($369$), then any left that no number follows; "$85.80" keeps its sign.
    text = re.sub(r"\$([^$]+)\$", r"\1", text)
    return re.sub(r"\$(?!\s*\d)", "", text)


def _plain(line: str) -> str:
    """A line without its lead (quote, heading, bullet) and without emphasis markers."""
    line = _LEAD.sub("", line, count=1)
    for _ in range(_EMPHASIS_PASSES):
        previous, line = line, unwrap(line, EMPHASIS, across_lines=False)
        if line == previous:
            break
    return line.replace("**", "")


def _after_symbols(line: str) -> str:
    """``line`` without the run of emoji, symbols and spaces it opens with (:func:`emoji_run`), when one is
    there; a word before the label ("Wrong answer:") is the label's qualifier and stays."""
    at = len(line) - len(line.lstrip())
    found = False
    # Indices, not slices: a reply of many emoji costs time linear in its length.
    while (run := emoji_run(line, at)) > 0:
        found = True
        at += run
        while at < len(line) and line[at].isspace():
            at += 1
    return line[at:] if found and at < len(line) else line


def _value(raw: str, tail: str = "") -> AnswerLine:
    raw = _unlatex(raw.strip())
    spans = tuple(s.strip() for s in _SPAN.findall(raw) if s.strip())
    text = _SPAN.sub(lambda m: m.group(1), raw)
    text = text.strip().strip("*_").strip()
    return AnswerLine(text=text, spans=spans, tail=tail)


def read_answer_line(reply: str, request: str) -> AnswerLine | None:
    """The value of the reply's last answer line, or of its last ``\\boxed{}``, or of a label in another
    language on its last lines (when the reply is not written in the language of ``request``, the text the
    model was sent), or the reply itself when it is one short line; ``None`` when none of these."""
    text, _ = split_reasoning(reply.replace("\r\n", "\n").replace("\r", "\n"))
    # Read as it renders: "<b>Answer:</b> 369<br>" and "\\*\\*Answer:\\*\\* 369" are answer lines.
    text = prose(text)
    lines = text.split("\n")
    found: AnswerLine | None = None
    found_at = 0
    for i, line in enumerate(lines):
        plain = _plain(line)
        # Emoji and other symbols before the label ("✅ Answer:", "👉 **Answer:**") read as a bullet does.
        plain = _after_symbols(plain)
        label = _LABEL.match(plain)
        heading = None if label else _HEADING_LABEL.match(line)
        if not label and not heading:
            continue
        qualifier = label.group("qualifier") if label else heading.group("qualifier") or heading.group("qualifier2")
        if not label_commits(qualifier or ""):
            continue  # "Wrong answer: 4471", "Alternative answer: 4471": left to the prose reader in the tail
        rest = plain[label.end():].strip() if label else ""
        at = i
        if not rest.strip("*_` "):
            # A bare label ("**Answer:**", "### Answer:"): the value is on the next line that holds text.
            below = [j for j in range(i + 1, min(len(lines), i + 1 + _LOOKAHEAD_LINES))
                     if lines[j].strip() and not _FENCE.match(lines[j])]
            if not below:
                continue
            at = below[0]
            rest = _plain(lines[at])
        value = _value(rest)
        if value.text:
            found, found_at = value, at
    if found is not None:
        # The tail of the last answer line only: joined for every line, it made a reply of many quadratic.
        return AnswerLine(text=found.text, spans=found.spans, tail="\n".join(lines[found_at + 1:]))
    boxed = _latex_value(text, "boxed")
    if boxed and boxed[-1].strip():
        line_end = text.find("\n", text.rfind("\\boxed{"))
        return _value("\\boxed{" + boxed[-1] + "}", text[line_end + 1:] if line_end >= 0 else "")
    return _any_label(lines, reply_language(text, request)) or _bare(lines)


def _any_label(lines: list[str], language: Language) -> AnswerLine | None:
    """The value under a short label in any language on one of the reply's last lines ("Antwort: Dana"), in a
    reply that is not in the request's language: in the request's own language the label the model was asked
    for is "Answer", so another one ("Total:", "Output:") is no translation of it and gives no answer line.
    A reply with too little prose to show its language keeps the label, and the reading says so."""
    if language is Language.SAME:
        return None
    # A line inside a code fence is data: "owner: Dana" in a YAML block is a key, not a translated label.
    fenced = fenced_lines(lines)
    filled = [i for i, line in enumerate(lines) if line.strip() and not _FENCE.match(line) and i not in fenced]
    for i in reversed(filled[-_LAST_LINES:]):
        m = _ANY_LABEL.match(_plain(lines[i]).strip())
        if m is None:
            continue
        value = _value(m.group("value"))
        if value.text:
            label = m.group("label")
            language_note = "" if language is Language.OTHER else f" ({language.value})"
            return AnswerLine(text=value.text, spans=value.spans, tail="\n".join(lines[i + 1:]),
                              how=f"answer read after the label {label!r}, not 'Answer:'{language_note}")
    return None


def _bare(lines: list[str]) -> AnswerLine | None:
    """The whole reply as its value when it is one short line, alone or inside a fence of its own (a reply of
    only "```\nfdb3\n```" shows the reader nothing but the value)."""
    filled = [line for line in lines if line.strip() and not _FENCE.match(line)]
    if len(filled) != 1:
        return None
    line = _plain(filled[0]).strip()
    if len(line) > _BARE_CHARS or len(line.split()) > _BARE_WORDS or _is_record(line):
        return None
    value = _value(line)
    return AnswerLine(text=value.text, spans=value.spans, how="the whole one-line reply read as the answer "
                                                              "(no 'Answer:' label)") if value.text else None


def _is_record(line: str) -> bool:
    """Whether a line is a record whose fields hold values, not a value: a JSON object ("{"answer": 369}"),
    an XML element ("<owner>Dana</owner>") or a YAML mapping entry ("owner: Dana": a key, a colon and a
    space; "10:3,8:1" and "10:05" have no space and stay values)."""
    if _XML_ELEMENT.match(line) or _MAPPING_ENTRY.match(line):
        return True
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def answered_before_cut(reply: str) -> bool:
    """Whether a reply cut by the token limit had already given its answer: an English answer line (or a
    ``\\boxed{}``) with more text after it, so the cut fell in what followed and not in the value. A label
    in another language or a bare reply is read only at the reply's end, where the cut may have clipped it."""
    # Only an English label counts here, so the request's language is not needed.
    line = read_answer_line(reply, "")
    return line is not None and line.how is None and bool(line.tail.strip())
