"""probe: a new task run against a weak, a mid and a strong scripted model, and its three verdicts."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from engine.analysis.task_probe import ProbeConfig, ProbeTarget, RoleOutcome, decide, probe_task, regrade_mismatches
from engine.cli import main
from engine.core.results import load_run_file
from engine.run.request import RunRequest
from engine.run.runner import run_benchmark
from tests.helpers.scripted_server import Action, ScriptedServer

TASK = """\
id: kn_probe_tiles
module: knowledge
title: Tiles for a floor
what_this_tests: Area arithmetic with a waste allowance.
failure_mode: Forgets the allowance.
max_turns: 1
max_tokens: 256
body:
  kind: arithmetic
  question: A floor is 4 m by 3 m. Tiles cover 0.5 square metres each and you buy 10% extra. How many tiles?
  answer: "27"
"""


def task_file(tmp_path: Path) -> Path:
    path = tmp_path / "knowledge" / "kn_probe_tiles.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(TASK)
    return path


def scripted_models(plan: dict[str, str]):
    """``plan`` maps a model name to a spell of R (right) and W (wrong), one letter per request in order."""
    lock = threading.Lock()
    seen: dict[str, int] = {}

    def respond(body: dict) -> Action:
        model = body["model"]
        with lock:
            i = seen.get(model, 0)
            seen[model] = i + 1
        spell = plan[model]
        right = spell[i % len(spell)] == "R"
        return Action(text=f"Answer: {'27' if right else '24'}")

    return respond


def run_probe(tmp_path: Path, plan: dict[str, str], trials: int = 4):
    with ScriptedServer(scripted_models(plan)) as srv:
        targets = [
            ProbeTarget(role=r, model=m, endpoint=srv.url)
            for r, m in zip(("weak", "mid", "strong"), ("w", "m", "s"), strict=True)
        ]
        return probe_task(
            ProbeConfig(
                task_file=task_file(tmp_path), targets=targets, trials=trials, max_retries=0, backoff_s=0.01
            )
        )


def test_a_task_that_separates_the_models_is_accepted(tmp_path: Path) -> None:
    report = run_probe(tmp_path, {"w": "W", "m": "RW", "s": "R"})
    assert report.verdict == "ACCEPT", report.reasons
    assert [o.rate for o in report.outcomes] == [0.0, 0.5, 1.0]
    assert report.regrade_mismatches == 0 and report.task_id == "kn_probe_tiles"


def test_a_task_every_model_passes_is_rejected(tmp_path: Path) -> None:
    report = run_probe(tmp_path, {"w": "R", "m": "R", "s": "R"})
    assert report.verdict == "REJECT" and "dead easy" in report.reasons[0]


def test_a_weakly_separating_flaky_task_is_reprobed(tmp_path: Path) -> None:
    report = run_probe(tmp_path, {"w": "RW", "m": "RW", "s": "RRRW"})
    assert report.verdict == "REPROBE"
    assert any("does not separate" in r for r in report.reasons)
    assert any("too flaky" in r for r in report.reasons)


def test_probe_command_exit_codes(tmp_path: Path, monkeypatch, capsys) -> None:
    path = task_file(tmp_path)
    monkeypatch.delenv("BENCH_API_KEY", raising=False)
    with ScriptedServer(scripted_models({"w": "W", "m": "RW", "s": "R"})) as srv:
        args = [
            "probe",
            "--task",
            str(path),
            "--weak",
            "w",
            "--mid",
            "m",
            "--strong",
            "s",
            "--endpoint",
            srv.url,
            "--trials",
            "2",
            "--json",
        ]
        assert main(args) == 0
    assert '"verdict": "ACCEPT"' in capsys.readouterr().out
    with ScriptedServer(scripted_models({"w": "R", "m": "R", "s": "R"})) as srv:
        args[args.index("--endpoint") + 1] = srv.url
        assert main(args) == 1


def test_probe_refuses_a_task_outside_a_module_folder(tmp_path: Path, capsys) -> None:
    path = tmp_path / "kn_probe_tiles.yaml"
    path.write_text(TASK)
    assert (
        main(
            [
                "probe",
                "--task",
                str(path),
                "--weak",
                "w",
                "--mid",
                "m",
                "--strong",
                "s",
                "--endpoint",
                "http://127.0.0.1:9/v1",
            ]
        )
        == 2
    )
    assert "folder named after its module" in capsys.readouterr().err


def outcome(role: str, passed: int, scorable: int = 4) -> RoleOutcome:
    return RoleOutcome(
        role=role,
        model=role,
        trials=4,
        scorable=scorable,
        passed=passed,
        rate=passed / scorable if scorable else None,
        flaky=0 < passed < scorable,
    )


@pytest.mark.parametrize(
    ("w", "m", "s", "mismatches", "verdict", "why"),
    [
        (outcome("weak", 4), outcome("mid", 2), outcome("strong", 0), 0, "REJECT", "inverted"),
        (outcome("weak", 0), outcome("mid", 0), outcome("strong", 0), 0, "REJECT", "dead hard"),
        (outcome("weak", 0), outcome("mid", 2), outcome("strong", 4), 1, "REJECT", "not stable"),
        (outcome("weak", 0, scorable=1), outcome("mid", 2), outcome("strong", 4), 0, "REPROBE", "too few"),
        (outcome("weak", 0), outcome("mid", 0), outcome("strong", 4), 0, "ACCEPT", "separates"),
        (outcome("weak", 2), outcome("mid", 0), outcome("strong", 4), 0, "REPROBE", "mid model"),
    ],
)
def test_probe_rule(w, m, s, mismatches, verdict, why) -> None:
    got, reasons = decide([w, m, s], mismatches)
    assert got == verdict and any(why in r for r in reasons)


def test_a_grade_that_does_not_reproduce_is_counted(tmp_path: Path) -> None:
    path = task_file(tmp_path)
    with ScriptedServer(scripted_models({"x": "R"})) as srv:
        run = run_benchmark(
            RunRequest(
                model="x",
                endpoint=srv.url,
                output=tmp_path / "r.json",
                trials=2,
                tasks_dir=tmp_path,
                max_retries=0,
                show_progress=False,
            )
        )
    assert regrade_mismatches(path, [run]) == 0
    first = run.trials[0]
    tampered = first.model_copy(
        update={"grade": first.grade.model_copy(update={"passed": False, "score": 0.0})}
    )
    run = run.model_copy(update={"trials": [tampered, *run.trials[1:]]})
    assert regrade_mismatches(path, [run]) == 1
    assert load_run_file(tmp_path / "r.json").trials[0].passed
