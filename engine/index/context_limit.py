"""The one rule for a context longer than the model is made for: sized at the model's maximum, with a note.

A model file may record its maximum context (``max_context``: tokens and the source they are read from).
Asked for more, the calculator sizes the maximum and says so, naming the maximum and its source: a cache for
a million tokens of a 32K model is not a question anyone can run. A model without the figure is not capped,
and the answer says the maximum is not recorded. ``sllmb index can-i-run`` applies ``cap_context``; the page's
script (site_src/assets/index/can-i-run.js) applies the same ``min`` to the figure ``limit_data`` gives it
and shows the notes written here, so the words are written once.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.index.schema import ModelEntry

NOT_RECORDED = "Maximum context not recorded for this model, so the context is not capped"


def capped_text(tokens: int) -> str:
    """What the answer says when the context asked for is above the maximum; the source follows it."""
    return f"Context capped at {tokens:,} tokens, the model's maximum context"


def capped_note(tokens: int, source_url: str) -> str:
    """The whole note as the CLI prints it (the page links the source after ``capped_text``)."""
    return f"{capped_text(tokens)} (source: {source_url})"


@dataclass(frozen=True)
class CappedContext:
    tokens: int  # the context the estimate is made for
    note: str | None  # None: a maximum is recorded and the context asked for is within it


def cap_context(entry: ModelEntry, context: int) -> CappedContext:
    limit = entry.max_context
    if limit is None:
        return CappedContext(context, NOT_RECORDED)
    if context > limit.tokens:
        return CappedContext(limit.tokens, capped_note(limit.tokens, limit.source_url))
    return CappedContext(context, None)


def limit_data(entry: ModelEntry) -> dict | None:
    """The maximum as the page's script reads it: the figure, its source and the note to show when capped;
    None when the file records none (the page then shows ``NOT_RECORDED``)."""
    limit = entry.max_context
    if limit is None:
        return None
    return {
        "tokens": limit.tokens,
        "source_url": limit.source_url,
        "capped_text": capped_text(limit.tokens),
    }
