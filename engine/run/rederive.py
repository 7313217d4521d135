"""Re-derive a result file instead of trusting it: every fact about a trial that the bench can work out again
from the stored transcript, the bank and the run's settings is worked out again and compared.

* Each trial the grader judged is regraded with ``rescore_run`` (the code path of ``sllmb rescore``; code
  trials in the sandbox) and every grade field must equal the stored one.
* A trial cut at the token limit (its last reply says ``finish_reason: length``) carries the truncation
  class its text gives, and is regraded by the one rule for cuts (:mod:`engine.episodes.cut`): graded on
  its answer when that came whole before the cut, a failed truncation otherwise. A conversation goes on
  after a cut reply only where that rule gives another attempt after it (code).
* A trial the grader never saw must carry exactly the record the runner writes for it: a model failure
  (context overflow, broken tool-call JSON) fails with score 0; an exclusion (infrastructure or invalid)
  has an error and no grade, so it scores nothing.
* Its ``task_hash`` is today's hash of the task (a past one from ``tasks/HASHES.yaml`` is a trial of an older
  version, which today's graders cannot regrade; any other was never the bank's), and equals the file's
  ``task_hashes`` entry; its grading version is not newer than the bank's.
* Each task has the trials ``settings.trials`` asks for, each index once (``--early-stop`` may leave out the
  trials after a failed one), with the seed the runner gives that index.

Nothing here decides whether a file may join the board (that is the pull-request check's job); it lists
every difference, each naming the trial, the field, the stored and the re-derived value, and the fix.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.bank.hashes import known_hashes
from engine.bank.load import load_bank
from engine.core.errors import ModelFailure, Truncated
from engine.core.schema import Grade, RunFile, TrialRecord
from engine.core.textclip import shorten
from engine.episodes import MODULES
from engine.episodes.base import LoadedTask
from engine.episodes.cut import goes_on_after_cut
from engine.model.textcheck import truncation_class
from engine.run.rescore import regradable, rescore_run
from engine.sandbox.handle import SandboxHandle

# Grade details that say where a grade was made, not what it is: a code trial regraded in bubblewrap on the
# checker's machine was run in Docker on the contributor's.
ENVIRONMENT_DETAILS = frozenset({"sandbox_backend"})
GRADE_FIELDS = ("passed", "score", "hard_gate", "reason", "breakdown", "details", "unsure")
# Reasoning the runner clipped (``runner.REASONING_KEPT_CHARS``) ends so; its truncation class cannot be
# worked out again from the clipped text.
CLIPPED_REASONING = " chars clipped]"
SHOWN_CHARS = 160

REGRADE_FIX = ("the stored grade is not what the graders give this transcript: regrade it with this version of "
               "the bench (`sllmb rescore --in-place --results FILE`) and commit that file, or run the trials again")


@dataclass(frozen=True)
class Problem:
    """One fact of a file that does not re-derive. ``where`` is ``task#trial`` or a top-level field."""

    where: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.field}: {self.message}"


def _shown(value: Any) -> str:
    return shorten(repr(value), SHOWN_CHARS)


def _model_failure_kinds() -> frozenset[str]:
    """The ``reason`` a model-failure grade carries: the ``kind`` of every ModelFailure but a truncation."""
    kinds, todo = set(), [ModelFailure]
    while todo:
        cls = todo.pop()
        if cls is not Truncated:
            kinds.add(cls.kind)
        todo.extend(cls.__subclasses__())
    return frozenset(kinds)


def _key(trial: TrialRecord) -> str:
    return f"{trial.task_id}#{trial.trial}"


def _grade_dump(grade: Grade) -> dict[str, Any]:
    dump = grade.model_dump(mode="json")
    dump["details"] = {k: v for k, v in dump["details"].items() if k not in ENVIRONMENT_DETAILS}
    return dump


def compare_grades(where: str, stored: Grade, derived: Grade, fix: str = REGRADE_FIX) -> list[Problem]:
    """One problem per grade field whose stored value differs from the re-derived one."""
    old, new = _grade_dump(stored), _grade_dump(derived)
    return [
        Problem(where, f"grade.{name}", f"stored {_shown(old[name])}, re-derived {_shown(new[name])}; {fix}")
        for name in GRADE_FIELDS
        if old[name] != new[name]
    ]


