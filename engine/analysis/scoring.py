"""pass^k per task, module means, weight presets and the two headline numbers of a run.

A run file holds graded trials; this module turns them into a ``Scorecard`` and nothing else: no I/O, no
judge, no statistics across models (those live in ``engine.analysis.stats`` and ``engine.analysis.items``).

Choices made here, each written up in ``site_src/methodology/scoring.md``:

* pass^k of a task is C(c, k) / C(n, k) over its n scorable trials of which c passed: the chance that k trials
  drawn without replacement all pass. A task with fewer than k scorable trials cannot give that number and is
  dropped from every score of the run (pass and det alike, so both describe the same tasks) and counted,
  except in a run with ``--early-stop``, whose task that failed a trial scores pass^k 0 and the det score of
  the trials it ran (the board flags such a run).
* One k for a whole board: the k its reference setting declares (``engine.core.reference_setting``). A file
  run with more trials is scored at that k too (C(c, k) / C(n, k) allows n > k); one run with fewer has every
  task dropped. ``items`` on a folder with no ``setting.yaml`` scores at the largest trial count among its
  files (``board_k``); ``compare`` and ``sweep`` without a declared setting at the smallest (``common_k``), so
  every file compared is scored on every task it ran.
* Module weights come from a named preset (each module declares its share in its spec), are renormalised over
  the modules that scored at least one task, then held inside [0.5x, 2x] of each module's share of the bank.
  A weight outside that band is clipped and the rest rescaled (never an error): every run can be scored, and
  the scorecard lists the clipped modules.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from engine.core.errors import UserError
from engine.core.schema import RunFile, TrialRecord
from engine.episodes import MODULE_NAMES, SPECS
from engine.episodes.spec import ModuleWeights

# The weight presets are the fields of ModuleWeights: each module declares its share under every preset in its
# spec (engine/episodes/<name>/module.py), and the shares of a preset sum to 1 over the registry.
PRESETS: tuple[str, ...] = tuple(ModuleWeights.model_fields)
DEFAULT_PRESET = "balanced"

# A module may weigh at most CAP_HIGH and at least CAP_LOW times its share of the bank.
CAP_HIGH = 2.0
CAP_LOW = 0.5


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TaskScore(_Model):
    """One task of one run. ``pass_k`` and ``det_score`` are None when the task was dropped."""

    task_id: str
    module: str
    scorable_trials: int = Field(ge=0)
    passed_trials: int = Field(ge=0)
    excluded_trials: int = Field(ge=0)
    scored: bool
    pass_k: float | None = None
    det_score: float | None = None

    @property
    def pass_fraction(self) -> float | None:
        """Share of scorable trials that passed; the unit the paired tests compare."""
        return self.passed_trials / self.scorable_trials if self.scorable_trials else None


class ModuleScore(_Model):
    """Means over a module's scored tasks. A module with no scored task has None scores and weight 0."""

    pass_k: float | None
    det_score: float | None
    weight: float
    tasks_scored: int
    tasks_excluded: int
    trials_excluded: int


class Scorecard(_Model):
    model: str
    k: int
    weights_preset: str
    # Weights actually used, over the modules that scored at least one task; they sum to 1.
    weights: dict[str, float]
    clipped_modules: list[str] = Field(default_factory=list)
    modules: dict[str, ModuleScore]
    # The pass^k headline and the det score, both on a 0-1 scale; None when no task could be scored.
    headline: float | None
    det_score: float | None
    tasks_scored: int
    tasks_excluded: int
    trials_excluded: int
    # Share of code trials that passed before any repair attempt; None when no trial recorded it.
    first_try_code_rate: float | None
    tasks: dict[str, TaskScore]


# ----------------------------------------------------------------------------------------------------------
# pass^k


def pass_hat_k(n: int, c: int, k: int) -> float:
    """C(c, k) / C(n, k): the chance that k of the n trials, drawn without replacement, all passed."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if not 0 <= c <= n:
        raise ValueError(f"passed count {c} must lie between 0 and the trial count {n}")
    if n < k:
        raise ValueError(f"pass^{k} needs at least {k} trials, got {n}")
    return math.comb(c, k) / math.comb(n, k)


def _trial_counts(runs: Iterable[RunFile]) -> list[int]:
    """Each file's declared trials per task (``settings.trials``); at least one file is needed."""
    ks = [run.settings.trials for run in runs]
    if not ks:
        raise UserError("no result files to take k from: load at least one run file")
    return ks


