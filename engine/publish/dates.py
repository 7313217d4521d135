"""The one way a board date is written: the day (UTC) of a timestamp a result or judged file records.

The files hold ISO 8601 timestamps as text (``provenance.finished_at``, a judged file's ``created_at``); a
file is hostile input, so anything that does not read as a timestamp is "not recorded", never shown raw.
Every page, the single file, the CSV and the card write a board date through ``date_text``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

NOT_RECORDED = "not recorded"
# Longer than any ISO 8601 timestamp with a fraction and an offset: a longer string is not one.
_MAX_LEN = 40


def parse_stamp(text: str | None) -> dt.datetime | None:
    """The timestamp in UTC, or None when the text is absent or is not an ISO 8601 timestamp."""
    if not text or len(text) > _MAX_LEN:
        return None
    try:
        when = dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    # A timestamp without an offset is read as UTC: the bench writes them in UTC.
    return when.replace(tzinfo=dt.timezone.utc) if when.tzinfo is None else when.astimezone(dt.timezone.utc)


def date_text(text: str | None) -> str:
    """``2026-12-03`` (the UTC day), or "not recorded"."""
    when = parse_stamp(text)
    return NOT_RECORDED if when is None else when.date().isoformat()


def newest(texts: Iterable[str | None]) -> str | None:
    """The latest of the timestamps that read as ones, as written in its file; None when none does."""
    stamps = [(when, text) for text in texts if (when := parse_stamp(text)) is not None and text]
    return max(stamps)[1] if stamps else None
