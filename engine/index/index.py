"""From model files to the Small LM Index: the fit, each model's index with its range, and estimates.

The index of a model is its fitted ability turned back into the expected average over the six core
benchmarks. Each estimate is capped at the best score anyone reported on that benchmark, and a model that
reports fewer than two core benchmarks gets no index.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.index.data import chosen_scores
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

    @property
    def has_index(self) -> bool:
        return self.index is not None


@dataclass
class IndexResult:
    rows: list[IndexRow]
    benchmarks: tuple[str, ...]
    caps: dict[str, float]
    model: FittedModel

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


def observations(entries: list[ModelEntry]) -> tuple[Observations, list[dict[str, Score]], tuple[str, ...]]:
    """Long-form chosen scores of every entry, over the benchmarks anyone reported."""
    chosen = [chosen_scores(e) for e in entries]
    present = {bench for c in chosen for bench in c}
    benches = tuple(b for b in ALL_BENCHMARKS if b in present)
    pos = {b: j for j, b in enumerate(benches)}
    mi, bi, sc = [], [], []
    for i, c in enumerate(chosen):
        for bench, score in c.items():
            mi.append(i)
            bi.append(pos[bench])
            sc.append(score.value)
    obs = Observations(
        np.array(mi, dtype=int),
        np.array(bi, dtype=int),
        np.array(sc, dtype=float),
        len(entries),
        len(benches),
    )
    return obs, chosen, benches


def core_average(model: FittedModel, theta: np.ndarray, core_idx: list[int], caps: np.ndarray) -> float:
    """Expected core average at ability ``theta``, each benchmark capped at its best reported score."""
    logits = model.difficulty[core_idx] + model.slope[core_idx] @ theta
    return float(np.mean(np.minimum(to_score(logits), caps)))


def build_index(entries: list[ModelEntry], n_factors: int = 1) -> IndexResult:
    obs, chosen, benches = observations(entries)
    model, _ = fit(obs, n_factors)
    caps = {b: float(obs.score[obs.bench == j].max()) for j, b in enumerate(benches)}
    # Every core benchmark anyone reported (all six on the committed data; a test population may have fewer).
    core_idx = [benches.index(b) for b in CORE_BENCHMARKS if b in benches]
    core_caps = np.array([caps[benches[j]] for j in core_idx])
    rows: list[IndexRow] = []
    for i, entry in enumerate(entries):
        core_count = sum(1 for b in CORE_BENCHMARKS if b in chosen[i])
        theta, cov = model.theta[i], model.theta_cov[i]
        sd = float(np.sqrt(cov[0, 0]))
        row = IndexRow(entry, chosen[i], core_count, float(theta[0]), sd)
        if core_count >= MIN_CORE:
            row.index = core_average(model, theta, core_idx, core_caps)
            ends = [
                core_average(model, theta + Z95 * sd * unit, core_idx, core_caps)
                for unit in (-_first_axis(n_factors), _first_axis(n_factors))
            ]
            row.index_low, row.index_high = min(ends + [row.index]), max(ends + [row.index])
            for j, bench in enumerate(benches):
                if bench in chosen[i]:
                    continue
                centre = model.predict_logit(i, j)
                spread = Z95 * model.predictive_sd(i, j)
                value = float(to_score(centre))
                row.estimates[bench] = Estimate(
                    value=min(value, caps[bench]),
                    low=min(float(to_score(centre - spread)), caps[bench]),
                    high=min(float(to_score(centre + spread)), caps[bench]),
                    capped=value > caps[bench],
                )
        rows.append(row)
    return IndexResult(rows, benches, caps, model)


def _first_axis(k: int) -> np.ndarray:
    unit = np.zeros(k)
    unit[0] = 1.0
    return unit
