"""How sure the index's held-out error is: a 95% interval for the mean error, resampling whole models.

The held-out errors of one model are not independent (a model whose lab reports generously misses on several
benchmarks at once), so the bootstrap draws models with replacement and keeps each drawn model's errors
together. The seed is fixed so the page and ``index validate`` print the same interval every run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

DRAWS = 2000
SEED = 20261203


@dataclass(frozen=True)
class MeanWithInterval:
    mean: float
    low: float
    high: float
    count: int  # figures
    groups: int  # models


def mean_error_interval(
    errors: Sequence[float], groups: Sequence[int], draws: int = DRAWS, seed: int = SEED
) -> MeanWithInterval:
    """Mean absolute error with its 2.5th and 97.5th bootstrap percentiles, resampling ``groups``."""
    err = np.abs(np.asarray(errors, dtype=float))
    if err.size == 0:
        nan = float("nan")
        return MeanWithInterval(nan, nan, nan, 0, 0)
    ids = np.asarray(groups)
    keys = sorted(set(ids.tolist()))
    sums = np.array([err[ids == g].sum() for g in keys])
    counts = np.array([np.sum(ids == g) for g in keys], dtype=float)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(keys), size=(draws, len(keys)))
    means = sums[picks].sum(axis=1) / counts[picks].sum(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return MeanWithInterval(float(err.mean()), float(low), float(high), int(err.size), len(keys))