def board_k(runs: Iterable[RunFile]) -> int:
    """The k of files compared without a declared setting: the largest trial count any of them was run with
    (its ``settings.trials``). The published board takes its k from its reference setting instead, so one file
    with more trials cannot unrank the rest there.

    A file run with fewer trials than that has every task dropped rather than being scored on an easier k.
    """
    k = max(_trial_counts(runs))
    if k < 1:
        raise UserError(f"the result files declare at most {k} trials per task; pass^k needs at least 1")
    return k


def common_k(runs: Iterable[RunFile]) -> int:
    """The k of files compared with one another and no declared setting: the smallest trial count among them,
    the largest k at which every file can be scored on every task it ran (a file with more trials is scored at
    it too: C(c, k) / C(n, k) allows n > k). The largest count (``board_k``) would drop every task of the file
    with fewer trials and compare the other against nothing."""
    k = min(_trial_counts(runs))
    if k < 1:
        raise UserError(f"a result file declares {k} trials per task; pass^k needs at least 1")
    return k


# ----------------------------------------------------------------------------------------------------------
# Weights


@dataclass(frozen=True)
class EffectiveWeights:
    weights: dict[str, float]
    clipped: list[str]


def bank_task_counts() -> dict[str, int]:
    """Task counts per module in the full bank, as the specs declare them: the caps are measured against these
    shares. Read at each call, like the weights, so scoring follows the registry."""
    return {name: spec.bank_tasks for name, spec in SPECS.items()}


def check_preset(name: str) -> None:
    if name not in PRESETS:
        raise UserError(f"unknown weight preset {name!r}; choose one of: {', '.join(sorted(PRESETS))}")


def preset_weights(name: str) -> dict[str, float]:
    """Each module's share under the preset ``name``, from its spec."""
    check_preset(name)
    return {module: spec.weights.model_dump()[name] for module, spec in SPECS.items()}


def effective_weights(
    weights: Mapping[str, float],
    present: Iterable[str],
    bank_counts: Mapping[str, int] | None = None,
) -> EffectiveWeights:
    """Renormalise ``weights`` over the ``present`` modules, then hold each inside its cap band.

    The band of module m is [CAP_LOW, CAP_HIGH] x its share of the bank, the share taken over the present
    modules. The result is w'_m = clip(t * w_m, low_m, high_m) with one factor t chosen so the weights sum
    to 1: modules inside their band keep the preset's proportions to each other, and a module outside it sits
    exactly on its bound. Such a t always exists because the lower bounds sum to 0.5 and the upper to 2.
    ``bank_counts`` defaults to the specs' (``bank_task_counts``).
    """
    if bank_counts is None:
        bank_counts = bank_task_counts()
    wanted = set(present)
    mods = [m for m in MODULE_NAMES if m in wanted] + sorted(wanted - set(MODULE_NAMES))
    if not mods:
        return EffectiveWeights({}, [])
    for m in mods:
        if weights.get(m, 0.0) <= 0:
            raise UserError(f"module {m!r} has no positive weight in the chosen preset")
        if bank_counts.get(m, 0) <= 0:
            raise UserError(f"module {m!r} has no tasks in the bank counts the caps are measured against")
    w_total = sum(weights[m] for m in mods)
    b_total = sum(bank_counts[m] for m in mods)
    w = {m: weights[m] / w_total for m in mods}
    lo = {m: CAP_LOW * bank_counts[m] / b_total for m in mods}
    hi = {m: CAP_HIGH * bank_counts[m] / b_total for m in mods}

    def total(t: float) -> float:
        return sum(min(max(t * w[m], lo[m]), hi[m]) for m in mods)

    # total(t) is piecewise linear and non-decreasing, from 0.5 at t = 0 to 2 once every module sits on its
    # upper bound; its kinks are where a module meets a bound, so 1 is crossed on one straight segment.
    kinks = sorted({lo[m] / w[m] for m in mods} | {hi[m] / w[m] for m in mods})
    prev_t, prev_f = 0.0, total(0.0)
    t = kinks[-1]
    for kink in kinks:
        f = total(kink)
        if f >= 1.0:
            t = prev_t + (1.0 - prev_f) * (kink - prev_t) / (f - prev_f)
            break
        prev_t, prev_f = kink, f
    out = {m: min(max(t * w[m], lo[m]), hi[m]) for m in mods}
    norm = sum(out.values())
    out = {m: v / norm for m, v in out.items()}
    tol = 1e-12
    clipped = [m for m in mods if t * w[m] < lo[m] - tol or t * w[m] > hi[m] + tol]
    return EffectiveWeights(out, clipped)


