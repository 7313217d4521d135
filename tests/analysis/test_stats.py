from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from engine.analysis.scoring import Scorecard, score_run
from engine.analysis.stats import (
    against_baseline,
    competition_ranks,
    effective_task_count,
    holm,
    mcnemar_tasks_needed,
    model_interval,
    ranking,
    separability,
    wilson_interval,
)
from engine.core.errors import UserError
from tests.analysis.test_scoring import make_run


def card_from_passes(
    model: str, passes: list[bool | str], trials: int = 1, module: str = "tools"
) -> Scorecard:
    """One task per entry: True passes every trial, False fails every trial, a string spells the trials."""
    tasks = {}
    for i, p in enumerate(passes):
        outcomes = list(p) if isinstance(p, str) else ["P" if p else "F"] * trials
        tasks[f"t{i:02d}"] = (module, outcomes)
    return score_run(make_run(model, tasks, trials=trials), k=trials)


# ----------------------------------------------------------------------------------------------------------
# Wilson


@pytest.mark.parametrize(("x", "n"), [(0, 10), (3, 10), (7, 10), (10, 10), (17, 39), (1, 1), (106, 378)])
def test_wilson_matches_scipy(x: int, n: int) -> None:
    ci = binomtest(x, n).proportion_ci(confidence_level=0.95, method="wilson")
    low, high = wilson_interval(x, n)
    assert low == pytest.approx(ci.low, abs=1e-12)
    assert high == pytest.approx(ci.high, abs=1e-12)


def test_wilson_other_confidence_matches_scipy() -> None:
    ci = binomtest(12, 30).proportion_ci(confidence_level=0.90, method="wilson")
    assert wilson_interval(12, 30, confidence=0.90) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_model_interval_with_equal_task_weights_is_the_plain_wilson_interval() -> None:
    card = card_from_passes("m", [True] * 7 + [False] * 3, trials=3)
    interval = model_interval(card)
    assert interval is not None
    ci = binomtest(7, 10).proportion_ci(method="wilson")
    assert interval.n == pytest.approx(10)
    assert interval.estimate == pytest.approx(0.7)
    assert (interval.low, interval.high) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_effective_task_count_follows_the_weights() -> None:
    # tools 2/3 on one task, code 1/3 shared by two tasks: weights 2/3, 1/6, 1/6 -> (1)^2 / (1/2) = 2.
    run = make_run("m", {"t": ("tools", ["P"]), "c1": ("code", ["P"]), "c2": ("code", ["F"])}, trials=1)
    card = score_run(run, k=1)
    assert card.weights == pytest.approx({"tools": 2 / 3, "code": 1 / 3})
    assert effective_task_count(card) == pytest.approx(2.0)
    interval = model_interval(card)
    assert interval is not None
    assert interval.estimate == pytest.approx(2 / 3 + 1 / 6)
    assert (interval.low, interval.high) == pytest.approx(wilson_interval(2 * (5 / 6), 2.0))


def test_no_interval_without_scored_tasks() -> None:
    card = score_run(make_run("m", {"t": ("tools", ["I"])}, trials=1), k=1)
    assert model_interval(card) is None


# ----------------------------------------------------------------------------------------------------------
# Sign test, Holm, McNemar


def test_sign_test_counts_wins_on_pass_fraction_and_matches_scipy() -> None:
    # Three trials per task. a wins 7 tasks, b wins 2, 3 are tied (one tie at 2 of 3 each).
    a = card_from_passes("a", ["PPP"] * 5 + ["PPF"] * 2 + ["FFF"] * 2 + ["PPP", "FFF", "PFP"], trials=3)
    b = card_from_passes("b", ["FFF"] * 5 + ["PFF"] * 2 + ["PPF", "PPP"] + ["PPP", "FFF", "PPF"], trials=3)
    (pair,) = separability([b, a]).pairs
    assert (pair.model_a, pair.model_b) == ("a", "b")
    assert (pair.wins_a, pair.wins_b, pair.ties, pair.tasks) == (7, 2, 3, 12)
    # 2 * (C(9,7) + C(9,8) + C(9,9)) / 2^9
    assert pair.p_value == pytest.approx(92 / 512)
    assert pair.p_value == pytest.approx(binomtest(7, 9, 0.5).pvalue)
    # One pair: Holm leaves its p as it is.
    assert pair.p_adjusted == pair.p_value and pair.adjacent


