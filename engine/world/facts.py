"""Identifiers a final message states about the world, checked against what the episode showed the model.

A reply can report a correct booking and still hand the user a tracking number, a reference or an id that no
tool ever returned ("Tracking number: PT8842601-EX" after a call whose answer holds none): the user would act
on an invented fact. The world cannot know every true identifier, but it knows every one the model was
shown: the tools' answers in this episode, the request, and the arguments of the model's own successful calls
(an object it created is named by the call that created it). An identifier the final message states that
none of these holds is invented.

An identifier is a code-like token (:func:`identifiers`): letters and digits together, such as ``O-88``,
``PT8842601-EX``, ``LMP-BULB-4``, ``SHP_2291`` or ``A1B2C3``; or a run of six or more digits (a long
reference number). A figure is not one: a quantity with its unit glued on (``22km/h``, ``10am``, ``5kg``) or
a count of an item (``x2``, ``×3``, ``2x``, ``2pcs``: how many, not which) is read by the quantity reader
(:mod:`engine.readers.quantity`) and left out, as are ordinals (``3rd``).
Amounts and other figures are not checked here: a reply may compute them (a sum, a remainder, a conversion),
so their absence from the tools' answers does not make them invented.

A match is case-insensitive and whole: ``O-8`` is not found inside ``O-88``.

A message the model sends states facts about the world too (:func:`unshown`): its identifiers, read as above,
and its times of day, read by the quantity reader and compared as times (``3:10 am`` is ``03:10``; ``13:10``
is not), each of which must be one the episode showed. A time, unlike an amount, is not computed from
others: one that nothing showed ("failed at 13:10" when the request said 03:10) is a wrong fact.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from engine.readers.quantity import Quantity, compare, quantities
from engine.readers.units import CLOCK

# A token of letters and digits, possibly joined by - _ . / (a full stop only between two characters of it).
_TOKEN = re.compile(r"(?<![\w@/.-])[A-Za-z0-9]+(?:[-_./][A-Za-z0-9]+)*(?![\w@-]|[./]\w)")
_HAS_LETTER = re.compile(r"[A-Za-z]")
_HAS_DIGIT = re.compile(r"\d")
_LONG_NUMBER = re.compile(r"\d{6,}")
_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)", re.IGNORECASE)
# What a reply may write around an identifier that is no part of it.
_MARKUP = re.compile(r"\*\*|__|`")


def _is_figure(token: str) -> bool:
    """Whether the token reads whole as a quantity (a number with its unit: ``22km/h``, ``10am``)."""
    found = quantities(token)
    return len(found) == 1 and found[0].start == 0 and found[0].end == len(token)


def identifiers(text: str) -> list[str]:
    """The code-like tokens ``text`` states, in order, each once (see the module's rules)."""
    out: list[str] = []
    for m in _TOKEN.finditer(_MARKUP.sub("", text)):
        token = m.group(0)
        if not _LONG_NUMBER.fullmatch(token):
            if not (_HAS_LETTER.search(token) and _HAS_DIGIT.search(token)):
                continue
            if _ORDINAL.fullmatch(token) or _is_figure(token):
                continue
        if token not in out:
            out.append(token)
    return out


def _strings(value: Any) -> Iterable[str]:
    """Every string and number inside a call's arguments, however nested."""
    if isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
        yield str(value)


def shown(results: Iterable[str], request: str, calls: Iterable[Mapping[str, Any]]) -> str:
    """Everything the episode showed the model, as one text: the tools' answers, the request, and the
    identifiers among its successful calls' arguments (free text it wrote, a message body, shows nothing:
    an invented code sent in a message is still invented)."""
    own = [s for args in calls for s in _strings(args) if s.strip() and not any(c.isspace() for c in s.strip())]
    return "\n".join([*results, request, json.dumps(own, ensure_ascii=False)])


def invented(text: str, known: str) -> list[str]:
    """The identifiers ``text`` states that ``known`` (what the episode showed) does not hold."""
    plain = _MARKUP.sub("", known).lower()
    missing = []
    for token in identifiers(text):
        pattern = rf"(?<![\w-]){re.escape(token.lower())}(?![\w-])"
        if re.search(pattern, plain) is None:
            missing.append(token)
    return missing


def _times(text: str) -> list[Quantity]:
    return [q for q in quantities(text) if any(r.unit is CLOCK for r in q.readings)]


def _same_time(a: Quantity, b: Quantity) -> bool:
    return compare(a, b)[0] or compare(b, a)[0]


def unshown(text: str, known: str) -> list[str]:
    """The facts a sent message states that ``known`` (what the episode showed) does not hold: invented
    identifiers, then times of day stated in no notation in ``known``, each as written."""
    shown_times = _times(_MARKUP.sub("", known))
    wrong = [q.text for q in _times(_MARKUP.sub("", text)) if not any(_same_time(k, q) for k in shown_times)]
    return invented(text, known) + [t for i, t in enumerate(wrong) if t not in wrong[:i]]
