"""Regrade the stored trials of a result file with the current graders. No model is called.

Only trials the grader judged are regraded: a trial that ended in an infra error, was declared invalid, or
was failed by the runner before grading (a context overflow, broken tool-call JSON) keeps its record,
because its verdict never came from a grader. A trial cut by the token limit is regraded by the one rule
for cuts (:mod:`engine.episodes.cut`): graded on its answer when that came whole before the cut, failed as
a truncation otherwise. A trial whose task changed since the run (its task
hash no longer matches the bank) is not regraded either: the stored transcript answers a different task. A
task whose grading version was bumped (the ``version`` field, outside the hash) is regraded and the trial
records the new version; a trial that failed before grading keeps its verdict and is stamped with the
new version too, since no grader made it.
Such trials, and trials whose task or module is missing here, are listed in the report.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from engine.bank.load import find_tasks
from engine.core.errors import BenchError, UserError
from engine.core.results import RAW_SUFFIX
from engine.core.schema import Grade, RunFile, TrialRecord
from engine.episodes import MODULES, SPECS
from engine.episodes.base import Env, LoadedTask
from engine.episodes.cut import complete_before_cut, cut_grade, truncated_grade
from engine.sandbox.handle import SandboxHandle, open_sandbox


@dataclass
class RescoreReport:
    run: RunFile
    regraded: int = 0
    # Trials whose pass/fail or score changed: (task_id, trial, old score, new score).
    changed: list[tuple[str, int, float, float]] = field(default_factory=list)
    hash_mismatch: list[tuple[str, int]] = field(default_factory=list)
    missing_task: list[tuple[str, int]] = field(default_factory=list)
    # Trials the grader could not regrade here (no sandbox for code, a grader error): (task_id, trial, why).
    not_regraded: list[tuple[str, int, str]] = field(default_factory=list)
    untouched: int = 0


def regradable(trial: TrialRecord) -> bool:
    """True for trials whose grade came from the module's grader or the rule for cuts (see the module
    docstring)."""
    return trial.scorable and (trial.error is None and trial.truncation == "none" or cut_trial(trial))


def cut_trial(trial: TrialRecord) -> bool:
    """A trial the runner ended at a reply cut by the token limit (its last reply says so)."""
    last = next((t for t in reversed(trial.turns) if t.role == "assistant"), None)
    return trial.truncation != "none" and last is not None and last.finish_reason == "length"


def rescore_run(
    run: RunFile,
    tasks_dir: Path,
    *,
    sandbox_factory: Callable[[], SandboxHandle] | None = None,
) -> RescoreReport:
    """Regrade ``run``; the input is not modified. ``sandbox_factory`` is called once, only if a code trial
    needs regrading; when it raises ``UserError`` (no sandbox here) those trials keep their grades."""
    tasks = find_tasks(tasks_dir, {t.task_id for t in run.trials})
    report = RescoreReport(run=run)
    sandbox: SandboxHandle | None = None
    sandbox_error: str | None = None
    sandbox_tried = False
    new_trials: list[TrialRecord] = []
    for trial in run.trials:
        if not regradable(trial):
            report.untouched += 1
            # Its verdict never came from a grader, so it holds under every grading version of the same task:
            # stamp the current one, or a resumed run would re-run the trial for nothing.
            same = tasks.get(trial.task_id)
            if isinstance(same, LoadedTask) and same.hash == trial.task_hash:
                trial = trial.model_copy(update={"task_version": same.task.version})
            new_trials.append(trial)
            continue
        task = tasks.get(trial.task_id)
        if isinstance(task, str) or task is None:
            report.missing_task.append((trial.task_id, trial.trial))
            new_trials.append(trial)
            continue
        if task.hash != trial.task_hash:
            report.hash_mismatch.append((trial.task_id, trial.trial))
            new_trials.append(trial)
            continue
        module = MODULES[task.task.module]
        cut = cut_trial(trial)
        if cut and not complete_before_cut(module, task, trial.turns):
            # Failed as a truncation, whatever the module: no grader (and no sandbox) is needed.
            new_trials.append(_regraded(report, trial, truncated_grade(trial.turns, trial.truncation), task))
            continue
        if SPECS[task.task.module].runs_code and not sandbox_tried:
            sandbox_tried = True
            if sandbox_factory is not None:
                try:
                    sandbox = sandbox_factory()
                except UserError as exc:
                    sandbox_error = str(exc).splitlines()[0]
            else:
                sandbox_error = "no sandbox configured"
        if SPECS[task.task.module].runs_code and sandbox is None:
            report.not_regraded.append((trial.task_id, trial.trial, sandbox_error or "no sandbox"))
            new_trials.append(trial)
            continue
        env = Env(max_tokens=run.settings.max_tokens, seed=trial.seed, sandbox=sandbox)
        try:
            grade = cut_grade(module, task, trial.turns, env, trial.truncation) if cut else module.grade(
                task, trial.turns, env)
        except BenchError as exc:
            report.not_regraded.append((trial.task_id, trial.trial, f"grader failed: {exc}"))
            new_trials.append(trial)
            continue
        new_trials.append(_regraded(report, trial, grade, task))
    report.run = run.model_copy(update={"trials": new_trials})
    return report


def _regraded(report: RescoreReport, trial: TrialRecord, grade: Grade, task: LoadedTask) -> TrialRecord:
    old = trial.grade
    assert old is not None
    if grade.score != old.score or grade.passed != old.passed:
        report.changed.append((trial.task_id, trial.trial, old.score, grade.score))
    report.regraded += 1
    return trial.model_copy(update={"grade": grade, "task_version": task.task.version})


def sandbox_factory(name: str | None) -> Callable[[], SandboxHandle]:
    """The sandbox code trials are regraded in, opened on first use: the named backend (``--sandbox``) or the
    first that works here, never an unconfined one."""

    def open_on_first_use() -> SandboxHandle:
        return open_sandbox(name)

    return open_on_first_use


def rescored_path_for(raw_path: Path) -> Path:
    """``x_raw_results.json`` -> ``x_rescored.json``: not picked up as a raw file of the board by accident."""
    name = raw_path.name
    stem = name.removesuffix(RAW_SUFFIX) if name.endswith(RAW_SUFFIX) else raw_path.stem
    return raw_path.with_name(f"{stem}_rescored.json")
