"""score, items, compare and rescore on a synthetic fleet and on runs of the real knowledge module."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from engine.analysis.loaded_run import load_runs
from engine.analysis.scoring import board_k, score_run
from engine.analysis.stats import separability
from engine.cli import main
from engine.commands.items import build_report
from engine.core.models_file import load_models
from engine.core.results import load_run_file, write_run_file
from engine.run.request import RunRequest
from engine.run.rescore import rescore_run, rescored_path_for
from engine.run.runner import run_benchmark
from tests.conftest import ROOT, knowledge_responder
from tests.helpers.fleet import make_fleet
from tests.helpers.scripted_server import ScriptedServer


@pytest.fixture(scope="module")
def fleet(tmp_path_factory) -> tuple[Path, list[Path]]:
    root = tmp_path_factory.mktemp("fleet")
    return root, make_fleet(root, 6, seed=11, unsized=1)


def test_fleet_is_reproducible(tmp_path: Path, fleet) -> None:
    _, paths = fleet
    again = make_fleet(tmp_path, 6, seed=11, unsized=1)
    assert [p.read_bytes() for p in again] == [p.read_bytes() for p in paths]
    assert len(load_models(tmp_path / "models.yaml").models) == 5


# ----------------------------------------------------------------------------------------------------------
# score


def test_score_json_matches_the_library(fleet, capsys) -> None:
    _, paths = fleet
    assert main(["score", "--results", str(paths[0]), "--weights", "agentic", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["scorecard"]
    card = score_run(load_run_file(paths[0]), weights="agentic")
    assert got["headline"] == pytest.approx(card.headline) and got["weights_preset"] == "agentic"
    assert got["tasks_scored"] == card.tasks_scored


def test_score_prints_the_scorecard(fleet, capsys) -> None:
    _, paths = fleet
    assert main(["score", "--results", str(paths[1])]) == 0
    out = capsys.readouterr().out
    card = score_run(load_run_file(paths[1]))
    assert f"{card.headline * 100:.1f}" in out and "tools" in out and "knowledge" in out


def test_score_rejects_an_unknown_file(tmp_path: Path, capsys) -> None:
    assert main(["score", "--results", str(tmp_path / "nope.json")]) == 2
    assert "cannot read result file" in capsys.readouterr().err


# ----------------------------------------------------------------------------------------------------------
# items


def test_items_json_on_the_fleet(fleet, capsys) -> None:
    root, paths = fleet
    assert (
        main(
            ["items", "--results-dir", str(root / "results"), "--models", str(root / "models.yaml"), "--json"]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    runs = [load_run_file(p) for p in paths]
    cards = [score_run(r, k=board_k(runs)) for r in runs]
    sep = separability(cards)
    assert report["separability"]["separable_count"] == sep.separable_count
    assert report["separability"]["pair_count"] == 15
    assert len(report["adjacent_pairs"]) == 5
    assert [m["model"] for m in report["models"]] == sep.ranking
    sizes = {m["model"]: m["size"] for m in report["models"]}
    unsized = load_run_file(paths[-1]).settings.model
    assert sizes[unsized] == "?"
    assert sizes["fleet-03-3b"] == "3B (0.38B active)"
    for m in report["models"]:
        assert m["low"] <= m["headline"] <= m["high"]
    assert len(report["items"]) == 39
    for item in report["items"]:
        if "dead_easy" in item["classes"]:
            assert all(o["passed"] == o["trials"] for o in item["outcomes"].values())
    assert report["item_counts"]["discriminating"] > 0


def test_items_for_one_module(fleet) -> None:
    root, paths = fleet
    report = build_report(load_runs(paths), load_models(root / "models.yaml"), module="tools")
    assert {i.module for i in report.items} == {"tools"} and len(report.items) == 13
    assert all(row.tasks_scored <= 13 for row in report.models)


def test_items_text_output_and_missing_models_file(fleet, capsys, tmp_path, monkeypatch) -> None:
    root, _ = fleet
    monkeypatch.chdir(tmp_path)  # no models.yaml here: every size shows "?"
    (tmp_path / "models.yaml").unlink(missing_ok=True)
    assert main(["items", "--results-dir", str(root / "results")]) == 0
    out = capsys.readouterr().out
    assert "pairs separable:" in out and "adjacent pairs" in out and "?" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--module", "poetry"], "unknown module"),
        (["--models", "BAD"], "invalid models file"),
    ],
)
def test_items_bad_input(fleet, tmp_path, capsys, extra, message) -> None:
    root, _ = fleet
    bad = tmp_path / "models.yaml"
    bad.write_text(
        "schema_version: 1\ndefault: a\nmodels:\n  - name: a\n    total_params_b: -3\n    colour: red\n"
    )
    extra = [str(bad) if e == "BAD" else e for e in extra]
    assert main(["items", "--results-dir", str(root / "results"), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err
    if message == "invalid models file":
        assert "models.0 (a).colour" in err and str(bad) in err


def test_fleet_readers_default_to_the_reference_fleet(fleet, tmp_path, capsys, monkeypatch) -> None:
    """A bare `sllmb items` / `sllmb leaderboard` in a checkout reads results/reference, where the fleet is
    (CONTRIBUTING step 4 and the board page's `sllmb leaderboard --open` give no --results-dir)."""
    root, paths = fleet
    fleet_dir = tmp_path / "results" / "reference"
    fleet_dir.mkdir(parents=True)
    for path in paths:
        shutil.copy(path, fleet_dir / path.name)
    shutil.copy(root / "models.yaml", tmp_path / "models.yaml")
    shutil.copy(ROOT / "results" / "reference" / "setting.yaml", fleet_dir / "setting.yaml")
    # A stray run in results/ itself is not the fleet and must not be read.
    (tmp_path / "results" / "stray_raw_results.json").write_text("not a result file")
    monkeypatch.chdir(tmp_path)
    assert main(["items", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["models"]) == len(paths)
    assert main(["leaderboard", "-o", str(tmp_path / "board.html")]) == 0
    assert f"{len(paths)} models" in capsys.readouterr().out
    assert len(json.loads((tmp_path / "leaderboard.json").read_text())["rows"]) == len(paths)


def test_items_on_an_empty_folder(tmp_path, capsys) -> None:
    assert main(["items", "--results-dir", str(tmp_path)]) == 2
    assert "no result files" in capsys.readouterr().err


# ----------------------------------------------------------------------------------------------------------
# compare


def test_compare_flags_differing_settings(fleet, tmp_path, capsys) -> None:
    _, paths = fleet
    hot = load_run_file(paths[2])
    hot = hot.model_copy(update={"settings": hot.settings.model_copy(update={"temperature": 0.7})})
    hot_path = tmp_path / "hot_raw_results.json"
    write_run_file(hot_path, hot)
    assert main(["compare", str(paths[0]), str(paths[1]), str(hot_path), "--json"]) == 0
    cmp = json.loads(capsys.readouterr().out)
    assert cmp["models"] == [load_run_file(p).settings.model for p in (paths[0], paths[1], hot_path)]
    assert cmp["differing_settings"] == {"temperature": ["0.0", "0.0", "0.7"]}
    assert cmp["disagreements"] and len(cmp["separability"]["pairs"]) == 3
    assert main(["compare", str(paths[0]), str(paths[1])]) == 0
    assert "headline" in capsys.readouterr().out


def test_compare_needs_two_distinct_files(fleet, capsys) -> None:
    _, paths = fleet
    assert main(["compare", str(paths[0])]) == 2
    assert "at least two result files" in capsys.readouterr().err
    assert main(["compare", str(paths[0]), str(paths[0])]) == 2
    assert "given twice" in capsys.readouterr().err


# ----------------------------------------------------------------------------------------------------------
# rescore (the real knowledge grader)


@pytest.fixture(scope="module")
def knowledge_bytes(tmp_path_factory) -> bytes:
    out = tmp_path_factory.mktemp("kn") / "scripted_raw_results.json"
    with ScriptedServer(knowledge_responder(wrong_for=("bakery",))) as srv:
        run_benchmark(
            RunRequest(
                model="scripted",
                endpoint=srv.url,
                output=out,
                trials=2,
                modules=["knowledge"],
                tasks_dir=ROOT / "tasks",
                backoff_s=0.01,
                max_retries=0,
                show_progress=False,
            )
        )
    return out.read_bytes()


@pytest.fixture
def knowledge_run(tmp_path: Path, knowledge_bytes: bytes) -> Path:
    """A result file written by a real run of the knowledge module (one run per test module, copied)."""
    out = tmp_path / "scripted_raw_results.json"
    out.write_bytes(knowledge_bytes)
    return out


def test_rescore_gives_the_scores_of_the_run_that_wrote_it(knowledge_run: Path, capsys) -> None:
    before = knowledge_run.read_bytes()
    assert main(["rescore", "--results", str(knowledge_run), "--tasks-dir", str(ROOT / "tasks")]) == 0
    out = rescored_path_for(knowledge_run)
    assert out.name == "scripted_rescored.json" and knowledge_run.read_bytes() == before
    original, again = load_run_file(knowledge_run), load_run_file(out)
    assert [t.grade for t in again.trials] == [t.grade for t in original.trials]
    assert score_run(again) == score_run(original)
    assert "regraded 8 trial(s); 0 changed" in capsys.readouterr().err


def test_rescore_repairs_a_wrong_stored_grade_and_reports_stale_hashes(knowledge_run: Path) -> None:
    run = load_run_file(knowledge_run)
    trials = list(run.trials)
    trials[0] = trials[0].model_copy(update={"grade": trials[0].grade.model_copy(update={"score": 0.5})})
    trials[1] = trials[1].model_copy(update={"task_hash": "0000"})
    report = rescore_run(run.model_copy(update={"trials": trials}), ROOT / "tasks")
    assert [(c[0], c[1], c[2]) for c in report.changed] == [(trials[0].task_id, trials[0].trial, 0.5)]
    assert report.hash_mismatch == [(trials[1].task_id, trials[1].trial)]
    assert report.run.trials[1] == trials[1]  # kept as recorded
    assert report.regraded == 7


def test_rescore_in_place(knowledge_run: Path) -> None:
    assert (
        main(["rescore", "--results", str(knowledge_run), "--in-place", "--tasks-dir", str(ROOT / "tasks")])
        == 0
    )
    assert not rescored_path_for(knowledge_run).exists()
    assert main(["rescore", "--results", str(knowledge_run), "--in-place", "--output", "x.json"]) == 2


def test_rescore_reports_tasks_missing_from_the_bank(knowledge_run: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty_bank"
    empty.mkdir()
    report = rescore_run(load_run_file(knowledge_run), empty)
    assert len(report.missing_task) == 8 and report.regraded == 0
