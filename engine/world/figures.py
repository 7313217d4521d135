"""What a figure in the world measures and whose it is: the grader's half of "compare quantities, not strings".

A task's answer check names a figure the way the world holds it ("38", the wind in Oslo). The world knows
more than the string: the field it sits in declares its unit (``wind_kph`` is km/h, through
``Field(json_schema_extra={"unit": ...})`` on the state model), and the record it belongs to names its
subject (``weather["Oslo"]``) among others of its kind (Bergen). :func:`figure_of` finds that out, so that
the answer check can reject the right number in the wrong unit ("38 mph") or said of the wrong thing
("Seville: 27.5 °C"), and accept the same quantity in another unit ("23.6 mph").
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from pydantic import BaseModel

from engine.readers.units import UNITS, Unit
from engine.world.state import WorldState


@dataclass(frozen=True)
class Figure:
    """Where a value sits in the world: the unit its field declares, its record's key (``subject``) and
    the keys of the other records of that collection (``others``)."""

    unit: Unit | None
    subject: str | None = None
    others: tuple[str, ...] = ()


def _numbers(value: Any, unit: Unit | None, subject: str | None, others: tuple[str, ...]) -> Iterator[
        tuple[Decimal, Figure]]:
    if isinstance(value, BaseModel):
        for name, info in type(value).model_fields.items():
            extra = info.json_schema_extra
            declared = extra.get("unit") if isinstance(extra, dict) else None
            yield from _numbers(getattr(value, name), UNITS[declared] if isinstance(declared, str) else None,
                                subject, others)
    elif isinstance(value, dict):
        keys = tuple(str(k) for k in value)
        for key, item in value.items():
            inner = isinstance(item, BaseModel)
            yield from _numbers(item, unit, str(key) if inner else subject,
                                tuple(k for k in keys if k != str(key)) if inner else others)
    elif isinstance(value, list):
        for item in value:
            yield from _numbers(item, unit, subject, others)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            yield Decimal(str(value)), Figure(unit, subject, others)
        except InvalidOperation:
            return


def figure_of(state: WorldState, value: Decimal, *, unsigned: bool) -> Figure | None:
    """What ``value`` is in ``state``: the one figure of the seed that holds it with a declared unit, or None
    when none does or several do (the check then compares the number alone)."""
    found = {(f.unit.symbol if f.unit else None, f.subject, f.others): f
             for number, f in _numbers(state, None, None, ())
             if f.unit is not None and (abs(number) == abs(value) if unsigned else number == value)}
    return next(iter(found.values())) if len(found) == 1 else None
