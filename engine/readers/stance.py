"""The stance reader: which of the values a reply names it commits to, and which it sets aside or hedges.

A reply names more than its answer: the working, the trap it avoided, the old value it replaces, a second
value it is not sure about. A grader must tell them apart by how the text treats each value, not by where
it stands. The rules, each used by every grader that reads an answer:

- **Set aside.** A value inside a negation's scope is rejected: the negation before it ("not 4471",
  "rather than Priya", "Dana, not Priya"), up to the end of its clause ("not X but Y" names Y), or after
  it, on its own predicate ("4471 was retired", "Priya isn't the owner", "Priya handed it to Dana"). The
  same holds for a value the text dates ("formerly 4471", "the old 4471", "from Priya").
- **Asides.** A line is its head (the answer) and its asides: parentheses, and clauses after a comma,
  semicolon or dash, or opened by a subordinating word ("while", "which", "because"). A value in an aside
  that has words of its own is said of something else ("9082 (the west store uses 5530)") and is no second
  answer; a bare value in an aside ("9082; 4471", "9082 (4471)") is one, and so is a value in an aside that
  offers a case or a doubt ("(or 4471)", "(367 if the boxes do not count)").
- **The last committed stance wins.** After the answer, prose that gives another value as the answer
  ("Actually, wait: the answer is 367") revises it, prose that offers another value as a possibility ("or
  possibly 4471", "if only loaves count it is 367") or as a fallback in case the answer fails ("If that
  doesn't open it, try 4471", on any line after the answer) hedges it, and prose that calls the answer wrong without
  giving another retracts it. A value in later prose that does neither (the working, restated) is neither.
- **The committed number** of a candidate is the one after the last ``=`` or arrow where working is shown,
  outside parentheses, and not set aside ("not 367 but 369" is 369).
- **A qualified label** ("Corrected answer:", "Wrong answer:") commits to its value unless its qualifier
  negates it or calls it an error, dates it, offers it as a possibility or as an illustration
  (:func:`label_commits`); the answer-line reader reads the last committed label as the answer.

The word classes below are grammar, not domain vocabulary: negators, the past-marking words that date a
value, subordinators, the coordinators and modal words of a hedge, and the discourse markers of a revision.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.readers.quantity import Quantity, quantities

# ---------------------------------------------------------------------------------------------------------
# Negation scope

# Where a negation's scope ends: a sentence or clause mark, or "but" ("not X but Y" names Y).
_SCOPE_END = re.compile(r"[.!?;:](?=\s|$)|\n|\bbut\b|\bhowever\b|[—–]", re.IGNORECASE)
# A negated auxiliary, with or without its apostrophe (graders may strip quotes): isn't, doesnt, can't, won't.
_NEGATED_AUX = (r"(?:do|does|did|is|was|are|were|ca|wo|has|have|had|could|would|should|must|need)n['’]?t\b"
                r"|cannot\b")
# Before a value: a negation or a word that dates it, at most three words before it.
_SET_ASIDE_BEFORE = re.compile(
    r"\b(?:(?:not|never|no\s+longer|nor|neither|formerly|previously|originally|initially|earlier|old|former"
    r"|used\s+to\s+be|instead\s+of|rather\s+than|other\s+than|replac(?:es|ed|ing)|retired|superseded"
    rf"|over\s+from|from|except|unlike|excluding|ignoring)\b|{_NEGATED_AUX})[^\w]*(?:[\w'’-]+[^\w]+){{0,3}}$",
    re.IGNORECASE)
# After a value, on its own predicate (no comma between: in "Dana, not Priya" the negation is Priya's): an
# auxiliary, then a negation or a word that retires or hands it on.
_SET_ASIDE_AFTER = re.compile(
    rf"^(?:['’]?s)?\s+(?:{_NEGATED_AUX}|(?:(?:is|was|are|were|has|had|have|does|did|do|will|would|should|got"
    r"|being|been|now|then)(?:\s+been)?\s+)?(?:not\b|no\s+longer\b|never\b|retired|replaced|superseded"
    r"|outdated|stale|expired|obsolete|revoked|former\b|old\b|handed|gave|passed|only\s+mentions?))",
    re.IGNORECASE)


# How far from a value its negation is looked for: both patterns need only a few words, and a bound keeps
# the reader linear on a reply of any length.
_REACH = 160


def set_aside_before(text: str, start: int, since: int = 0) -> bool:
    """Whether the value starting at ``text[start]`` is negated or dated by words before it, in its own
    clause ("not 369", "rather than Dana", "the old 4471"): the half of :func:`set_aside` that contrasts a
    value with another one ("367, not 369")."""
    before = text[max(since, start - _REACH):start]
    ends = [m.end() for m in _SCOPE_END.finditer(before)]
    before = before[ends[-1]:] if ends else before
    return bool(_SET_ASIDE_BEFORE.search(before))


def set_aside(text: str, start: int, end: int, since: int = 0, until: int | None = None) -> bool:
    """Whether the value at ``text[start:end]`` is negated or dated. ``since``/``until`` bound the words
    looked at (a grader passes the neighbouring values' ends, so that one value's negation is not read as
    another's: in "from Priya to Dana" only Priya is set aside)."""
    if set_aside_before(text, start, since):
        return True
    after = text[end:min(until if until is not None else len(text), end + _REACH)]
    cut = _SCOPE_END.search(after)
    after = after[:cut.start()] if cut else after
    return bool(_SET_ASIDE_AFTER.search(after))


# Two values joined by a coordinator share a negation: "not Odile or Ines", "Odile and Ines never went".
_COORDINATED = re.compile(r"^[\s,]*(?:or|and|nor|&|/)?[\s,]*$", re.IGNORECASE)


def set_aside_each(text: str, spans: Sequence[tuple[int, int]]) -> list[bool]:
    """:func:`set_aside` for each of several values (``spans`` in order), each bounded by its neighbours,
    with a negation shared across a coordination: in "not Odile or Ines" and "Odile and Ines never went"
    both are set aside."""
    out = [set_aside(text, s, e, spans[i - 1][1] if i else 0, spans[i + 1][0] if i + 1 < len(spans) else None)
           for i, (s, e) in enumerate(spans)]
    for order in (range(1, len(spans)), range(len(spans) - 2, -1, -1)):
        for i in order:
            j = i - 1 if order.step == 1 else i + 1
            between = text[spans[j][1]:spans[i][0]] if j < i else text[spans[i][1]:spans[j][0]]
            if out[j] and not out[i] and _COORDINATED.match(between):
                out[i] = True
    return out


# ---------------------------------------------------------------------------------------------------------
# Head and asides

# A word that offers another case, a doubt or a second value.
HEDGE_WORD = re.compile(
    r"\b(?:or|if|unless|otherwise|else|alternatively|maybe|perhaps|possibly|probably|might|could|either"
    r"|depending|also|too|and/or)\b", re.IGNORECASE)
_PAREN = re.compile(r"\(([^()]*)\)|\[([^\[\]]*)\]")
# Where an aside starts outside parentheses: a comma, semicolon, colon, dash or sentence end, or a
# subordinating word.
_ASIDE_BREAK = re.compile(
    r"[,;]\s|:\s|(?<=[.!?])\s+|\s[—–-]\s|[—–]|\s(?=(?:while|whereas|which|who|whose|because|since|as|though|although|after"
    r"|when|where|unlike|replacing|instead|given|so|per)\b)", re.IGNORECASE)
_FILLER = re.compile(r"[\W_]+")
# A value joined to the answer in an aside is a second answer: "Dana, with Priya", "9082 (and 4471)".
_JOINED = re.compile(r"(?:\band|&|\+|\bplus|\bwith|\bas\s+well\s+as|\balong\s+with|\btogether\s+with|\bboth)"
                     r"[^\w]*$", re.IGNORECASE)

Role = str  # "head", "aside", "hedged", "bare", "set aside"


@dataclass(frozen=True)
class Mention:
    """A value a grader looks for, where it stands in a text, and what it is (``key``: the value as the
    grader compares it, e.g. a Decimal or a name as the task spells it)."""

    start: int
    end: int
    key: object


class _Segments:
    """The parentheses and aside breaks of one line, found once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.parens = [(m.start(), m.end()) for m in _PAREN.finditer(text)]
        blanked = _PAREN.sub(lambda m: " " * len(m.group(0)), text)
        breaks = list(_ASIDE_BREAK.finditer(blanked))
        self.ends = [m.end() for m in breaks]
        self.starts = [m.start() for m in breaks]

    def at(self, at: int) -> tuple[int, int, bool]:
        """(start, end, in parentheses) of the head or aside that holds position ``at``."""
        i = bisect.bisect_right(self.parens, (at, len(self.text))) - 1
        if i >= 0 and self.parens[i][0] < at < self.parens[i][1]:
            return self.parens[i][0] + 1, self.parens[i][1] - 1, True
        i = bisect.bisect_right(self.ends, at) - 1
        start = self.ends[i] if i >= 0 else 0
        j = bisect.bisect_left(self.starts, at)
        end = self.starts[j] if j < len(self.starts) else len(self.text)
        return start, end, False


def roles(text: str, mentions: Sequence[Mention]) -> list[tuple[Mention, Role]]:
    """How ``text`` (one answer line) treats each mention: ``head`` (in the main clause), ``set aside``
    (negated or dated), ``hedged`` (in an aside that offers a case or a doubt, or joined to the answer
    there: "Dana, with Priya"), ``bare`` (alone in an aside: a second answer) or ``aside`` (in an aside with
    words of its own: said of something else). When the head only rejects ("Priya isn't the owner; Dana is"),
    the first value of its asides is the head."""
    ordered = sorted(mentions, key=lambda m: m.start)
    rejected = set_aside_each(text, [(m.start, m.end) for m in ordered])
    segments = _Segments(text)
    out: list[tuple[Mention, Role]] = []
    for m, is_rejected in zip(ordered, rejected, strict=True):
        if is_rejected:
            out.append((m, "set aside"))
            continue
        start, end, in_parens = segments.at(m.start)
        if start == 0 and not in_parens:
            out.append((m, "head"))
            continue
        segment = text[start:end]
        rest = segment[:m.start - start] + segment[m.end - start:]
        if HEDGE_WORD.search(rest) or _JOINED.search(text[start:m.start]):
            out.append((m, "hedged"))
        elif not _FILLER.sub("", rest):
            out.append((m, "bare"))
        else:
            out.append((m, "aside"))
    # A head that only rejects ("Priya isn't the owner any more; Dana is") hands the answer to the first
    # value of the asides after it.
    if not any(role == "head" for _, role in out) and any(role == "set aside" for _, role in out):
        first = next((i for i, (_, role) in enumerate(out) if role == "aside"), None)
        if first is not None:
            out[first] = (out[first][0], "head")
    return out


OFFERED = frozenset({"head", "hedged", "bare"})


# ---------------------------------------------------------------------------------------------------------
# Candidates of one line


_BETWEEN = re.compile(r"\bbetween\s+", re.IGNORECASE)
_AND = re.compile(r"(?<!\s)\s+and\s+", re.IGNORECASE)  # from where the spaces start, so a long run is read once
_AND_HERE = re.compile(r"and\s+", re.IGNORECASE)
# Tried only where a run of spaces starts (or at a non-space): from inside a run the same failing match was
# tried again at every character, which made a long run quadratic.
_ALT_SPLIT = re.compile(
    r"(?:(?<!\s)|(?=\S))\s*(?:\band/or\b|\bor\b|\beither\b|\botherwise\b|\belse\b|\balternatively\b|\bmaybe\b|\bperhaps\b"
    r"|\bpossibly\b|(?<=\s)/(?=\s))\s*",
    re.IGNORECASE)
# A parenthesis that offers another case ("(or 402)", "(367 if the boxes do not count)") is a candidate.
ALTERNATIVE_WORD = re.compile(
    r"\b(?:or|if|unless|otherwise|else|alternatively|maybe|perhaps|possibly|depending)\b", re.IGNORECASE)


def _between_as_or(text: str) -> str:
    """``between A and B`` read as ``A or B``, as the lazy pattern ``between\\s+(.+?)\\s+and\\s+`` substituted it
    (A on one line: ``.`` stops at a newline), without scanning to the end of the text again for every
    "between" that has no "and" after it."""
    out: list[str] = []
    at = scan = 0
    # The last search for " and ": where it started and what it found (None: none at or after that start).
    # A later search from a start no further than what was found finds the same, so each part of the text is
    # scanned about once.
    searched_from, close_found = len(text) + 1, None
    line_end = -2  # the first newline at or after the last "between" (-1: none), found once per line
    while (m := _BETWEEN.search(text, scan)) is not None:
        start = m.end() + 1
        if not (searched_from <= start and (close_found is None or start <= close_found.start())):
            searched_from, close_found = start, _AND.search(text, start)
        close = close_found
        if line_end != -1 and line_end < m.end():
            line_end = text.find("\n", m.end())
        if close is not None and (line_end < 0 or close.start() <= line_end):
            inner, end = text[m.end():close.start()], close.end()
        else:
            # The pattern's last resort: "and" right after the spaces, the value one of them (the last that is
            # no newline), at least one space left before it.
            here = _AND_HERE.match(text, m.end())
            one = next((i for i in range(m.end() - 2, m.start() + len("between"), -1) if text[i] != "\n"), None) \
                if here is not None else None
            if here is None or one is None:
                scan = m.start() + 1
                continue
            inner, end = text[one], here.end()
        out += [text[at:m.start()], inner, " or "]
        at = scan = end
    out.append(text[at:])
    return "".join(out)


# A chain of working ("16 × 24 − 17 + ⌊17 / 6⌋ = 384 − 17 + 2 = 369") is one value, the last it commits to:
# a " / " in the arithmetic before an equals sign divides, it does not offer a second candidate as it does
# in "369 / 367". The arithmetic is the run of digits, operators, brackets and spaces that ends at the sign.
_EQUALS = re.compile(r"=|≈")
_ARITHMETIC = frozenset("0123456789 \t.,+-−–×*·/÷^%()[]⌊⌋⌈⌉$€£")
_DIVIDES = "\ue000"  # stands in for a dividing slash while the candidates are split


def _divisions_kept(text: str) -> str:
    """``text`` with each " / " inside working before an equals sign written as ``_DIVIDES``."""
    if "/" not in text or _DIVIDES in text:
        return text
    chars = list(text)
    floor = 0  # the runs are disjoint: each character is looked at once
    for sign in _EQUALS.finditer(text):
        i = sign.start() - 1
        while i >= floor and text[i] in _ARITHMETIC:
            if text[i] == "/" and 0 < i < len(text) - 1 and text[i - 1].isspace() and text[i + 1].isspace():
                chars[i] = _DIVIDES
            i -= 1
        floor = sign.end()
    return "".join(chars)


def alternatives(value: str) -> list[str]:
    """The candidates ``value`` offers, in order: one item for a committed answer, two or more for a hedge.

    A parenthesis that explains ("369 (367 sold + 2 boxes)") stays with its candidate; one that offers
    another case ("369 (or 402)", "369 (367 if the boxes do not count)") is a candidate of its own. A chain
    of working stays one candidate ("738 / 2 = 369"), whose committed number is its last.
    """
    text = _between_as_or(value)
    offered: list[str] = []

    def pull(match: re.Match[str]) -> str:
        inner = match.group(1) if match.group(1) is not None else match.group(2)
        if ALTERNATIVE_WORD.search(inner):
            offered.append(inner)
            return " "
        return match.group(0)

    text = _divisions_kept(_PAREN.sub(pull, text))
    parts = [*_ALT_SPLIT.split(text)]
    for inner in offered:
        parts.extend(_ALT_SPLIT.split(inner))
    return [p.strip(" ,;:.").replace(_DIVIDES, "/") for p in parts if p.strip(" ,;:.")]


# ---------------------------------------------------------------------------------------------------------
# The committed number of a candidate

# Working on the line: the committed value follows the last of these.
# A word counts only when a number follows it at once ("total 369", not "369 total, i.e. 367 + 2").
_WORKING = re.compile(
    r"=|≈|→|⇒|->|=>|\b(?:equals|(?:in\s+)?total(?:\s+of)?|gives|giving|makes|comes\s+to)\b(?=\s*:?\s*[$€£]?\s*-?\d)",
    re.IGNORECASE)
# "one" in "the one with" or "this one" is a pronoun more often than a count: prose around an answer (the
# sentences after it, a reply without an answer line) does not count it as a value.
_PRONOUN_ONE = re.compile(r"^(?:one|a|an)$", re.IGNORECASE)


def numbers(text: str) -> list[Quantity]:
    """The quantities ``text`` states that can be an answer (times of day are left out)."""
    return [q for q in quantities(text) if not (q.unit and q.unit.measures == "time of day")]


def prose_numbers(text: str) -> list[Quantity]:
    """:func:`numbers` in prose around an answer: a lone spelled "one" is left out too."""
    return [q for q in numbers(text) if not (q.spelled and _PRONOUN_ONE.match(q.text))]


def _kept(text: str, found: list[Quantity]) -> list[Quantity]:
    rejected = set_aside_each(text, [(q.start, q.end) for q in found])
    return [q for q, is_rejected in zip(found, rejected, strict=True) if not is_rejected]


def committed_number(candidate: str) -> Quantity | None:
    """The number one candidate commits to: after the last ``=`` (or arrow, "total") that a number
    follows, outside parentheses, not set aside; the first such number there. None when it holds none."""
    outside = _PAREN.sub(lambda m: " " * len(m.group(0)), candidate)
    kept = _kept(outside, numbers(outside))
    starts = [q.start for q in kept]
    for cut in reversed(list(_WORKING.finditer(outside))):
        i = bisect.bisect_left(starts, cut.end())
        if i < len(kept):
            return kept[i]
    found = kept or numbers(candidate)
    return found[0] if found else None


# ---------------------------------------------------------------------------------------------------------
# What prose after the answer does to it

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)|\n+")
# A note's label in front of a sentence: an abbreviation ("P.S.", "P.P.S.", "N.B.") or a word or two and a
# colon or dash ("PS:", "Note:", "Edit —"). A postscript is text after the answer like any other: the
# discourse marker after its label opens the sentence all the same ("P.S.: on second thought, ..."). A bare
# "no" after a label is the label's value ("Refund issued: no, ..."), not a marker.
_NOTE_LABEL = r"(?:(?:[^\W\d_]\.){1,4}|[^\W\d_]{1,15}(?:\s+[^\W\d_]{1,15})?(?:\s*[:—–]|\s+-))[^\w]*"
# A revision: a discourse marker opening the sentence (after a note's label, if any) that takes back what came
# before, a word for an error, or the answer named again ("the correct answer is").
_REVISION = re.compile(
    r"^[^\w]*(?:" + _NOTE_LABEL + r"(?!no\b))?(?:(?:hmm+|oh|ok(?:ay)?|so|but)\b[^\w]*)*"
    r"(?:wait|actually|correction|oops|sorry|no(?=\s*[,;:!—–-])"
    r"|on\s+second\s+thought|scratch\s+that|let\s+me\s+(?:redo|re-?check|recalculate|correct))\b"
    r"|\b(?:mistake|miscounted|misread|miscalculated|I\s+was\s+wrong|I\s+meant)\b"
    r"|\b(?:(?:final|correct|right|real|true|actual)\s+answer|answer\s+(?:is|should|would|must|becomes))\b",
    re.IGNORECASE)


def revises(sentence: str) -> bool:
    """Whether ``sentence`` takes back what came before it: a discourse marker opening it ("Correction",
    "Actually", "Wait"), an error owned ("I misread", "my mistake", "I meant") or the answer named again.
    The claim reader reads a final message's own corrections through this (:mod:`engine.world.claims`)."""
    return _REVISION.search(sentence) is not None


# Calling the answer wrong.
_WRONG = re.compile(r"\b(?:wrong|incorrect|not\s+(?:right|correct)|mistake|error|doesn['’]?t\s+hold)\b",
                    re.IGNORECASE)
# A possibility offered: a coordinator or modal word (or its adjective on the answer: "Alternative answer:
# 4471") right before the value, or one after it. The noun is no offer: "the best alternative is Valencia"
# answers, after the first candidate was ruled out.
_OFFER_BEFORE = re.compile(
    r"\b(?:or|maybe|perhaps|possib(?:ly|le)|alternative(?:ly|\s+answer)|otherwise|could\s+(?:also\s+)?be|might\s+"
    r"(?:also\s+)?be|may\s+(?:also\s+)?be)\b[^\w]*(?:[\w'’-]+[^\w]+){0,2}$", re.IGNORECASE)
_OFFER_AFTER = re.compile(r"^[^\w]*(?:(?:might|may|could)\s+(?:also\s+|still\s+)?be\s+(?:the|it|right|correct"
                          r"|an?\s+answer)\b|(?:is|would\s+be)\s+(?:also\s+)?possible\b)", re.IGNORECASE)
# A condition that gives another value as the answer: "if only loaves count, it would be 367".
_CONDITION = re.compile(r"\b(?:if|unless|depending)\b", re.IGNORECASE)
_ANSWER_FRAME = re.compile(r"\b(?:answer|total|result|it|that|this)(?:['’]d|\s+(?:would|could|might))\s+(?:\w+\s+)?"
                           r"(?:be|become|come\s+to)\b|\b(?:answer|total|result)\s+(?:is|becomes)\b", re.IGNORECASE)
# A condition on the answer failing works as "otherwise": a value outside it is a fallback, offered in case
# the answer is wrong ("If that doesn't open it, try 4471", "4471 if 9082 is rejected", "If not, 4471"). Its
# subject is the answer or a thing (a personal pronoun makes it the reader's act: "if you don't round down,
# 17 batches need 51 kg" explains). The condition runs to the next comma, colon or "then". "Should" makes a
# condition only opening its clause, inverted ("Should that fail, use 4471"); inside one it is a modal ("the
# boxes should not be counted, so the total is 367" revises, it offers no fallback).
_FAILING_CONDITION = re.compile(
    r"(?:\b(?:if|in\s+case)|(?:^|(?<=[,;:(—–]))\s*should)\s+(?:not\b|(?!(?:i|you|we|they|he|she|one|someone|anyone|people)\b)"
    r"(?:[\w'’-]+\s+){1,3}?(?:(?:is|was|are|were|turns?\s+out(?:\s+to\s+be)?|proves?(?:\s+to\s+be)?)\s+)?"
    rf"(?:{_NEGATED_AUX}|not\b|never\b|no\s+longer\b|fails?\b|failed\b|wrong\b|incorrect\b|invalid\b"
    r"|rejected\b|refused\b))|\bfailing\s+that\b", re.IGNORECASE)
_CONDITION_END = re.compile(r"[,;:]|\bthen\b", re.IGNORECASE)
_DOUBT = re.compile(r"\b(?:not\s+(?:completely\s+|entirely\s+|100%\s+|fully\s+|quite\s+)?(?:sure|certain)"
                    r"|unsure|uncertain|I\s+(?:may|might)\s+be\s+wrong)\b", re.IGNORECASE)


@dataclass(frozen=True)
class After:
    """What the prose after an answer does to it: the mention that ``revised`` it (the new answer) and the
    sentence that did; the sentence that ``hedged`` it with another value; the sentence that ``retracted``
    it without giving another; a sentence voicing ``doubt`` without another value (the answer stands). A
    later sentence that affirms the answer again ("No, 369 is right") undoes a hedge or a retraction."""

    revised: Mention | None = None
    revised_in: str = ""
    hedged: str | None = None
    retracted: str | None = None
    doubt: str | None = None


def after_answer(tail: str, answer: object, find: Callable[[str], Sequence[Mention]]) -> After:
    """Read ``tail`` (the text after the answer) sentence by sentence: ``find`` gives the values one
    sentence names, ``answer`` is the answer's own key. The last sentence that revises, hedges or retracts
    decides, and each revision becomes the answer the sentences after it are read against; a sentence that
    only names values (the working again) changes nothing."""
    decided: After = After()
    doubt: str | None = None
    current = answer
    for sentence in _SENTENCE.split(tail):
        sentence = sentence.strip()
        if not sentence:
            continue
        found = sorted(find(sentence), key=lambda m: m.start)
        rejected = set_aside_each(sentence, [(m.start, m.end) for m in found])
        kept = [m for m, is_rejected in zip(found, rejected, strict=True) if not is_rejected]
        others = [m for m in kept if m.key != current]
        revises = _REVISION.search(sentence) is not None
        if not found:
            if revises and _WRONG.search(sentence):
                decided = After(retracted=sentence)
            elif _DOUBT.search(sentence):
                doubt = sentence
            continue
        if _fallback(sentence, found, current):
            decided = After(hedged=sentence)
            continue
        if not others:
            if revises and (decided.hedged or decided.retracted):
                decided = After()  # "No, 369 is right": the answer affirmed again
            continue
        offered = any(_OFFER_BEFORE.search(sentence[:m.start]) or _OFFER_AFTER.search(sentence[m.end:])
                      for m in others)
        conditional = _CONDITION.search(sentence) is not None and _ANSWER_FRAME.search(sentence) is not None
        contrast = _contrasted(sentence, found, current, others)
        if offered or conditional:
            decided = After(hedged=sentence)
        elif revises or contrast is not None:
            revised = contrast or _last_committed(sentence, kept)
            if revised.key != current:
                decided = After(revised=None if revised.key == answer else revised, revised_in=sentence)
                current = revised.key
    return After(decided.revised, decided.revised_in, decided.hedged, decided.retracted, doubt)


def _fallback(sentence: str, found: Sequence[Mention], answer: object) -> bool:
    """Whether the sentence offers a value other than ``answer`` in case the answer fails: outside a
    condition on the answer failing, and not set aside there. The condition's own negation ends with it
    ("If that doesn't open it, try 4471" offers 4471), and a value inside it is what the condition is
    about ("if 4471 is rejected, ...")."""
    for condition in _FAILING_CONDITION.finditer(sentence):
        close = _CONDITION_END.search(sentence, condition.end())
        start, end = condition.start(), close.start() if close else len(sentence)
        outside = [m for m in found if m.key != answer and not start <= m.start < end]
        if not outside:
            continue
        blanked = sentence[:start] + " " * (end - start) + sentence[end:]
        if not all(set_aside_each(blanked, [(m.start, m.end) for m in outside])):
            return True
    return False


def _contrasted(sentence: str, found: Sequence[Mention], answer: object, others: Sequence[Mention]) -> Mention | None:
    """The value a sentence sets against the answer it rejects ("the total should be 367, not 369", "Priya
    rather than Dana", "not 369 but 367"): with the answer negated by the words before it, the other value
    kept nearest to it. Such a sentence revises the answer whatever opens it, a discourse marker or none.
    A negation after the answer ("369 is not the number of loaves sold") is on its own predicate, which may
    be about something else, so it sets nothing against it."""
    if not others:
        return None
    rejected = [m for i, m in enumerate(found)
                if m.key == answer and set_aside_before(sentence, m.start, found[i - 1].end if i else 0)]
    if not rejected:
        return None
    at = rejected[-1]
    return min(others, key=lambda m: m.start - at.end if m.start >= at.end else at.start - m.end)


def _last_committed(sentence: str, kept: Sequence[Mention]) -> Mention:
    """Of the values a revising sentence names (and does not set aside), the one it commits to: after its
    last ``=`` or arrow, else the last one. It may be the answer again ("let me recheck: ... = 369")."""
    cuts = [m.end() for m in _WORKING.finditer(sentence)]
    if cuts:
        after = [m for m in kept if m.start >= cuts[-1]]
        if after:
            return after[0]
    return kept[-1]


# ---------------------------------------------------------------------------------------------------------
# A qualified label

# The qualifiers that make a labelled value something other than the answer committed to, as adjectives and
# adverbs of the classes above: a negation or an error ("Wrong answer:"), a word that dates the value
# ("Previous answer:", "Initial answer:"), one that offers it as a possibility ("Alternative answer:",
# "Possible answer:"), one that makes it an illustration ("Example answer:"). Any other qualifier commits
# ("Corrected", "Revised", "Updated", "New", "Final", "Short").
_UNCOMMITTED = re.compile(
    r"\b(?:not|no|never|non|wrong(?:ly)?|incorrect(?:ly)?|mistaken(?:ly)?|erroneous(?:ly)?|false|bad"
    r"|old|former(?:ly)?|previous(?:ly)?|prior|earlier|original(?:ly)?|initial(?:ly)?|preliminary|tentative(?:ly)?"
    r"|draft|rejected|retired|outdated|stale|possibl[ey]|probabl[ey]|likely|alternative(?:ly)?|alternate"
    r"|other|another|candidate|hypothetical(?:ly)?|example|sample|illustrative|dummy|placeholder)\b",
    re.IGNORECASE)


def label_commits(qualifier: str) -> bool:
    """Whether a label with this qualifier (the words before "answer": "Corrected", "Wrong", "") commits to
    its value, by the negation, dating, hedge and example classes of this reader."""
    return not (_UNCOMMITTED.search(qualifier) or HEDGE_WORD.search(qualifier) or _WRONG.search(qualifier))
