"""95% ranges that hold 95% of the time: the model's own spread, widened by what leave-one-out measured.

The fitted model gives every prediction a spread on the logit scale (the ability's uncertainty plus the
benchmark's noise). Measured on figures the fit never saw, ranges of 1.96 of those spreads held the true score
only about four times in five: the model is more certain than it has a right to be. So each benchmark gets a
factor: the 95th percentile of its held-out errors, in spreads, divided by 1.96 (split-conformal calibration).
A benchmark with too few held-out figures to estimate its own percentile uses the factor pooled over all core
figures, or the factor its own few errors ask for when that is wider: a benchmark whose held-out figures miss
by more than the others' never gets the others' narrower ranges. The supplementary benchmarks, which are never
held out, use the pooled factor.

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


def factor_for(own: Sequence[float], pooled: Sequence[float], own_count: int | None = None) -> float:
    """A benchmark's factor from its own standardised errors and those of every core figure.

    ``own_count`` is how many held-out figures the benchmark has (``len(own)`` unless one was set aside to
    be judged). With enough of them the benchmark's own percentile is the factor; with fewer, the pooled
    factor, widened to the benchmark's own when its few errors ask for more.
    """
    count = len(own) if own_count is None else own_count
    if count >= MIN_OWN_FIGURES:
        return factor_from(own)
    pooled_factor = factor_from(pooled)
    return max(pooled_factor, factor_from(own)) if len(own) else pooled_factor


@dataclass(frozen=True)
class Calibration:
    factors: dict[str, float]  # benchmark -> factor, for every benchmark with held-out figures
    pooled: float

    def factor(self, bench: str) -> float:
        return self.factors.get(bench, self.pooled)


def calibrate(held: Sequence[HeldOut]) -> Calibration:
    by_bench: dict[str, list[float]] = {}
    for h in held:
        by_bench.setdefault(h.bench, []).append(h.z)
    pooled = [h.z for h in held]
    factors = {b: factor_for(z, pooled) for b, z in by_bench.items()}
    return Calibration(factors, factor_from(pooled))


def covered(held: Sequence[HeldOut]) -> list[bool]:
    """Whether each held-out figure falls in its published range, the factor set without that figure."""
    out = []
    for k, h in enumerate(held):
        rest = [x for n, x in enumerate(held) if n != k]
        own = [x.z for x in rest if x.bench == h.bench]
        factor = factor_for(own, [x.z for x in rest], own_count=len(own) + 1)
        low, high = score_range(h.centre, h.spread, factor, h.cap)
        out.append(low <= h.target <= high)
    return out
