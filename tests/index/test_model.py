"""The fit recovers what it is meant to, and the index obeys its two rules (cap, at least 2 core scores)."""

from __future__ import annotations

import numpy as np

from engine.index.data import chosen_scores
from engine.index.index import build_index
from engine.index.model import Observations, fit, to_score
from engine.index.schema import CORE_BENCHMARKS

from .helpers import entry, score


def simulate(seed: int = 7, n: int = 80, j: int = 10, share: float = 0.7, noise: float = 0.15):
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n)
    a = rng.uniform(-2.0, 1.5, size=j)
    b = rng.uniform(0.6, 1.6, size=j)
    mi, bi, sc = [], [], []
    for i in range(n):
        seen = rng.random(j) < share
        seen[rng.integers(j)] = True
        for jj in np.flatnonzero(seen):
            mi.append(i)
            bi.append(jj)
            sc.append(float(to_score(a[jj] + b[jj] * theta[i] + rng.normal(scale=noise))))
    obs = Observations(np.array(mi), np.array(bi), np.array(sc), n, j)
    return obs, theta, a, b


def test_fit_recovers_simulated_abilities_and_difficulties():
    # Tolerance: abilities correlate above 0.97 with the truth and sit within 0.35 of it on average;
    # difficulties within 0.35 logits and slopes within 0.35 of the truth for every benchmark.
    obs, theta, a, b = simulate()
    model, _ = fit(obs, 1)
    assert model.converged
    est = model.theta[:, 0]
    assert np.corrcoef(est, theta)[0, 1] > 0.97
    assert np.mean(np.abs(est - theta)) < 0.35
    assert np.max(np.abs(model.difficulty - a)) < 0.35
    assert np.max(np.abs(model.slope[:, 0] - b)) < 0.35


def test_two_factor_fit_predicts_as_well_on_one_factor_data():
    obs, theta, a, b = simulate(seed=3)
    one, _ = fit(obs, 1)
    two, _ = fit(obs, 2)
    truth = to_score(a[obs.bench] + b[obs.bench] * theta[obs.model])
    pairs = list(zip(obs.model, obs.bench, strict=True))
    err1 = np.mean(np.abs([to_score(one.predict_logit(i, j)) for i, j in pairs] - truth))
    err2 = np.mean(np.abs([to_score(two.predict_logit(i, j)) for i, j in pairs] - truth))
    assert err1 < 2.5 and err2 < 3.0


def _population():
    """Twelve models whose scores rise together, so the fit has something to learn."""
    entries = []
    for k in range(12):
        level = 20 + 5 * k
        entries.append(
            entry(
                f"m{k:02d}",
                [
                    score("MMLU-Pro", min(95, level + 15)),
                    score("GPQA Diamond", level),
                    score("AIME", max(1, level - 10)),
                    score("LiveCodeBench", max(1, level - 5)),
                    score("IFEval", min(95, level + 25)),
                ],
            )
        )
    return entries


def test_model_with_one_core_score_gets_no_index_but_two_do():
    entries = _population()
    entries.append(entry("one-core", [score("MMLU-Pro", 60), score("IFEval", 80)]))
    entries.append(entry("two-core", [score("MMLU-Pro", 60), score("GPQA Diamond", 45)]))
    result = build_index(entries)
    assert result.row("one-core").index is None
    assert result.row("one-core").core_count == 1
    two = result.row("two-core")
    assert two.index is not None and two.core_count == 2
    assert two.index_low <= two.index <= two.index_high


def test_estimates_never_exceed_the_best_reported_score():
    entries = _population()
    # A model far above everyone on what it reports, silent on AIME and LiveCodeBench.
    entries.append(entry("star", [score("MMLU-Pro", 95), score("GPQA Diamond", 90), score("IFEval", 97)]))
    result = build_index(entries)
    star = result.row("star")
    best_aime = max(chosen_scores(e)["AIME"].value for e in entries if "AIME" in chosen_scores(e))
    assert star.estimates["AIME"].value <= best_aime + 1e-9
    assert star.estimates["AIME"].high <= best_aime + 1e-9
    assert star.estimates["AIME"].capped
    for bench in ("HLE", "SWE-bench Verified"):
        assert bench not in result.benchmarks  # nobody reported them: no estimate, no index term


def test_fewer_scores_widen_the_range():
    entries = _population()
    entries.append(
        entry(
            "full",
            [score("MMLU-Pro", 60), score("GPQA Diamond", 45), score("AIME", 35), score("LiveCodeBench", 40)],
        )
    )
    entries.append(entry("sparse", [score("MMLU-Pro", 60), score("GPQA Diamond", 45)]))
    result = build_index(entries)
    full, sparse = result.row("full"), result.row("sparse")
    assert (sparse.index_high - sparse.index_low) > (full.index_high - full.index_low)


def test_independent_score_replaces_the_labs_in_the_fit():
    e = entry(
        "x",
        [
            score("GPQA Diamond", 70, "lab"),
            score("GPQA Diamond", 55, "independent"),
            score("MMLU-Pro", 60, "other_lab"),
            score("MMLU-Pro", 64, "lab"),
        ],
    )
    chosen = chosen_scores(e)
    assert chosen["GPQA Diamond"].value == 55
    assert chosen["MMLU-Pro"].value == 64  # the lab's own figure beats a rival's table
    assert set(CORE_BENCHMARKS) >= set(chosen)


def test_earlier_version_scores_never_enter_the_fit():
    from engine.index.schema import EarlierVersion

    entries = _population()
    entries.append(
        entry(
            "new",
            [score("MMLU-Pro", 50), score("GPQA Diamond", 35)],
            earlier_version=EarlierVersion(name="old", scores=[score("AIME", 99)]),
        )
    )
    result = build_index(entries)
    assert "AIME" not in result.row("new").chosen
    assert result.caps["AIME"] < 99
