"""One Small LM Index model as every surface shows it: the site's table and model page, and `sllmb index show`.

Each computed number (the index, its likely range, an estimate and its range) is rounded here, once, to the
one decimal every surface shows, and the surfaces only format these records: they used to round apart (the
CLI to two places and then to one) and disagreed by 0.1 on some models. A figure a lab or evaluator reported
is rounded the same way for display; the table still sorts on the unrounded number (``exact``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.index.data import lab_scores
from engine.index.index import IndexResult, IndexRow
from engine.index.provenance import unchecked_reason
from engine.index.schema import ALL_BENCHMARKS, CORE_BENCHMARKS

# Every index number is shown with one decimal.
DIGITS = 1

Kind = Literal["lab", "other_lab", "independent", "estimated"]
KIND_LABELS: dict[str, str] = {
    "lab": "Lab-reported",
    "other_lab": "Other lab",
    "independent": "Independent",
    "estimated": "Estimated",
}
# The mark a figure carries beside its value: measured independently, or taken from another lab's comparison.
KIND_MARKS: dict[str, str] = {"independent": "✓", "other_lab": "*", "lab": "", "estimated": ""}
# The mark of one of the six core benchmarks the index averages.
CORE_MARK = "★"


def num_text(value: float | None, digits: int = DIGITS) -> str:
    """A number as the index pages and the CLI write it; "—" for none."""
    return "—" if value is None else f"{value:.{digits}f}"


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, DIGITS)


@dataclass(frozen=True)
class Figure:
    """One benchmark of one model: a reported figure (lab, other lab, independent) or the index's estimate."""

    benchmark: str
    core: bool
    kind: Kind
    value: float  # rounded once: what every surface shows
    exact: float  # unrounded: what the table sorts on
    variant: str | None = None
    evaluator: str | None = None
    source_url: str | None = None
    secondary_url: str | None = None
    checked: str | None = None  # ISO date the figure was compared with its primary document
    unchecked: str | None = None  # why it was not (engine.index.provenance.UNCHECKED_WHY's keys)
    unreadable: str | None = None
    needs_verification: bool = False
    # The model's own lab's figure an independent one replaced, as the lab reported it.
    lab_value: float | None = None
    # An estimate's likely range (rounded once), whether it was capped, and its item ("AIME 2025").
    low: float | None = None
    high: float | None = None
    capped: bool = False
    item: str | None = None

    @property
    def label(self) -> str:
        return KIND_LABELS[self.kind]

    @property
    def text(self) -> str:
        return num_text(self.value)

    @property
    def range_text(self) -> str:
        return "" if self.low is None or self.high is None else f"{num_text(self.low)}–{num_text(self.high)}"


@dataclass(frozen=True)
class IndexView:
    """A model's index, its likely range and every benchmark it reports or the index estimates."""

    id: str
    name: str
    index: float | None  # rounded once; None below two core benchmarks
    index_low: float | None
    index_high: float | None
    index_exact: float | None  # unrounded: where a chart places the model
    core_count: int
    figures: tuple[Figure, ...]  # reported and estimated, in the benchmarks' order
    # Core benchmarks the model does not report and the index does not estimate, with the reason.
    not_estimated: tuple[tuple[str, str], ...]

    @property
    def index_text(self) -> str:
        return num_text(self.index)

    @property
    def range_text(self) -> str:
        if self.index_low is None or self.index_high is None:
            return ""
        return f"{num_text(self.index_low)}–{num_text(self.index_high)}"

    @property
    def core_text(self) -> str:
        return f"{self.core_count}/{len(CORE_BENCHMARKS)}"

    @property
    def reported(self) -> tuple[Figure, ...]:
        return tuple(f for f in self.figures if f.kind != "estimated")

    @property
    def estimated(self) -> tuple[Figure, ...]:
        return tuple(f for f in self.figures if f.kind == "estimated")

    def figure(self, benchmark: str) -> Figure | None:
        return next((f for f in self.figures if f.benchmark == benchmark), None)


def index_view(result: IndexResult, row: IndexRow) -> IndexView:
    """The view of one row of a fitted index."""
    lab_own = lab_scores(row.entry)
    figures: list[Figure] = []
    for bench in ALL_BENCHMARKS:
        core = bench in CORE_BENCHMARKS
        score = row.chosen.get(bench)
        if score is not None:
            replaced = lab_own.get(bench) if score.measured_by == "independent" else None
            figures.append(
                Figure(
                    benchmark=bench,
                    core=core,
                    kind=score.measured_by,
                    value=round(score.value, DIGITS),
                    exact=score.value,
                    variant=score.variant,
                    evaluator=score.evaluator,
                    source_url=score.source_url,
                    secondary_url=score.secondary_url,
                    checked=None if score.checked is None else score.checked.isoformat(),
                    unchecked=unchecked_reason(score),
                    unreadable=score.unreadable,
                    needs_verification=score.needs_verification,
                    lab_value=None if replaced is None else replaced.value,
                )
            )
        elif bench in row.estimates:
            est = row.estimates[bench]
            figures.append(
                Figure(
                    benchmark=bench,
                    core=core,
                    kind="estimated",
                    value=round(est.value, DIGITS),
                    exact=est.value,
                    low=round(est.low, DIGITS),
                    high=round(est.high, DIGITS),
                    capped=est.capped,
                    item=est.item,
                )
            )
    return IndexView(
        id=row.entry.id,
        name=row.entry.name,
        index=_rounded(row.index),
        index_low=_rounded(row.index_low) if row.index is not None else None,
        index_high=_rounded(row.index_high) if row.index is not None else None,
        index_exact=row.index,
        core_count=row.core_count,
        figures=tuple(figures),
        not_estimated=tuple((b, why) for b, why in result.excluded.items() if b not in row.chosen),
    )
