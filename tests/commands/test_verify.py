"""``sllmb verify`` end to end: a real run of the knowledge module against the loopback scripted server writes
a result file; the spot check re-runs its tasks against the same server through the real runner and finds the
honest file consistent and a copy forged to all-pass inconsistent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.analysis.consistency import PassCount, check_consistency, task_p_value
from engine.cli import main
from engine.core.errors import UserError
from engine.core.results import load_run_file, write_run_file
from engine.run.request import RunRequest
from engine.run.runner import run_benchmark
from tests.analysis.test_scoring import make_trial
from tests.conftest import KNOWLEDGE_ANSWERS, ROOT, knowledge_responder
from tests.helpers.scripted_server import ScriptedServer

# The scripted model gets three of the four knowledge questions wrong, every time.
WRONG = tuple(m for m in KNOWLEDGE_ANSWERS if m != "bakery")
TRIALS = 5


@pytest.fixture(scope="module")
def server():
    with ScriptedServer(knowledge_responder(wrong_for=WRONG)) as srv:
        yield srv


@pytest.fixture(scope="module")
def honest_bytes(server, tmp_path_factory) -> bytes:
    out = tmp_path_factory.mktemp("verify") / "scripted_raw_results.json"
    run_benchmark(
        RunRequest(
            model="scripted",
            endpoint=server.url,
            output=out,
            trials=TRIALS,
            modules=("knowledge",),
            tasks_dir=ROOT / "tasks",
            backoff_s=0.01,
            max_retries=0,
            show_progress=False,
        )
    )
    return out.read_bytes()


@pytest.fixture
def honest(tmp_path: Path, honest_bytes: bytes) -> Path:
    path = tmp_path / "scripted_raw_results.json"
    path.write_bytes(honest_bytes)
    return path


def _forged(honest: Path) -> Path:
    """The same file with every verdict turned into a pass, as a hand-edited file would claim."""
    run = load_run_file(honest)
    trials = [
        t.model_copy(update={"grade": t.grade.model_copy(update={"passed": True, "score": 1.0})})
        for t in run.trials
    ]
    path = honest.with_name("forged_raw_results.json")
    write_run_file(path, run.model_copy(update={"trials": trials}))
    return path


def _verify(server, path: Path, *extra: str) -> list[str]:
    return ["verify", str(path), "--endpoint", server.url, "--model", "scripted", "--sample", "4",
            "--seed", "7", "--tasks-dir", str(ROOT / "tasks"), "-q", *extra]


def test_the_honest_file_is_consistent(server, honest: Path, capsys) -> None:
    run = load_run_file(honest)
    passed = {t.task_id for t in run.trials if t.passed}
    assert len(passed) == 1 and len({t.task_id for t in run.trials}) == 4  # what the scripted model does
    before = len(server.requests)
    assert main(_verify(server, honest, "--json")) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["consistent"] is True and verdict["p_value"] == 1.0 and verdict["differing"] == 0
    assert sorted(verdict["sampled"]) == sorted({t.task_id for t in run.trials})
    for task in verdict["tasks"]:
        assert task["file"] == task["rerun"] and task["file"]["scorable"] == TRIALS
    # The re-run went through the server: every trial of the four tasks, at the file's seeds and sampler.
    sent = [b for b in server.requests[before:] if any("Answer" in str(m.get("content")) for m in b["messages"])]
    assert len(sent) >= 4 * TRIALS
    assert {b.get("seed") for b in sent} == set(range(TRIALS))
    assert {b.get("temperature") for b in sent} == {run.settings.temperature}


def test_a_file_forged_to_all_pass_is_inconsistent(server, honest: Path, capsys) -> None:
    forged = _forged(honest)
    kept = honest.with_name("rerun_raw_results.json")
    assert main(_verify(server, forged, "--output", str(kept))) == 1
    out = capsys.readouterr()
    assert "INCONSISTENT" in out.out and "the re-run is in" in out.err
    # The named output holds the re-run, whose verdicts are the honest file's.
    rerun = load_run_file(kept)
    assert [(t.task_id, t.trial, t.passed) for t in rerun.trials] == [
        (t.task_id, t.trial, t.passed) for t in load_run_file(honest).trials
    ]


def test_bad_input_exits_2(server, honest: Path, tmp_path: Path, capsys) -> None:
    assert main(_verify(server, tmp_path / "missing_raw_results.json")) == 2
    assert "missing_raw_results.json" in capsys.readouterr().err
    assert main(_verify(server, honest, "--output", str(honest))) == 2
    assert "is the file being checked" in capsys.readouterr().err
    # A file whose tasks all changed since it was run cannot be re-run as it was.
    run = load_run_file(honest)
    stale = tmp_path / "stale_raw_results.json"
    write_run_file(stale, run.model_copy(update={"trials": [t.model_copy(update={"task_hash": "0" * 16})
                                                              for t in run.trials]}))
    assert main(_verify(server, stale)) == 2
    assert "the task changed since the file was run" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["verify", str(honest), "--endpoint", server.url, "--model", "scripted", "--sample", "0"])
    assert exc.value.code == 2


def test_the_exact_tests_on_hand_worked_counts() -> None:
    # 3/3 against 0/3: 2 of the C(6,3) = 20 tables are as extreme, p = 0.1; 5/5 against 0/5: 2/252.
    assert task_p_value(PassCount(passed=3, scorable=3), PassCount(passed=0, scorable=3)) == pytest.approx(0.1)
    assert task_p_value(PassCount(passed=5, scorable=5), PassCount(passed=0, scorable=5)) == pytest.approx(2 / 252)
    assert task_p_value(PassCount(passed=2, scorable=3), PassCount(passed=2, scorable=3)) == 1.0


def _trials(outcomes: dict[str, str]) -> list:
    return [make_trial(task_id, "knowledge", i, o) for task_id, spelled in outcomes.items() for i, o in
            enumerate(spelled)]


def test_three_trials_need_several_tasks_to_show_a_forgery() -> None:
    """At 3 trials a side one task's smallest p is 0.1; Fisher's method over 4 such tasks gets below 0.05
    (doubled for the two combined tests: 2 x 0.0183), over 3 it does not (2 x 0.0318)."""
    for n, consistent, p in ((3, True, 0.0635), (4, False, 0.0366)):
        ids = [f"t{i}" for i in range(n)]
        claimed = _trials(dict.fromkeys(ids, "PPP"))
        rerun = _trials(dict.fromkeys(ids, "FFF"))
        result = check_consistency(claimed, rerun, ids)
        assert [t.p_value for t in result.tasks] == pytest.approx([0.1] * n)
        assert result.holm_min_p == pytest.approx(min(1.0, 0.1 * n))
        assert result.p_value == pytest.approx(p, abs=1e-4) and result.consistent is consistent
        assert result.differing == n


def test_one_task_far_off_is_found_by_holm_among_many_that_agree() -> None:
    ids = [f"t{i:02d}" for i in range(20)]
    claimed = _trials({**dict.fromkeys(ids, "PFPFPFPFPF"), "t00": "P" * 10})
    rerun = _trials({**dict.fromkeys(ids, "PFPFPFPFPF"), "t00": "F" * 10})
    result = check_consistency(claimed, rerun, ids)
    # Fisher's method is diluted by 19 tasks at p = 1; Holm's smallest p is not: 20 x 2 / C(20, 10).
    assert result.fisher_p > 0.5
    assert result.holm_min_p == pytest.approx(20 * 2 / 184756)
    assert not result.consistent


def test_tasks_without_scorable_trials_are_not_compared() -> None:
    claimed = _trials({"a": "PPP", "b": "III"})
    rerun = _trials({"a": "PPP", "b": "PPP"})
    result = check_consistency(claimed, rerun, ["a", "b"])
    assert [t.task_id for t in result.tasks] == ["a"] and "the file has no scorable trial" in result.not_compared["b"]
    with pytest.raises(UserError, match="nothing was compared"):
        check_consistency(_trials({"b": "III"}), rerun, ["b"])
