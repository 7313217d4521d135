"""Text from a result file made safe to print on a terminal: the one rule for `sllmb show`.

A model's reply, a tool name or a task id is data. Written raw to a terminal, an ESC sequence in it could
clear the screen, move the cursor over the verdict or set the window title; a C1 control (``\\x9b`` is a
CSI by itself on some terminals) can do the same. So every string is scrubbed of known secrets, stripped of
escape sequences and of every C0/C1 control but newline and tab, and bounded, with a marker saying how much
was cut. Rich markup is a separate matter: callers put this text in ``rich.text.Text`` or pass it through
``rich.markup.escape``, so ``[bold red]`` in a reply prints as written.
"""

from __future__ import annotations

import re

from engine.core.scrub import scrub

# Whole escape sequences first, so their parameters ("[2J", "]0;title") do not survive as visible junk.
_ESCAPE_SEQUENCE = re.compile(
    r"""
      \x1b\[[0-?]*[\x20-/]*[@-~]?           # CSI: ESC [ params intermediates final
    | \x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?    # OSC (window title, hyperlinks): to BEL or ST
    | \x1b[PX^_][^\x1b]*(?:\x1b\\)?         # DCS, SOS, PM, APC strings: to ST
    | \x1b[\x20-/]*[\x30-~]?                # any other escape: ESC, intermediates, final
    """,
    re.VERBOSE,
)
# Every other C0 control but tab (\x09) and newline (\x0a), DEL, and the C1 range. Carriage return goes too:
# it lets a line overwrite what was printed before it.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_controls(text: str) -> str:
    """``text`` without escape sequences and without C0/C1 controls other than newline and tab."""
    return _CONTROL.sub("", _ESCAPE_SEQUENCE.sub("", text))


def clip(text: str, limit: int | None) -> str:
    """At most ``limit`` characters of ``text``, with a marker naming what was cut; None: all of it."""
    if limit is None or len(text) <= limit:
        return text
    return f"{text[:limit]}\n… [clipped: {limit:,} of {len(text):,} characters shown; --full shows all]"


def safe_text(text: str | None, limit: int | None) -> str:
    """What may be printed of ``text``: secrets scrubbed, controls stripped, then clipped to ``limit``."""
    return clip(strip_controls(scrub(text or "")), limit)
