"""What the model's final words and the messages it sent must say (a task's ``checks``).

A term that reads as a quantity ("38", "27.5", "12%", "16:00") is compared as one, by the quantity reader
(:mod:`engine.readers.quantity`): the text must state that quantity, not a string that contains it ("380",
"27.55" and "2291-B" do not state 38, 27.5 or 2291). Where the seed world holds the figure in a field that
declares its unit, and in a record among others of its kind (:mod:`engine.world.figures`), the text must
state it in that unit or convert it correctly ("38 km/h", "about 23.6 mph"; not "38 mph"), and not say it of
another record ("Seville: 27.5 °C" does not give Valencia's temperature). A term without a sign matches a
figure of either sign ("down 4.2%" states a change of -4.2). Any other term is matched as text:
case-insensitive on whitespace-collapsed, NFKC-normalised text, with ``**``/``__``/backticks removed, so that
Markdown emphasis around a name does not hide it; a term that is an address or identifier (an email, a URL,
an id such as ``O-302``) only as a whole token (:mod:`engine.readers.identifiers`): ``O-3021`` does not give
``O-302``, nor ``sales@shop.example.com`` ``sales@shop.example``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.readers.identifiers import is_identifier, mentions
from engine.readers.quantity import Quantity, Reading, compare, describe, find, parse, quantities, said_of_subject
from engine.world.choice import read_pick
from engine.world.claims import statement_failures
from engine.world.figures import figure_of
from engine.world.spec import AnswerChecks, Term
from engine.world.state import Message, WorldState


@dataclass(frozen=True)
class Said:
    """Whether a text says one option of a term; why not, in words, where that is more than absence; and
    why the reading may be wrong."""

    ok: bool
    why: str = ""
    unsure: str | None = None


@dataclass(frozen=True)
class AnswerResult:
    """The answer checks of one episode: how many there are, the ones that failed, and the unsure notes."""

    total: int
    failures: list[str]
    unsure: list[str] = field(default_factory=list)


def _norm(text: str) -> str:
    return " ".join(re.sub(r"\*\*|__|`", "", unicodedata.normalize("NFKC", text)).lower().split())


def _says_quantity(text: str, option: str, want: Quantity, seed: WorldState | None) -> Said:
    unsigned = not option.strip().startswith(("-", "−"))
    figure = figure_of(seed, want.value, unsigned=unsigned) if seed is not None and want.unit is None else None
    if figure is not None:
        want = Quantity(want.start, want.end, want.text,
                        (Reading(want.value, figure.unit, want.readings[0].step),))
    stated = quantities(text)
    found = find(want, stated, unsigned=unsigned)
    if found.wrong_unit is not None:
        return Said(False, f"gives {found.wrong_unit.text!r} where {describe(want)} is meant")
    matches = [q for q in stated if compare(want, q, unsigned=unsigned)[0]]
    if not matches:
        return Said(False)
    if figure is None or figure.subject is None:
        return Said(True, unsure=found.unsure)
    whose = said_of_subject(text, matches, [figure.subject], figure.others)
    if whose.ok:
        return Said(True, unsure=found.unsure or whose.unsure)
    assert whose.figure is not None
    return Said(False, f"gives {whose.figure.text!r} for {whose.other}, not for {figure.subject}")


def says(text: str, option: str, seed: WorldState | None = None) -> Said:
    """Whether ``text`` says ``option``: as a quantity when it reads as one, else as text."""
    want = parse(option)
    if want is not None:
        return _says_quantity(text, option, want, seed)
    if is_identifier(option):
        return Said(mentions(_norm(text), _norm(option)))
    return Said(_norm(option) in _norm(text))


def _term(text: str, term: Term, seed: WorldState | None) -> Said:
    options = [term] if isinstance(term, str) else term
    said = [says(text, option, seed) for option in options]
    return next((s for s in said if s.ok), next((s for s in said if s.why), Said(False)))


def _text_failures(text: str, must: Sequence[Term], must_not: Sequence[str], where: str,
                   seed: WorldState | None, unsure: list[str]) -> list[str]:
    failed = []
    for t in must:
        said = _term(text, t, seed)
        if not said.ok:
            failed.append(f"{where} does not mention {t!r}" + (f" ({said.why})" if said.why else ""))
        elif said.unsure:
            unsure.append(f"{where}, {t!r}: {said.unsure}")
    failed += [f"{where} mentions {t!r}" for t in must_not if _term(text, t, seed).ok]
    return failed


def answer_failures(checks: AnswerChecks, final_text: str, outbox: Sequence[Message],
                    seed: WorldState | None = None) -> AnswerResult:
    """The answer checks of a task over the final text and the messages sent. A message check is one check
    however many terms it has. ``seed``: the world as seeded, which tells what a figure measures."""
    total = (len(checks.must_mention) + len(checks.must_not_mention) + len(checks.messages) + len(checks.statements)
             + (checks.pick is not None))
    unsure: list[str] = []
    failed = _text_failures(final_text, checks.must_mention, checks.must_not_mention, "the final answer", seed,
                            unsure)
    failed += statement_failures(final_text, checks.statements, unsure)
    if checks.pick is not None:
        picked = read_pick(final_text, checks.pick, seed)
        if not picked.ok:
            failed.append(f"the final answer does not pick {checks.pick.answer!r}: {picked.why}")
        elif picked.unsure:
            unsure.append(f"the final answer's pick: {picked.unsure}")
    for mc in checks.messages:
        sent = [m for m in outbox if m.to == mc.to.strip().lower()]
        first_failures: list[str] = []
        passed: list[list[str]] = []
        for m in sent:
            notes: list[str] = []
            found = _text_failures(f"{m.subject}\n{m.body}", mc.must_mention, mc.must_not_mention, "it", seed, notes)
            if not found:
                passed.append(notes)
            elif not first_failures:
                first_failures = found
        if not passed:
            why = f"; the first {first_failures[0]}" if first_failures else ""
            failed.append(f"no message to {mc.to} passes its checks ({len(sent)} sent to that address{why})")
        elif all(passed):
            unsure.extend(f"the message to {mc.to}: {note}" for note in passed[0])
    return AnswerResult(total, failed, unsure)
