"""The one reader of ``Answer: <value>`` lines, shared by the knowledge and long_context graders.

Models are asked to end with ``Answer: <value>`` and answer in many styles: the label in bold or italics, a
heading or a bullet in front, the value in a code span, in ``\\boxed{}``, with a currency sign, a unit, a
thousands separator or a full stop, with the working on the line (``Answer: 367 + 2 = 369``), with the value
on the line under a bare ``Answer:`` label. This module reads all of them the same way, so that a grader
compares values and never formatting:

- reasoning (a ``<think>`` block, closed or not) is removed first; only the answer text counts;
- of several answer lines the last one stands (a model that revises itself ends with the revision); with no
  labelled line, the last ``\\boxed{}`` is the answer;
- Markdown emphasis, headings, bullets, block quotes and LaTeX wrappers are removed from the line, and code
  spans are kept apart (``spans``) so a grader can compare the quoted value alone;
- :func:`alternatives` cuts a value into the candidates it offers ("X or Y", "X (or Y)", "X / Y",
  "either X or Y", "between X and Y", "X (Y if ...)"), so a grader can reject a hedge instead of picking the
  candidate that happens to be right;
- :func:`final_number` reads the committed number of one candidate: after the last ``=`` (or arrow) where
  working is shown, outside parentheses where the line explains itself, with currency signs, units,
  thousands separators and a decimal comma understood.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from engine.model.normalise import split_reasoning

# A block quote, then a heading mark or a bullet / list number, in front of the label.
_LEAD = re.compile(r"^\s*(?:>\s*)*(?:#{1,6}\s+|(?:[-*+•]|\d{1,2}[.)])\s+)?")
# Emphasis pairs (*x*, _x_, **x**, __x__) that do not sit inside a word (so a_b_c and 2*3*4 survive).
_EMPHASIS = re.compile(r"(?<![\w*])(\*{1,3}|_{1,3})(?=\S)(.+?)(?<=\S)\1(?![\w*])")
_LABEL = re.compile(
    r"^[\s*_`]*(?:(?:so|thus|therefore|hence)[,\s]+)?(?:the\s+)?(?:final\s+|correct\s+)?answer"
    r"(?:\s+is)?[\s*_`]*[:：]",
    re.IGNORECASE,
)
# A heading that is the label alone ("## Final Answer"), without a colon: its value is on the next line.
_HEADING_LABEL = re.compile(r"^\s*#{1,6}\s+[*_]*(?:final\s+)?answer[*_]*\s*$", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(?:`{3,}|~{3,})\S*\s*$")
_SPAN = re.compile(r"`+([^`]+?)`+")
# Lines looked at under a bare "Answer:" label for its value.
_LOOKAHEAD_LINES = 4


@dataclass(frozen=True)
class AnswerLine:
    """The value of the last answer line: Markdown removed (``text``) and its code spans (``spans``)."""

    text: str
    spans: tuple[str, ...] = ()


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
    for command in ("boxed", "text", "textbf", "mathrm", "mathbf"):
        for inner in _latex_value(text, command):
            text = text.replace("\\" + command + "{" + inner + "}", inner)
    text = re.sub(r"\\[()\[\]]", "", text)
    text = text.replace("\\$", "$").replace("\\%", "%").replace("\\,", "").replace("\\!", "")
    # Math-mode dollars in pairs ($369$), then any left that no number follows; "$85.80" keeps its sign.
    text = re.sub(r"\$([^$]+)\$", r"\1", text)
    return re.sub(r"\$(?!\s*\d)", "", text)


def _plain(line: str) -> str:
    """A line without its lead (quote, heading, bullet) and without emphasis markers."""
    line = _LEAD.sub("", line, count=1)
    previous = None
    while previous != line:
        previous, line = line, _EMPHASIS.sub(r"\2", line)
    return line.replace("**", "")


def _value(raw: str) -> AnswerLine:
    raw = _unlatex(raw.strip())
    spans = tuple(s.strip() for s in _SPAN.findall(raw) if s.strip())
    text = _SPAN.sub(lambda m: m.group(1), raw)
    text = text.strip().strip("*_").strip()
    return AnswerLine(text=text, spans=spans)


def read_answer_line(reply: str) -> AnswerLine | None:
    """The value of the reply's last answer line, or of its last ``\\boxed{}``; ``None`` when it has neither."""
    text, _ = split_reasoning(reply.replace("\r\n", "\n").replace("\r", "\n"))
    lines = text.split("\n")
    found: AnswerLine | None = None
    for i, line in enumerate(lines):
        plain = _plain(line)
        label = _LABEL.match(plain)
        if not label and not _HEADING_LABEL.match(line):
            continue
        rest = plain[label.end():].strip() if label else ""
        if not rest.strip("*_` "):
            # A bare label ("**Answer:**", "### Answer:"): the value is on the next line that holds text.
            below = [ln for ln in lines[i + 1: i + 1 + _LOOKAHEAD_LINES] if ln.strip() and not _FENCE.match(ln)]
            if not below:
                continue
            rest = _plain(below[0])
        value = _value(rest)
        if value.text:
            found = value
    if found is not None:
        return found
    boxed = _latex_value(text, "boxed")
    if boxed and boxed[-1].strip():
        return _value("\\boxed{" + boxed[-1] + "}")
    return None


