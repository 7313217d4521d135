"""Is a banned word or phrase used? Read as a reader reads it: in any form, spacing or disguise.

A rule that bans a word ("never use the word free") bans the word in every form a reader still reads as
that word: another case, an inflection (``frees``, ``freer``, ``freely``), inside a hyphenated or
run-together compound (``gluten-free``, ``#FreeCoffee``, ``#freecoffee``), spelt out letter by letter
(``F-R-E-E``), or written with digits and look-alike letters (``fr33``). A different word that merely holds
the letters (``freedom``, ``freshly``) is not the word.

A banned phrase (several words, or a word with its punctuation: ``on the house``, ``Next?``) is found by its
words, each in any of its forms, in order, with any spacing, hyphens or emphasis between them (``Free of
charge``, ``free-of-charge``, ``#FreeOfCharge``, ``NEXT ?``); its punctuation must follow its word, so the
banned sign-off ``Next?`` is not found in "next spring".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from engine.episodes.structure import plain_text

# Characters a model (or a spammer) uses to write a word without writing it: look-alike letters from other
# scripts, digits for letters, invisible joiners.
_LOOKALIKE = str.maketrans({
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "х": "x", "і": "i", "ѕ": "s", "ј": "j", "ԁ": "d",
    "ο": "o", "ε": "e", "α": "a", "ι": "i", "\u200b": None, "\u200c": None, "\u200d": None, "\u2060": None,
    "\u00ad": None, "\ufeff": None,
})
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})
_TOKEN = re.compile(r"[#@]?[^\W_]+(?:['’][^\W_]+)?|[#@]?[\w@$]+", re.UNICODE)
_CAMEL = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
# A hyphenated compound, tried only where a token starts: from inside a token the same match was tried again
# at every character, which made a long run of characters without a space quadratic.
_HYPHENATED = re.compile(r"(?<!\S)\S+(?:-\S+)+")
_SPELT = re.compile(r"(?<![^\W_])(?:[^\W\d_][ .\-*·_]{1,2}){2,}[^\W\d_](?![^\W_])")
# Endings that make another form of the same word: plural and third person, past, participle, comparative
# and superlative, and the adverb (free -> freely, cheap -> cheaply). Endings that make a different word
# with its own meaning (free -> freedom, fresh -> freshness) are not forms.
_ENDINGS = ("", "s", "es", "d", "ed", "r", "er", "st", "est", "ing", "ly")
_VOWELS = set("aeiou")


def forms(word: str) -> set[str]:
    """The word (lower case) and its inflections; words of three letters or fewer only as written (``the``,
    ``and`` would otherwise be found inside many other words).

    Spelling changes before an ending are those of English: a final ``e`` drops (``make`` -> ``making``),
    a final consonant ``y`` turns to ``i`` (``happy`` -> ``happily``, ``cheapie`` aside), and a final
    consonant after one short vowel doubles (``stop`` -> ``stopped``)."""
    if len(word) <= 3:
        return {word}
    stems = {word}
    if word.endswith("e"):
        stems.add(word[:-1])
    if word.endswith("y") and word[-2] not in _VOWELS:
        stems.add(word[:-1] + "i")
    if (word[-1] not in _VOWELS | {"w", "x", "y"} and word[-2] in _VOWELS and word[-3] not in _VOWELS
            and word[-1].isalpha()):
        stems.add(word + word[-1])
    out = {stem + end for stem in stems for end in _ENDINGS}
    # "-ly" after a final "le" replaces it (simple -> simply); after "ic" it takes "al" (basic -> basically).
    if word.endswith("le"):
        out.add(word[:-1] + "y")
    if word.endswith("ic"):
        out.add(word + "ally")
    return out


def _deaccent(text: str) -> str:
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).translate(_LOOKALIKE))
    return "".join(c for c in text if not unicodedata.combining(c))


_PHRASE_PART = re.compile(r"[^\W_]+|[^\w\s]", re.UNICODE)
# What may stand between the words of a phrase: spaces, hyphens of any kind, underscores, emphasis marks,
# dots of spelt-out words, or nothing at all (a run-together hashtag).
_BETWEEN = r"[\s\-\u2010-\u2015_*·.]*"


def _phrase(entry: str) -> re.Pattern[str] | None:
    """A pattern for a banned entry of several words or with punctuation, or None for a single word."""
    parts = _PHRASE_PART.findall(_deaccent(entry).casefold())
    if len(parts) <= 1:
        return None
    pattern = r"(?<![^\W_])"
    after_word = False
    for n, part in enumerate(parts):
        # No white space before the first part: a search finds the part itself, and a pattern that may start
        # with spaces is tried again at every character of a long run of them.
        space = "" if n == 0 else r"\s*"
        if part[0].isalnum():
            alts = "|".join(re.escape(f) for f in sorted(forms(part), key=len, reverse=True))
            pattern += (_BETWEEN if after_word else space) + f"(?:{alts})"
        else:
            pattern += space + re.escape(part)
        after_word = part[0].isalnum()
    return re.compile(pattern + (r"(?![^\W_])" if after_word else ""))


def banned_hits(text: str, banned: Sequence[str], *, case_sensitive: bool = False) -> list[tuple[str, str]]:
    """(banned entry, the text that uses it) for every use of a banned word or phrase (see the module).

    Each token is read whole, split at hyphens, and, for hashtags and CamelCase runs, split into the words
    it joins; a lower-case hashtag (``#freecoffee``) counts when it starts or ends with the word. Letters
    spelt one by one (``F R E E``, ``f.r.e.e``) are joined, and digits used as letters (``fr33``) are read
    as letters. With ``case_sensitive`` only the exact spelling counts."""
    body = plain_text(text)
    if case_sensitive:
        return [(w, w) for w in banned if re.search(rf"(?<![\w]){re.escape(w)}(?![\w])", body)]
    body = _deaccent(body)
    hits: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()  # the hits as a set: a list alone made each new hit a scan of the others
    singles: dict[str, set[str]] = {}
    for entry in banned:
        pattern = _phrase(entry)
        if pattern is None:
            singles[entry] = forms(entry.casefold())
            continue
        for reading in dict.fromkeys((body.casefold(), body.casefold().translate(_LEET))):
            m = pattern.search(reading)
            if m and (entry, m.group(0)) not in seen:
                seen.add((entry, m.group(0)))
                hits.append((entry, m.group(0).strip()))
                break

    def look(piece: str, where: str, *, hashtag: bool = False) -> None:
        low = piece.casefold()
        readings = {low, low.translate(_LEET)} if re.search(r"[^\W\d_]", low) else {low}
        for word, wanted in singles.items():
            if any(r in wanted for r in readings) or (
                hashtag and len(word) >= 4 and any(r.startswith(word.casefold()) or any(r.endswith(f) for f in wanted)
                                                   for r in readings)):
                if (word, where) not in seen:
                    seen.add((word, where))
                    hits.append((word, where))

    for m in _HYPHENATED.finditer(body):  # hyphenated compounds, part by part
        for part in re.split(r"-+", m.group(0)):
            look(re.sub(r"[^\w@$]", "", part), m.group(0))
    for m in _TOKEN.finditer(body):
        token = m.group(0)
        core = token.lstrip("#@")
        for part in re.split(r"['’]", core):
            segments = _CAMEL.findall(part)
            # A hashtag in one case joins words with no mark between them: read its ends.
            look(part, token, hashtag=token[:1] in "#@" and len(segments) <= 1)
            if len(segments) > 1:
                for seg in segments:
                    look(seg, token)
    for m in _SPELT.finditer(body):
        look(re.sub(r"[ .\-*·_]", "", m.group(0)), m.group(0))
    return hits
