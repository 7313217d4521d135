"""The concept reader: which of a few concepts a short text names, through the forms its words take.

A grader that wants "a runbook for config rollback" cannot list every wording ("write up rollback steps",
"create runbook for rolling back config", "document the roll-back procedure"). It names the concepts
instead, each as a few terms (``[[roll back, revert], [runbook, procedure, steps]]``), and this reader finds
each concept in the text in any order, through the forms a word takes:

- inflection: ``rolling``, ``rolled`` and ``rolls`` are ``roll``; ``runbooks`` is ``runbook``; ``writing`` is
  ``write``; ``documentation`` is ``document``; in Spanish ``fallidas`` is ``fallido``, ``ejecuciones`` is
  ``ejecución`` (number and gender, accents folded);
- compounds written apart or together: ``roll back``, ``roll-back``, ``rollback`` and ``rollbacks`` are one
  term, as are ``run book`` and ``runbook``.

What it does not do is know that two different words mean the same thing: a task names the terms of each
concept, and a text that uses none of them names none of it. A text that names some of the concepts and not
the others is a partial match, which a check reports as unsure rather than as a match.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Language = Literal["en", "es"]

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)

# Inflectional and the commonest derivational endings of English: a word with one of them, after the usual
# spelling changes (a doubled final consonant, a dropped silent e, y turned i), is the word without it.
_EN_ENDINGS = ("s", "es", "ed", "ing", "er", "ers", "ation", "ations", "ment", "ments")
# Spanish nouns and adjectives change their last vowel for gender and add -s or -es for the plural.
_ES_VOWELS = ("o", "a", "e")

# The most tokens a compound written apart may take ("run book", "roll back"): terms are short.
_MAX_PARTS = 3


def fold(word: str) -> str:
    """Lower case without accents: ``Ejecución`` reads ``ejecucion``."""
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def tokens(text: str) -> list[str]:
    """The words of a text, folded; a hyphen, slash or any punctuation separates them."""
    return [fold(t) for t in _TOKEN.findall(text)]


def _english_form(token: str, word: str) -> bool:
    for ending in _EN_ENDINGS:
        if not token.endswith(ending) or len(token) - len(ending) < 2:
            continue
        stem = token[: -len(ending)]
        if stem == word:
            return True
        # A silent e dropped (write -> writing, rate -> rated), a final consonant doubled (run -> running).
        if word.endswith("e") and stem == word[:-1]:
            return True
        if len(stem) >= 3 and stem[-1] == stem[-2] and stem[:-1] == word and stem[-1] not in "aeiou":
            return True
        # y turned i before -es and -ed (copy -> copies, copied).
        if word.endswith("y") and ending in ("es", "ed", "er", "ers") and stem == word[:-1] + "i":
            return True
    return False


def _spanish_form(token: str, word: str) -> bool:
    if token in (word + "s", word + "es"):
        return True
    if word.endswith(_ES_VOWELS) and len(word) > 3:
        stem = word[:-1]
        return token in {stem + v for v in ("o", "a", "os", "as")}
    return False


def same_word(token: str, word: str, language: Language = "en") -> bool:
    """Whether ``token`` is ``word`` in one of its forms (both folded)."""
    if token == word:
        return True
    if language == "es":
        return _spanish_form(token, word)
    return _english_form(token, word)


@dataclass(frozen=True)
class Hit:
    """Where a term was found: the tokens [start, end) and the term."""

    start: int
    end: int
    term: str


def find_term(words: Sequence[str], term: str, language: Language = "en") -> Hit | None:
    """The first place ``words`` (from :func:`tokens`) name ``term``: its words one by one in their forms
    (``rolling back`` for ``roll back``), or written together or apart as one compound (``rollbacks`` for
    ``roll back``, ``run book`` for ``runbook``)."""
    parts = tokens(term)
    if not parts:
        return None
    joined = "".join(parts)
    for i in range(len(words)):
        if i + len(parts) <= len(words) and all(
                same_word(words[i + k], p, language) for k, p in enumerate(parts)):
            return Hit(i, i + len(parts), term)
        for n in range(1, _MAX_PARTS + 1):
            if i + n > len(words) or (n == len(parts) and n > 1):
                continue  # the same split was tried word by word above
            if same_word("".join(words[i : i + n]), joined, language):
                return Hit(i, i + n, term)
    return None


@dataclass(frozen=True)
class Match:
    """Which concepts a text names (by index) and which it does not; ``full`` when it names them all."""

    named: tuple[int, ...]
    missing: tuple[int, ...]
    hits: tuple[Hit, ...]

    @property
    def full(self) -> bool:
        return not self.missing

    @property
    def partial(self) -> bool:
        return bool(self.named) and bool(self.missing)


def match(text: str, concepts: Sequence[Sequence[str]], language: Language = "en") -> Match:
    """Which of ``concepts`` (each a few terms, any one of which names it) ``text`` names, in any order."""
    words = tokens(text)
    named: list[int] = []
    missing: list[int] = []
    hits: list[Hit] = []
    for index, terms in enumerate(concepts):
        hit = next((h for h in (find_term(words, t, language) for t in terms) if h is not None), None)
        if hit is None:
            missing.append(index)
        else:
            named.append(index)
            hits.append(hit)
    return Match(tuple(named), tuple(missing), tuple(hits))
