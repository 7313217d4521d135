"""The published model is chosen by leave-one-out, its ranges hold 95% of the time, a core benchmark whose
estimates do no better than its average is left out, and outliers and placeholder-like figures are listed."""

from __future__ import annotations

import re

import pytest
from pydantic import ValidationError

from engine.index.calibration import HeldOut, calibrate, covered, factor_from, score_range
from engine.index.error_interval import mean_error_interval
from engine.index.index import build_index
from engine.index.published import published_index
from engine.index.schema import CORE_BENCHMARKS
from engine.index.validate import (
    COVERAGE_BAND,
    format_report,
    leave_one_out,
    method_name,
    validation_table_markdown,
)
from engine.index.verdict import BENCHMARK_COVERAGE, verdict_of

from .helpers import entry, score


def test_published_model_is_the_one_with_the_lowest_held_out_error(committed_report):
    report = committed_report
    published = report.table[report.published_method]["all"]
    others = [rows["all"] for m, rows in report.table.items() if m not in ("baseline", report.published_method)]
    assert others and all(published.mean < o.mean for o in others)
    # The bar on the committed data.
    assert published.mean < 4.7 and published.median < 3.2


def test_ranges_hold_95_percent_of_held_out_figures(committed_report):
    low, high = COVERAGE_BAND
    assert low <= committed_report.coverage["all"] <= high
    b_low, b_high = BENCHMARK_COVERAGE
    for bench in committed_report.estimated:
        assert committed_report.verdicts[bench].coverage_judged, bench
        assert b_low <= committed_report.coverage[bench] <= b_high, bench


def test_every_core_benchmark_beats_knowing_nothing_or_is_left_out(committed_report):
    report = committed_report
    assert set(report.verdicts) == set(CORE_BENCHMARKS)
    for bench, verdict in report.verdicts.items():
        if verdict.estimated:
            assert verdict.error < verdict.baseline, bench
        else:
            assert bench in report.excluded and "held-out" in report.excluded[bench]
    # The bar: the index's own held-out error over what it estimates, with its interval around it.
    overall = report.table[report.published_method]["all"]
    assert overall.mean <= 4.5 and overall.count == sum(report.verdicts[b].count for b in report.estimated)
    e = report.index_error
    assert e is not None and e.low < e.mean < e.high and abs(e.mean - overall.mean) < 1e-9


def test_the_models_own_spread_is_widened_by_calibration(committed_report):
    # The model's own spread is too narrow: the calibration has to widen it, at least on the pooled figures.
    assert committed_report.calibration is not None and committed_report.calibration.pooled > 1.05


def _held(z: float, bench: str = "X") -> HeldOut:
    return HeldOut(0, bench, bench, target=50.0, centre=z * 0.1, spread=0.1, cap=100.0)


def test_factor_is_the_95th_percentile_of_standardised_errors():
    z = [0.1 * k for k in range(1, 101)]  # 0.1 .. 10.0
    assert abs(factor_from(z) - 9.5 / 1.959963984540054) < 1e-9


def test_a_figure_never_sets_the_width_of_its_own_range():
    # Nineteen small errors and one huge one: if the huge one set its own width it would be covered.
    held = [_held(0.5 + 0.01 * k) for k in range(19)] + [_held(40.0)]
    inside = covered(held)
    assert inside[-1] is False and all(inside[:-1])


def test_range_reaches_the_edge_of_the_scale_and_respects_the_cap():
    low, high = score_range(-6.0, 1.0, 1.0, cap=30.0)
    assert low == 0.0 and high <= 30.0
    cal = calibrate([_held(1.0, "A")] * 25 + [_held(0.2, "C")] * 3)
    assert cal.factor("A") == factor_from([1.0] * 25) and cal.factor("C") == cal.pooled


def test_a_benchmark_with_few_figures_gets_the_ranges_its_own_errors_ask_for():
    # Two figures that miss by three spreads: the pooled factor (set by the 40 others) would cover neither.
    cal = calibrate([_held(1.0, "A")] * 40 + [_held(3.0, "B")] * 2)
    assert cal.pooled == pytest.approx(factor_from([1.0]))
    assert cal.factor("B") == pytest.approx(factor_from([3.0] * 2)) and cal.factor("B") > cal.pooled
    assert cal.factor("never held out") == cal.pooled


def test_verdict_needs_an_error_below_the_baseline_and_ranges_that_hold():
    good = verdict_of("MMLU-Pro", 40, error=4.0, baseline=15.0, coverage=0.95)
    assert good.estimated and good.label == "estimated" and good.reason == ""
    worse = verdict_of("SWE-bench Verified", 40, error=18.5, baseline=15.3, coverage=0.95)
    assert not worse.estimated and "18.50" in worse.reason and "15.30" in worse.reason
    narrow = verdict_of("AIME", 40, error=4.0, baseline=15.0, coverage=0.80)
    wide = verdict_of("AIME", 40, error=4.0, baseline=15.0, coverage=1.0)
    assert not narrow.estimated and "80%" in narrow.reason and not wide.estimated
    # Seven figures cannot show a share: the error decides, and the ranges are the widened ones.
    few = verdict_of("HLE", 7, error=1.0, baseline=2.0, coverage=6 / 7)
    assert few.estimated and not few.coverage_judged and "widened" in few.label
    few_bad = verdict_of("HLE", 7, error=3.0, baseline=2.0, coverage=5 / 7)
    assert not few_bad.estimated and "too few figures to judge" in few_bad.reason


