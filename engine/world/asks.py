"""What a message asks its reader to do, read as an action rather than found as a phrase.

A task that needs an email to request a rerun cannot list every way of saying so ("needs a rerun", "please
run it again", "could you kick it off again", "restart the run", "retry the run"). It declares the action
instead (:class:`Ask`): the verbs that do it, in their base form (``run``, ``start``, ``kick off``), and
whether it is a repeat. The reader then finds the action in any of its shapes:

- any inflection of a verb (``run``, ``runs``, ``ran``, ``running``; ``kick off``, ``kicked off``), a
  phrasal verb's particle after its object (``kick it off``);
- a repeat as ``again``, ``once more``, ``a second time`` ... within a few words after the verb (``run it
  again``), as the verb with ``re``/``re-`` in front, as a verb or a noun (``rerun``, ``re-run``,
  ``restart``, ``a rerun``), or as a verb of repeating whose object is the action (``retry the run``,
  ``repeat the run``);

and it does not count the action where the sentence negates it ("no need to run it again", "No action
needed, it will not be re-run"): a negation anywhere before it in the same sentence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field, field_validator

_IRREGULAR = {"run": ("ran",), "begin": ("began", "begun"), "do": ("did", "done"), "send": ("sent",),
              "make": ("made",), "go": ("went", "gone"), "redo": ("redid", "redone")}
_AGAIN = r"(?:again|once\s+more|one\s+more\s+time|a\s+second\s+time|another\s+time|anew|afresh)"
_REPEAT_VERBS = ("retry", "redo", "re-do", "repeat")
# A few words may stand between a verb and its particle or its "again" ("kick the run off again"), but not
# another verb's past or an auxiliary: "run 2291 failed again" reports a failure, it asks for no run.
_GAP = r"(?:\s+(?!\w+ed\b|(?:is|was|were|has|had|did|will)\b)[\w'-]+){0,3}?"
_NEGATION = re.compile(r"\b(?:not|no|never|nothing|neither|nor|without|cannot|n't)\b|n't\b")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")


def _forms(verb: str) -> set[str]:
    """The inflections of one base verb (over-generating is harmless: the forms are only looked for)."""
    forms = {verb, f"{verb}s", f"{verb}es", f"{verb}ed", f"{verb}d", f"{verb}ing", f"{verb[:-1]}ing",
             f"{verb}{verb[-1]}ing", f"{verb}{verb[-1]}ed", f"{verb[:-1]}ies", f"{verb[:-1]}ied"}
    return forms | set(_IRREGULAR.get(verb, ()))


def _alternatives(words: Iterable[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


class Ask(BaseModel):
    """An action a message must ask for: any of ``verbs`` (base forms; a phrasal verb as ``kick off``) and,
    when ``again``, done once more."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    verbs: list[str] = Field(min_length=1)
    again: bool = False

    @field_validator("verbs")
    @classmethod
    def _base_forms(cls, verbs: list[str]) -> list[str]:
        cleaned = [" ".join(v.lower().split()) for v in verbs]
        if any(not re.fullmatch(r"[a-z]+(?: [a-z]+)?", v) for v in cleaned):
            raise ValueError("each verb is one word, or a word and its particle ('kick off'), in letters")
        return cleaned

    def pattern(self) -> re.Pattern[str]:
        """Where a text takes the action (repeated, when the ask says so)."""
        shapes = []
        plain, again = [], []
        for verb in self.verbs:
            head, _, particle = verb.partition(" ")
            forms = _alternatives(_forms(head))
            tail = rf"{_GAP}\s+{re.escape(particle)}\b" if particle else ""
            plain.append(rf"\b(?:{forms})\b{tail}")
            # "rerun", "re-run", "restart", "a rerun", "re-kick it off"
            again.append(rf"\bre-?(?:{forms})\b{tail}")
        verbs = "|".join(plain)
        if not self.again:
            shapes.append(verbs)
        else:
            shapes.append(rf"(?:{verbs}){_GAP}\s+{_AGAIN}\b")
            shapes += again
            repeat = _alternatives(f for v in _REPEAT_VERBS for f in _forms(v))
            shapes.append(rf"\b(?:{repeat})\b{_GAP}\s+(?:{verbs})")
        return re.compile("|".join(f"(?:{s})" for s in shapes))


def asks_for(text: str, ask: Ask) -> bool:
    """Whether ``text`` asks for the action: it is there, in some shape, and no negation before it in its
    sentence takes it back."""
    pattern = ask.pattern()
    for sentence in _SENTENCE.split(text.replace("\u2019", "'").lower()):
        for match in pattern.finditer(sentence):
            if not _NEGATION.search(sentence[: match.start()]):
                return True
    return False