def _last_assistant(trial: TrialRecord):  # -> Turn | None
    return next((t for t in reversed(trial.turns) if t.role == "assistant"), None)


def _record_problems(trial: TrialRecord) -> list[Problem]:
    """What the runner writes for a trial its grader did not judge (see the module docstring)."""
    where, out = _key(trial), []
    last = _last_assistant(trial)
    cut = last is not None and last.finish_reason == "length"
    excluded = trial.infra or trial.invalid_reason is not None
    if excluded:
        what = "infra" if trial.infra else "invalid_reason"
        if trial.infra and trial.invalid_reason is not None:
            out.append(Problem(where, "infra", "a trial is an infrastructure failure or invalid, not both"))
        if trial.grade is not None:
            out.append(Problem(where, "grade", f"an excluded trial ({what}) has no grade: it scores nothing"))
        if not trial.error:
            out.append(Problem(where, "error", f"an excluded trial ({what}) records the error that excluded it"))
        if trial.truncation != "none":
            out.append(Problem(where, "truncation", "an excluded trial is not a truncation"))
        return out
    if trial.grade is None:
        return out + [Problem(where, "grade", "missing; only an excluded trial (infra or invalid) goes without "
                                              "one, and this one is neither")]
    if cut or trial.truncation != "none":
        if not cut:
            out.append(Problem(where, "truncation", f"stored {trial.truncation!r}, but the last reply did not run "
                                                    "out of tokens (its finish_reason is not 'length')"))
        return out
    if trial.error is not None:
        # A model failure the runner caught (ModelFailure): a counted failure with score 0.
        kinds = _model_failure_kinds()
        if trial.grade.reason not in kinds:
            out.append(Problem(where, "grade.reason", f"stored {_shown(trial.grade.reason)}; a trial with an error is "
                                                      f"excluded (infra or invalid) or a model failure, whose reason "
                                                      f"is one of {', '.join(sorted(kinds))}"))
        expected = Grade(score=0.0, passed=False, reason=trial.grade.reason)
        out += compare_grades(where, trial.grade, expected, "a trial with an error cannot pass or score")
    return out


def _structure_problems(run: RunFile, bank: dict[str, LoadedTask], known: dict[str, set[str]]) -> list[Problem]:
    out: list[Problem] = []
    settings = run.settings
    if settings.trials < 1:
        out.append(Problem("settings", "trials", f"stored {settings.trials}; a run has at least 1 trial per task"))
    by_task: dict[str, list[TrialRecord]] = defaultdict(list)
    for trial in run.trials:
        by_task[trial.task_id].append(trial)
        where = _key(trial)
        task = bank.get(trial.task_id)
        if task is None:
            out.append(Problem(where, "task_id", "no task of the bank has this id"))
            continue
        if trial.module != task.task.module:
            out.append(Problem(where, "module", f"stored {trial.module!r}, the task is in {task.task.module!r}"))
        if trial.task_hash != task.hash:
            if trial.task_hash in known.get(trial.task_id, set()):
                out.append(Problem(where, "task_hash", f"stored {trial.task_hash!r}, an older version of the task "
                                                       f"(today's is {task.hash!r}): today's graders cannot regrade "
                                                       "it; re-issue the same `sllmb run` command, which re-runs "
                                                       "exactly the trials whose task changed"))
            else:
                out.append(Problem(where, "task_hash", f"stored {trial.task_hash!r}, which this task never had "
                                                       f"(today's is {task.hash!r}; past ones are in "
                                                       "tasks/HASHES.yaml): the trial was not run against this "
                                                       "bank"))
        listed = run.task_hashes.get(trial.task_id)
        if listed != trial.task_hash:
            out.append(Problem(where, "task_hash", f"stored {trial.task_hash!r}, but the file's task_hashes gives "
                                                   f"{listed!r} for this task; the runner writes one hash per task"))
        if trial.task_version > task.task.version:
            out.append(Problem(where, "task_version", f"stored {trial.task_version}, newer than the bank's grading "
                                                      f"version {task.task.version}"))
        seed = None if settings.seed == -1 else settings.seed + trial.trial
        if trial.seed != seed:
            out.append(Problem(where, "seed", f"stored {trial.seed!r}, the runner gives trial {trial.trial} the seed "
                                              f"{seed!r} (settings.seed {settings.seed} + the trial index)"))
    for task_id, trials in sorted(by_task.items()):
        indices = sorted(t.trial for t in trials)
        twice = sorted({i for i in indices if indices.count(i) > 1})
        if twice:
            out.append(Problem(task_id, "trials", f"trial index(es) {twice} appear more than once; each trial of a "
                                                  "task is recorded once"))
        beyond = [i for i in indices if i >= settings.trials]
        if beyond:
            out.append(Problem(task_id, "trials", f"trial index(es) {beyond} are past settings.trials "
                                                  f"{settings.trials} (indices run from 0)"))
        missing = sorted(set(range(settings.trials)) - set(indices))
        decided = any(t.scorable and not t.passed for t in trials)
        if missing and not (settings.early_stop and decided):
            out.append(Problem(task_id, "trials", f"{len(set(indices))} trial(s) where settings.trials is "
                                                  f"{settings.trials} (missing {missing}); re-issue the same "
                                                  "`sllmb run` command to run the missing ones"))
    for task_id in sorted(set(run.task_hashes) - set(by_task) - set(run.provenance.skipped_tasks)):
        out.append(Problem(task_id, "trials", "the task is in the file's task_hashes but has no trial and is not "
                                              "in provenance.skipped_tasks"))
    return out