def weight_caps_ok(weights: Mapping[str, float], bank_counts: Mapping[str, int] | None = None) -> bool:
    """True when a preset, renormalised over the whole bank, needs no clipping."""
    counts = bank_task_counts() if bank_counts is None else bank_counts
    return not effective_weights(weights, counts, counts).clipped


# ----------------------------------------------------------------------------------------------------------
# A run's scorecard


def _task_scores(trials: Iterable[TrialRecord], k: int, early_stop: bool = False) -> dict[str, TaskScore]:
    grouped: dict[str, list[TrialRecord]] = {}
    for trial in trials:
        grouped.setdefault(trial.task_id, []).append(trial)
    out: dict[str, TaskScore] = {}
    for task_id, records in grouped.items():
        scorable = [r for r in records if r.scorable]
        n = len(scorable)
        c = sum(1 for r in scorable if r.passed)
        # --early-stop skipped the trials after a failure: pass^k is then 0 whatever they would have done,
        # so the task is scored on the trials it ran instead of being dropped.
        decided = early_stop and 0 < n < k and c < n
        scored = n >= k or decided
        det = None
        if scored:
            det = sum(r.grade.score for r in scorable if r.grade is not None) / n
        out[task_id] = TaskScore(
            task_id=task_id,
            module=records[0].module,
            scorable_trials=n,
            passed_trials=c,
            excluded_trials=len(records) - n,
            scored=scored,
            pass_k=(0.0 if decided else pass_hat_k(n, c, k)) if scored else None,
            det_score=det,
        )
    return out


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def _runs_code(module: str) -> bool:
    return module in SPECS and SPECS[module].runs_code


def first_try_code_rate(run: RunFile) -> float | None:
    """Share of scorable code trials graded ``first_try_pass``; trials without that key are left out."""
    flags = [
        bool(t.grade.details["first_try_pass"])
        for t in run.trials
        if _runs_code(t.module) and t.scorable and t.grade is not None and "first_try_pass" in t.grade.details
    ]
    return sum(flags) / len(flags) if flags else None


def unsure_share(run: RunFile) -> float | None:
    """Share of scorable trials whose verdict rests on a check that could not decide from the text
    (``Grade.unsure``); None when nothing was scored."""
    graded = [t for t in run.trials if t.scorable and t.grade is not None]
    if not graded:
        return None
    return sum(t.grade.unsure is not None for t in graded if t.grade is not None) / len(graded)


def score_run(
    run: RunFile,
    k: int | None = None,
    weights: str = DEFAULT_PRESET,
    bank_counts: Mapping[str, int] | None = None,
) -> Scorecard:
    """Score one run file. ``k`` defaults to the file's own trial count; a board passes ``board_k``."""
    if k is None:
        k = board_k([run])
    if k < 1:
        raise UserError(f"k must be at least 1, got {k}")
    preset = preset_weights(weights)
    # Only the trials --early-stop skipped count as decided, not trials a smaller run never planned.
    tasks = _task_scores(run.trials, k, run.settings.early_stop and k <= run.settings.trials)

    by_module: dict[str, list[TaskScore]] = {}
    for ts in tasks.values():
        by_module.setdefault(ts.module, []).append(ts)
    present = [m for m, ts in by_module.items() if any(t.scored for t in ts)]
    eff = effective_weights(preset, present, bank_counts)

    modules: dict[str, ModuleScore] = {}
    for m in [x for x in MODULE_NAMES if x in by_module]:
        scored = [t for t in by_module[m] if t.scored]
        modules[m] = ModuleScore(
            pass_k=_mean([t.pass_k for t in scored if t.pass_k is not None]) if scored else None,
            det_score=_mean([t.det_score for t in scored if t.det_score is not None]) if scored else None,
            weight=eff.weights.get(m, 0.0),
            tasks_scored=len(scored),
            tasks_excluded=len(by_module[m]) - len(scored),
            trials_excluded=sum(t.excluded_trials for t in by_module[m]),
        )

    headline = det = None
    if eff.weights:
        headline = sum(eff.weights[m] * (modules[m].pass_k or 0.0) for m in eff.weights)
        det = sum(eff.weights[m] * (modules[m].det_score or 0.0) for m in eff.weights)
    return Scorecard(
        model=run.settings.model,
        k=k,
        weights_preset=weights,
        weights=eff.weights,
        clipped_modules=eff.clipped,
        modules=modules,
        headline=headline,
        det_score=det,
        tasks_scored=sum(ms.tasks_scored for ms in modules.values()),
        tasks_excluded=sum(ms.tasks_excluded for ms in modules.values()),
        trials_excluded=sum(ms.trials_excluded for ms in modules.values()),
        first_try_code_rate=first_try_code_rate(run),
        tasks=tasks,
    )
