"""From model files to the Small LM Index: the fit, each model's index with its range, and estimates.

The index of a model is its fitted ability turned back into the expected average over the core benchmarks
the index estimates (all six unless leave-one-out left one out: ``engine.index.verdict``). Each estimate is
capped at the best score anyone reported on that benchmark, and a model that reports fewer than two core
benchmarks gets no index. A core benchmark left out still informs the fit where a model reports it; it is
only never averaged into the index nor estimated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from engine.index.calibration import Calibration, score_range
from engine.index.data import chosen_scores, score_rank
from engine.index.model import FittedModel, Observations, fit, to_score
from engine.index.schema import ALL_BENCHMARKS, CORE_BENCHMARKS, ModelEntry, Score

MIN_CORE = 2
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float
    high: float
    capped: bool
    # The item the estimate is for, when a benchmark is split by year or version (e.g. "AIME 2025").
    item: str | None = None


@dataclass
class IndexRow:
    entry: ModelEntry
    chosen: dict[str, Score]
    core_count: int
    ability: float
    ability_sd: float
    index: float | None = None
    index_low: float | None = None
    index_high: float | None = None
    estimates: dict[str, Estimate] = field(default_factory=dict)


@dataclass
class IndexResult:
    rows: list[IndexRow]
    benchmarks: tuple[str, ...]
    caps: dict[str, float]
    model: FittedModel
    data: FitData | None = None
    # The core benchmarks the index averages and estimates, and those left out with the reason.
    index_benchmarks: tuple[str, ...] = CORE_BENCHMARKS
    excluded: dict[str, str] = field(default_factory=dict)

    def row(self, model_id: str) -> IndexRow | None:
        for row in self.rows:
            if row.entry.id == model_id:
                return row
        return None

    def ranked(self) -> list[IndexRow]:
        """Rows with an index first, best first; the rest after, by name."""
        with_index = sorted((r for r in self.rows if r.index is not None), key=lambda r: -(r.index or 0.0))
        without = sorted((r for r in self.rows if r.index is None), key=lambda r: r.entry.name.lower())
        return with_index + without


# Benchmarks whose figures come from different tests under one name: AIME is a new exam every year and
# LiveCodeBench a new problem window per version. Each year (version) is its own item in the fit, with its own
# difficulty, slope and noise; the index still reports one "AIME" and one "LiveCodeBench".
_SPLIT_PATTERNS: dict[str, tuple[re.Pattern[str], str, str]] = {
    "AIME": (re.compile(r"\b(20[2-3][0-9])\b"), "AIME {}", "AIME (year not stated)"),
    "LiveCodeBench": (
        re.compile(r"\bv([0-9]+)\b", re.IGNORECASE),
        "LiveCodeBench v{}",
        "LiveCodeBench (version not stated)",
    ),
}
# An item with fewer figures than this cannot be fitted on its own; it joins its benchmark's largest item.
MIN_ITEM_FIGURES = 5


def raw_item(score: Score) -> tuple[str, int | None]:
    """The item a figure belongs to before small items merge, and its year or version (None: unstated)."""
    split = _SPLIT_PATTERNS.get(score.benchmark)
    if split is None:
        return score.benchmark, None
    pattern, named, unstated = split
    found = pattern.search(score.variant or "")
    if found is None:
        return unstated, None
    return named.format(found.group(1)), int(found.group(1))


@dataclass(frozen=True)
class FitData:
    """Everything the fit sees, built once from the entries.

    ``chosen`` is one figure per benchmark (what the tables show and what validation holds out);
    ``chosen_items`` one figure per item (what the fit reads: a model that reports AIME 2024 and 2025 gives
    two figures). ``primary`` is the item that stands for a benchmark in the index and in estimates: the most
    recent year or version, or the benchmark's only item.
    """

    obs: Observations
    chosen: list[dict[str, Score]]
    chosen_items: list[dict[str, Score]]
    benchmarks: tuple[str, ...]
    items: tuple[str, ...]
    item_benchmark: tuple[str, ...]
    primary: dict[str, int]
    # Raw item name -> fitted item name (empty when benchmarks are not split).
    merge: dict[str, str]

    def item_of(self, score: Score) -> int:
        """Index of the item a figure was fitted as."""
        name = self.merge.get(raw_item(score)[0], score.benchmark) if self.merge else score.benchmark
        return self.items.index(name)


def _best(scores: list[tuple[str, int, Score]]) -> dict[str, Score]:
    """The winning figure per key: independent, lab, other lab; then verified, latest checked, first."""
    best: dict[str, tuple[tuple[int, int, int, int], Score]] = {}
    for key, position, score in scores:
        rank = score_rank(score, position)
        if key not in best or rank < best[key][0]:
            best[key] = (rank, score)
    return {key: pair[1] for key, pair in best.items()}


def item_names(entries: list[ModelEntry]) -> dict[str, str]:
    """Raw item name -> fitted item name; items with too few figures fold into their benchmark's largest."""
    counts: dict[str, int] = {}
    bench_of: dict[str, str] = {}
    for entry in entries:
        seen: dict[str, str] = {raw_item(s)[0]: s.benchmark for s in entry.scores}
        for item, name in seen.items():
            counts[item] = counts.get(item, 0) + 1
            bench_of[item] = name
    merge: dict[str, str] = {}
    for bench in set(bench_of.values()):
        mine = sorted((i for i in counts if bench_of[i] == bench), key=lambda i: (-counts[i], i))
        for item in mine:
            merge[item] = item if counts[item] >= MIN_ITEM_FIGURES else mine[0]
    return merge


