"""The one rule for cutting a short piece of text to fit a note, a table cell or a message: at most ``limit``
characters, the marker included, so the reader sees that something was cut.

Kept apart on purpose, because they say more than "cut": the stored reply's clip (how many characters were
dropped, ``engine/model/requestlimits.py``), the terminal's (it names ``--full``, ``engine/publish/termsafe.py``),
and the judge's and the code feedback's, which keep the head and the tail.
"""

from __future__ import annotations

ELLIPSIS = "…"


def shorten(text: str, limit: int, marker: str = ELLIPSIS) -> str:
    """``text`` whole if it fits in ``limit`` characters, else its start and ``marker``, ``limit`` in all."""
    if len(text) <= limit:
        return text
    return text[: max(limit - len(marker), 0)] + marker