def _population(outlier: bool = False):
    entries = []
    for k in range(14):
        level = 15 + 5 * k
        entries.append(
            entry(
                f"m{k:02d}",
                [
                    score("MMLU-Pro", min(95, level + 15)),
                    score("GPQA Diamond", level),
                    score("LiveCodeBench", max(1, level - 8), variant="v5"),
                    score("IFEval", min(95, level + 20)),
                ],
            )
        )
    if outlier:
        entries.append(
            entry("odd", [score("MMLU-Pro", 40), score("GPQA Diamond", 28), score("IFEval", 99, checked=None)])
        )
    return entries


def test_a_figure_far_from_the_fit_is_listed_for_review_with_its_source():
    assert not any(o.model_id == "odd" for o in leave_one_out(_population(), factors=(1,)).outliers)
    report = leave_one_out(_population(outlier=True), factors=(1,))
    (odd,) = [o for o in report.outliers if o.model_id == "odd" and o.item == "IFEval"]
    assert odd.source == "https://example.org/IFEval" and odd.checked is None and odd.unchecked == "not_yet"
    assert "unchecked (not yet compared): https://example.org/IFEval" in format_report(report)


def _with_noise_benchmark():
    """The population plus a core benchmark whose figures follow no model at all (a scaffold lottery)."""
    entries = _population()
    noise = [71, 12, 55, 8, 64, 30, 2, 47, 19, 66, 5, 38, 60, 14]
    return [
        entry(e.id, [*e.scores, score("SWE-bench Verified", noise[k])]) if k < len(noise) else e
        for k, e in enumerate(entries)
    ] + [entry("quiet", [score("MMLU-Pro", 60), score("GPQA Diamond", 45)])]


def test_a_benchmark_no_better_than_its_average_is_left_out_of_the_index():
    entries = _with_noise_benchmark()
    result, report = published_index(entries)
    assert "SWE-bench Verified" in report.excluded and not report.verdicts["SWE-bench Verified"].estimated
    assert "SWE-bench Verified" not in report.estimated and "MMLU-Pro" in report.estimated
    assert result.excluded == report.excluded and "SWE-bench Verified" not in result.index_benchmarks
    quiet = result.row("quiet")
    assert "SWE-bench Verified" not in quiet.estimates and "LiveCodeBench" in quiet.estimates
    # The "all" row is over what the index estimates, so the excluded benchmark's misses are not in it.
    kept = sum(report.verdicts[b].count for b in report.estimated)
    assert report.table[report.published_method]["all"].count == kept
    # The index is the average over the estimated benchmarks only: the same ability, one benchmark fewer.
    full = build_index(entries, report.published, calibration=report.calibration)
    assert full.row("quiet").index != quiet.index


def test_the_printed_report_gives_each_verdict_and_the_reason():
    report = leave_one_out(_with_noise_benchmark(), factors=(1,))
    text = format_report(report)
    assert re.search(r"SWE-bench Verified\s+14 .* excluded", text)
    assert re.search(r"MMLU-Pro\s+15 .* estimated", text)
    assert "SWE-bench Verified is not estimated: on 14 held-out figures" in text
    assert "The index's held-out error:" in text and "95% interval" in text
    markdown = validation_table_markdown(report)
    assert "| Verdict |" in markdown and "| excluded |" in markdown
    assert "SWE-bench Verified is not estimated" in markdown
    assert report.to_dict()["verdicts"]["SWE-bench Verified"]["verdict"] == "excluded"


def test_figures_at_0_or_100_need_a_reason_from_their_source():
    entries = _population()
    entries.append(
        entry(
            "edges",
            [
                score("MMLU-Pro", 50),
                score("GPQA Diamond", 30),
                score("tau2-Bench", 0.0),
                score("IFEval", 100.0, edge_reason="the lab's table shows 100.0 with 541 of 541 prompts passed"),
            ],
        )
    )
    report = leave_one_out(entries, factors=(1,))
    assert [(e.model_id, e.score.benchmark) for e in report.edges] == [("edges", "tau2-Bench")]
    assert "edges" in format_report(report) and "tau2-Bench" in format_report(report)
    with pytest.raises(ValidationError, match="edge_reason"):
        score("IFEval", 99.0, edge_reason="not an edge")


def test_committed_data_has_no_unexplained_figure_at_0_or_100(committed_report):
    assert committed_report.edges == [], [(e.model_id, e.score.benchmark) for e in committed_report.edges]


def test_error_interval_resamples_models_and_is_repeatable():
    errors = [1.0, 1.0, 1.0, 1.0, 9.0, 9.0]
    groups = [0, 1, 2, 3, 4, 4]  # model 4 misses twice: its errors travel together
    first = mean_error_interval(errors, groups)
    assert first == mean_error_interval(errors, groups)
    assert first.low < first.mean < first.high and first.groups == 5 and first.count == 6
    alone = mean_error_interval([1.0] * 6, list(range(6)))
    assert alone.low == alone.mean == alone.high == 1.0


def test_published_index_uses_the_winning_model_and_gives_every_estimate_a_range():
    entries = _population()
    entries.append(entry("quiet", [score("MMLU-Pro", 60), score("GPQA Diamond", 45)]))
    result, report = published_index(entries)
    assert result.model.n_factors == report.published and method_name(report.published) in report.table
    est = result.row("quiet").estimates["LiveCodeBench"]
    assert est.low <= est.value <= est.high
