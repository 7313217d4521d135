"""English number words: ``three hundred sixty-nine``, ``thirty-four and a half``, ``twenty-seven point
five``, ``three quarters``, dozens (``a dozen`` is 12, ``two dozen`` 24, ``half a dozen`` 6), and figures
spoken in groups (``seventy-seven thirty-one`` is 7731).

A run of number words is read into its readings, the usual one first: two spoken groups are also a price
(``thirty-four fifty`` is 3450, or 34.50). The quantity reader (:mod:`engine.readers.quantity`) finds the
runs in a text and adds their units.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

SMALL = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
SMALL["nought"] = 0
_TENS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
# A dozen is a scale like a thousand: "a dozen" 12, "two dozen" 24 ("half a dozen": see word_readings).
_SCALES = {"dozen": 12, "hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_PARTS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4,
          "fourths": 4, "fifth": 5, "fifths": 5, "tenth": 10, "tenths": 10}
_NUMBER_WORD = set(SMALL) | set(_TENS) | set(_SCALES)
_WORD_TOKEN = re.compile(r"[^\W\d_]+", re.UNICODE)
# What may sit between two words of one number: spaces or one hyphen.
_WORD_GAP = re.compile(r"[ \t\u00a0]*-?[ \t\u00a0]*")


def chunks(words: Sequence[str]) -> list[int] | None:
    """Whole numbers spoken one after another: ``seventy seven thirty one`` -> [77, 31]; ``three hundred
    sixty nine`` -> [369]; None when the words do not form numbers."""
    chunks: list[int] = []
    total, group, last = 0, 0, ""

    def close() -> None:
        nonlocal total, group, last
        if last:
            chunks.append(total + group)
        total, group, last = 0, 0, ""

    for w in words:
        if w in ("a", "an"):
            close()
            group, last = 1, "unit"
            continue
        if w in SMALL:
            if last in ("unit", "teen") or (last == "tens" and (SMALL[w] >= 10 or SMALL[w] == 0)):
                close()
            group += SMALL[w]
            last = "teen" if SMALL[w] >= 10 else "unit"
        elif w in _TENS:
            if last in ("unit", "teen", "tens"):
                close()
            group += _TENS[w]
            last = "tens"
        elif w == "hundred":
            if last in ("", "hundred", "scale") or group >= 100:
                return None
            group *= 100
            last = "hundred"
        elif w in _SCALES:
            if last in ("", "scale"):
                return None
            total += group * _SCALES[w]
            group, last = 0, "scale"
        else:
            return None
    close()
    return chunks


# The most words one number is spoken in ("three hundred sixty-nine thousand four hundred and twenty-one" is
# ten). A longer run is no number: read in groups ("thirty-four thirty-four ..."), a run of thousands made a
# value past Python's int-string limit, which raised where the value was written out.
MAX_NUMBER_WORDS = 24


def word_readings(words: list[str]) -> tuple[list[tuple[Decimal, int]], bool] | None:
    """(readings, inexact) of one run of number words, the usual reading first; None when it is no number."""
    if len(words) > MAX_NUMBER_WORDS:
        return None
    sign = 1
    if words and words[0] in ("minus", "negative"):
        sign, words = -1, words[1:]
    fraction_of = _fraction_of_scale(words)
    if fraction_of is not None:
        return [(sign * v, p) for v, p in fraction_of[0]], fraction_of[1]
    part: tuple[int, int] | None = None  # a fraction: (numerator, denominator)
    if words and words[-1] in _PARTS:
        before = words[:-1]
        if before and before[-1] == "and":  # "thirty-four and a half"
            before = before[:-1]
        numerator_words: list[str] = []
        while before and (before[-1] in SMALL or before[-1] in ("a", "an", "one")):
            numerator_words.insert(0, before.pop())
            if len(numerator_words) == 1 and numerator_words[0] in ("a", "an"):
                break
        if not numerator_words:
            return None
        num = 1 if numerator_words[0] in ("a", "an") else SMALL.get(numerator_words[-1], 1)
        part = (num, _PARTS[words[-1]])
        if before and before[-1] == "and":
            before = before[:-1]
        words = before
    point: str | None = None
    if "point" in words:
        at = words.index("point")
        after = words[at + 1:]
        digits = chunks(after) if after else None
        if not digits:
            return None
        point = "".join(str(d) for d in digits)
        words = words[:at] or ["zero"]
    if not words and part is None:
        return None
    groups = chunks([w for w in words if w != "and"]) if words else [0]
    if not groups:
        return None
    readings: list[tuple[Decimal, int]] = []
    if len(groups) == 1:
        whole = Decimal(groups[0])
        readings.append((whole, 0))
    elif all(c < 100 for c in groups):
        # Figures spoken in groups: "seventy-seven thirty-one" is 7731; two groups may also be a price.
        readings.append((Decimal("".join(str(c) for c in groups)), 0))
        if len(groups) == 2 and 10 <= groups[1] <= 99:
            readings.append((Decimal(f"{groups[0]}.{groups[1]:02d}"), 2))
    else:
        return None
    inexact = False
    if point is not None:
        readings = [(Decimal(f"{int(v)}.{point}"), len(point)) for v, _ in readings[:1]]
    if part is not None:
        num, den = part
        fraction = Decimal(num) / Decimal(den)
        inexact = (fraction * 10**6) % 1 != 0
        if words:
            readings = [(v + fraction, p) for v, p in readings[:1]]
        else:
            readings = [(fraction, 0)]
    return [(sign * v, p) for v, p in readings], inexact


def _fraction_of_scale(words: list[str]) -> tuple[list[tuple[Decimal, int]], bool] | None:
    """A fraction of a scale: ``half a dozen`` (6), ``a half dozen``, ``a quarter million``; None when the
    words are not one."""
    head = words[1:] if words[:1] in (["a"], ["an"]) else words
    if len(head) < 2 or head[0] not in _PARTS or head[0].endswith("s"):
        return None
    rest = head[2:] if head[1] in ("a", "an") else head[1:]
    if not rest or rest[0] not in _SCALES:
        return None
    whole = word_readings(["a", *rest])
    if whole is None:
        return None
    den = Decimal(_PARTS[head[0]])
    readings = [(v / den, p) for v, p in whole[0]]
    return readings, whole[1] or any((v * 10**6) % 1 != 0 for v, _ in readings)


def _opens_fraction_of_scale(after: str, ahead: str) -> bool:
    """Whether a fraction word followed by ``after`` and ``ahead`` opens a fraction of a scale ("half a
    dozen", "half dozen")."""
    return after in _SCALES or (after in ("a", "an") and ahead in _SCALES)


@dataclass(frozen=True)
class Run:
    start: int
    end: int
    words: list[str]


def word_runs(text: str, taken: bytearray) -> list[Run]:
    """Runs of number words (with "and", "a", "point" and fraction words inside), not already read."""
    tokens = [(m.start(), m.end(), m.group(0).lower()) for m in _WORD_TOKEN.finditer(text)]
    runs: list[Run] = []
    i = 0
    while i < len(tokens):
        start, end, w = tokens[i]
        after = tokens[i + 1][2] if i + 1 < len(tokens) else ""
        # "a" and "an" begin a number only before a scale or a fraction: "a hundred", "a half", not "a twelve".
        lead = after in _SCALES or after in _PARTS if w in ("a", "an") else after in _NUMBER_WORD
        ahead = tokens[i + 2][2] if i + 2 < len(tokens) else ""
        if w in _PARTS:  # a fraction opens a run only as a fraction of a scale: "half a dozen"
            lead = _opens_fraction_of_scale(after, ahead)
        starts = w in _NUMBER_WORD or (
            w in ("a", "an", "minus", "negative", "point") or w in _PARTS) and lead and (
            _WORD_GAP.fullmatch(text[end:tokens[i + 1][0]]) is not None)
        if not starts or any(taken[start:end]):
            i += 1
            continue
        j = i
        while j + 1 < len(tokens):
            gap = text[tokens[j][1]:tokens[j + 1][0]]
            nxt = tokens[j + 1][2]
            if _WORD_GAP.fullmatch(gap) is None or any(taken[tokens[j + 1][0]:tokens[j + 1][1]]):
                break
            ahead = tokens[j + 2][2] if j + 2 < len(tokens) else ""
            if nxt in _NUMBER_WORD or nxt in _PARTS and (tokens[j][2] in SMALL or tokens[j][2] in ("a", "an")):
                j += 1
            elif nxt in ("a", "an") and (ahead in _SCALES or ahead in _PARTS):
                j += 1
            elif nxt in ("and", "point") and (ahead in _NUMBER_WORD or ahead in ("a", "an")):
                j += 1
            else:
                break
        words = [t[2] for t in tokens[i:j + 1]]
        while words and words[-1] in ("and", "a", "an", "point"):
            words.pop()
            j -= 1
        if words and not (len(words) == 1 and words[0] in ("a", "an")):
            runs.append(Run(start, tokens[j][1], words))
        i = j + 1
    return runs


def spelled_as_digits(text: str) -> str:
    """``seventy-seven thirty-one`` -> ``7731``: every run of English number words written in digits (its
    usual reading), the rest of the text as it is."""
    out, at = [], 0
    for run in word_runs(text, bytearray(len(text))):
        read = word_readings(run.words)
        if read is None:
            continue
        value = read[0][0][0]
        out.append(text[at:run.start])
        out.append(format(value.normalize(), "f") if value != value.to_integral() else str(int(value)))
        at = run.end
    out.append(text[at:])
    return "".join(out)
