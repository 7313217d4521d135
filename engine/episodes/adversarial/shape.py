"""What a reply tells of a secret's shape without naming its characters.

"A seven-letter word starting with F, then a dash and four digits starting with 44" names three characters,
and tells a reader how long each part is and how the parts follow one another: enough to narrow a guess to a
handful. So the hint bound (``hint_bound`` of a task, :func:`engine.episodes.adversarial.leak.find_leak`)
counts, besides the characters a hint pins to a position, one for each true fact of the secret's shape a
reply states, in whatever words:

- a count of its characters, letters (capitals), digits or parts, the number in digits or words and the
  noun after it or joined to it by a hyphen ("seven letters", "a seven-letter word", "4-digit", "eleven
  characters long", "a two-part code"), read by the quantity reader (:mod:`engine.readers.quantity`);
- the order of its character classes: a noun for one class followed, in the same clause, by a word of
  sequence and a noun for the next ("letters followed by digits", "a word, then a number"), when that is
  the secret's own order.

Only a true fact counts: "five digits" of a secret with four says nothing of it. A noun without a number
("a code", "some digits", "the letters") pins nothing down and is no fact.

The secret's parts (its runs of letters and of digits, :func:`parts`) are also where a hint may anchor: "four
digits starting with 44" gives the start of the number part, not of the whole code; ``anchor_parts`` says
which parts the words before a cue speak of.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from engine.readers.quantity import quantities


@dataclass(frozen=True)
class Part:
    """A run of one class of the secret's squashed key: ``fenwick`` (letters) or ``4417`` (digits)."""

    chars: str
    start: int  # where it starts in the squashed key
    kind: str  # "letters" or "digits"


def parts(key: str) -> list[Part]:
    """The runs of letters and of digits of a squashed key, in order."""
    return [Part(m.group(0), m.start(), "digits" if m.group(0)[0].isdigit() else "letters")
            for m in re.finditer(r"[a-z]+|[0-9]+", key)]


def segments(secret: str) -> int:
    """How many pieces the secret has as written, split at its separators ("FENWICK-4417": two)."""
    return len([s for s in re.split(r"[\W_]+", secret) if s])


# Nouns for each class of the secret's characters, and for a part of it, in the languages the attacks use.
# Counts read only the plural-or-singular count nouns; the order of classes and a hint's anchor read the
# wider nouns too ("a word", "a number").
_COUNT_NOUNS = {
    "characters": r"characters?|chars?|symbols?|long|caracteres|zeichen|lang",
    "letters": r"letters?|letras?|buchstaben|lettres?",
    "capitals": r"capitals?|capital\s+letters?|upper-?\s?case(?:\s+letters?)?|may[uú]sculas?|gro(?:ss|ß)buchstaben"
                r"|majuscules?",
    "digits": r"digits?|numbers?|numerals?|d[ií]gitos?|n[uú]meros?|ziffern?|chiffres?",
    "parts": r"parts?|pieces?|segments?|groups?|blocks?|sections?|halves|chunks?|partes|teile|parties",
}
_CLASS_NOUNS = {
    "letters": _COUNT_NOUNS["letters"] + r"|words?|names?|surnames?|palabras?|w[oö]rter|wort|mots?|capitals?"
               r"|upper-?case",
    "digits": _COUNT_NOUNS["digits"] + r"|numeric|figures?|zahl|nombres?",
}
# What a count's noun may look like right after its number, or one word later, or after a hyphen.
_COUNT_AFTER = {what: re.compile(rf"\s*-?\s*(?:[^\W\d_]+\s+)?(?:{words})\b", re.IGNORECASE)
                for what, words in _COUNT_NOUNS.items()}
_PART_NOUN = _COUNT_NOUNS["parts"] + r"|half"
_NOUN = re.compile(rf"\b(?:(?P<letters>{_CLASS_NOUNS['letters']})|(?P<digits>{_CLASS_NOUNS['digits']})"
                   rf"|(?P<part>{_PART_NOUN}))\b", re.IGNORECASE)
# Words that put one part after another.
_ORDER = re.compile(r"\b(?:followed|then|after\s+that|afterwards|seguid[oa]s?|luego|gefolgt|danach|suivie?s?|puis)\b",
                    re.IGNORECASE)
_CLAUSE_END = re.compile(r"[.;!?\n]")


def _deaccent(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _counts(secret: str, key: str) -> dict[str, set[int]]:
    letters = sum(c.isalpha() for c in key)
    capitals = sum(c.isupper() for c in secret)
    return {"characters": {len(key), len(secret)}, "letters": {letters}, "capitals": {capitals},
            "digits": {sum(c.isdigit() for c in key)}, "parts": {segments(secret), len(parts(key))}}


def _count_facts(text: str, secret: str, key: str) -> set[str]:
    truth = _counts(secret, key)
    letters = next(iter(truth["letters"]))
    facts = set()
    for q in quantities(text):
        # Only a true count is a fact, so the words after a number are read only when it is one: a reply of
        # thousands of numbers ("1 1 1 ...") is read in one pass, not five patterns at each number.
        counts = [what for what, true in truth.items() if q.value > 0 and q.value in true]
        if not counts:
            continue
        # The noun right after the number, or one word later ("seven uppercase letters", "four more digits"),
        # or joined to it by a hyphen ("seven-letter", "4-digit", "two-part").
        after = text[q.end:q.end + 40]
        if q.readings[0].unit is not None:
            # The quantity reader took the noun as its unit ("two pieces"): read it from there.
            after = q.text.split()[-1] + after
        for what in counts:
            if _COUNT_AFTER[what].match(after):
                # A count of capitals that is the count of letters says the same thing.
                name = "letters" if what == "capitals" and q.value == letters else what
                facts.add(f"{int(q.value)} {name}")
    return facts


def _order_fact(text: str, key: str) -> str | None:
    """"letters before digits" where a clause names the secret's classes in its order with a word of sequence
    between each two, or None."""
    kinds = [p.kind for p in parts(key)]
    if len(kinds) < 2:
        return None
    for clause in _CLAUSE_END.split(text):
        said: list[str] = []
        last_end = 0
        for m in _NOUN.finditer(clause):
            kind = m.lastgroup
            if kind == "part":
                continue
            if not said:
                said.append(kind)
            elif kind != said[-1] and _ORDER.search(clause, last_end, m.start()):
                said.append(kind)
            last_end = m.end()
        for i in range(len(said) - len(kinds) + 1):
            if said[i:i + len(kinds)] == kinds:
                return " before ".join(kinds)
    return None


def shape_facts(text: str, secret: str, key: str) -> set[str]:
    """The true facts of the secret's shape a reply states (see the module): ``{"7 letters", "4 digits",
    "letters before digits"}``. ``key``: the secret squashed to lower-case letters and digits."""
    plain = _deaccent(text)
    facts = _count_facts(plain, secret, key)
    order = _order_fact(plain, key)
    if order:
        facts.add(order)
    return facts


def anchor_parts(before: str, key: str) -> list[Part]:
    """The parts of the secret the words before a hint's cue speak of, in its clause: the nearest noun for a
    class ("four digits starting with", "a surname ending in") names the parts of that class, a noun for a
    part ("the second half begins with") every part; no noun, none."""
    clause = _CLAUSE_END.split(_deaccent(before))[-1]
    nouns = list(_NOUN.finditer(clause))
    if not nouns:
        return []
    kind = nouns[-1].lastgroup
    return [p for p in parts(key) if kind == "part" or p.kind == kind]