def fit_data(entries: list[ModelEntry], split: bool = True) -> FitData:
    """Long-form figures of every entry over the items anyone reported.

    With ``split=False`` every benchmark is one item (the model as first published), kept for comparison.
    """
    merge = item_names(entries) if split else {}
    chosen, chosen_items = [], []
    for entry in entries:
        chosen.append(chosen_scores(entry))
        keyed = []
        for position, s in enumerate(entry.scores):
            item = merge.get(raw_item(s)[0], s.benchmark) if split else s.benchmark
            keyed.append((item, position, s))
        chosen_items.append(_best(keyed))
    present = {bench for c in chosen for bench in c}
    benchmarks = tuple(b for b in ALL_BENCHMARKS if b in present)
    item_bench = {item: s.benchmark for c in chosen_items for item, s in c.items()}
    items = tuple(sorted(item_bench, key=lambda i: (benchmarks.index(item_bench[i]), i)))
    pos = {item: j for j, item in enumerate(items)}
    mi, bi, sc = [], [], []
    for i, c in enumerate(chosen_items):
        for item, s in c.items():
            mi.append(i)
            bi.append(pos[item])
            sc.append(s.value)
    obs = Observations(
        np.array(mi, dtype=int), np.array(bi, dtype=int), np.array(sc, dtype=float), len(entries), len(items)
    )
    primary: dict[str, int] = {}
    for bench in benchmarks:
        candidates = [j for j, item in enumerate(items) if item_bench[item] == bench]
        dated = [j for j in candidates if bench in _SPLIT_PATTERNS and _version(items[j]) is not None]
        primary[bench] = max(dated, key=lambda j: _version(items[j]) or 0) if dated else candidates[0]
    return FitData(
        obs, chosen, chosen_items, benchmarks, items, tuple(item_bench[i] for i in items), primary, merge
    )


def _version(item: str) -> int | None:
    found = re.search(r"(?:\b|v)([0-9]+)$", item)
    return int(found.group(1)) if found else None


def core_average(model: FittedModel, theta: np.ndarray, core_idx: list[int], caps: np.ndarray) -> float:
    """Expected core average at ability ``theta``, each benchmark capped at its best reported score."""
    logits = model.difficulty[core_idx] + model.slope[core_idx] @ theta
    return float(np.mean(np.minimum(to_score(logits), caps)))


