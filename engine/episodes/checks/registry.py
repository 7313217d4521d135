"""The registry: every check a task file may name (``CheckSpec``, a union keyed by ``check``), and running
a task's checks on one reply."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal, Union, get_args

from pydantic import Field

from engine.episodes.checks.base import CheckBase, Outcome, Subject
from engine.episodes.checks.form import (
    EndsWith,
    Headings,
    LetterCase,
    Regex,
    SentenceCount,
    StartsWith,
    WordCount,
)
from engine.episodes.checks.json_checks import (
    ArrayHas,
    Count,
    DateFormat,
    JsonOnly,
    SortedBy,
    TypeIs,
    ValueEquals,
    ValueIn,
)
from engine.episodes.checks.lists import InOrder, ItemsMatch, ListItems
from engine.episodes.checks.mentions import BannedWords, Contains, NotContains, SourceOverlap, WordHits
from engine.episodes.checks.quantities import Change, FigureOf, FiguresFrom, LabelledNumber, NoNumerals, StatesQuantity
from engine.episodes.checks.schema import JsonSchema


class AnyOf(CheckBase):
    """Holds when any one of ``options`` holds: an instruction that permits a form ("a numbered list is fine
    instead of a sentence") is kept by either form, so the check accepts each and still fails a reply in
    neither (two sentences, a bulleted list). The first option that holds gives the outcome (and its
    ``unsure``); when none holds, the note gives each option's failure."""

    check: Literal["any_of"]
    options: list[CheckSpec] = Field(min_length=2)

    def run(self, subject: Subject) -> Outcome:
        failures = []
        for option in self.options:
            outcome = option.run(subject)
            if outcome[0]:
                return outcome if isinstance(outcome, Outcome) else Outcome(True, outcome[1])
            failures.append(f"{option.breakdown_name()}: {outcome[1]}")
        return Outcome(False, "none of the permitted forms: " + "; ".join(failures))


CheckSpec = Annotated[
    Union[  # noqa: UP007 - a discriminated union reads better spelt out
        AnyOf, JsonOnly, JsonSchema, ValueEquals, ArrayHas, ValueIn, TypeIs, DateFormat, Count, SortedBy,
        WordCount, SentenceCount, ListItems, BannedWords, WordHits, Contains, StatesQuantity, NotContains,
        Regex, NoNumerals, StartsWith, EndsWith, LetterCase, LabelledNumber, SourceOverlap, FiguresFrom,
        FigureOf, Change, ItemsMatch, InOrder, Headings,
    ],
    Field(discriminator="check"),
]

AnyOf.model_rebuild()

# Every name a task file may give ``check``, read from the union rather than spelt a second time.
CHECK_NAMES: tuple[str, ...] = tuple(
    get_args(kind.model_fields["check"].annotation)[0] for kind in get_args(get_args(CheckSpec)[0])
)


def unique_labels(checks: Sequence[CheckBase], prefix: str = "") -> list[str]:
    """Breakdown names for a list of checks; a repeated name gets ``#2``, ``#3`` so none is lost."""
    seen: dict[str, int] = {}
    out: list[str] = []
    for c in checks:
        base = prefix + c.breakdown_name()
        seen[base] = seen.get(base, 0) + 1
        out.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return out


def run_checks(text: str, checks: Sequence[CheckBase], prefix: str = "") -> dict[str, Outcome]:
    """Run every check on one reply; the result keeps the checks' order."""
    subject = Subject(text)
    return {label: c.run(subject) for label, c in zip(unique_labels(checks, prefix), checks, strict=True)}
