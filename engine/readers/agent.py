"""The agent reader: who a passive or participial report says did the act ("bumped to 7 by Jonas").

A report written without its subject ("config_version already bumped to 7 by Jonas", "set to true by the
on-call yesterday", "O-7 was approved by finance") gives its act to whoever its "by" phrase names, wherever
that phrase stands in the clause: right after the verb or after its complement. But "by" heads other phrases
as often, and those leave the act with the writer:

- an **amount** ("bumped by 5", "raised by one", "by 10%"): the quantity reader's number at the phrase's start;
- a **means** ("by editing the file", "by calling kv_set"): a gerund, or an identifier (a key, a tool, a path);
- a **time** ("by Friday", "by 17:00", "by the end of the week", "by the time I checked"): a day or month name
  (the calendar's own), a clock time or duration, or a noun phrase that opens a clause of its own;
- the **writer** itself ("by me", "by us");
- a **manner** ("by hand", "by mistake", "by default", "by email"): a bare lower-case noun.

What is left names an agent: a proper noun or acronym as written ("by Jonas", "by SRE"), or a noun phrase
opened by a determiner or an indefinite pronoun ("by the on-call", "by our sales team", "by someone else").
A bare lower-case noun is a manner unless the caller knows it as a person or a team of the world ("by
finance" where a contact's team is finance): :func:`by_phrase` returns it with ``bare`` set for the caller to
decide. The word classes here are grammar (determiners, pronouns), not a list of agents or of idioms.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass

from engine.readers.number_words import SMALL
from engine.readers.quantity import quantities
from engine.readers.units import unit_after

# The phrase ends where a clause or an aside does: a comma, a semicolon, a colon, a dash between spaces, a
# bracket or a sentence end.
_PHRASE_END = re.compile(r"[,;:()\[\]]|\s[-–—]\s|[.!?](?=\s|$)")
_BY = re.compile(r"(?<![\w-])by\s+", re.IGNORECASE)
_WORD = re.compile(r"[^\W_][\w'’.@/-]*[\w]|[^\W_]")
# The writer, as the object of "by".
_SPEAKER = frozenset({"me", "us", "myself", "ourselves"})
# Determiners, possessives and indefinite pronouns that open a noun phrase for a person or a team.
_DETERMINERS = frozenset({"the", "a", "an", "another", "other", "others", "some", "someone", "somebody",
                          "their", "his", "her", "its", "our", "your", "whoever", "each", "either", "one"})
# A subject pronoun right after the noun phrase opens a clause of its own: "by the time I checked".
_CLAUSE_SUBJECT = re.compile(r"^\s+(?:i|we|you|they|he|she|it)\s+[a-z]", re.IGNORECASE)
_CALENDAR = frozenset(n.lower() for names in (calendar.day_name, calendar.day_abbr, calendar.month_name,
                                              calendar.month_abbr) for n in names if n)
_IDENTIFIER = re.compile(r"[_./@\d]")


@dataclass(frozen=True)
class ByPhrase:
    """A "by" phrase that may name who did the act: its words as written, and whether it is a bare
    lower-case noun (a manner unless the caller knows it as a person or team)."""

    words: str
    bare: bool


def _time_or_amount(words: list[str], phrase: str) -> bool:
    """Whether the phrase opens with a number or a time: the quantity reader's number or clock time, a
    number word, a day or month name, or a noun phrase holding a duration ("the end of the week")."""
    first = words[0].lower().rstrip(".")
    if first in _CALENDAR:
        return True
    if len(words) > 1 and words[1].lower() == "of":
        return False  # "one of the admins": a part of a group of people
    if first in SMALL or any(q.start == 0 for q in quantities(phrase)):
        return True
    return any((found := unit_after(w.lower(), 0)) and found[1] == len(w) and found[0].measures == "duration"
               for w in words[1:5])


def by_phrase(text: str) -> ByPhrase | None:
    """The first "by" phrase in ``text`` (the words a report goes on with after its verb, as written, up to
    the end of its clause) that may name another agent; None where it has none or its phrase is an amount,
    a means, a time or the writer."""
    end = _PHRASE_END.search(text)
    clause = text[: end.start()] if end else text  # "to 8, approved by Jonas": another clause's phrase
    match = _BY.search(clause)
    if match is None:
        return None
    phrase = clause[match.end():].strip()
    words = _WORD.findall(phrase)
    if not words:
        return None
    first = words[0]
    low = first.lower()
    if low in _SPEAKER or _time_or_amount(words, phrase):
        return None
    if _IDENTIFIER.search(first) or (low.endswith("ing") and first.islower()):
        return None  # "by kv_set", "by editing the file": how the writer did it
    if first[0].isupper():
        return ByPhrase(phrase, bare=False)  # "by Jonas", "by SRE"
    if low in _DETERMINERS:
        head_end = phrase.find(words[min(len(words) - 1, 1)]) + len(words[min(len(words) - 1, 1)])
        if _CLAUSE_SUBJECT.match(phrase[head_end:]):
            return None  # "by the time I checked"
        return ByPhrase(phrase, bare=False)
    return ByPhrase(phrase, bare=True)