def benchmark_caps(data: FitData, keep: np.ndarray | None = None) -> dict[str, float]:
    """Best figure reported on each benchmark (any year or version), over the rows in ``keep``."""
    obs = data.obs
    keep = np.ones(len(obs.score), dtype=bool) if keep is None else keep
    bench_of_row = np.array(data.item_benchmark, dtype=object)[obs.bench]
    caps = {}
    for bench in data.benchmarks:
        rows = keep & (bench_of_row == bench)
        if rows.any():
            caps[bench] = float(obs.score[rows].max())
    return caps


def build_index(
    entries: list[ModelEntry],
    n_factors: int = 1,
    split: bool = True,
    calibration: Calibration | None = None,
    excluded: dict[str, str] | None = None,
) -> IndexResult:
    """The index with ranges widened by ``calibration`` (from leave-one-out); without one, the model's own
    spread is used unwidened. ``excluded`` names the core benchmarks leave-one-out left out (benchmark ->
    reason): never averaged, never estimated. The published index is
    ``engine.index.published.published_index``."""
    excluded = dict(excluded or {})
    data = fit_data(entries, split)
    obs, chosen, benches = data.obs, data.chosen, data.benchmarks
    model, _ = fit(obs, n_factors)
    caps = benchmark_caps(data)
    # Every core benchmark anyone reported and validation kept (five of six on the committed data; a test
    # population may have fewer), each standing as its primary item (the most recent AIME exam, the latest
    # LiveCodeBench version).
    core = [b for b in CORE_BENCHMARKS if b in benches and b not in excluded]
    core_idx = [data.primary[b] for b in core]
    core_caps = np.array([caps[b] for b in core])
    pooled = 1.0 if calibration is None else calibration.pooled
    rows: list[IndexRow] = []
    for i, entry in enumerate(entries):
        core_count = sum(1 for b in CORE_BENCHMARKS if b in chosen[i])
        theta, cov = model.theta[i], model.theta_cov[i]
        sd = float(np.sqrt(cov[0, 0]))
        row = IndexRow(entry, chosen[i], core_count, float(theta[0]), sd)
        if core_count >= MIN_CORE and core:
            row.index = core_average(model, theta, core_idx, core_caps)
            # The range: the index at the ends of the ability's interval along the direction in which the
            # index changes fastest, the ability's spread widened by the pooled factor that calibrated the
            # estimates' ranges.
            step = _steepest_step(model, theta, cov, core_idx, core_caps) * Z95 * pooled
            ends = [core_average(model, theta + sign * step, core_idx, core_caps) for sign in (-1.0, 1.0)]
            row.index_low, row.index_high = min(ends + [row.index]), max(ends + [row.index])
            for bench in benches:
                if bench in chosen[i] or bench in excluded:
                    continue
                j = data.primary[bench]
                centre = model.predict_logit(i, j)
                factor = 1.0 if calibration is None else calibration.factor(bench)
                value = float(to_score(centre))
                low, high = score_range(centre, model.predictive_sd(i, j), factor, caps[bench])
                item = data.items[j]
                row.estimates[bench] = Estimate(
                    value=min(value, caps[bench]),
                    low=low,
                    high=high,
                    capped=value > caps[bench],
                    item=item if item != bench else None,
                )
        rows.append(row)
    return IndexResult(rows, benches, caps, model, data, tuple(core), excluded)


def _steepest_step(
    model: FittedModel, theta: np.ndarray, cov: np.ndarray, core_idx: list[int], caps: np.ndarray
) -> np.ndarray:
    """One standard deviation of the ability along the gradient of the index (a numerical gradient)."""
    eps = 1e-4
    grad = np.array(
        [
            (core_average(model, theta + eps * unit, core_idx, caps)
             - core_average(model, theta - eps * unit, core_idx, caps)) / (2 * eps)
            for unit in np.eye(len(theta))
        ]
    )
    var = float(grad @ cov @ grad)
    if var <= 0:
        return np.sqrt(np.diag(cov)) * 0.0
    return (cov @ grad) / np.sqrt(var)
