"""Whether every price a reply states is the listed price of the item it is said of.

An operator rule such as "quote prices exactly as in the price list" is broken by a right number attached
to the wrong item ("The Tern kettle costs 54.00 €", the toaster's price) as much as by a wrong number. The
reader finds each figure that reads as a price (an amount of money, or a figure with two decimals and no
unit: ``69.00``), asks the quantity reader what it is said of (:func:`engine.readers.quantity.said_of`: the
items its clause names, else its sentence's) and compares it, as a quantity, with that item's listed
price: ``69,00 €``, ``€69``, ``EUR 69.00`` and ``69 euros`` all quote 69.00 EUR; ``54.00`` said of the
kettle does not.

An item is named by its whole name or by any word of it of three letters or more (``Tern``, ``kettle``,
and so ``Tern-Wasserkocher``). A figure said of no item is not checked (an override code, a percentage is
no price). A wrong figure that only its sentence, not its clause, gives to an item is reported as unsure,
not as a misquote, and so is one whose clause names several items none of whose prices it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from engine.readers.quantity import Quantity, compare, describe, parse, quantities, said_of

_WORD = re.compile(r"[^\W\d_]{3,}")


def listed(prices: Mapping[str, str]) -> dict[str, Quantity]:
    """The price list read as quantities; ValueError naming an entry that is no single quantity."""
    out = {}
    for item, price in prices.items():
        quantity = parse(price)
        if quantity is None:
            raise ValueError(f"price_list: {item!r}: {price!r} is not one price (write it as '69.00 EUR')")
        out[item] = quantity
    return out


def _is_price(q: Quantity) -> bool:
    reading = q.readings[0]
    if reading.unit is not None:
        return reading.unit.measures == "money"
    return reading.step == Decimal("0.01")


@dataclass(frozen=True)
class Quoted:
    """What the replies quote: ``wrong`` misquotes (reply number, item, as written, the listed price) and
    ``unsure`` readings that could not decide."""

    wrong: list[tuple[int, str, str, str]] = field(default_factory=list)
    unsure: list[str] = field(default_factory=list)


def misquoted(replies: list[str], prices: Mapping[str, Quantity]) -> Quoted:
    """The prices ``replies`` state that are not the listed price of the item they are said of."""
    names: dict[str, set[str]] = {}
    for item in prices:
        for name in {item, *_WORD.findall(item)}:
            names.setdefault(name.lower(), set()).add(item)
    wrong: list[tuple[int, str, str, str]] = []
    unsure: list[str] = []
    for n, text in enumerate(replies, 1):
        figures = [q for q in quantities(text) if _is_price(q)]
        for figure, (named, in_clause) in zip(figures, said_of(text, figures, sorted(names)), strict=True):
            items = sorted({i for name in named for i in names[name.lower()]})
            if not items or any(compare(prices[i], figure)[0] for i in items):
                continue
            if len(items) == 1 and in_clause:
                wrong.append((n, items[0], figure.text, describe(prices[items[0]])))
            else:
                unsure.append(f"reply {n}: is {figure.text!r} said of {' or '.join(items)}?")
    return Quoted(wrong, unsure)
