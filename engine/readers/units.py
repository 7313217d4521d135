"""Units: what each measures, how it converts, and how it is written beside a number.

Used by the quantity reader (:mod:`engine.readers.quantity`) and by the world's state models, whose number
fields declare their unit by its symbol here (``engine.world.state.unit``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class Unit:
    """A unit and what it measures. ``base = value * scale + offset`` in the measure's base unit; a unit
    with no ``scale`` is not converted into others (currencies, "degrees" with no scale named)."""

    symbol: str
    measures: str
    scale: Decimal | None = Decimal(1)
    offset: Decimal = Decimal(0)


_D = Decimal
CLOCK = Unit("clock", "time of day", None)
UNITS: dict[str, Unit] = {u.symbol: u for u in (
    Unit("°C", "temperature"),
    Unit("°F", "temperature", _D(5) / _D(9), _D(-160) / _D(9)),
    Unit("°", "temperature", None),
    Unit("km/h", "speed"),
    Unit("mph", "speed", _D("1.609344")),
    Unit("m/s", "speed", _D("3.6")),
    Unit("kn", "speed", _D("1.852")),
    Unit("km", "length", _D(1000)),
    Unit("m", "length"),
    Unit("cm", "length", _D("0.01")),
    Unit("mi", "length", _D("1609.344")),
    Unit("ft", "length", _D("0.3048")),
    Unit("kg", "mass"),
    Unit("g", "mass", _D("0.001")),
    Unit("lb", "mass", _D("0.45359237")),
    Unit("s", "duration"),
    Unit("min", "duration", _D(60)),
    Unit("h", "duration", _D(3600)),
    Unit("day", "duration", _D(86400)),
    Unit("week", "duration", _D(604800)),
    Unit("%", "ratio"),
    Unit("EUR", "money", None),
    Unit("USD", "money", None),
    Unit("GBP", "money", None),
    Unit("CHF", "money", None),
    # How many of a thing: "2 pcs", and a multiplier glued to its number ("x2", "2×"), which the quantity
    # reader reads itself (a glued letter is otherwise no unit).
    Unit("pcs", "count", None),
    Unit("×", "count", None),
    CLOCK,
)}

_NOT_WORD = r"(?![^\W\d_])"  # no letter follows (a digit or punctuation may)
# How a unit is written after its number, tried in this order (the longer spelling first).
_UNIT_AFTER: list[tuple[str, str]] = [
    (rf"[°º]\s?C{_NOT_WORD}|℃|(?:degrees?|deg\.?)\s*(?:celsius|centigrade|C{_NOT_WORD})|celsius|centigrade"
     rf"|(?-i:C){_NOT_WORD}", "°C"),
    (rf"[°º]\s?F{_NOT_WORD}|℉|(?:degrees?|deg\.?)\s*(?:fahrenheit|F{_NOT_WORD})|fahrenheit|(?-i:F){_NOT_WORD}", "°F"),
    (rf"km\s?/\s?h(?:r|our)?{_NOT_WORD}|km\s?h(?:-1|⁻¹)|kmh{_NOT_WORD}|kph{_NOT_WORD}"
     rf"|kmph{_NOT_WORD}|(?:km|kilomet(?:er|re)s?)\s*(?:/\s*h(?:ou)?r{_NOT_WORD}|\s(?:per|an|a)\s+hour)", "km/h"),
    (rf"mph{_NOT_WORD}|mi\s?/\s?h{_NOT_WORD}|miles?\s*(?:/\s*h(?:ou)?r{_NOT_WORD}|\s(?:per|an|a)\s+hour)",
     "mph"),
    (rf"m\s?/\s?s{_NOT_WORD}|m\s?s(?:-1|⁻¹)|met(?:er|re)s?\s+(?:per|a)\s+second", "m/s"),
    (rf"knots?{_NOT_WORD}|kts?{_NOT_WORD}|kn{_NOT_WORD}", "kn"),
    (rf"[°º]|degrees?{_NOT_WORD}|deg{_NOT_WORD}", "°"),
    (rf"km{_NOT_WORD}|kilomet(?:er|re)s?{_NOT_WORD}", "km"),
    (rf"cm{_NOT_WORD}|centimet(?:er|re)s?{_NOT_WORD}", "cm"),
    (rf"miles?{_NOT_WORD}|mi{_NOT_WORD}", "mi"),
    (rf"ft{_NOT_WORD}|feet{_NOT_WORD}|foot{_NOT_WORD}", "ft"),
    (rf"kg{_NOT_WORD}|kilo(?:gram(?:me)?)?s?{_NOT_WORD}", "kg"),
    (rf"lbs?{_NOT_WORD}", "lb"),
    (rf"g{_NOT_WORD}|gram(?:me)?s?{_NOT_WORD}", "g"),
    (rf"secs?{_NOT_WORD}|seconds?{_NOT_WORD}", "s"),
    (rf"mins?{_NOT_WORD}|minutes?{_NOT_WORD}", "min"),
    (rf"m{_NOT_WORD}|met(?:er|re)s?{_NOT_WORD}", "m"),
    (rf"hrs?{_NOT_WORD}|hours?{_NOT_WORD}|h{_NOT_WORD}", "h"),
    (rf"days?{_NOT_WORD}", "day"),
    (rf"weeks?{_NOT_WORD}|wks?{_NOT_WORD}", "week"),
    (rf"%|per\s?cent{_NOT_WORD}|percent(?:age\s+points?)?{_NOT_WORD}|pct{_NOT_WORD}", "%"),
    (rf"€|eur(?:os?)?{_NOT_WORD}", "EUR"),
    (rf"\$|usd{_NOT_WORD}|dollars?{_NOT_WORD}", "USD"),
    (rf"£|gbp{_NOT_WORD}|pounds?(?:\s+sterling)?{_NOT_WORD}", "GBP"),
    (rf"chf{_NOT_WORD}|(?:swiss\s+)?francs?{_NOT_WORD}", "CHF"),
    (rf"pcs?\.?{_NOT_WORD}|pieces?{_NOT_WORD}", "pcs"),
]
_UNIT_AFTER_RE = [(re.compile(p, re.IGNORECASE), s) for p, s in _UNIT_AFTER]
# A unit glued to the number ("38km/h") or one space, no-break space or hyphen away ("12-percent").
_UNIT_GAP = re.compile(r"[ \u00a0\u202f\u2009-]?")
# Currency written before its number: "$85.80", "€ 34,50", "EUR 85.80", "US$ 12".
_UNIT_BEFORE = re.compile(r"(?:(US\$|\$)|(€)|(£)|\b(EUR|USD|GBP|CHF))[ \u00a0]?$", re.IGNORECASE)
_BEFORE_SYMBOL = {1: "USD", 2: "EUR", 3: "GBP"}


def unit_after(text: str, at: int) -> tuple[Unit, int] | None:
    """The unit written right after position ``at`` (glued, or one space or hyphen away) and where it
    ends, or None."""
    gap = _UNIT_GAP.match(text, at)
    start = gap.end() if gap else at
    for pattern, symbol in _UNIT_AFTER_RE:
        m = pattern.match(text, start)
        if m:
            return UNITS[symbol], m.end()
    return None


def unit_before(before: str) -> tuple[Unit, int] | None:
    """The currency written right before a number (``before`` is the text up to it) and its length."""
    m = _UNIT_BEFORE.search(before)
    if not m:
        return None
    symbol = next((_BEFORE_SYMBOL[i] for i in (1, 2, 3) if m.group(i)), None) or m.group(4).upper()
    return UNITS[symbol], len(m.group(0))
