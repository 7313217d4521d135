"""95% ranges that hold 95% of the time: the model's own spread, widened by what leave-one-out measured.

The fitted model gives every prediction a spread on the logit scale (the ability's uncertainty plus the
benchmark's noise). Measured on figures the fit never saw, ranges of 1.96 of those spreads held the true score
only about four times in five: the model is more certain than it has a right to be. So each benchmark gets a
factor: the 95th percentile of its held-out errors, in spreads, divided by 1.96 (split-conformal calibration).
A benchmark with too few held-out figures to estimate its own percentile uses the factor pooled over all core
figures, as do the supplementary benchmarks, which are never held out.

Coverage is checked honestly: each held-out figure is tested against a range whose factor was computed without
it, so the figure being judged never helped set the width of its own range.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.index.model import CLIP_HI, CLIP_LO, to_logit, to_score

Z95 = 1.959963984540054
LEVEL = 0.95
# Below this many held-out figures a benchmark's own 95th percentile rests on one or two errors.
MIN_OWN_FIGURES = 20


@dataclass(frozen=True)
class HeldOut:
    """One held-out figure and what the refit without it predicted, on the logit scale."""

    model: int
    bench: str
    item: str
    target: float  # the hidden figure, 0-100
    centre: float  # predicted logit
    spread: float  # predictive standard deviation (logit)
    cap: float  # best figure still visible on the benchmark

    @property
    def predicted(self) -> float:
        return min(float(to_score(self.centre)), self.cap)

    @property
    def z(self) -> float:
        return abs(float(to_logit(self.target)) - self.centre) / self.spread


def score_range(centre: float, spread: float, factor: float, cap: float) -> tuple[float, float]:
    """The published 95% range of a prediction, capped at the best reported figure like the estimate."""
    half = Z95 * factor * spread
    low, high = float(to_score(centre - half)), float(to_score(centre + half))
    # The logit scale reads every figure below 0.5 as 0.5 (and above 99.5 as 99.5), so a range that reaches
    # the edge of the scale reaches 0 (or 100).
    low = 0.0 if low <= CLIP_LO else low
    high = 100.0 if high >= CLIP_HI else high
    return min(low, cap), min(high, cap)


def factor_from(z: Sequence[float]) -> float:
    """The factor that makes 95% of these standardised errors fall inside 1.96 factored spreads."""
    ordered = np.sort(np.asarray(z, dtype=float))
    if len(ordered) == 0:
        return 1.0
    rank = min(len(ordered), math.ceil(LEVEL * len(ordered)))
    return float(ordered[rank - 1]) / Z95


@dataclass(frozen=True)
class Calibration:
    factors: dict[str, float]  # benchmark -> factor, for benchmarks with enough held-out figures
    pooled: float

    def factor(self, bench: str) -> float:
        return self.factors.get(bench, self.pooled)


def calibrate(held: Sequence[HeldOut]) -> Calibration:
    by_bench: dict[str, list[float]] = {}
    for h in held:
        by_bench.setdefault(h.bench, []).append(h.z)
    factors = {b: factor_from(z) for b, z in by_bench.items() if len(z) >= MIN_OWN_FIGURES}
    return Calibration(factors, factor_from([h.z for h in held]))


def covered(held: Sequence[HeldOut]) -> list[bool]:
    """Whether each held-out figure falls in its published range, the factor set without that figure."""
    out = []
    for k, h in enumerate(held):
        rest = [x for n, x in enumerate(held) if n != k]
        own = [x.z for x in rest if x.bench == h.bench]
        factor = factor_from(own) if len(own) + 1 >= MIN_OWN_FIGURES else factor_from([x.z for x in rest])
        low, high = score_range(h.centre, h.spread, factor, h.cap)
        out.append(low <= h.target <= high)
    return out
