"""Whether the index may estimate a core benchmark: only when its estimates beat knowing nothing.

An estimate is worth publishing when, on figures the fit never saw, it lands closer than the benchmark's own
average over the other models does (the baseline), and its 95% ranges hold between 90% and 98% of those
figures. A core benchmark that fails either test is shown where a model reports it, but it is left out of
the index's average and nobody gets an estimate for it; the reason, in numbers, goes on the page.

Below ``MIN_OWN_FIGURES`` held-out figures a share cannot be told from chance (one miss in seven is 86%), so
coverage is not judged there: the benchmark's ranges are instead widened to what its own held-out errors ask
for (``calibration.factor_for``), and the verdict rests on the error alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.index.calibration import MIN_OWN_FIGURES

# A benchmark's own ranges must hold this share of its held-out figures (the overall target is narrower:
# ``validate.COVERAGE_BAND``; one benchmark's share rests on fewer figures and moves more).
BENCHMARK_COVERAGE = (0.90, 0.98)


@dataclass(frozen=True)
class Verdict:
    bench: str
    count: int  # held-out figures
    error: float  # the published model's held-out mean absolute error, points
    baseline: float  # the benchmark average's held-out mean absolute error, points
    coverage: float | None  # share of held-out figures inside their published 95% range
    reason: str = ""  # why it is not estimated; empty when it is

    @property
    def estimated(self) -> bool:
        return not self.reason

    @property
    def coverage_judged(self) -> bool:
        return self.count >= MIN_OWN_FIGURES

    @property
    def label(self) -> str:
        if not self.estimated:
            return "excluded"
        return "estimated" if self.coverage_judged else "estimated, ranges widened (too few to judge coverage)"


def verdict_of(bench: str, count: int, error: float, baseline: float, coverage: float | None) -> Verdict:
    """The verdict on one core benchmark from its held-out figures."""
    low, high = BENCHMARK_COVERAGE
    problems = []
    if not error < baseline:
        problems.append(
            f"its held-out error ({error:.2f} points) is not below the benchmark average's ({baseline:.2f})"
        )
    if count >= MIN_OWN_FIGURES and (coverage is None or not low <= coverage <= high):
        held = "none" if coverage is None else f"{100 * coverage:.0f}%"
        problems.append(
            f"its 95% ranges held {held} of the hidden figures (needed: {100 * low:.0f}–{100 * high:.0f}%)"
        )
    if not problems:
        return Verdict(bench, count, error, baseline, coverage)
    reason = f"on {count} held-out figures, " + " and ".join(problems)
    if count < MIN_OWN_FIGURES and coverage is not None:
        reason += (
            f"; its ranges, widened to its own errors, held {100 * coverage:.0f}% of them, too few figures "
            "to judge"
        )
    return Verdict(bench, count, error, baseline, coverage, reason)
