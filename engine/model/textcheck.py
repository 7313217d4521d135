"""Checks on a model's text shared by every module: is a cut-off reply degenerate or just incomplete."""

from __future__ import annotations

import re
from collections import Counter


def _ngram_repetition(words: list[str], n: int = 8) -> float:
    """Share of the text's 8-grams that repeat an earlier 8-gram."""
    if len(words) < n * 2:
        return 0.0
    grams = [tuple(words[i : i + n]) for i in range(len(words) - n + 1)]
    counts = Counter(grams)
    repeated = sum(c - 1 for c in counts.values() if c > 1)
    return repeated / len(grams)


_CHAR_CYCLE = re.compile(r"(.{1,40}?)\1{7,}", re.DOTALL)


def is_degenerate(text: str) -> bool:
    """A reply is degenerate when it loops: over half of its 8-grams (or of its last quarter's) repeat,
    or it ends in a short character cycle repeated many times."""
    words = text.split()
    if _ngram_repetition(words) > 0.5:
        return True
    tail = words[len(words) * 3 // 4 :]
    if _ngram_repetition(tail) > 0.5:
        return True
    # A long run of one short unit ("ha ha ha …", "}}}}…"); short runs such as a table rule are normal.
    return any(len(m.group(0)) >= 120 for m in _CHAR_CYCLE.finditer(text[-800:]))


def truncation_class(text: str) -> str:
    return "degenerate" if is_degenerate(text) else "incomplete"
