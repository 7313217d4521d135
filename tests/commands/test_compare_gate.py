"""``sllmb compare BASELINE CANDIDATE --fail-on-regression``: exit 1 on a significant regression and on nothing
else, 2 on bad input; and the k a comparison is scored at (declared, or the smallest trial count)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import main
from engine.core.results import load_run_file, write_run_file
from engine.core.schema import Grade, RunFile
from tests.helpers.fleet import make_fleet, write_setting


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("gate")
    return make_fleet(root, 1, seed=5)[0]


def _failing(run: RunFile, tasks: int) -> RunFile:
    """The same run with every trial of the first ``tasks`` tasks it passed at least once failed."""
    passed = sorted({t.task_id for t in run.trials if t.passed})[:tasks]
    assert len(passed) == tasks, "the fleet model passes too few tasks for this test"
    failed = Grade(score=0.0, passed=False, reason="checks failed")
    trials = [t.model_copy(update={"grade": failed}) if t.task_id in passed and t.grade else t for t in run.trials]
    return run.model_copy(update={"trials": trials})


def _write(run: RunFile, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_run_file(path, run)
    return path


def test_a_significant_regression_fails_the_gate(baseline: Path, tmp_path: Path, capsys) -> None:
    worse = _write(_failing(load_run_file(baseline), 10), tmp_path / "after" / baseline.name)
    assert main(["compare", str(baseline), str(worse), "--fail-on-regression"]) == 1
    out = capsys.readouterr().out
    (line,) = [x for x in out.splitlines() if x.startswith("REGRESSION")]
    assert "baseline better on 10, candidate on 0" in line and str(worse) in line
    assert main(["compare", str(baseline), str(worse), "--fail-on-regression", "--json"]) == 1
    captured = capsys.readouterr()
    gate = json.loads(captured.out)["gate"]
    assert gate["verdict"] == "worse" and gate["wins_baseline"] == 10 and gate["p_value"] < 0.05
    assert captured.err.startswith("REGRESSION")


def test_a_better_or_an_equal_candidate_passes_the_gate(baseline: Path, tmp_path: Path, capsys) -> None:
    worse = _write(_failing(load_run_file(baseline), 10), tmp_path / "after" / baseline.name)
    assert main(["compare", str(worse), str(baseline), "--fail-on-regression"]) == 0
    assert "significantly better" in capsys.readouterr().out
    same = _write(load_run_file(baseline), tmp_path / "again" / baseline.name)
    assert main(["compare", str(baseline), str(same), "--fail-on-regression"]) == 0
    assert "not separable" in capsys.readouterr().out


def test_a_small_gap_is_not_separable_and_says_what_bank_would_tell_it(baseline: Path, tmp_path: Path,
                                                                       capsys) -> None:
    slightly = _write(_failing(load_run_file(baseline), 2), tmp_path / "after" / baseline.name)
    assert main(["compare", str(baseline), str(slightly), "--fail-on-regression", "--json"]) == 0
    gate = json.loads(capsys.readouterr().out)["gate"]
    assert gate["verdict"] == "not separable" and gate["wins_baseline"] == 2 and gate["wins_candidate"] == 0
    assert gate["tasks_needed"] > gate["tasks"] and gate["more_tasks_needed"] == gate["tasks_needed"] - gate["tasks"]


def test_the_gate_refuses_bad_input(baseline: Path, tmp_path: Path, capsys) -> None:
    other = _write(load_run_file(baseline), tmp_path / "b" / baseline.name)
    third = _write(load_run_file(baseline), tmp_path / "c" / baseline.name)
    assert main(["compare", str(baseline), str(other), str(third), "--fail-on-regression"]) == 2
    assert "exactly two result files" in capsys.readouterr().err
    assert main(["compare", str(baseline), str(tmp_path / "missing.json"), "--fail-on-regression"]) == 2
    assert "missing.json" in capsys.readouterr().err
    broken = tmp_path / "broken_raw_results.json"
    broken.write_text("{not json", encoding="utf-8")
    assert main(["compare", str(baseline), str(broken), "--fail-on-regression"]) == 2


def test_k_is_the_smallest_trial_count_unless_a_setting_declares_it(baseline: Path, tmp_path: Path,
                                                                     capsys) -> None:
    run = load_run_file(baseline)
    two = run.model_copy(update={
        "settings": run.settings.model_copy(update={"trials": 2}),
        "trials": [t for t in run.trials if t.trial < 2],
    })
    fewer = _write(two, tmp_path / "two" / baseline.name)
    assert main(["compare", str(baseline), str(fewer), "--json"]) == 0
    cmp = json.loads(capsys.readouterr().out)
    # Scored at 2, both files score every task they ran (the largest count, 3, would drop all of the second's).
    assert cmp["k"] == 2 and cmp["k_rule"] == "the smallest trial count of the files"
    assert cmp["cards"][1]["tasks_scored"] > 0
    setting = write_setting(tmp_path)
    assert main(["compare", str(baseline), str(fewer), "--setting", str(setting), "--json"]) == 0
    cmp = json.loads(capsys.readouterr().out)
    assert cmp["k"] == 3 and cmp["k_rule"] == f"declared by {setting}" and cmp["cards"][1]["tasks_scored"] == 0
    # At the declared k the second file scores nothing: no verdict, not a pass.
    assert main(["compare", str(baseline), str(fewer), "--setting", str(setting), "--fail-on-regression"]) == 2
    assert "no task both scored at pass^3" in capsys.readouterr().err
