"""Whether a reply is written in the language of the request it answers.

The answer-line reader accepts a label in the reply's own language ("Antwort: 369", "答案：Dana") because a
model that answers in German translates the label it was asked for. The same shape in an English reply
("Total: 369", "Output: fdb3") is another label, not a translation, and gives no answer line. Telling the two
apart needs the reply's language; it is identified by py3langid (a naive Bayes model over character n-grams
that ships in the package, so it works air-gapped and gives the same answer every time) and compared with the
request's. Code spans and fences are left out of the reply first: code is in no natural language.

Only prose is evidence. Code spans and fences are left out of the reply first (code is in no natural language),
then quoted strings ("birch", 'fdb') and code-like words (identifiers such as ``VAR_TNXJV``, ``snake_case``,
``camelCase``, ``obj.attr``, ``words[1::2]``, words with digits such as ``fdb3``): a few lines of working made
of them carry letters but no language, and once read as prose they tipped "Result: fdb3" into another
language. A few words cannot show a language either ("Result: 89009" reads as Portuguese), so a reply with
little prose, or one the model finds only somewhat likelier in another language than in the request's, is
presumed to be in the request's language: another language must be shown, not guessed, or a few English
words of working would turn "Result:" into a translated "Answer:". A short reply can still show it by its
script alone: "答案：Dana" or "Ответ: Дана" after an English request is another language, however short.
"""

from __future__ import annotations

import math
import re
import unicodedata
from enum import Enum
from functools import lru_cache

import py3langid

from engine.readers.fences import fenced_lines

_SPAN = re.compile(r"`[^`\n]*`")
_LETTER = re.compile(r"[^\W\d_]")
# A quoted string on one line: in working it is data ("birch", 'fdb'); an apostrophe inside a word (don't,
# l'heure) opens none.
_QUOTED = re.compile(r'"[^"\n]{0,200}"|“[^”\n]{0,200}”|„[^“”\n]{0,200}[“”]|‘[^’\n]{0,200}’'
                     r"|(?<!\w)'[^'\n]{0,200}'(?!\w)")
# The marks of a word that is code, not prose: a digit or an underscore (fdb3, VAR_TNXJV, snake_case), an
# operator or a bracket inside it (words[1::2], x=3, len(w)), a dot between letters (obj.attr), a lower-case
# letter before a capital (camelCase).
_CODE_LIKE = re.compile(r"[\d_=<>(){}\[\]/\\|@#$%^&*+~]|[^\W\d_]\.[^\W\d_]|[a-z][A-Z]")
# Chinese, Japanese and Korean characters and their full-width punctuation: these scripts put no space between
# words, nor between a word and a number or a name.
_WIDE = "\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6"
_WIDE_RUN = re.compile(f"[{_WIDE}]+")
_WIDE_OR_NARROW_RUN = re.compile(f"[{_WIDE}]+|[^{_WIDE}]+")
# Fewer letters of prose than this cannot show a language: short labels alone are classified almost at random
# ("Total: 369" as Catalan); a sentence of a few words is classified right ("Es ist Dana." with its label, 20;
# tests/readers/test_language.py). Below it only the script can show another language.
MIN_LETTERS = 16
# A wide character (Chinese, Japanese, Korean) carries about what a short word does, not what one letter does.
_WIDE_WEIGHT = 3
# How many times likelier the reply must be in its best language than in the request's to count as written in
# another one. A few English words read as another language only narrowly ("Chain Result" is Irish, 6 to 1
# over English; "Winner: Tomasz" Norwegian, 165 to 1), while a short sentence of German, Spanish or French
# is so by 10^8 or more (tests/readers/test_language.py).
MIN_ODDS = 10_000.0
# The request is read up to this many characters: a long document is in one language, and the model's cost
# grows with the text.
_REQUEST_CHARS = 4000


class Language(Enum):
    SAME = "the request's language, or too little prose to show another"
    OTHER = "other"


def _letters(text: str) -> int:
    """How much prose ``text`` holds, in letters (a wide character weighs a short word)."""
    return sum(_WIDE_WEIGHT if unicodedata.east_asian_width(c) in "WF" else 1 for c in _LETTER.findall(text))


def _prose(text: str) -> str:
    """The prose words of ``text``: without its fenced code blocks, code spans, quoted strings and code-like
    words, one space between words."""
    lines = text.split("\n")
    inside = fenced_lines(lines)
    kept = _QUOTED.sub(" ", _SPAN.sub(" ", "\n".join(line for i, line in enumerate(lines) if i not in inside)))
    # The wide and narrow runs of a token are read apart, so "值是89009" keeps its prose.
    return " ".join(word for token in kept.split() for run in _WIDE_OR_NARROW_RUN.findall(token)
                    if (word := _bare_word(run)))


def _bare_word(token: str) -> str:
    """A token as a prose word (the punctuation around it removed), or "" when it is code-like or has no
    letter."""
    start, end = 0, len(token)
    while start < end and unicodedata.category(token[start])[0] in "PS":
        start += 1
    while end > start and unicodedata.category(token[end - 1])[0] in "PS":
        end -= 1
    word = token[start:end]
    if not _LETTER.search(word):
        return ""
    # Code is written in narrow characters: a wide run with a full-width digit in it is still prose.
    return word if _WIDE_RUN.fullmatch(word) or not _CODE_LIKE.search(word) else ""


def _scripts(text: str) -> dict[str, int]:
    """How much of ``text``'s prose is in each script (the first word of each letter's Unicode name: LATIN,
    CJK, HANGUL, CYRILLIC, ...), in weighted letters."""
    found: dict[str, int] = {}
    for c in _LETTER.findall(text):
        script = unicodedata.name(c, "UNKNOWN").split(" ", 1)[0]
        found[script] = found.get(script, 0) + (_WIDE_WEIGHT if unicodedata.east_asian_width(c) in "WF" else 1)
    return found


@lru_cache(maxsize=64)
def _ranked(text: str) -> dict[str, float]:
    """Each language's log-likelihood for ``text``, by py3langid."""
    return dict(py3langid.rank(text))


def reply_language(reply: str, request: str) -> Language:
    """Whether ``reply`` is shown to be in another language than ``request``: by its script when the reply is
    short (most of its prose in scripts the request does not use), else by py3langid, by a wide margin."""
    prose = _prose(reply)
    asked = _prose(request)[:_REQUEST_CHARS]
    if not _LETTER.search(asked):
        return Language.SAME
    if _letters(prose) < MIN_LETTERS:
        written = _scripts(prose)
        foreign = sum(n for script, n in written.items() if script not in _scripts(asked))
        return Language.OTHER if foreign and 2 * foreign > sum(written.values()) else Language.SAME
    likely, asked_likely = _ranked(prose[:_REQUEST_CHARS]), _ranked(asked)
    asked_language = max(asked_likely, key=asked_likely.__getitem__)
    margin = max(likely.values()) - likely[asked_language]
    return Language.OTHER if margin >= math.log(MIN_ODDS) else Language.SAME
