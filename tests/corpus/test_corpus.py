"""The answer corpus: every labelled case grades as its file says, and the published table is current.

Each case is replayed end to end (loopback scripted server, real runner, real sandbox for code) by
``engine.corpus.replay``, the same code ``sllmb graders`` runs. Cases are replayed per task file on first use,
so ``-k kn_bakery`` replays one file only.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from engine.bank.load import load_bank
from engine.commands.graders import summary
from engine.corpus.replay import CaseResult, evaluate, load_corpus
from engine.sandbox import Limits, SandboxHandle, make_backend

ROOT = Path(__file__).resolve().parent.parent.parent
CORPUS_DIR = ROOT / "tests" / "corpus"
TASKS_DIR = ROOT / "tasks"
PUBLISHED = ROOT / "results" / "graders.json"
MIN_EACH = 5  # should-pass and should-fail cases per task, at least

# One file per task and batch: <module>/<task>.yaml holds batch b0, <module>/<task>.<batch>.yaml a later one.
FILES = {(f.task, f.batch): f for f in load_corpus(CORPUS_DIR)}
CASES = [(key, case.name) for key, f in FILES.items() for case in f.cases]
_replayed: dict[tuple[str, str], dict[str, CaseResult]] = {}
_sandbox: list[SandboxHandle] = []


def _sandbox_handle() -> SandboxHandle:
    if not _sandbox:
        backend = make_backend("bubblewrap")
        backend.check()  # a missing bubblewrap fails the code cases rather than skipping them
        _sandbox.append(SandboxHandle(backend, Limits()))
    return _sandbox[0]


def replayed(key: tuple[str, str]) -> dict[str, CaseResult]:
    if key not in _replayed:
        module = next(t.task.module for t in load_bank(TASKS_DIR) if t.id == key[0])
        sandbox = _sandbox_handle() if module == "code" else None
        _replayed[key] = {r.case: r for r in evaluate([FILES[key]], TASKS_DIR, sandbox=sandbox)}
    return _replayed[key]


# Cases the graders are known to misjudge, with the mechanism that is missing (published on the accuracy page).
KNOWN_WRONG: dict[str, str] = yaml.safe_load((CORPUS_DIR / "known_wrong.yaml").read_text(encoding="utf-8")) or {}


def _case_param(key: tuple[str, str], case: str) -> object:
    case_id = f"{key[0]}/{key[1]}/{case}"
    marks = [pytest.mark.xfail(strict=True, reason=f"known grader error: {KNOWN_WRONG[case_id]}")] \
        if case_id in KNOWN_WRONG else []
    return pytest.param(key, case, id=case_id, marks=marks)


@pytest.mark.parametrize(("key", "case"), [_case_param(k, c) for k, c in CASES])
def test_case_grades_as_labelled(key: tuple[str, str], case: str) -> None:
    r = replayed(key)[case]
    assert r.got == r.expect, f"labelled {r.expect} ({r.why}); graded {r.got}: {r.reason}"


def test_every_known_wrong_case_exists() -> None:
    ids = {f"{t}/{b}/{c}" for (t, b), c in CASES}
    missing = set(KNOWN_WRONG) - ids
    assert not missing, f"known_wrong.yaml names cases the corpus does not hold: {sorted(missing)}"


def test_every_task_has_enough_cases_both_ways() -> None:
    bank = {t.id: t.task.module for t in load_bank(TASKS_DIR)}
    short = []
    for task, module in sorted(bank.items()):
        files = [f for (t, _), f in FILES.items() if t == task]
        if not files:
            short.append(f"{task}: no file tests/corpus/{module}/{task}.yaml")
            continue
        misplaced = [f.batch for f in files
                     if not (CORPUS_DIR / module / (f"{task}.yaml" if f.batch == "b0" else f"{task}.{f.batch}.yaml"))
                     .is_file()]
        if misplaced:
            short.append(f"{task}: its files are not in the folder of its module ({module})")
        passes = sum(c.expect == "pass" for f in files for c in f.cases)
        fails = sum(c.expect == "fail" for f in files for c in f.cases)
        if passes < MIN_EACH or fails < MIN_EACH:
            short.append(f"{task}: {passes} should-pass and {fails} should-fail cases (need {MIN_EACH} each)")
    assert not short, "\n".join(short)


def test_the_published_accuracy_table_is_current() -> None:
    """results/graders.json is what the methodology page shows; it must match a fresh replay of the
    corpus (regenerate it with: python -m engine graders --write results/graders.json)."""
    fresh = summary([r for key in FILES for r in replayed(key).values()])
    published = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    assert published == fresh
