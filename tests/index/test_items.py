"""AIME years and LiveCodeBench versions are separate items in the fit; the index reports one of each."""

from __future__ import annotations

import numpy as np

from engine.index.index import build_index, fit_data, raw_item
from engine.index.validate import leave_one_out

from .helpers import entry, score


def test_raw_item_reads_the_year_or_version_from_the_variant():
    assert raw_item(score("AIME", 50, variant="AIME 2024 (avg@64)")) == ("AIME 2024", 2024)
    assert raw_item(score("AIME", 50, variant="AIME 2025; pass@1")) == ("AIME 2025", 2025)
    assert raw_item(score("AIME", 50)) == ("AIME (year not stated)", None)
    assert raw_item(score("LiveCodeBench", 50, variant="v6 (2025.02-2025.05)")) == ("LiveCodeBench v6", 6)
    assert raw_item(score("LiveCodeBench", 50, variant="version not stated")) == (
        "LiveCodeBench (version not stated)",
        None,
    )
    assert raw_item(score("MMLU-Pro", 50, variant="5-shot 2024")) == ("MMLU-Pro", None)


def _population(n: int = 12, odd: bool = False):
    entries = []
    for k in range(n):
        level = 15 + 6 * k
        entries.append(
            entry(
                f"m{k:02d}",
                [
                    score("MMLU-Pro", min(95, level + 15)),
                    score("GPQA Diamond", level),
                    score("AIME", max(1, level - 5), variant="AIME 2024"),
                    score("AIME", max(1, level - 12), variant="AIME 2025"),
                    score("LiveCodeBench", max(1, level - 8), variant="v5"),
                ],
            )
        )
    if odd:
        # Weak at everything but AIME, where both years say 90+: a model only its own AIME could explain.
        entries.append(
            entry(
                "odd",
                [
                    score("MMLU-Pro", 30),
                    score("GPQA Diamond", 20),
                    score("AIME", 92, variant="AIME 2024"),
                    score("AIME", 90, variant="AIME 2025"),
                ],
            )
        )
    return entries


def test_two_years_are_two_items_and_the_latest_stands_for_the_benchmark():
    entries = _population()
    entries.append(entry("one-year", [score("MMLU-Pro", 50), score("AIME", 20)]))  # no year: folded in
    data = fit_data(entries)
    assert "AIME 2024" in data.items and "AIME 2025" in data.items
    assert "AIME (year not stated)" not in data.items  # fewer than 5 figures: joins the largest item
    assert data.items[data.primary["AIME"]] == "AIME 2025"
    # Every population model gives two AIME figures to the fit, but the table still has one AIME per model.
    aime_rows = np.isin(data.obs.bench, [data.items.index("AIME 2024"), data.items.index("AIME 2025")])
    assert int(aime_rows.sum()) == 2 * 12 + 1
    assert all(len([b for b in c if b == "AIME"]) == 1 for c in data.chosen)
    assert data.benchmarks.count("AIME") == 1


def test_estimates_name_the_item_they_are_for():
    entries = _population()
    entries.append(entry("quiet", [score("MMLU-Pro", 60), score("GPQA Diamond", 45)]))
    result = build_index(entries)
    estimate = result.row("quiet").estimates["AIME"]
    assert estimate.item == "AIME 2025"
    # The latest exam is the harder one in this population, and the estimate follows it.
    fitted = result.data
    assert fitted is not None
    a = result.model.difficulty
    assert a[fitted.items.index("AIME 2025")] < a[fitted.items.index("AIME 2024")]


def test_no_split_merges_years_into_one_item():
    data = fit_data(_population(), split=False)
    assert "AIME" in data.items and "AIME 2024" not in data.items
    assert len(data.obs.score) == 12 * 4  # one chosen AIME per model


def test_leave_one_out_hides_every_year_of_the_held_out_benchmark():
    # If the odd model's AIME 2024 stayed visible while its AIME 2025 was predicted, the prediction would sit
    # near 90 and the AIME error would be small. Hidden together, its AIME is predicted from MMLU-Pro and
    # GPQA alone (far below 90), so its error alone adds over 3 points to the 13-model mean.
    report = leave_one_out(_population(odd=True), factors=(1,))
    assert report.split
    assert report.table["1-factor"]["AIME"].count == 13
    assert report.table["1-factor"]["AIME"].mean > 3.0
