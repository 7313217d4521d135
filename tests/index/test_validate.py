"""The published model is chosen by leave-one-out, its ranges hold 95% of the time, and outliers are listed."""

from __future__ import annotations

from engine.index.calibration import HeldOut, calibrate, covered, factor_from, score_range
from engine.index.published import published_index
from engine.index.validate import COVERAGE_BAND, leave_one_out, method_name

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
    counts = committed_report.table[committed_report.published_method]
    for bench, share in committed_report.coverage.items():
        if bench != "all" and counts[bench].count >= 20:  # smaller benchmarks use the pooled factor
            assert low <= share <= high, bench


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
    cal = calibrate([_held(1.0, "A")] * 25 + [_held(3.0, "B")] * 3)
    assert cal.factor("A") == factor_from([1.0] * 25) and cal.factor("B") == cal.pooled


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
            entry("odd", [score("MMLU-Pro", 40), score("GPQA Diamond", 28), score("IFEval", 99)])
        )
    return entries


def test_a_figure_far_from_the_fit_is_listed_for_review():
    assert not any(o.model_id == "odd" for o in leave_one_out(_population(), factors=(1,)).outliers)
    found = leave_one_out(_population(outlier=True), factors=(1,)).outliers
    assert any(o.model_id == "odd" and o.item == "IFEval" for o in found)


def test_published_index_uses_the_winning_model_and_gives_every_estimate_a_range():
    entries = _population()
    entries.append(entry("quiet", [score("MMLU-Pro", 60), score("GPQA Diamond", 45)]))
    result, report = published_index(entries)
    assert result.model.n_factors == report.published and method_name(report.published) in report.table
    est = result.row("quiet").estimates["LiveCodeBench"]
    assert est.low <= est.value <= est.high
