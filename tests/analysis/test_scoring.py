from __future__ import annotations

import math
from typing import Any

import pytest

from engine.analysis.scoring import (
    PRESETS,
    bank_task_counts,
    board_k,
    effective_weights,
    first_try_code_rate,
    pass_hat_k,
    preset_weights,
    score_run,
    weight_caps_ok,
)
from engine.core.errors import UserError
from engine.core.schema import Grade, Provenance, RunFile, RunSettings, TrialRecord
from engine.episodes import SPECS

# An outcome is "P" (pass, score 1), "F" (fail, score 0), "I" (infra error, excluded), "X" (invalid,
# excluded), a float score (passes at >= 0.999) or a (score, details) pair.
Outcome = str | float | tuple[float, dict[str, Any]]


def make_trial(task_id: str, module: str, index: int, outcome: Outcome) -> TrialRecord:
    base: dict[str, Any] = {"task_id": task_id, "task_hash": "h", "module": module, "trial": index}
    if outcome == "I":
        return TrialRecord(**base, infra=True, error="503 from server")
    if outcome == "X":
        return TrialRecord(**base, invalid_reason="prompt silently truncated")
    details: dict[str, Any] = {}
    if isinstance(outcome, tuple):
        score, details = outcome
    elif outcome == "P":
        score = 1.0
    elif outcome == "F":
        score = 0.0
    else:
        assert isinstance(outcome, float)
        score = outcome
    return TrialRecord(**base, grade=Grade(score=score, passed=score >= 0.999, details=details))


def make_run(model: str, tasks: dict[str, tuple[str, list[Outcome]]], trials: int = 3) -> RunFile:
    records = [
        make_trial(task_id, module, i, outcome)
        for task_id, (module, outcomes) in tasks.items()
        for i, outcome in enumerate(outcomes)
    ]
    return RunFile(
        settings=RunSettings(
            model=model,
            endpoint_host="127.0.0.1",
            trials=trials,
            profile="full",
            modules=sorted({m for m, _ in tasks.values()}),
        ),
        provenance=Provenance(
            bench_version="0.1.0", task_set_hash="x", python_version="3.11", started_at="2026-01-01T00:00:00Z"
        ),
        task_hashes={t: "h" for t in tasks},
        trials=records,
    )


# ----------------------------------------------------------------------------------------------------------
# pass^k


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        (5, 3, 2, 3 / 10),  # C(3,2)/C(5,2)
        (3, 2, 3, 0.0),  # one failure kills pass^3
        (3, 3, 3, 1.0),
        (4, 3, 1, 0.75),  # pass^1 is the plain pass rate
        (6, 4, 3, 4 / 20),  # C(4,3)/C(6,3)
    ],
)
def test_pass_hat_k_hand_worked(n: int, c: int, k: int, expected: float) -> None:
    assert pass_hat_k(n, c, k) == pytest.approx(expected)


