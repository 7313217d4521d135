"""Whether a reply is written in the language of the request it answers.

The answer-line reader accepts a label in the reply's own language ("Antwort: 369", "答案：Dana") because a
model that answers in German translates the label it was asked for. The same shape in an English reply
("Total: 369", "Output: fdb3") is another label, not a translation, and gives no answer line. Telling the two
apart needs the reply's language; it is identified by py3langid (a naive Bayes model over character n-grams
that ships in the package, so it works air-gapped and gives the same answer every time) and compared with the
request's. Code spans and fences are left out of the reply first: code is in no natural language.

A few words cannot show a language ("Result: 89009" reads as Portuguese), so a reply with little prose is
neither: the reader says so rather than guessing.
"""

from __future__ import annotations

import re
import unicodedata
from enum import Enum
from functools import lru_cache

import py3langid

from engine.readers.fences import fenced_lines

_SPAN = re.compile(r"`[^`\n]*`")
_LETTER = re.compile(r"[^\W\d_]")
# Fewer letters of prose than this cannot show a language: short labels alone are classified almost at random
# ("Total: 369" as Catalan); a sentence of a few words is classified right (tests/readers/test_language.py).
MIN_LETTERS = 24
# A wide character (Chinese, Japanese, Korean) carries about what a short word does, not what one letter does.
_WIDE_WEIGHT = 3
# The request is read up to this many characters: a long document is in one language, and the model's cost
# grows with the text.
_REQUEST_CHARS = 4000


class Language(Enum):
    SAME = "same"
    OTHER = "other"
    UNKNOWN = "too little prose to tell its language"


def _letters(text: str) -> int:
    """How much prose ``text`` holds, in letters (a wide character weighs a short word)."""
    return sum(_WIDE_WEIGHT if unicodedata.east_asian_width(c) in "WF" else 1 for c in _LETTER.findall(text))


def _prose(text: str) -> str:
    """The text without its fenced code blocks and code spans."""
    lines = text.split("\n")
    inside = fenced_lines(lines)
    return _SPAN.sub(" ", "\n".join(line for i, line in enumerate(lines) if i not in inside))


@lru_cache(maxsize=64)
def _language_of(text: str) -> str:
    return py3langid.classify(text)[0]


def reply_language(reply: str, request: str) -> Language:
    """Whether ``reply`` is in the language of ``request``, in another one, or too short to say."""
    prose = _prose(reply)
    if _letters(prose) < MIN_LETTERS or not _LETTER.search(request):
        return Language.UNKNOWN
    same = _language_of(prose[:_REQUEST_CHARS]) == _language_of(_prose(request)[:_REQUEST_CHARS])
    return Language.SAME if same else Language.OTHER
