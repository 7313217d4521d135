"""Text from a pull request placed in a Markdown job summary (and the log beside it) as text, whatever it holds.

Every character that can start inline markup anywhere in a line is backslash-escaped, which CommonMark
defines as a literal: code spans, emphasis, links, images, autolinks (``:`` ``@`` ``.``), HTML tags, entities,
table cells, strikethrough and GitHub's math (``$``). Block markers (``#``, ``-``, ``>``, ``1.``) count only at
the start of a line, which a value never is: control and format characters (newlines, bidirectional
overrides) are written as visible ``\\uXXXX`` escapes, so a value stays on the line it was placed on, after
the summary's own prefix, and can never begin a line where the runner would read ``::`` as a workflow
command.
"""

from __future__ import annotations

import unicodedata

from engine.core.textclip import shorten

_PUNCT = frozenset("\\`*_[]()!|<>~&:@$.")
MAX_CHARS = 2_000


def _visible(ch: str) -> str:
    if ch in _PUNCT:
        return "\\" + ch
    if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
        return f"\\\\u{ord(ch):04x}"
    return ch


def md_text(value: object, limit: int = MAX_CHARS) -> str:
    """``value`` as literal Markdown text on one line, clipped to ``limit`` characters first."""
    text = shorten(str(value), limit)
    return "".join(_visible(ch) for ch in text)


def md_code(value: object, limit: int = 200) -> str:
    """``value`` as an inline code span when it can be one (no backtick, nothing but printable characters:
    a code span shows its content literally), else as ``md_text``."""
    text = str(value)
    if text and len(text) <= limit and "`" not in text and text.isprintable() and text.strip() == text:
        return f"`{text}`"
    return md_text(text, limit)