@pytest.mark.parametrize(("n", "c", "k"), [(2, 2, 3), (3, 4, 2), (3, 1, 0)])
def test_pass_hat_k_rejects_impossible_counts(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_hat_k(n, c, k)


def test_board_k_is_largest_trial_count() -> None:
    runs = [make_run("a", {"t": ("tools", ["P"] * 3)}, trials=3), make_run("b", {"t": ("tools", ["P"])}, 5)]
    assert board_k(runs) == 5
    with pytest.raises(UserError):
        board_k([])


# ----------------------------------------------------------------------------------------------------------
# Weights and caps


def test_presets_need_no_clipping_on_the_full_bank() -> None:
    for name in PRESETS:
        preset = preset_weights(name)
        assert sum(preset.values()) == pytest.approx(1.0), name
        assert weight_caps_ok(preset), name
        eff = effective_weights(preset, bank_task_counts())
        assert eff.clipped == []
        assert eff.weights == pytest.approx(preset)


def test_renormalise_over_present_modules() -> None:
    eff = effective_weights(preset_weights("balanced"), ["code", "tools"])
    # 0.30 and 0.15 rescaled to sum to one; bands (over 13 + 5 bank tasks) are wide enough for both.
    assert eff.weights == pytest.approx({"tools": 2 / 3, "code": 1 / 3})
    assert eff.clipped == []
    eff = effective_weights(preset_weights("agentic"), ["multi_turn_if", "knowledge", "format"])
    assert eff.weights == pytest.approx(
        {"format": 0.12 / 0.34, "multi_turn_if": 0.16 / 0.34, "knowledge": 0.06 / 0.34}
    )


def test_cap_raises_a_starved_module_to_its_floor() -> None:
    # Equal bank shares of 1/3: band [1/6, 2/3]. c (0.1) is below its floor; one common factor t = 25/27
    # keeps a:b at 7:2 and puts c on 1/6, so a = 35/54, b = 10/54, c = 9/54 (a's cap does not bind).
    eff = effective_weights({"a": 0.7, "b": 0.2, "c": 0.1}, ["a", "b", "c"], {"a": 1, "b": 1, "c": 1})
    assert eff.weights == pytest.approx({"a": 35 / 54, "b": 10 / 54, "c": 9 / 54})
    assert eff.clipped == ["c"]


def test_cap_lowers_an_overweight_module_to_its_ceiling() -> None:
    # a holds 1 of 10 bank tasks: its ceiling is 2 x 0.1 = 0.2, so 0.5 becomes 0.2 and b takes the rest.
    eff = effective_weights({"a": 0.5, "b": 0.5}, ["a", "b"], {"a": 1, "b": 9})
    assert eff.weights == pytest.approx({"a": 0.2, "b": 0.8})
    assert eff.clipped == ["a"]


def test_unknown_preset_is_a_user_error() -> None:
    run = make_run("m", {"t": ("tools", ["P", "P", "P"])})
    with pytest.raises(UserError, match="balanced"):
        score_run(run, weights="speedy")


def test_weights_and_bank_counts_are_read_from_the_module_specs(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = SPECS["format"]
    heavier = spec.weights.model_copy(update={"balanced": 0.45})
    monkeypatch.setitem(SPECS, "format", spec.model_copy(update={"weights": heavier, "bank_tasks": 7}))
    assert preset_weights("balanced")["format"] == 0.45
    assert bank_task_counts()["format"] == 7
    card = score_run(make_run("m", {"f": ("format", ["P", "P", "P"]), "t": ("tools", ["F", "F", "F"])}))
    # 0.45 and tools' 0.30 renormalised; the bands over 7 + 13 bank tasks hold both, so nothing is clipped.
    assert card.weights == pytest.approx({"tools": 0.4, "format": 0.6})
    assert card.headline == pytest.approx(0.6)


# ----------------------------------------------------------------------------------------------------------
# A run's scorecard


def _hand_run() -> RunFile:
    return make_run(
        "m",
        {
            "t1": ("tools", ["P", "P", "P"]),
            "t2": ("tools", ["P", "P", 0.4]),
            "c1": ("code", [(1.0, {"first_try_pass": True}), (1.0, {"first_try_pass": True}), (0.85, {})]),
            "c2": ("code", ["I", (1.0, {"first_try_pass": False}), (1.0, {"first_try_pass": False})]),
            "f1": ("format", [0.5, 0.5, 0.5]),
        },
    )


def test_score_run_hand_worked_k3() -> None:
    card = score_run(_hand_run(), k=3)
    # Present modules tools, code, format: 0.30/0.15/0.15 renormalise to 0.5/0.25/0.25.
    assert card.weights == pytest.approx({"tools": 0.5, "code": 0.25, "format": 0.25})
    # c2 has 2 scorable trials < k = 3: dropped and counted. c1 failed once (score 0.85), so pass^3 = 0.
    assert card.tasks["c2"].scored is False
    assert card.modules["tools"].pass_k == pytest.approx(0.5)
    assert card.modules["code"].pass_k == pytest.approx(0.0)
    assert card.modules["format"].pass_k == pytest.approx(0.0)
    assert card.headline == pytest.approx(0.25)
    # det: tools mean(1, 0.8) = 0.9, code 0.95, format 0.5 -> 0.45 + 0.2375 + 0.125.
    assert card.modules["tools"].det_score == pytest.approx(0.9)
    assert card.det_score == pytest.approx(0.8125)
    assert (card.tasks_scored, card.tasks_excluded, card.trials_excluded) == (4, 1, 1)
    assert card.modules["code"].tasks_excluded == 1 and card.modules["code"].trials_excluded == 1
    # First-try over scorable code trials that report it: c1 True, True; c2 False, False -> 2 of 4.
    assert card.first_try_code_rate == pytest.approx(0.5)


def test_score_run_hand_worked_k2() -> None:
    card = score_run(_hand_run(), k=2)
    # t2: C(2,2)/C(3,2) = 1/3; c1 the same; c2 now scored with 2 of 2.
    assert card.tasks["t2"].pass_k == pytest.approx(1 / 3)
    assert card.modules["tools"].pass_k == pytest.approx(2 / 3)
    assert card.modules["code"].pass_k == pytest.approx((1 / 3 + 1) / 2)
    assert card.headline == pytest.approx(0.5 * 2 / 3 + 0.25 * 2 / 3)
    assert (card.tasks_scored, card.tasks_excluded, card.trials_excluded) == (5, 0, 1)


def test_k_defaults_to_the_runs_trial_count() -> None:
    card = score_run(_hand_run())
    assert card.k == 3


def test_module_with_every_task_dropped_gets_no_weight() -> None:
    run = make_run("m", {"t1": ("tools", ["P", "P", "P"]), "k1": ("knowledge", ["P", "I", "X"])})
    card = score_run(run, k=3)
    assert card.weights == {"tools": pytest.approx(1.0)}
    assert card.modules["knowledge"].pass_k is None
    assert card.modules["knowledge"].weight == 0.0
    assert card.headline == pytest.approx(1.0)
    assert card.trials_excluded == 2


def test_nothing_scorable_gives_no_headline() -> None:
    card = score_run(make_run("m", {"t1": ("tools", ["I", "I", "I"])}), k=3)
    assert card.headline is None and card.det_score is None
    assert card.tasks_excluded == 1 and card.trials_excluded == 3


def test_first_try_rate_is_none_without_the_key() -> None:
    run = make_run("m", {"c1": ("code", ["P", "P", "P"])})
    assert first_try_code_rate(run) is None


def test_headline_is_on_a_zero_one_scale() -> None:
    card = score_run(make_run("m", {"t": ("tools", ["P", "P", "P"]), "f": ("format", ["F", "F", "F"])}))
    assert card.headline is not None
    assert math.isclose(card.headline, 0.30 / 0.45)