def rederive_run(run: RunFile, tasks_dir: Path, *, sandbox_factory: Callable[[], SandboxHandle] | None = None
                 ) -> list[Problem]:
    """Every difference between ``run`` and what the bench re-derives from its transcripts (empty: none)."""
    bank_list = load_bank(tasks_dir)
    bank = {t.id: t for t in bank_list}
    problems = _structure_problems(run, bank, known_hashes(tasks_dir, bank_list))
    for trial in run.trials:
        if not regradable(trial):
            problems += _record_problems(trial)
    report = rescore_run(run, tasks_dir, sandbox_factory=sandbox_factory)
    for task_id, index, why in report.not_regraded:
        problems.append(Problem(f"{task_id}#{index}", "grade", f"could not be regraded here ({why}); a code trial "
                                                                "needs the sandbox (bubblewrap or Docker)"))
    # A trial rescore left alone (a task missing, a hash that is not today's, no sandbox) is a problem listed
    # above; every other regradable trial comes back as a new record to compare.
    for stored, derived in zip(run.trials, report.run.trials, strict=True):
        if regradable(stored) and derived is not stored and derived.grade is not None and stored.grade is not None:
            problems += compare_grades(_key(stored), stored.grade, derived.grade)
    for trial in run.trials:
        problems += _cut_problems(trial, bank.get(trial.task_id))
    return problems


def _cut_problems(trial: TrialRecord, task: LoadedTask | None) -> list[Problem]:
    """The runner ends a trial at its first reply cut at the token limit that the task gives no attempt after
    (:func:`engine.episodes.cut.goes_on_after_cut`), and records it as a truncation of the class its text
    gives, with the reason it ended."""
    where, last = _key(trial), _last_assistant(trial)
    module = MODULES.get(task.task.module) if task is not None else None
    replies = [(i, t) for i, t in enumerate(trial.turns) if t.role == "assistant"]
    early = [i for n, (i, t) in enumerate(replies, start=1) if t.finish_reason == "length" and t is not last
             and not (task is not None and goes_on_after_cut(module, task, n))]
    out = []
    if early:
        out.append(Problem(where, "turns", f"turn {early[0]} ran out of tokens, but the conversation goes on: "
                                           "the runner ends a trial at its first cut reply that the task gives "
                                           "no further attempt after"))
    excluded = trial.infra or trial.invalid_reason is not None
    if excluded or last is None or last.finish_reason != "length":
        return out
    if trial.truncation == "none":
        # The file calls it complete (truncation "none"), and it was regraded above as if whole.
        return out + [Problem(where, "truncation", "stored 'none', but the last reply ran out of tokens "
                                                   "(finish_reason 'length'): record its class")]
    text = last.content or last.reasoning or ""
    derived = trial.truncation if not last.content and text.endswith(CLIPPED_REASONING) else truncation_class(text)
    if trial.truncation != derived:
        out.append(Problem(where, "truncation", f"stored {trial.truncation!r}, re-derived {derived!r}: the last "
                                                "reply ran out of tokens"))
    if not trial.error:
        out.append(Problem(where, "error", "a trial that ran out of tokens records why"))
    return out
