"""The quantity reader: every number a text states, in the notations people and models write, with the unit
it carries and what that unit measures; and the one rule for whether a stated quantity is the expected one.

Graders compare quantities, never substrings: ``27.5`` is not found in ``127.5`` or ``27.55``, ``38 mph`` is
not ``38 km/h``, and ``thirty-four and a half`` is ``34.5``. What is read:

- digits in the common locales: ``1,234.56``, ``1.234,56``, ``85,80`` (a decimal comma), ``1 234`` with a
  thin or no-break space, ``1'234.50``; a sign (``-4.2``, ``−4.2``, ``minus 4.2``), fractions (``3/4``,
  ``34 1/2``, ``34½``);
- number words: ``three hundred sixty-nine``, ``thirty-four and a half``, ``twenty-seven point five``,
  ``three quarters``, ``a dozen`` (``half a dozen``, ``two dozen``), and figures spoken in groups
  (``seventy-seven thirty-one`` is 7731, ``three sixty-nine`` is 369);
  (:mod:`engine.readers.number_words`);
- units, before or after the number (:mod:`engine.readers.units`): temperatures (°C, °F, "degrees"), speeds
  (km/h, mph, m/s, knots), lengths, masses, durations, percentages and currencies, in symbols or words
  (``38 kilometres per hour``, ``12 per cent``, ``€34.50``, ``34 euros 50``, ``thirty-four euros fifty``);
- counts of a thing: ``2 pcs``, ``3 pieces``, and a multiplier glued to its number (``x2``, ``×3``, ``2x``,
  ``3×``: two of an item in a list), read as a count so that no reader takes ``x2`` for a code; a product
  written with spaces (``2 x 64.50``) and a dimension (``16x24``) are not multipliers;
- times of day: ``16:00``, ``4pm``, ``4 p.m.``, ``16h00``, ``noon``, ``ten o'clock``, ``four in the
  afternoon``, an hour with a marker after it on the 24-hour clock (``16 Uhr``, ``16時``, ``16시``), and
  ranges (``10.00–16.00``, ``10h–16h``, ``10 bis 16 Uhr``, ``open 10 to 4``, ``Saturday 10–4``; after a
  bare ``from``, ``from 10 to 4`` is read as counts first and times second).

A notation that can be read two ways keeps both readings, the usual one first (``1,234`` is 1234, or 1.234
with a decimal comma; ``seventy-seven thirty-one`` is 7731, or 77.31 as a price). A check that matches only
through the second reading says it is unsure.

Whether a stated quantity is the expected one (:func:`compare`):

- an expected quantity without a unit matches any stated quantity of that value, whatever unit it carries
  (the task asked for a number); a time of day matches only a time of day;
- an expected quantity with a unit matches the same value stated in that unit or with no unit (the unit is
  implied by the question), or the value converted into another unit of what it measures, within the
  rounding both show (``81.5 °F`` or ``82 °F`` for 27.5 °C, ``10.6 m/s`` for 38 km/h): a task that asks for
  a temperature is answered by a right temperature in any scale. The right number in another unit of the
  same measure (``38 mph`` for 38 km/h) is wrong, and :func:`find` reports it even when the right quantity
  is stated too, because the text then contradicts itself;
- currencies are not converted: ``38 USD`` is not 38 EUR;
- values compare exactly (``85.8`` is ``85.80``; ``86`` is not), except through a unit conversion or a
  fraction that has no exact decimal (``2/3`` matches ``0.67``), which compare within the rounding shown.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from engine.readers.number_words import SMALL, word_readings, word_runs
from engine.readers.number_words import chunks as number_chunks
from engine.readers.units import CLOCK, UNITS, Unit, unit_after, unit_before

# ---------------------------------------------------------------------------------------------------------
# What a read quantity is


@dataclass(frozen=True)
class Reading:
    """One way to read a notation: the value, its unit (None: none written) and the rounding it shows
    (``step``: 0.1 for ``27.5``; 0 for an exact fraction)."""

    value: Decimal
    unit: Unit | None = None
    step: Decimal = Decimal(0)
    # A fraction with no exact decimal (2/3): compared at the rounding of the value it is compared with.
    inexact: bool = False


@dataclass(frozen=True)
class Quantity:
    """A quantity found in a text: where, as written, and its readings (the usual one first)."""

    start: int
    end: int
    text: str
    readings: tuple[Reading, ...]
    spelled: bool = False

    @property
    def value(self) -> Decimal:
        return self.readings[0].value

    @property
    def unit(self) -> Unit | None:
        return self.readings[0].unit


def _step(places: int) -> Decimal:
    return Decimal(1).scaleb(-places) if places else Decimal(1)


# ---------------------------------------------------------------------------------------------------------
# Digits

# 1,234.56 | 1.234,56 | 1'234.50 | 1 234 (thin/no-break space) | 85,80 | 1234.5. A list such as 4,7,10 is none.
_DIGITS = re.compile(
    r"(?<![\w.,'\u00a0\u2009\u202f])"
    r"(?P<int>\d{1,3}(?P<g>[,.'\u00a0\u2009\u202f])\d{3}(?:(?P=g)\d{3})*|\d+)"
    r"(?:(?P<dec>[.,])(?P<frac>\d+))?"
    r"(?![\d]|[.,'\u00a0\u2009\u202f]\d)"
)
_FRACTION = re.compile(r"(?<![\w./])(?:(?P<whole>\d+)[ \u00a0])?(?P<num>\d+)/(?P<den>\d+)(?![\w/]|[.,]\d)")
_VULGAR = {"½": (1, 2), "¼": (1, 4), "¾": (3, 4), "⅓": (1, 3), "⅔": (2, 3), "⅛": (1, 8), "⅜": (3, 8),
           "⅝": (5, 8), "⅞": (7, 8)}
_VULGAR_RE = re.compile(rf"(?<![\w.])(?P<whole>\d+)?\s?(?P<vf>[{''.join(_VULGAR)}])")
# A multiplier glued to its number: "x2", "×3" (lower-case x: "X2" is as likely a model name), "2x", "3×".
# Not one when more of a code or a number follows ("x2-991", "16x24", "2x4.5") or precedes ("LMPx2").
_MULTIPLIER = re.compile(r"(?<![\w.,/-])(?:[x×](?P<after>\d{1,4})|(?P<before>\d{1,4})[x×])(?![\w/-]|[.,]\d)")
_MINUS = re.compile(r"(?:(?<![\w)\]])[-−]|\b(?:minus|negative)\s+)$", re.IGNORECASE)


# The most characters a notation read as a number may have. No quantity a task asks about comes near, and a
# model's run of thousands of digits is no quantity: read as one, its value broke Python's int-string limit
# (4,300 digits) where a reason quotes it.
MAX_NUMBER_CHARS = 40


def _digit_readings(m: re.Match[str]) -> list[tuple[Decimal, int]] | None:
    """(value, decimal places) readings of a digit match, the usual one first; None when it is no number."""
    whole, group, dec, frac = m.group("int"), m.group("g"), m.group("dec"), m.group("frac")
    if group and dec and dec == group or len(m.group(0)) > MAX_NUMBER_CHARS:
        return None
    digits = whole.replace(group, "") if group else whole
    if dec:
        return [(Decimal(f"{digits}.{frac}"), len(frac))]
    if not group:
        return [(Decimal(digits), 0)]
    single = whole.count(group) == 1
    head, tail = whole.split(group, 1)
    as_decimal = (Decimal(f"{head}.{tail}"), 3)
    if group == "." and single:
        return [as_decimal, (Decimal(digits), 0)]  # 1.234: a decimal, or 1234 where "." groups thousands
    if group == "," and single:
        return [(Decimal(digits), 0), as_decimal]  # 1,234: 1234, or 1.234 where "," is the decimal mark
    return [(Decimal(digits), 0)]


# ---------------------------------------------------------------------------------------------------------
# Times of day

_AMPM = r"(?P<ap>[ap])\.?\s?m\b\.?"
_HOUR_WORDS = {w: v for w, v in SMALL.items() if 1 <= v <= 12}
_CLOCKS = [
    # 16:00, 4:30 pm, 16:00:00
    re.compile(rf"(?<![\d:.,])(?P<h>[01]?\d|2[0-4]):(?P<m>[0-5]\d)(?::[0-5]\d)?(?![\d:])(?:\s?{_AMPM})?", re.I),
    # 16h00, 10h30
    re.compile(r"(?<![\d.,])(?P<h>[01]?\d|2[0-3])h(?P<m>[0-5]\d)(?!\d)"),
    # 4pm, 4 p.m., 4.30pm, four pm
    re.compile(rf"(?<![\d.,:])(?P<h>1[0-2]|0?[1-9]|{'|'.join(_HOUR_WORDS)})(?:[.:](?P<m>[0-5]\d))?\s?{_AMPM}", re.I),
    # noon, midday, midnight
    re.compile(r"\b(?P<word>noon|midday|midnight)\b", re.I),
]
_OCLOCK = re.compile(rf"(?<![\d.,:])(?P<h>1[0-2]|0?[1-9]|{'|'.join(_HOUR_WORDS)})\s?(?:o['’]?clock\b"
                     r"|in\s+the\s+(?P<part>morning|afternoon|evening))", re.I)
# Ranges of times written without a colon: 10.00–16.00, 10h–16h, open 10 to 4, Saturday 10–4, from 10 to 4.
_DOT_RANGE = re.compile(r"(?<![\d.,])(?P<h1>[01]?\d|2[0-4])\.(?P<m1>[0-5]\d)\s?(?:[–—-]|to|until|till)\s?"
                        r"(?P<h2>[01]?\d|2[0-4])\.(?P<m2>[0-5]\d)(?![\d%]|[.,]\d)", re.I)
_H_RANGE = re.compile(r"(?<![\d.,])(?P<h1>[01]?\d|2[0-4])\s?h\s?(?:[–—-]|to|until|till)\s?(?P<h2>[01]?\d|2[0-4])\s?h"
                      r"(?![^\W\d_])", re.I)
# A day's name or "open" before a range of hours makes it a time; "from" alone leaves counts the first reading.
_DAY = r"(?:mon|tue|tues|wed|wednes|thu|thur|thurs|fri|sat|satur|sun)(?:day)?s?\.?:?"
_HOUR_RANGE = re.compile(rf"\b(?P<lead>open(?:s|ing)?(?:\s+from)?|{_DAY}(?:\s+from)?|from)\s+(?P<h1>[01]?\d|2[0-4])"
                         r"\s?(?:[–—-]|to|until|till)\s?"
                         r"(?P<h2>[01]?\d|2[0-4])(?![\d%:]|[.,]\d|\s?(?:[ap]\.?\s?m\b|h\b|[^\W\d_]))", re.I)

# An hour followed by a marker that makes it a time of day on the 24-hour clock, in the languages that write
# one after the number ("16 Uhr", "16時", "16시"); the duration words those languages build on the same
# marker ("16時間", "16시간") are not. "h" alone is no such marker: "10 h" is as often ten hours.
_HOUR_MARK = r"(?:uhr\b|[時时](?!間|间)|시(?!간))"
_MARKED_HOUR = re.compile(rf"(?<![\d.,:])(?P<h>[01]?\d|2[0-4])\s?{_HOUR_MARK}", re.I)
# A range whose marker follows its second hour ("10 bis 16 Uhr", "10–16 Uhr"): the marker holds for both. The
# joint is a dash or one short word of letters in any language ("bis", "to", "à").
_MARKED_RANGE = re.compile(rf"(?<![\d.,:])(?P<h1>[01]?\d|2[0-4])\s?(?:[–—-]|\s[^\W\d_]{{1,5}}\s)\s?"
                           rf"(?P<h2>[01]?\d|2[0-4])\s?{_HOUR_MARK}", re.I)


def _clock(hours: int, minutes: int = 0) -> Reading:
    return Reading(Decimal(hours % 24 * 60 + minutes), CLOCK, Decimal(1))


def _plain(whole: str, fraction: str = "") -> Reading:
    return Reading(Decimal(f"{whole}.{fraction}" if fraction else whole), None, _step(len(fraction)))


def _hour(token: str) -> int:
    return int(token) if token.isdigit() else _HOUR_WORDS[token.lower()]


def _clocks(text: str, taken: bytearray) -> list[Quantity]:
    out: list[Quantity] = []

    def add(start: int, end: int, readings: Iterable[Reading]) -> None:
        if any(taken[start:end]):
            return
        taken[start:end] = b"\1" * (end - start)
        out.append(Quantity(start, end, text[start:end], tuple(readings)))

    for m in _DOT_RANGE.finditer(text):
        first, second = (int(m.group("h1")), int(m.group("m1"))), (int(m.group("h2")), int(m.group("m2")))
        if first >= second and second[0] < 12:
            second = (second[0] + 12, second[1])
        # Read as times first; the same notation is also a pair of amounts (10.50–12.30).
        add(m.start("h1"), m.end("m1"), [_clock(*first), _plain(m.group("h1"), m.group("m1"))])
        add(m.start("h2"), m.end("m2"), [_clock(*second), _plain(m.group("h2"), m.group("m2"))])
    for m in _H_RANGE.finditer(text):
        add(m.start("h1"), m.end("h1") + 1, [_clock(int(m.group("h1")))])
        add(m.start("h2"), m.end(), [_clock(int(m.group("h2")))])
    for m in _MARKED_RANGE.finditer(text):
        add(m.start("h1"), m.end("h1"), [_clock(int(m.group("h1")))])
        add(m.start("h2"), m.end(), [_clock(int(m.group("h2")))])
    for m in _MARKED_HOUR.finditer(text):
        add(m.start(), m.end(), [_clock(int(m.group("h")))])
    for m in _HOUR_RANGE.finditer(text):
        first, second = int(m.group("h1")), int(m.group("h2"))
        if second <= first and second < 12:
            second += 12  # "from 10 to 4": the afternoon
        # "open 10 to 4" is a time; "from 10 to 4" may be counts, so the time is its second reading.
        times = [_clock(first)], [_clock(second)]
        plain = [_plain(m.group("h1"))], [_plain(m.group("h2"))]
        opening = m.group("lead").lower() != "from"
        add(m.start("h1"), m.end("h1"), times[0] + plain[0] if opening else plain[0] + times[0])
        add(m.start("h2"), m.end("h2"), times[1] + plain[1] if opening else plain[1] + times[1])
    for pattern in _CLOCKS:
        for m in pattern.finditer(text):
            groups = m.groupdict()
            if groups.get("word"):
                add(m.start(), m.end(), [_clock(0 if groups["word"].lower() == "midnight" else 12)])
                continue
            hours, minutes = _hour(groups["h"]), int(groups.get("m") or 0)
            if groups.get("ap"):
                hours = hours % 12 + (12 if groups["ap"].lower() == "p" else 0)
            add(m.start(), m.end(), [_clock(hours, minutes)])
    for m in _OCLOCK.finditer(text):
        hours, part = _hour(m.group("h")), (m.group("part") or "").lower()
        if part:
            add(m.start(), m.end(), [_clock(hours % 12 + (0 if part == "morning" else 12))])
        else:  # "ten o'clock": morning or evening, not said
            add(m.start(), m.end(), [_clock(hours), _clock(hours % 12 + 12)])
    return out


# ---------------------------------------------------------------------------------------------------------
# The scanner


# "34 euros 50", "34 euros and 50 cents", "thirty-four euros fifty": the cents after the currency.
_CENTS = re.compile(r"[ \u00a0]?(?:and\s+)?(?P<c>\d{1,2}(?!\d)|[^\W\d_]+(?:-[^\W\d_]+)?)"
                    r"(?P<word>\s?(?:cents?|ct|c)\b)?", re.I)


# A word that may follow an amount's cents ("34 euros 50 and ..."), where a noun would make them a count.
_CONNECTIVE = re.compile(r"\s(?:and|or|but|for|in|at|to|instead|which|each|per|with|plus|is|was|would|will)\b",
                         re.IGNORECASE)


def _cents_after(text: str, at: int) -> tuple[int, int] | None:
    m = _CENTS.match(text, at)
    if not m:
        return None
    token = m.group("c").lower()
    if token.isdigit():
        cents = int(token)
        if not m.group("word") and len(token) != 2:
            return None
    else:
        chunks = number_chunks(token.replace("-", " ").split())
        if not chunks or len(chunks) != 1 or chunks[0] >= 100:
            return None
        cents = chunks[0]
    if not m.group("word") and re.match(r"\s?[^\W\d_]", text[m.end():]) and not _CONNECTIVE.match(text, m.end()):
        return None  # "69 euros 20 items": a count, not cents
    if not m.group("word") and unit_after(text, m.end()):
        return None  # "69 euros and 50%": a figure with a unit of its own, not cents
    return cents, m.end()


def _finish(text: str, start: int, end: int, readings: list[tuple[Decimal, int]], inexact: bool,
            spelled: bool, taken: bytearray) -> Quantity:
    """Sign, currency before, unit after and cents after a number read at [start, end)."""
    sign = 1
    before = text[max(0, start - 12):start]
    unit: Unit | None = None
    prefix = unit_before(before)
    if prefix:
        unit, start = prefix[0], start - prefix[1]
        before = text[max(0, start - 12):start]
    minus = _MINUS.search(before)
    if minus and not any(taken[start - len(minus.group(0)):start]):
        sign, start = -1, start - len(minus.group(0))
    if unit is None:
        after = unit_after(text, end)
        if after:
            unit, end = after
    # Cents follow a whole amount only ("34 euros 50"): "69.00 EUR and 50" has its cents already.
    if unit is not None and unit.measures == "money" and len(readings) >= 1 and readings[0][1] == 0:
        cents = _cents_after(text, end)
        if cents:
            readings = [(readings[0][0] + Decimal(cents[0]) / 100, 2)]
            end = cents[1]
    taken[start:end] = b"\1" * (end - start)
    return Quantity(start, end, text[start:end],
                    tuple(Reading(sign * v, unit, _step(p), inexact) for v, p in readings), spelled)


def quantities(text: str) -> list[Quantity]:
    """Every quantity ``text`` states, in order of where it starts."""
    return list(_quantities(text))


@functools.lru_cache(maxsize=64)  # a grade asks for the same reply's quantities many times: read it once
def _quantities(text: str) -> tuple[Quantity, ...]:
    taken = bytearray(len(text))
    found = _clocks(text, taken)
    for m in _VULGAR_RE.finditer(text):
        if any(taken[m.start():m.end()]) or len(m.group(0)) > MAX_NUMBER_CHARS:
            continue
        num, den = _VULGAR[m.group("vf")]
        value = Decimal(m.group("whole") or 0) + Decimal(num) / Decimal(den)
        found.append(_finish(text, m.start(), m.end(), [(value, 0)], den not in (2, 4, 8), False, taken))
    for m in _FRACTION.finditer(text):
        if any(taken[m.start():m.end()]) or len(m.group(0)) > MAX_NUMBER_CHARS or int(m.group("den")) == 0:
            continue
        fraction = Decimal(int(m.group("num"))) / Decimal(int(m.group("den")))
        value = Decimal(m.group("whole") or 0) + fraction
        found.append(_finish(text, m.start(), m.end(), [(value, 0)], (fraction * 10**6) % 1 != 0, False, taken))
    for m in _MULTIPLIER.finditer(text):
        if not any(taken[m.start():m.end()]):
            taken[m.start():m.end()] = b"\1" * (m.end() - m.start())
            count = Decimal(m.group("after") or m.group("before"))
            found.append(Quantity(m.start(), m.end(), m.group(0), (Reading(count, UNITS["×"], Decimal(1)),)))
    for m in _DIGITS.finditer(text):
        if any(taken[m.start():m.end()]):
            continue
        read = _digit_readings(m)
        if read is None:
            continue
        # A letter glued on that is no unit ("3rd", "16x24", "4k") makes it no quantity here.
        if re.match(r"[^\W\d_]", text[m.end():m.end() + 1]) and not unit_after(text, m.end()):
            continue
        found.append(_finish(text, m.start(), m.end(), read, False, False, taken))
    for run in word_runs(text, taken):
        parsed = word_readings(run.words)
        if parsed is None or any(taken[run.start:run.end]):
            continue
        found.append(_finish(text, run.start, run.end, parsed[0], parsed[1], True, taken))
    return tuple(sorted(found, key=lambda q: q.start))


def parse(term: str) -> Quantity | None:
    """``term`` read as one quantity ("38", "27.5 °C", "12%", "16:00", "€34.50", "twelve"), or None when it
    is anything else (a name, an id such as ``O-302``, two numbers)."""
    core = term.strip().strip("*_`").strip().rstrip(".;:,!").strip()
    found = quantities(core)
    if len(found) != 1 or found[0].start != 0 or found[0].end != len(core):
        return None
    return found[0]


# ---------------------------------------------------------------------------------------------------------
# Comparing


@dataclass(frozen=True)
class Found:
    """The verdict of :func:`find`: a match (``quantity``), the right number in a wrong unit
    (``wrong_unit``), and why a match is unsure when it rests on a second reading."""

    quantity: Quantity | None = None
    wrong_unit: Quantity | None = None
    unsure: str | None = None

    @property
    def ok(self) -> bool:
        return self.quantity is not None and self.wrong_unit is None


def _base(reading: Reading) -> Decimal | None:
    unit = reading.unit
    if unit is None or unit.scale is None:
        return None
    return reading.value * unit.scale + unit.offset


def _equal(a: Decimal, b: Decimal, a_inexact: bool, b_step: Decimal) -> bool:
    if not a_inexact:
        return a == b
    places = -b_step.as_tuple().exponent if b_step < 1 else 0
    return a.quantize(Decimal(1).scaleb(-places)) == b


def _reading_matches(want: Reading, given: Reading, *, unsigned: bool) -> bool:
    value = abs(given.value) if unsigned else given.value
    target = abs(want.value) if unsigned else want.value
    if (want.unit is CLOCK) != (given.unit is CLOCK):
        return False
    if want.unit is None or given.unit is None or want.unit is given.unit:
        return _equal(value, target, given.inexact, want.step) or _equal(target, value, want.inexact, given.step)
    if want.unit.measures != given.unit.measures:
        return False
    if want.unit.symbol == "°" or given.unit.symbol == "°":  # "degrees", scale not said
        return value == target
    want_base, given_base = _base(Reading(target, want.unit)), _base(Reading(value, given.unit))
    if want_base is None or given_base is None:
        return False
    assert want.unit.scale is not None and given.unit.scale is not None
    tolerance = (given.step * given.unit.scale + want.step * want.unit.scale) / 2
    return abs(given_base - want_base) <= tolerance


def compare(expected: Quantity, given: Quantity, *, unsigned: bool = False) -> tuple[bool, bool]:
    """(matches, only through a second reading) for one stated quantity. ``unsigned``: the sign is not
    compared (a change stated as "down 4.2%" for -4.2)."""
    want = expected.readings[0]
    for i, reading in enumerate(given.readings):
        if _reading_matches(want, reading, unsigned=unsigned):
            return True, i > 0
    return False, False


def _wrong_unit(expected: Quantity, given: Quantity, *, unsigned: bool) -> bool:
    """The expected number stated in another unit of what it measures, which it does not convert to."""
    want, said = expected.readings[0], given.readings[0]
    if want.unit is None or said.unit is None or want.unit is said.unit or want.unit.measures != said.unit.measures:
        return False
    same = abs(said.value) == abs(want.value) if unsigned else said.value == want.value
    return same and not compare(expected, given, unsigned=unsigned)[0]


def find(expected: Quantity, text: str | Sequence[Quantity], *, unsigned: bool = False) -> Found:
    """Whether ``text`` states ``expected`` (see the module's rules): the first match, preferring one on
    the usual reading; the right number in a wrong unit, if stated anywhere."""
    stated = quantities(text) if isinstance(text, str) else list(text)
    wrong = next((q for q in stated if _wrong_unit(expected, q, unsigned=unsigned)), None)
    second: Quantity | None = None
    for q in stated:
        ok, by_second = compare(expected, q, unsigned=unsigned)
        if ok and not by_second:
            return Found(q, wrong)
        if ok and second is None:
            second = q
    if second is not None:
        return Found(second, wrong, f"read {second.text!r} as {expected.text!r} in a second reading")
    return Found(None, wrong)


def describe(quantity: Quantity) -> str:
    """The usual reading in words a reason can quote: ``38 km/h``, ``16:00``, ``7731``."""
    reading = quantity.readings[0]
    if reading.unit is CLOCK:
        minutes = int(reading.value)
        return f"{minutes // 60:02d}:{minutes % 60:02d}"
    number = format(reading.value.normalize(), "f") if reading.value != reading.value.to_integral() \
        else str(int(reading.value))
    return f"{number} {reading.unit.symbol}" if reading.unit else number


# ---------------------------------------------------------------------------------------------------------
# What a figure is said of

# The smallest part of a text a figure belongs to: a list item or clause (commas, "and", "but", "while"),
# then its sentence. A table row is one sentence (its cells are not split).
_CLAUSE_BREAK = re.compile(r"[,;]\s|\s(?:and|but|while|whereas|whilst)\s|[.!?](?=\s|$)|\n", re.IGNORECASE)
_SENTENCE_BREAK = re.compile(r"[.!?](?=\s|$)|\n")


# A word after a figure that makes what follows the base of a comparison ("12% higher than Brightwater's
# price", "12% above the rival quotes"): the figure is said of what stands before it, not of that base.
_COMPARED_WITH = re.compile(
    r"\b(?:than|below|above|under|over|versus|vs\b\.?|compared\s+(?:to|with)|against|unlike|relative\s+to)\b",
    re.IGNORECASE)


def said_of(text: str, figures: Sequence[Quantity], names: Sequence[str]) -> list[tuple[tuple[str, ...], bool]]:
    """For each figure, which of ``names`` it is said of: the names in its clause, else in its sentence,
    else none; and whether they came from its clause (``True``) or only from its sentence. A name that
    stands only after a comparison word following the figure ("12% higher than the quotes") is the base of
    the comparison, not what the figure is said of ("its 12% rise leaves it below the quotes" names nothing
    the figure is said of in its clause, and its sentence is read next). The text is scanned once, whatever
    the number of figures."""
    levels = []
    for breaks in (_CLAUSE_BREAK, _SENTENCE_BREAK):
        cuts = list(breaks.finditer(text))
        levels.append(([m.end() for m in cuts], [m.start() for m in cuts]))
    where = {n: [m.start() for m in re.finditer(rf"(?<![^\W_]){re.escape(n)}(?![^\W_])", text, re.IGNORECASE)]
             for n in names}
    compared = [m.start() for m in _COMPARED_WITH.finditer(text)]
    out = []
    for figure in figures:
        found: tuple[tuple[str, ...], bool] = ((), False)
        c = bisect.bisect_left(compared, figure.end)
        base = compared[c] if c < len(compared) else len(text)  # where a comparison after the figure begins
        for (ends, starts), close in zip(levels, (True, False), strict=True):
            i = bisect.bisect_right(ends, figure.start) - 1
            left = ends[i] if i >= 0 else 0
            j = bisect.bisect_left(starts, figure.end)
            right = starts[j] if j < len(starts) else len(text)
            first = {n: where[n][k] for n in names
                     if (k := bisect.bisect_left(where[n], left)) < len(where[n]) and where[n][k] < right}
            said = tuple(n for n in names if n in first and (base >= right or first[n] < base))
            if said:
                found = (said, close)
                break
        out.append(found)
    return out


@dataclass(frozen=True)
class Whose:
    """Whether a stated figure is said of its subject: ``other`` is the other thing it is said of when it
    is not (``figure``: where), and ``unsure`` says why a reading that passed could not decide."""

    ok: bool
    figure: Quantity | None = None
    other: str | None = None
    unsure: str | None = None


def said_of_subject(text: str, figures: Sequence[Quantity], subject: Sequence[str],
                    others: Sequence[str]) -> Whose:
    """Whether ``figures`` (each a statement in ``text`` of the expected quantity) are said of ``subject``
    (its names) rather than of one of ``others`` (the other things the text may give such a figure to),
    by :func:`said_of`. One figure said of the subject, or of nothing named, is enough. A figure whose
    clause names the subject and another thing, or only whose sentence names another thing, is read as the
    subject's but unsure. Not said of the subject: every figure's own clause gives it to another thing only
    ("the competing quotes came in 12% higher" is not Brightwater's 12% rise)."""
    if not figures:
        return Whose(False)
    own = {n.lower() for n in subject}
    names = [*subject, *(n for n in others if n.lower() not in own)]
    doubts: list[str] = []
    wrong: tuple[Quantity, str] | None = None
    for figure, (named, close) in zip(figures, said_of(text, figures, names), strict=True):
        mine = [n for n in named if n.lower() in own]
        theirs = [n for n in named if n.lower() not in own]
        if not theirs:
            return Whose(True, figure)
        if mine:
            where = "clause" if close else "sentence"
            doubts.append(f"{figure.text!r} stands in a {where} about {mine[0]} and {theirs[0]}, "
                          f"read as {subject[0]}'s")
        elif not close:
            doubts.append(f"{figure.text!r} stands in a sentence about {theirs[0]}, read as {subject[0]}'s")
        elif wrong is None:
            wrong = (figure, theirs[0])
    if doubts:
        return Whose(True, figures[0], unsure=doubts[0])
    assert wrong is not None
    return Whose(False, wrong[0], wrong[1])


def contexts(text: str, figures: Sequence[Quantity]) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """For each figure, the spans (start, end) of the clause and of the sentence it stands in (the same
    breaks as :func:`said_of`), for a reader that asks what a figure is said of in words other than names.
    The text is scanned once, whatever the number of figures."""
    levels = []
    for breaks in (_CLAUSE_BREAK, _SENTENCE_BREAK):
        cuts = list(breaks.finditer(text))
        levels.append(([m.end() for m in cuts], [m.start() for m in cuts]))
    out = []
    for figure in figures:
        spans = []
        for ends, starts in levels:
            i = bisect.bisect_right(ends, figure.start) - 1
            j = bisect.bisect_left(starts, figure.end)
            spans.append((ends[i] if i >= 0 else 0, starts[j] if j < len(starts) else len(text)))
        out.append((spans[0], spans[1]))
    return out


# ---------------------------------------------------------------------------------------------------------
# A figure stated as a change

# A sign written before a figure ("+12%", "+3.5 °C") makes it a change, not a level; the character before
# the sign must not be a word or a digit ("2+12" is a sum).
_PLUS_BEFORE = re.compile(r"(?<![\w.])\+\s?$")


def change(text: str, figure: Quantity) -> str | None:
    """``"rise"`` or ``"fall"`` when ``figure`` (found in ``text``) is written as a signed change: any figure
    with a plus sign ("+12% from October"), or a percentage with a minus sign ("−12%"; a negative
    temperature or amount is a level, not a change). None for a figure without a sign."""
    if _PLUS_BEFORE.search(text, max(0, figure.start - 2), figure.start):
        return "rise"
    reading = figure.readings[0]
    if reading.value < 0 and reading.unit is not None and reading.unit.measures == "ratio":
        return "fall"
    return None


# ---------------------------------------------------------------------------------------------------------
# A figure stated as an approximation

# Words right before a figure that make it an estimate, by the side of the true value they leave open:
# either side ("roughly 35 €", "about €35", "~35", "≈ 35 euros", "ca. 35", "an estimated 35"), below it
# ("just under 35 €", "nearly 35", "almost 35") or above it ("just over 34 €", "slightly more than 34").
# A bare "under 35" is a bound, not an estimate, and is not read here.
_EITHER_SIDE = (r"roughly|about|around|approximately|approx\.?|circa|ca\.|an?\s+estimated|estimated"
                r"|in\s+the\s+region\s+of|close\s+to|something\s+like|more\s+or\s+less")
_NEAR = r"(?:just|slightly|a\s+(?:little|bit)|marginally)\s+"
_APPROX_BEFORE = re.compile(
    rf"(?:(?P<either>\b(?:{_EITHER_SIDE})|[~≈∼])"
    rf"|(?P<below>\b(?:{_NEAR}(?:under|below|less\s+than|short\s+of|shy\s+of)|nearly|almost|not\s+quite))"
    rf"|(?P<above>\b{_NEAR}(?:over|above|more\s+than)))[\s*_]*$", re.IGNORECASE)
# Words right after a figure that make it an estimate on either side: "35 € or so", "35 € (approx.)".
_APPROX_AFTER = re.compile(r"^[\s*_]*(?:or\s+so\b|or\s+thereabouts\b|give\s+or\s+take\b"
                           r"|\(\s*(?:approx(?:\.|imately)?|roughly|rounded|est\.|estimated)\s*\))", re.IGNORECASE)
# A rounding said in words in the figure's sentence: "rounded", "rounded up", "rounded to the nearest euro",
# "35 € to the nearest ten". It holds for the figure of that sentence it stands nearest to.
_ROUNDED = re.compile(
    r"\b(?:rounded(?:\s+(?P<way>up|down|off))?(?:\s+to\s+the\s+nearest\s+(?P<to>[^\W_]+(?:\s+[^\W\d_]+)?))?"
    r"|to\s+the\s+nearest\s+(?P<only>[^\W_]+(?:\s+[^\W\d_]+)?))", re.IGNORECASE)
_ROUND_TO = {"ten": 10, "tens": 10, "five": 5, "fifty": 50, "hundred": 100, "thousand": 1000, "half": Decimal("0.5")}
_HUNDREDTHS = {"cent", "cents", "penny", "pence", "centime", "centimes", "hundredth"}
# The coarsest rounding a figure's own digits imply: "about 30" may be rounded to the nearest ten, "about 300"
# is not read as rounded to the nearest hundred (the reader errs on reading too narrow a range, not too wide).
_COARSEST_IMPLIED = Decimal(10)


@dataclass(frozen=True)
class Estimate:
    """A figure stated as an approximation: the values it covers (``low`` to ``high``, both included, in the
    figure's unit) and the wording that makes it one."""

    figure: Quantity
    low: Decimal
    high: Decimal
    wording: str


def _nearest(phrase: str) -> Decimal:
    """The rounding step "to the nearest ``phrase``" names: ``ten`` 10, ``5 euros`` 5, ``cent`` 0.01, any
    other unit (``euro``, ``whole number``, ``dollar``) 1."""
    head, *rest = phrase.casefold().split()
    if head.isdigit():
        count, unit = Decimal(head), (rest[0] if rest else "")
    elif head in _ROUND_TO:
        count, unit = Decimal(_ROUND_TO[head]), (rest[0] if rest else "")
    else:
        count, unit = Decimal(1), (rest[-1] if rest and head == "whole" else head)
    return count * Decimal("0.01") if unit in _HUNDREDTHS else count


def _implied_step(reading: Reading) -> Decimal:
    """The rounding a figure's digits show: its last decimal place (``34.5``: 0.1), else its last non-zero
    digit (``35``: 1, ``30``: 10), never coarser than ``_COARSEST_IMPLIED``."""
    if reading.step and reading.step < 1:
        return reading.step
    value, step = abs(reading.value), Decimal(1)
    while value and value % (step * 10) == 0 and step < _COARSEST_IMPLIED:
        step *= 10
    return step


def _covers(value: Decimal, step: Decimal, side: str) -> tuple[Decimal, Decimal]:
    """The values a figure rounded to ``step`` covers: half a step on the side(s) the wording leaves open
    ("just under 35": 34.5 to 35); a figure rounded up or down covers a whole step below or above it."""
    half = step / 2
    return {"either": (value - half, value + half), "below": (value - half, value),
            "above": (value, value + half), "up": (value - step, value), "down": (value, value + step)}[side]


def _rounded_figure(text: str, figures: Sequence[Quantity], spans: Sequence[tuple[int, int]],
                    m: re.Match[str]) -> int | None:
    """The figure a rounding said in words holds for: one right before it ("34 €, rounded down", "35 €
    (rounded)"), else the next one in its sentence ("rounded to the nearest euro, half is 35 €"), else the
    last one before it in its sentence."""
    inside = [i for i, _ in enumerate(figures) if spans[i][0] <= m.start() < spans[i][1]]
    before = [i for i in inside if figures[i].end <= m.start()]
    if before and re.fullmatch(r"[\s,(*_]*", text[figures[before[-1]].end:m.start()]):
        return before[-1]
    after = [i for i in inside if figures[i].start >= m.end()]
    return after[0] if after else (before[-1] if before else None)


@functools.lru_cache(maxsize=64)
def _estimates(text: str) -> tuple[Estimate, ...]:
    figures = [q for q in quantities(text) if q.readings[0].unit is not CLOCK]
    marked: dict[int, tuple[str, str, Decimal | None]] = {}  # figure index -> (side, wording, step said)
    for i, q in enumerate(figures):
        before = _APPROX_BEFORE.search(text, max(0, q.start - 40), q.start)
        after = _APPROX_AFTER.match(text[q.end:q.end + 40])
        if before:
            side = next(k for k in ("either", "below", "above") if before.group(k))
            marked[i] = (side, " ".join(before.group(0).split()).strip("*_ "), None)
        elif after:
            marked[i] = ("either", " ".join(after.group(0).split()).strip("*_ "), None)
    spans = [sentence for _, sentence in contexts(text, figures)]
    for m in _ROUNDED.finditer(text):
        i = _rounded_figure(text, figures, spans, m)
        if i is None:
            continue
        way = (m.group("way") or "").casefold()
        to = m.group("to") or m.group("only")
        side = way if way in ("up", "down") else marked.get(i, ("either",))[0]
        marked[i] = (side, " ".join(m.group(0).split()), _nearest(to) if to else None)
    out = []
    for i, (side, wording, step) in sorted(marked.items()):
        reading = figures[i].readings[0]
        low, high = _covers(reading.value, step or _implied_step(reading), side)
        out.append(Estimate(figures[i], low, high, wording))
    return tuple(out)


def estimates(text: str) -> list[Estimate]:
    """Every figure ``text`` states as an approximation, with the values it covers: a word before it that
    makes it an estimate (``roughly``, ``about``, ``~``, ``≈``, ``just under``, ``nearly``), one after it
    (``or so``, ``(approx.)``) or a rounding said in its sentence (``rounded to the nearest euro``). The
    rounding is the one the wording names, else the one the figure's digits show (``roughly 35 €``: 34.50
    to 35.50; ``about 30``: 25 to 35, the nearest ten). Times of day are not read so."""
    return list(_estimates(text))


def approximated(expected: Quantity, text: str) -> Estimate | None:
    """The first figure ``text`` states as an approximation that covers ``expected`` (``roughly 35 €`` covers
    34.50 EUR), or None. Unlike an exact statement (:func:`compare`), an estimate must carry the expected
    quantity's own unit, or neither has one: an estimate is evidence of the same quantity only when it is
    said to be the same kind of thing (``roughly 35 minutes`` is no estimate of 34.50 EUR, nor of a bare
    34.50). Currencies are not converted."""
    want = expected.readings[0]
    if want.unit is CLOCK:
        return None
    for estimate in _estimates(text):
        if estimate.figure.readings[0].unit is want.unit and estimate.low <= want.value <= estimate.high:
            return estimate
    return None


# ---------------------------------------------------------------------------------------------------------
# A count of a named thing

# "12 items", "twelve loans", "3 free renewals": one quantity, then one to three words of letters (the thing).
_COUNT_TERM = re.compile(r"^(?P<figure>.+?)\s+(?P<thing>[^\W\d_]+(?:[ -][^\W\d_]+){0,2})$")


@dataclass(frozen=True)
class Counted:
    """A required figure with what it counts: ``12 items`` is 12 (read as a count) of ``items``."""

    figure: Quantity
    thing: str

    def stem(self) -> str:
        """The thing's head noun without a plural ``s``: "items" and "item" are the same thing."""
        head = self.thing.lower().split()[-1].split("-")[-1]
        return head[:-1] if head.endswith("s") and len(head) > 3 else head


def counted(term: str) -> Counted | None:
    """``term`` read as a count of a named thing ("12 items", "twelve items"), or None when it is not one (a
    bare figure, a figure with a unit such as "12 weeks", or anything else)."""
    m = _COUNT_TERM.match(term.strip().strip("*_`").strip().rstrip(".;:,!").strip())
    if not m:
        return None
    figure = parse(m.group("figure"))
    if figure is None or figure.unit is not None or unit_after(m.group(0), m.start("thing") - 1):
        return None
    count = Reading(figure.value, UNITS["pcs"], figure.readings[0].step)
    return Counted(Quantity(figure.start, figure.end, figure.text, (count,), figure.spelled), m.group("thing"))


def _names(text: str, q: Quantity, stem: str) -> bool:
    """Whether the words right after ``q`` (at most two, "12 library items") name the thing of ``stem``."""
    after = re.findall(r"[^\W\d_]+", text[q.end:q.end + 40])[:2]
    return any(w.lower().rstrip("s") == stem.rstrip("s") for w in after)


def states_count(text: str, want: Counted) -> bool:
    """Whether ``text`` states the count ``want``: its figure said with no unit or as a count (``12``,
    ``twelve items``, ``a dozen items``, ``up to 12 at once``), not with a unit of something else (``12
    weeks`` is a duration, not 12 items); and the thing is not counted with another figure only ("3 items
    ... for 12 weeks": the reply gives items as 3, and its 12 is said of something else)."""
    # One pass splits the figures: testing each against the list of matches (``q not in matches``) compared
    # every figure with every match, quadratic on a reply of thousands of figures ("12 34 " repeated).
    matches: list[Quantity] = []
    others: list[Quantity] = []
    for q in quantities(text):
        (matches if compare(want.figure, q)[0] else others).append(q)
    if not matches:
        return False
    stem = want.stem()
    if any(_names(text, q, stem) for q in matches):
        return True
    # The thing counted with a figure other than the one required contradicts a bare match elsewhere.
    return not any(_names(text, q, stem) for q in others)
