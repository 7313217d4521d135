"""Which of several candidates a final message picks, read through the stance reader, not found as a mention.

A task that asks the agent to choose ("the warmest city where it is not raining") is not answered by a reply
that names the right candidate: "Madrid is warmest, so I'd hold it there; Valencia would be the runner-up"
names Valencia and picks Madrid, and "Valencia, 27.5 °C. Actually, wait: Seville is the better pick" names
Valencia and settles on Seville. A task declares a :class:`Pick`: the candidate the answer must commit to,
and the others it chooses among (by default the other records of the world collection that holds it: the
cities of ``weather``, the ones the request did not list included).

The reading (:func:`read_pick`), with the stance reader's rules (:mod:`engine.readers.stance`):

- the reply's sentences are read in order; the first that offers a candidate (its head, or a bare value in
  an aside, not one set aside: "not Seville", nor one said of something else in an aside with words of its
  own: "Among the four, Valencia would be the runner-up") is the answer sentence. Two candidates offered
  there ("Valencia or Seville") is a hedge, and fails, unless a concluding connective in it settles on one
  ("Seville is hotter but it rains there, so I'd go with Valencia");
- the prose after it is read by :func:`~engine.readers.stance.after_answer`: a revision ("Actually, wait:
  Seville is the better pick") moves the pick, a hedge with another candidate or a retraction fails it, and
  prose that only describes the others ("Seville is warmer but has rain showers") changes nothing;
- a reply that offers another candidate first and the expected one in a later sentence, with no revision
  between ("Seville is the warmest but it's raining. The warmest dry city is Valencia.") is read as working
  then answer, a pass the grade marks unsure: the reader cannot tell a conclusion without its marker from a
  second candidate. A later sentence that ranks the expected candidate below the first pick ("Valencia
  (27.5 °C, sunny) would be the backup": a second place, a runner-up, a fallback) is no
  answer: it presupposes the first pick, which stands;
- a list or table of the candidates one a line ("- Porto: 19.5 °C, cloudy") reports the lookups: it is read
  only when no other sentence offers a candidate;
- a correction that names other candidates in its working ("Actually, wait — Seville has rain showers, so
  it's out, and Bilbao's drizzle counts as rain too. ... Final choice: Valencia") settles on the last
  conclusion from the revision on, marked unsure when that is not the candidate the revision names.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from engine.readers.stance import OFFERED, Mention, after_answer, roles
from engine.world.state import WorldState

# Sentences end at a full stop, question or exclamation mark before a space, and at a line break (the
# stance reader cuts prose after an answer the same way).
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)|\n+")
# Connectives that open a conclusion (the stance reader's concluding words, less those of arithmetic): the
# candidate after one, in its sentence, is what the reply settles on.
_CONCLUDES = re.compile(r"\b(?:so|thus|therefore|hence|overall|in\s+the\s+end|final(?:ly)?|answer)\b")
# Words that give a candidate second place, below a pick already made (not "alternative": "the best
# alternative is Valencia" answers after the first candidate was ruled out): the sentence that says them of the
# expected candidate keeps the first pick (the ordinal and rank words of English, not this task's words).
_SECOND_PLACE = re.compile(
    r"\b(?:back-?ups?|runners?[- ]up|fall-?backs?|plan\s+b|second(?:-best|\s+best|\s+(?:choice|option|pick"
    r"|place))|next[- ]best)\b")


class Pick(BaseModel):
    """The candidate a final message must pick (``answer``) and the others it picks among (``among``; empty:
    the other records of the seed's collection that holds ``answer``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    answer: str = Field(min_length=1)
    among: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class Picked:
    """What the reply picks: ``ok`` when it commits to the answer; ``why`` it does not; ``unsure`` when the
    reading may be wrong."""

    ok: bool
    why: str = ""
    unsure: str | None = None


def _norm(text: str) -> str:
    """Lower case, NFKC, Markdown emphasis and code marks removed, line breaks kept (they end sentences)."""
    plain = re.sub(r"\*\*|__|`|\$\$", "", unicodedata.normalize("NFKC", text)).lower()
    return "\n".join(" ".join(line.split()) for line in plain.split("\n"))


def candidates(pick: Pick, seed: WorldState | None) -> list[str]:
    """The answer and the others: the declared ones, else the keys beside it in the seed's collection."""
    others = list(pick.among)
    if not others and seed is not None:
        for collection in seed.model_dump().values():
            if isinstance(collection, dict) and pick.answer in collection:
                others = [str(k) for k in collection if k != pick.answer]
                break
    return [pick.answer, *(o for o in others if o.lower() != pick.answer.lower())]


def _finder(names: Sequence[str]) -> Callable[[str], list[Mention]]:
    """The candidates a normalised text names, each standing alone, keyed by how the task spells them."""
    spelled = {_norm(n): n for n in names}
    pattern = re.compile(
        r"(?<![\w-])(?:" + "|".join(re.escape(s) for s in sorted(spelled, key=len, reverse=True)) + r")(?![\w-])")

    def find(text: str) -> list[Mention]:
        return [Mention(m.start(), m.end(), spelled[m.group(0)]) for m in pattern.finditer(text)]

    return find


def _offered(sentence: str, find: Callable[[str], list[Mention]]) -> list[Mention]:
    """The candidates one sentence offers as its answer, in order, each once."""
    out: list[Mention] = []
    for m, role in roles(sentence, find(sentence)):
        if role in OFFERED and all(o.key != m.key for o in out):
            out.append(m)
    return out


def _sentences(text: str) -> list[tuple[int, int]]:
    """Where each sentence of ``text`` starts and ends."""
    out, start = [], 0
    for cut in _SENTENCE.finditer(text):
        if text[start:cut.start()].strip():
            out.append((start, cut.start()))
        start = cut.end()
    if text[start:].strip():
        out.append((start, len(text)))
    return out


# How far past a concluding connective its clause is read: far longer than any sentence a model writes.
_CLAUSE_REACH = 2000


def _settles_on(text: str, start: int, end: int, find: Callable[[str], list[Mention]]) -> Mention | None:
    """The candidate the first clause opened by a concluding connective in ``text[start:end]`` settles on
    ("..., so I recommend Seville"): the first candidate after the connective, in the rest of the sentence,
    that is not set aside; where it stands in ``text``."""
    last = max((m.end for m in find(text[start:end])), default=0) + start
    for marker in _CONCLUDES.finditer(text, start, end):
        if marker.end() >= last:
            return None  # no candidate after this connective, so none after a later one either
        # The clause is read up to _CLAUSE_REACH characters on: a hostile sentence of thousands of connectives
        # and candidates ("Answer: Porto Answer: Porto ...") would otherwise be read once per connective.
        clause = text[marker.end():min(end, marker.end() + _CLAUSE_REACH)]
        kept = [m for m, role in roles(clause, find(clause)) if role != "set aside"]
        if kept:
            return Mention(marker.end() + kept[0].start, marker.end() + kept[0].end, kept[0].key)
    return None


def _conclusions(text: str, since: int, sentences: Sequence[tuple[int, int]],
                 find: Callable[[str], list[Mention]]) -> list[tuple[str, str]]:
    """The candidates that clauses opened by a concluding connective after ``since`` settle on ("..., so I'd
    go with Valencia"): the first candidate after the connective in its sentence that is not set aside."""
    out = []
    for start, end in sentences:
        if end <= since:
            continue
        settled = _settles_on(text, max(start, since), end, find)
        if settled is not None:
            out.append((str(settled.key), text[start:end]))
    return out


# Where a clause ends inside a sentence (parentheses are blanked first: their commas cut nothing).
_CLAUSE = re.compile(r"[,;:]\s|\s(?:and|but|while|whereas)\s|\s?[—–]\s?")
_PARENS = re.compile(r"\([^()]*\)")


def _second_place(sentence: str, answer: str, find: Callable[[str], list[Mention]]) -> bool:
    """Whether every clause of ``sentence`` that names ``answer`` gives it second place."""
    flat = _PARENS.sub(lambda m: " " * len(m.group(0)), sentence)
    cuts = [(m.start(), m.end()) for m in _CLAUSE.finditer(flat)]
    clauses = []
    for m in find(sentence):
        if m.key != answer:
            continue
        start = max((e for s, e in cuts if e <= m.start), default=0)
        end = min((s for s, e in cuts if s >= m.end), default=len(sentence))
        clauses.append(flat[start:end])
    return bool(clauses) and all(_SECOND_PLACE.search(c) for c in clauses)


# A line of a list or a table: a bullet, a number and its stop, or a table row.
_ITEM_LINE = re.compile(r"^[ \t]*(?:[-*•+][ \t]|\d{1,2}[.)][ \t]|\|)")


def _enumerations(text: str, find: Callable[[str], list[Mention]]) -> list[tuple[int, int]]:
    """Where ``text`` lists the candidates one a line: a run of list items or table rows (blank lines
    between them allowed) in which at least two lines name different candidates first. Such a run reports
    what was looked up ("- Porto: 19.5 °C, cloudy"); its first line is no pick."""
    out: list[tuple[int, int]] = []
    run: list[tuple[int, int]] = []

    def close() -> None:
        firsts = {str(ms[0].key) for s, e in run if (ms := find(text[s:e]))}
        if len(firsts) >= 2:
            out.append((run[0][0], run[-1][1]))
        run.clear()

    at = 0
    for line in text.split("\n"):
        start, end = at, at + len(line)
        at = end + 1
        if _ITEM_LINE.match(line):
            run.append((start, end))
        elif line.strip():
            close()
    close()
    return out


def read_pick(text: str, pick: Pick, seed: WorldState | None = None) -> Picked:
    """Whether ``text`` commits to ``pick.answer`` among the candidates (see the module's rules). A list or
    table of the candidates, one a line, is read only when no other sentence offers one."""
    find = _finder(candidates(pick, seed))
    plain = _norm(text)
    sentences = _sentences(plain)
    listed = _enumerations(plain, find)
    prose = [(s, e) for s, e in sentences if not any(a <= s < b for a, b in listed)]
    if len(prose) < len(sentences):
        picked = _read(plain, pick, find, prose)
        if picked is not None:
            return picked
    picked = _read(plain, pick, find, sentences)
    if picked is not None:
        return picked
    return Picked(True, unsure=f"offers none of the candidates as its pick ({pick.answer!r} read from a mention "
                               "check)")


def _read(plain: str, pick: Pick, find: Callable[[str], list[Mention]],
          sentences: Sequence[tuple[int, int]]) -> Picked | None:
    """The pick read from ``sentences`` of ``plain``; None when none of them offers a candidate."""
    ranked_only: str | None = None  # the first sentence that offers a candidate only in second place
    for n, (start, end) in enumerate(sentences):
        sentence = plain[start:end]
        offered = _offered(sentence, find)
        if not offered:
            # A sentence that opens with words of its own ("Based on the weather, the warmest is Seville, so I
            # recommend Seville") offers its candidates in asides; a conclusion in it still settles on one.
            settled = _settles_on(plain, start, end, find)
            if settled is None:
                continue
            offered = [Mention(settled.start - start, settled.end - start, settled.key)]
        elif len(offered) == 1 and _second_place(sentence, str(offered[0].key), find):
            # "Valencia would be a good second choice" presupposes a pick made elsewhere: it is none.
            ranked_only = ranked_only or sentence
            continue
        chosen = str(offered[0].key)
        if len(offered) > 1:
            # Two candidates in one sentence: a hedge, unless a conclusion in it settles on one ("Seville is
            # hotter but it rains there, so I'd go with Valencia").
            settled = _conclusions(plain, start + offered[0].end, [(start, end)], find)
            if not settled:
                return Picked(False, f"offers {offered[0].key!r} and {offered[1].key!r} without choosing: "
                                     f"{sentence[:80]!r}")
            chosen = settled[-1][0]
        after = after_answer(plain[end:], chosen, find)
        if after.retracted:
            return Picked(False, f"takes the pick {chosen!r} back: {after.retracted[:80]!r}")
        if after.hedged:
            return Picked(False, f"hedges the pick {chosen!r} with another candidate: {after.hedged[:80]!r}")
        if after.revised is not None:
            # A correction may rule candidates out and name others in its working before it concludes
            # ("Actually, wait: Seville has rain showers, so it's out, and Bilbao's drizzle counts as rain
            # too. ... Final choice: Valencia"): its pick is the last conclusion from the revision on.
            revised, settled_in = str(after.revised.key), after.revised_in
            since = plain.find(after.revised_in, end)
            concluded = _conclusions(plain, since, sentences, find) if since >= 0 else []
            unsure = None
            if concluded and concluded[-1][0] != revised:
                unsure = (f"the correction names {revised!r} and concludes on {concluded[-1][0]!r}: "
                          f"{concluded[-1][1][:80]!r}")
                revised, settled_in = concluded[-1]
            if revised != pick.answer:
                return Picked(False, f"settles on {revised!r}, not {pick.answer!r}: {settled_in[:80]!r}",
                              unsure)
            return Picked(True, unsure=unsure)
        # No revision: the first pick stands, unless a conclusion after it names another candidate.
        concluded = _conclusions(plain, start + offered[0].end, sentences, find)
        if chosen == pick.answer:
            switch = next((c for c in concluded if c[0] != chosen), None)
            if switch is not None:
                return Picked(True, unsure=f"picks {chosen!r}, then concludes on {switch[0]!r} without a "
                                           f"revision: {switch[1][:80]!r}")
            doubt = f"doubt voiced after the pick: {after.doubt[:80]!r}" if after.doubt else None
            return Picked(True, unsure=doubt)
        if concluded and concluded[-1][0] == pick.answer:
            return Picked(True)  # "Seville is hotter but it rains there, so I'd go with Valencia"
        later = [plain[s:e] for s, e in sentences[n + 1:]
                 if any(m.key == pick.answer for m in _offered(plain[s:e], find))]
        ranked = [sentence for sentence in later if _second_place(sentence, pick.answer, find)]
        if later and len(ranked) == len(later):
            return Picked(False, f"picks {chosen!r} and names {pick.answer!r} only in second place: "
                                 f"{ranked[0][:80]!r}")
        if later:
            return Picked(True, unsure=f"picks {chosen!r} first and names {pick.answer!r} later without a "
                                       f"revision ({later[0][:80]!r}); read as the working, then the answer")
        return Picked(False, f"picks {chosen!r}, not {pick.answer!r}: {sentence[:80]!r}")
    if ranked_only is not None:
        return Picked(False, f"names a candidate only in second place, below a pick it does not state: "
                             f"{ranked_only[:80]!r}")
    return None
