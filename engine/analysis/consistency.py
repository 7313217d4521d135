"""Are a result file's pass rates consistent with a re-run of the same model? The statistics of ``sllmb verify``.

Regrading can check a stored verdict against its stored transcript, but not the transcript: a hand-written
one grades as well as a real one. So a maintainer re-runs a random sample of the file's tasks at the file's
settings and compares pass counts, task by task (written up in ``CONTRIBUTING.md``):

* Per task: Fisher's exact test (two-sided) on the 2x2 table of passed and failed trials, file against
  re-run. Exact, so it holds at three trials a side, where no normal approximation does. With n trials a side
  its smallest p is 2 / C(2n, n): 0.1 at n = 3, so one task alone can never show a 3-trial file wrong at 0.05.
* Combined, two ways, because a forgery can be many small lies or one large one: Fisher's method over the
  tasks' p-values (-2 sum ln p against chi-squared with 2m degrees of freedom; the p-values of an exact test
  are conservative, so this stays valid) finds a file that is a little off on many tasks, the 3-trial case;
  Holm's correction of the smallest per-task p finds one task far off. The verdict's p is the smaller of the
  two doubled (Bonferroni over the two), and the file is inconsistent when it is below alpha.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field
from scipy.stats import combine_pvalues, fisher_exact

from engine.analysis.stats import holm
from engine.core.errors import UserError
from engine.core.schema import TrialRecord

ALPHA = 0.05


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PassCount(_Model):
    passed: int = Field(ge=0)
    scorable: int = Field(ge=0)


class TaskCheck(_Model):
    task_id: str
    module: str
    file: PassCount
    rerun: PassCount
    # Fisher's exact test, two-sided, and the same p Holm-corrected across the tasks compared.
    p_value: float
    p_holm: float


class Consistency(_Model):
    alpha: float
    tasks: list[TaskCheck]
    # Sampled tasks that could not be compared, with the reason (no scorable trial on one side).
    not_compared: dict[str, str]
    # Tasks compared whose pass rate differs between the file and the re-run (whether significant or not).
    differing: int
    # Fisher's method over the tasks' p-values, and the smallest Holm-corrected p.
    fisher_p: float
    holm_min_p: float
    # Bonferroni over the two: min(1, 2 * min(fisher_p, holm_min_p)).
    p_value: float
    consistent: bool


def pass_counts(trials: Sequence[TrialRecord]) -> dict[str, PassCount]:
    """Passed and scorable trials per task (infrastructure errors and invalid trials count in neither)."""
    out: dict[str, PassCount] = {}
    for t in trials:
        count = out.setdefault(t.task_id, PassCount(passed=0, scorable=0))
        if t.scorable:
            count.scorable += 1
            count.passed += t.passed
    return out


def task_p_value(a: PassCount, b: PassCount) -> float:
    """Fisher's exact test, two-sided, of two pass counts."""
    table = [[a.passed, a.scorable - a.passed], [b.passed, b.scorable - b.passed]]
    return float(fisher_exact(table, alternative="two-sided").pvalue)


def check_consistency(
    file_trials: Sequence[TrialRecord],
    rerun_trials: Sequence[TrialRecord],
    task_ids: Sequence[str],
    alpha: float = ALPHA,
) -> Consistency:
    """Compare the file's and the re-run's pass counts on ``task_ids``. Raises ``UserError`` when no task has
    a scorable trial on both sides: nothing was compared, so nothing can be said."""
    if not 0 < alpha < 1:
        raise UserError(f"alpha must lie between 0 and 1, got {alpha}")
    mine, again = pass_counts(file_trials), pass_counts(rerun_trials)
    modules = {t.task_id: t.module for t in file_trials}
    compared: list[tuple[str, PassCount, PassCount, float]] = []
    not_compared: dict[str, str] = {}
    for task_id in task_ids:
        a = mine.get(task_id, PassCount(passed=0, scorable=0))
        b = again.get(task_id, PassCount(passed=0, scorable=0))
        if a.scorable == 0 or b.scorable == 0:
            side = "the file" if a.scorable == 0 else "the re-run"
            not_compared[task_id] = f"{side} has no scorable trial of it (infrastructure errors or invalid)"
            continue
        compared.append((task_id, a, b, task_p_value(a, b)))
    if not compared:
        raise UserError(
            "no sampled task has a scorable trial in both the file and the re-run, so nothing was compared: "
            + "; ".join(f"{t}: {why}" for t, why in not_compared.items())
        )
    p_values = [p for *_rest, p in compared]
    adjusted = holm(p_values)
    fisher_p = float(combine_pvalues(p_values, method="fisher").pvalue)
    holm_min = min(adjusted)
    overall = min(1.0, 2 * min(fisher_p, holm_min))
    return Consistency(
        alpha=alpha,
        tasks=[
            TaskCheck(task_id=tid, module=modules.get(tid, "?"), file=a, rerun=b, p_value=p, p_holm=padj)
            for (tid, a, b, p), padj in zip(compared, adjusted, strict=True)
        ],
        not_compared=not_compared,
        differing=sum(a.passed * b.scorable != b.passed * a.scorable for _tid, a, b, _p in compared),
        fisher_p=fisher_p,
        holm_min_p=holm_min,
        p_value=overall,
        consistent=overall >= alpha,
    )
