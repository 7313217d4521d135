"""Applying a judged file: its verdicts folded into the run's grades, and the raw and judged scores."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engine.analysis.judge.files import JudgedFile, TrialVerdict, _Strict
from engine.analysis.judge.rules import NEVER_SENT, sendable
from engine.analysis.scoring import DEFAULT_PRESET, Scorecard, score_run
from engine.core.errors import UserError
from engine.core.schema import RunFile, TrialRecord


class JudgedModule(_Strict):
    pass_k: float | None
    det_score: float | None
    judged_pass_k: float | None
    judged_det_score: float | None
    # Share of the module's sendable trials whose verdict was applied; None for modules never sent.
    coverage: float | None
    covered: bool


class JudgedScore(_Strict):
    model: str
    k: int
    weights_preset: str
    headline: float | None
    det_score: float | None
    judged_headline: float | None
    judged_det_score: float | None
    modules: dict[str, JudgedModule]
    # Judged modules that did not have every trial judged (failed calls, stale verdicts): they carry det
    # scores.
    uncovered_modules: list[str]
    changed_verdicts: int
    stale_verdicts: int
    card: Scorecard
    judged_card: Scorecard


def _verdict_applies(verdict: TrialVerdict, trial: TrialRecord) -> bool:
    """A verdict holds only for the trial exactly as the judge saw it."""
    return (
        trial.grade is not None
        and trial.scorable
        and verdict.task_hash == trial.task_hash
        and abs(verdict.det_score - trial.grade.score) <= 1e-9
        and verdict.det_passed == trial.grade.passed
    )


@dataclass(frozen=True)
class AppliedVerdicts:
    """A run with a judged file's applied verdicts folded into its grades: made once per model, read by every
    score of it."""

    run: RunFile
    # Share of each module's sendable trials whose verdict applied; None for modules never sent.
    coverage: Mapping[str, float | None]
    stale: int
    # (task id, trial) of every trial whose verdict the judge moved (rescued or demoted).
    changed: frozenset[tuple[str, int]]


def apply_verdicts(run: RunFile, judged: JudgedFile) -> AppliedVerdicts:
    """The run with applied verdicts folded into its grades, the coverage per module, the stale count and the
    trials whose verdict moved.

    A module that is flagged, or has any stale or missing verdict, keeps its det grades throughout.
    """
    if judged.model != run.settings.model:
        raise UserError(
            f"the judged file is for model {judged.model!r} but the result file is for "
            f"{run.settings.model!r}; pass the matching pair"
        )
    by_key = {(v.task_id, v.trial): v for v in judged.verdicts}
    sent: dict[str, list[TrialRecord]] = {}
    for t in run.trials:
        if sendable(t):
            sent.setdefault(t.module, []).append(t)
    coverage: dict[str, float | None] = {}
    stale = 0
    usable: dict[str, bool] = {}
    for module, trials in sent.items():
        ok = 0
        for t in trials:
            v = by_key.get((t.task_id, t.trial))
            if v is None:
                continue
            if not _verdict_applies(v, t):
                stale += 1
                continue
            if v.status != "failed":
                ok += 1
        coverage[module] = ok / len(trials)
        usable[module] = ok == len(trials) and module not in judged.flagged_modules
    for module in dict.fromkeys(t.module for t in run.trials):
        coverage.setdefault(module, None)

    new_trials = []
    changed: set[tuple[str, int]] = set()
    for t in run.trials:
        v = by_key.get((t.task_id, t.trial))
        if (
            v is not None
            and usable.get(t.module)
            and _verdict_applies(v, t)
            and v.status in ("rescued", "demoted")
        ):
            assert t.grade is not None
            if v.final_passed != t.grade.passed:
                changed.add((t.task_id, t.trial))
            grade = t.grade.model_copy(update={"score": v.final_score, "passed": v.final_passed})
            t = t.model_copy(update={"grade": grade})
        new_trials.append(t)
    return AppliedVerdicts(
        run=run.model_copy(update={"trials": new_trials}),
        coverage=coverage,
        stale=stale,
        changed=frozenset(changed),
    )


def score_judged(
    run: RunFile, applied: AppliedVerdicts | None, k: int | None = None, weights: str = DEFAULT_PRESET
) -> JudgedScore:
    """Raw and judged scores of one run, ``applied`` being its verdicts (``apply_verdicts``) or None for a run
    with no judged file. With none the judged numbers equal the raw ones and every judged module is reported
    uncovered (the board draws such a row as unjudged)."""
    card = score_run(run, k=k, weights=weights)
    if applied is None:
        judged_run, coverage, stale = run, {m: (None if m in NEVER_SENT else 0.0) for m in card.modules}, 0
        changed = 0
    else:
        judged_run, coverage, stale, changed = applied.run, applied.coverage, applied.stale, len(applied.changed)
    # With no verdict moved (no judged file, or none applied) the judged run is the raw run: same card.
    jcard = card if judged_run is run else score_run(judged_run, k=card.k, weights=weights)
    modules = {}
    for m, ms in card.modules.items():
        cov = coverage.get(m)
        modules[m] = JudgedModule(
            pass_k=ms.pass_k,
            det_score=ms.det_score,
            judged_pass_k=jcard.modules[m].pass_k,
            judged_det_score=jcard.modules[m].det_score,
            coverage=cov,
            covered=cov is None or cov >= 1.0,
        )
    return JudgedScore(
        model=card.model,
        k=card.k,
        weights_preset=weights,
        headline=card.headline,
        det_score=card.det_score,
        judged_headline=jcard.headline,
        judged_det_score=jcard.det_score,
        modules=modules,
        uncovered_modules=[m for m, jm in modules.items() if not jm.covered],
        changed_verdicts=changed,
        stale_verdicts=stale,
        card=card,
        judged_card=jcard,
    )


def verdict_counts(judged: JudgedFile) -> Mapping[str, int]:
    counts: dict[str, int] = {}
    for v in judged.verdicts:
        counts[v.status] = counts.get(v.status, 0) + 1
    return counts