# --------------------------------------------------------------------------------------------------------
# Candidates: the values a line offers


_BETWEEN = re.compile(r"\bbetween\s+(.+?)\s+and\s+", re.IGNORECASE)
_ALT_SPLIT = re.compile(
    r"\s*(?:\band/or\b|\bor\b|\beither\b|\botherwise\b|\belse\b|\balternatively\b|\bmaybe\b|\bperhaps\b"
    r"|\bpossibly\b|(?<=\s)/(?=\s))\s*",
    re.IGNORECASE,
)
# A parenthesis that offers another case ("(or 402)", "(367 if the boxes do not count)") is a candidate.
ALTERNATIVE_WORD = re.compile(
    r"\b(?:or|if|unless|otherwise|else|alternatively|maybe|perhaps|possibly|depending)\b", re.IGNORECASE)
_PAREN = re.compile(r"\(([^()]*)\)|\[([^\[\]]*)\]")


def alternatives(value: str) -> list[str]:
    """The candidates ``value`` offers, in order: one item for a committed answer, two or more for a hedge.

    A parenthesis that explains ("369 (367 sold + 2 boxes)") stays with its candidate; one that offers
    another case ("369 (or 402)", "369 (367 if the boxes do not count)") is a candidate of its own.
    """
    text = _BETWEEN.sub(r"\1 or ", value)
    offered: list[str] = []

    def pull(match: re.Match[str]) -> str:
        inner = match.group(1) if match.group(1) is not None else match.group(2)
        if ALTERNATIVE_WORD.search(inner):
            offered.append(inner)
            return " "
        return match.group(0)

    text = _PAREN.sub(pull, text)
    parts = [*_ALT_SPLIT.split(text)]
    for inner in offered:
        parts.extend(_ALT_SPLIT.split(inner))
    return [p.strip(" ,;:.") for p in parts if p.strip(" ,;:.")]


# --------------------------------------------------------------------------------------------------------
# Numbers


# 1,234,567.89 | 1234.5 | 85,80 (a decimal comma: exactly two digits after it). Not inside a word (fdb3).
_NUMBER = re.compile(r"(?<![\w.,])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+|,\d{2}(?![\d,]))?(?![\w])")
# Working on the line: the committed value follows the last of these.
# A word counts only when a number follows it at once ("total 369", not "369 total, i.e. 367 + 2").
_WORKING = re.compile(
    r"=|≈|→|⇒|->|=>|\b(?:equals|(?:in\s+)?total(?:\s+of)?|gives|giving|makes)\b(?=\s*:?\s*[$€£]?\s*-?\d)",
    re.IGNORECASE)


def parse_number(text: str) -> Decimal | None:
    """``"1,234.50"`` / ``"85,80"`` / ``"-17"`` as a Decimal; ``None`` for anything else."""
    text = text.strip().replace("−", "-")
    if "," in text:
        thousands = re.fullmatch(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?", text)
        text = text.replace(",", "") if thousands else text.replace(",", ".")
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


def numbers(text: str) -> list[Decimal]:
    """Every number in ``text``, in order (currency signs and units around them do not matter)."""
    text = text.replace("−", "-").replace("\u202f", "").replace("\u00a0", " ")
    out = []
    for match in _NUMBER.finditer(text):
        value = parse_number(match.group(0))
        if value is not None:
            out.append(value)
    return out


def final_number(candidate: str) -> Decimal | None:
    """The number one candidate commits to: after the last ``=`` (or arrow, "total") that is followed by a
    number, outside parentheses; the first number there. ``None`` when it holds no number."""
    outside = _PAREN.sub(" ", candidate)
    for cut in reversed(list(_WORKING.finditer(outside))):
        after = numbers(outside[cut.end():])
        if after:
            return after[0]
    found = numbers(outside) or numbers(candidate)
    return found[0] if found else None
