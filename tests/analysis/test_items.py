from __future__ import annotations

import numpy as np
import pytest

from engine.analysis.items import ItemReport, class_counts, classify_items
from engine.analysis.scoring import Scorecard, score_run
from tests.analysis.test_scoring import make_run

# Four models, three trials per task. "mystery" has no known size; "nosize" is listed with None.
FLEET: dict[str, dict[str, tuple[str, str]]] = {
    "small": {
        "easy": ("format", "PPP"),
        "hard": ("format", "FFF"),
        "disc": ("tools", "FFF"),
        "wobbly": ("tools", "PPF"),
        "inv": ("code", "PPP"),
        "partial": ("knowledge", "PPP"),
    },
    "mid": {
        "easy": ("format", "PPP"),
        "hard": ("format", "FFF"),
        "disc": ("tools", "PPP"),
        "wobbly": ("tools", "PPP"),
        "inv": ("code", "PFF"),
    },
    "big": {
        "easy": ("format", "PPP"),
        "hard": ("format", "FFF"),
        "disc": ("tools", "PPP"),
        "wobbly": ("tools", "PPP"),
        "inv": ("code", "FFF"),
        "partial": ("knowledge", "III"),
    },
    "mystery": {
        "easy": ("format", "PPP"),
        "hard": ("format", "FFF"),
        "disc": ("tools", "FFF"),
        "wobbly": ("tools", "PPP"),
        "inv": ("code", "PPP"),
    },
}
SIZES: dict[str, float | None] = {"small": 1e9, "mid": 7e9, "big": 30e9}


def fleet_cards() -> list[Scorecard]:
    cards = []
    for model, tasks in FLEET.items():
        run = make_run(model, {t: (module, list(spell)) for t, (module, spell) in tasks.items()}, trials=3)
        cards.append(score_run(run, k=3))
    return cards


@pytest.fixture(scope="module")
def reports() -> dict[str, ItemReport]:
    return {r.task_id: r for r in classify_items(fleet_cards(), SIZES)}


def test_classes_of_each_task(reports: dict[str, ItemReport]) -> None:
    assert reports["easy"].classes == ["dead_easy"]
    assert reports["hard"].classes == ["dead_hard"]
    assert reports["disc"].classes == ["discriminating"]
    assert reports["wobbly"].classes == ["flaky"]
    assert reports["inv"].classes == ["discriminating", "flaky", "inverted"]
    # Only small has a scorable trial of "partial" (big's were all infra errors).
    assert reports["partial"].classes == ["dead_easy"]
    assert list(reports["partial"].outcomes) == ["small"]


def test_order_is_by_module_then_task() -> None:
    ids = [r.task_id for r in classify_items(fleet_cards(), SIZES)]
    assert ids == ["disc", "wobbly", "inv", "easy", "hard", "partial"]


def test_flaky_models_are_named(reports: dict[str, ItemReport]) -> None:
    assert reports["wobbly"].flaky_models == ["small"]
    assert reports["inv"].flaky_models == ["mid"]
    assert reports["disc"].flaky_models == []


def test_size_pairs_skip_unknown_sizes(reports: dict[str, ItemReport]) -> None:
    # inv: small 3/3 > mid 1/3 > big 0/3 -> three inverted pairs; mystery (no size) is not counted.
    assert (reports["inv"].inverted_pairs, reports["inv"].aligned_pairs) == (3, 0)
    # disc: small 0/3 below mid and big (aligned); mid = big is a tie and drops.
    assert (reports["disc"].inverted_pairs, reports["disc"].aligned_pairs) == (0, 2)
    assert (reports["wobbly"].inverted_pairs, reports["wobbly"].aligned_pairs) == (0, 2)
    # Without sizes nothing can be inverted.
    plain = {r.task_id: r for r in classify_items(fleet_cards(), {"small": None})}
    assert "inverted" not in plain["inv"].classes
    assert (plain["inv"].inverted_pairs, plain["inv"].aligned_pairs) == (0, 0)


def test_discrimination_is_the_item_rest_correlation(reports: dict[str, ItemReport]) -> None:
    def fraction(spell: str) -> float:
        return spell.count("P") / len(spell)

    models = [m for m in FLEET if "disc" in FLEET[m]]
    item = [fraction(FLEET[m]["disc"][1]) for m in models]
    rest = []
    for m in models:
        others = [fraction(s) for t, (_, s) in FLEET[m].items() if t != "disc" and set(s) != {"I"}]
        rest.append(sum(others) / len(others))
    expected = float(np.corrcoef(item, rest)[0, 1])
    assert reports["disc"].discrimination == pytest.approx(expected)
    # Hand check of the rest scores: small (1+0+2/3+1+1)/5, mid (1+0+1+1/3)/4, big (1+0+1+0)/4, mystery 3/4.
    assert rest == pytest.approx([(11 / 3) / 5, (7 / 3) / 4, 0.5, 0.75])
    # Dead items have no spread, so no correlation.
    assert reports["easy"].discrimination is None


def test_module_filter_keeps_item_numbers() -> None:
    cards = fleet_cards()
    only_code = classify_items(cards, SIZES, module="code")
    assert [r.task_id for r in only_code] == ["inv"]
    full = {r.task_id: r for r in classify_items(cards, SIZES)}
    assert only_code[0].discrimination == pytest.approx(full["inv"].discrimination)


def test_class_counts(reports: dict[str, ItemReport]) -> None:
    counts = class_counts(list(reports.values()))
    assert counts == {"discriminating": 2, "flaky": 2, "dead_easy": 2, "dead_hard": 1, "inverted": 1}