def test_sign_test_uses_only_tasks_both_scored() -> None:
    a = score_run(make_run("a", {"x": ("tools", ["P"]), "y": ("tools", ["P"])}, trials=1), k=1)
    b = score_run(make_run("b", {"x": ("tools", ["F"]), "z": ("tools", ["F"])}, trials=1), k=1)
    (pair,) = separability([a, b]).pairs
    assert (pair.wins_a, pair.wins_b, pair.ties, pair.tasks) == (1, 0, 0, 1)
    assert pair.p_value == pytest.approx(1.0) and not pair.separable


def test_a_pair_with_no_common_task_has_no_verdict() -> None:
    a = score_run(make_run("a", {"x": ("tools", ["P"])}, trials=1), k=1)
    b = score_run(make_run("b", {"z": ("tools", ["F"])}, trials=1), k=1)
    (pair,) = separability([a, b]).pairs
    assert pair.tasks == 0 and pair.p_value == 1.0 and pair.tasks_needed is None


def test_holm_hand_worked() -> None:
    # Sorted: 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04 -> monotone 0.06.
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.6]) == pytest.approx([1.0, 1.0])
    assert holm([]) == []


def test_mcnemar_tasks_needed_hand_worked() -> None:
    # pd = 0.4, d = 0.2: (1.959964 * sqrt(0.4) + 0.841621 * sqrt(0.36))^2 / 0.04 = 76.09 -> 77.
    assert mcnemar_tasks_needed(0.3, 0.1) == 77
    assert mcnemar_tasks_needed(0.1, 0.3) == 77
    assert mcnemar_tasks_needed(0.2, 0.2) is None
    # pd = 0.5, d = 0.5: (1.959964 * sqrt(0.5) + 0.841621 * 0.5)^2 / 0.25 = 13.06 -> 14.
    assert mcnemar_tasks_needed(0.5, 0.0) == 14


def test_separability_on_a_small_fleet() -> None:
    # 20 tasks, one trial each. top passes all, mid the first 10, low9 the first 9, bottom none.
    top = card_from_passes("top", [True] * 20)
    mid = card_from_passes("mid", [True] * 10 + [False] * 10)
    low9 = card_from_passes("low9", [True] * 9 + [False] * 11)
    bottom = card_from_passes("bottom", [False] * 20)
    sep = separability([low9, bottom, mid, top])
    assert sep.ranking == ["top", "mid", "low9", "bottom"]
    assert sep.pair_count == 6 and sep.adjacent_count == 3
    pairs = {(p.model_a, p.model_b): p for p in sep.pairs}
    raw = {
        ("top", "mid"): binomtest(10, 10).pvalue,
        ("top", "low9"): binomtest(11, 11).pvalue,
        ("top", "bottom"): binomtest(20, 20).pvalue,
        ("mid", "low9"): 1.0,
        ("mid", "bottom"): binomtest(10, 10).pvalue,
        ("low9", "bottom"): binomtest(9, 9).pvalue,
    }
    expected_adj = dict(zip(raw, holm(list(raw.values())), strict=True))
    for key, p in raw.items():
        assert pairs[key].p_value == pytest.approx(p)
        assert pairs[key].p_adjusted == pytest.approx(expected_adj[key])
    # Holm by hand: 2^-19 x 6; 2^-10 (11 wins) x 5 = 0.0049; the two 2^-9 x 4 and x 3 -> 0.0078 (monotone);
    # 9 wins 2^-8 x 2 = 0.0078; mid-low9 stays 1.0.
    assert pairs[("top", "mid")].p_adjusted == pytest.approx(4 * 2**-9)
    assert pairs[("low9", "bottom")].p_adjusted == pytest.approx(2 * 2**-8)
    assert pairs[("mid", "low9")].p_adjusted == pytest.approx(1.0)
    assert [p.separable for p in sep.pairs] == [True, True, True, False, True, True]
    assert sep.separable_count == 5
    assert sep.adjacent_separable == 2
    assert pairs[("mid", "low9")].adjacent and not pairs[("top", "low9")].adjacent
    # top vs mid: p10 = 10/20, p01 = 0 -> 14 tasks (hand-worked above). mid vs low9: pd = d = 0.05,
    # (1.959964 * 0.223607 + 0.841621 * 0.217945)^2 / 0.0025 = 154.6 -> 155.
    assert pairs[("top", "mid")].tasks_needed == 14
    assert pairs[("mid", "low9")].tasks_needed == 155


def test_separability_equals_a_pair_by_pair_count_on_a_larger_fleet() -> None:
    # The vectorised win counts against a plain loop over every pair, on 12 models with ties and gaps.
    rng = np.random.default_rng(4)
    cards = [
        card_from_passes(f"m{i:02d}", ["".join(rng.choice(["P", "F"], 3)) for _ in range(30)], trials=3)
        for i in range(12)
    ]
    cards += [score_run(make_run("holes", {"t00": ("tools", ["P", "P", "P"])}, trials=3), k=3)]
    sep = separability(cards)
    by_name = {c.model: c for c in cards}
    for pair in sep.pairs:
        a, b = by_name[pair.model_a], by_name[pair.model_b]
        common = [t for t in a.tasks if a.tasks[t].scored and t in b.tasks and b.tasks[t].scored]
        fa = [a.tasks[t].pass_fraction for t in common]
        fb = [b.tasks[t].pass_fraction for t in common]
        wins_a = sum(x > y for x, y in zip(fa, fb, strict=True))
        wins_b = sum(x < y for x, y in zip(fa, fb, strict=True))
        assert (pair.wins_a, pair.wins_b, pair.ties) == (wins_a, wins_b, len(common) - wins_a - wins_b)
        decided = wins_a + wins_b
        assert pair.p_value == pytest.approx(binomtest(wins_a, decided).pvalue if decided else 1.0)
    assert sep.pair_count == 13 * 12 // 2
    assert sep.separable_count == sum(p.separable for p in sep.pairs)


def test_separability_refuses_mixed_k() -> None:
    a = card_from_passes("a", [True], trials=1)
    b = card_from_passes("b", [True], trials=3)
    with pytest.raises(UserError, match="one k"):
        separability([a, b])


def test_separability_refuses_two_cards_of_one_model() -> None:
    a = card_from_passes("a", [True])
    with pytest.raises(UserError, match="same model name"):
        separability([a, a])


def test_tied_headlines_share_a_competition_rank_and_their_pair_is_tied() -> None:
    # a and b pass the same share of tasks (different tasks), so their headlines tie; d scores nothing.
    a = card_from_passes("a", [True] * 6 + [False] * 4)
    b = card_from_passes("b", [False] * 4 + [True] * 6)
    c = card_from_passes("c", [True] * 3 + [False] * 7)
    top = card_from_passes("top", [True] * 10)
    empty = score_run(make_run("empty", {"t00": ("tools", ["I"])}, trials=1), k=1)
    ordered = ranking([c, b, empty, top, a])
    assert [x.model for x in ordered] == ["top", "a", "b", "c", "empty"]
    assert competition_ranks(ordered) == {"top": 1, "a": 2, "b": 2, "c": 4, "empty": None}
    sep = separability([a, b, c, top])
    tied = [(p.model_a, p.model_b) for p in sep.pairs if p.tied]
    assert tied == [("a", "b")]


# ----------------------------------------------------------------------------------------------------------
# Against a baseline (sweep, regression gate)


def test_against_baseline_is_the_sign_test_holm_corrected_across_the_candidates_only() -> None:
    base = card_from_passes("base", [True] * 12)
    worse = card_from_passes("worse", [False] * 9 + [True] * 3)
    slight = card_from_passes("slight", [False] * 1 + [True] * 11)
    better_than_worse = card_from_passes("other", [True] * 12)
    tests = against_baseline(base, [worse, slight, better_than_worse])
    assert [t.candidate for t in tests] == ["worse", "slight", "other"]
    raw = [binomtest(9, 9).pvalue, binomtest(1, 1).pvalue, 1.0]
    assert [t.p_value for t in tests] == pytest.approx(raw)
    # Holm over these three p-values; the pairs among the candidates are not tested and do not count.
    assert [t.p_adjusted for t in tests] == pytest.approx(holm(raw))
    assert [t.verdict for t in tests] == ["worse", "not separable", "not separable"]
    assert (tests[0].wins_baseline, tests[0].wins_candidate, tests[0].ties) == (9, 0, 3)
    assert tests[1].tasks_needed == mcnemar_tasks_needed(1 / 12, 0)
    assert tests[1].more_tasks_needed == tests[1].tasks_needed - 12
    assert tests[2].tasks_needed is None and tests[2].more_tasks_needed is None
    flipped = against_baseline(worse, [base])[0]
    assert flipped.verdict == "better" and flipped.p_value == tests[0].p_value


def test_against_baseline_can_look_at_some_tasks_only() -> None:
    base = card_from_passes("base", [True] * 6)
    cand = card_from_passes("cand", [False] * 3 + [True] * 3)
    (test,) = against_baseline(base, [cand], only={"t00", "t04"})
    assert (test.tasks, test.wins_baseline, test.ties) == (2, 1, 1)
