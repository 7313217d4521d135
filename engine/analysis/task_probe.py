"""Probe a new task before it enters the bank: does it separate a weak, a mid and a strong model, and is its
grading stable?

The task is run, on its own, against three declared models (any endpoints), ``trials`` times each. Then every
stored transcript is graded again twice with the module's grader: a grader that gives a different verdict
for the same transcript is not deterministic and cannot go in the bank. The verdict (the same rule is written
up for contributors in CONTRIBUTING.md):

1. REPROBE when a model has fewer than ``min_scorable`` scorable trials (infra errors): nothing was measured.
2. REJECT when regrading a transcript does not reproduce its stored grade (unstable grading).
3. REJECT when every trial of all three models passed (dead easy) or failed (dead hard).
4. REJECT when the weak model's pass rate beats the strong model's by ``gap`` or more (inverted).
5. ACCEPT when the strong model's pass rate beats the weak model's by ``gap`` or more, the mid model sits
   between them (within ``slack``), and at most one model's trials disagree among themselves.
6. REPROBE otherwise (some signal but too little, order muddled, or too flaky): rerun with more trials or
   other anchor models, or rework the task.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from engine.bank.load import load_task
from engine.core.errors import BenchError, UserError
from engine.core.schema import RunFile
from engine.episodes import MODULES
from engine.episodes.base import Env
from engine.run.request import RunRequest
from engine.run.rescore import regradable
from engine.run.runner import run_benchmark
from engine.sandbox.handle import SandboxHandle

ROLES = ("weak", "mid", "strong")
Verdict = Literal["ACCEPT", "REPROBE", "REJECT"]

GAP = 0.5
SLACK = 0.2
MAX_FLAKY_MODELS = 1
DEFAULT_TRIALS = 5
MIN_SCORABLE = 3


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


@dataclass
class ProbeTarget:
    role: str
    model: str
    endpoint: str
    api_key: str | None = field(default=None, repr=False)


class RoleOutcome(_Model):
    role: str
    model: str
    trials: int
    scorable: int
    passed: int
    rate: float | None
    flaky: bool


class ProbeReport(_Model):
    task_id: str
    module: str
    verdict: Verdict
    reasons: list[str]
    outcomes: list[RoleOutcome]
    regrade_mismatches: int
    trials: int
    gap: float
    slack: float


def _outcome(role: str, run: RunFile) -> RoleOutcome:
    scorable = [t for t in run.trials if t.scorable]
    passed = sum(t.passed for t in scorable)
    return RoleOutcome(
        role=role,
        model=run.settings.model,
        trials=len(run.trials),
        scorable=len(scorable),
        passed=passed,
        rate=passed / len(scorable) if scorable else None,
        flaky=0 < passed < len(scorable),
    )


def regrade_mismatches(task_path: Path, runs: list[RunFile], sandbox: SandboxHandle | None = None) -> int:
    """Transcripts whose grade is not reproduced by grading them twice more with the same grader."""
    task = load_task(task_path)
    module = MODULES[task.task.module]
    bad = 0
    for run in runs:
        for trial in run.trials:
            if not regradable(trial) or trial.grade is None:
                continue
            env = Env(max_tokens=run.settings.max_tokens, seed=trial.seed, sandbox=sandbox)
            try:
                first = module.grade(task, trial.turns, env)
                second = module.grade(task, trial.turns, env)
            except BenchError:
                bad += 1
                continue
            stored = trial.grade
            if {(g.score, g.passed) for g in (stored, first, second)} != {(stored.score, stored.passed)}:
                bad += 1
    return bad


def decide(
    outcomes: list[RoleOutcome],
    mismatches: int,
    *,
    gap: float = GAP,
    slack: float = SLACK,
    min_scorable: int = MIN_SCORABLE,
    max_flaky: int = MAX_FLAKY_MODELS,
) -> tuple[Verdict, list[str]]:
    """The probe rule (see the module docstring). Pure, so every branch is tested without a model."""
    by = {o.role: o for o in outcomes}
    short = [o.role for o in outcomes if o.scorable < min_scorable]
    if short:
        return "REPROBE", [
            f"too few scorable trials for {', '.join(short)} (need {min_scorable}; infra errors?)"
        ]
    if mismatches:
        return "REJECT", [
            f"grading is not stable: {mismatches} transcript(s) graded differently on a regrade"
        ]
    if all(o.passed == o.scorable for o in outcomes):
        return "REJECT", ["dead easy: every model passed every trial"]
    if all(o.passed == 0 for o in outcomes):
        return "REJECT", ["dead hard: every model failed every trial"]
    weak, mid, strong = (by[r].rate or 0.0 for r in ROLES)
    spread = strong - weak
    if spread <= -gap:
        return "REJECT", [f"inverted: the weak model passes {weak:.0%}, the strong one {strong:.0%}"]
    reasons = []
    if spread < gap:
        reasons.append(
            f"does not separate: strong {strong:.0%} vs weak {weak:.0%} (needs a gap of {gap:.0%})"
        )
    if not (weak - slack <= mid <= strong + slack):
        reasons.append(f"mid model ({mid:.0%}) falls outside weak ({weak:.0%}) to strong ({strong:.0%})")
    flaky = [o.role for o in outcomes if o.flaky]
    if len(flaky) > max_flaky:
        reasons.append(f"too flaky: trials disagree within {', '.join(flaky)}")
    if reasons:
        return "REPROBE", reasons
    return "ACCEPT", [f"separates: strong {strong:.0%}, mid {mid:.0%}, weak {weak:.0%}; grading stable"]


@dataclass
class ProbeConfig:
    task_file: Path
    targets: list[ProbeTarget]
    trials: int = DEFAULT_TRIALS
    concurrency: int = 1
    max_retries: int = 4
    backoff_s: float = 1.0
    request_timeout_s: float = 600.0
    temperature: float | None = None
    thinking: bool | None = None
    show_progress: bool = False
    gap: float = GAP
    slack: float = SLACK
    min_scorable: int | None = None
    # The sandbox for code tasks (``engine.sandbox.open_sandbox``); None for every other module.
    sandbox: SandboxHandle | None = None


def _stage(task_file: Path, root: Path) -> tuple[Path, str, str]:
    """Copy the task into a one-task bank, so the runner sees exactly it; validate it on the way."""
    task = load_task(task_file)
    module = task.task.module
    folder = root / "bank" / module
    folder.mkdir(parents=True)
    staged = folder / f"{task.id}.yaml"
    shutil.copyfile(task_file, staged)
    return staged, task.id, module


def probe_task(cfg: ProbeConfig) -> ProbeReport:
    if [t.role for t in cfg.targets] != list(ROLES):
        raise UserError("probe needs exactly three models, declared weak, mid and strong in that order")
    if cfg.trials < 2:
        raise UserError("--trials must be at least 2 for a probe: one trial cannot show flakiness")
    if not cfg.task_file.is_file():
        raise UserError(f"{cfg.task_file}: no such task file")
    if cfg.task_file.parent.name not in MODULES:
        raise UserError(
            f"{cfg.task_file}: a task file must sit in a folder named after its module "
            f"(one of {', '.join(MODULES)}), e.g. tasks/knowledge/<id>.yaml"
        )
    min_scorable = cfg.min_scorable if cfg.min_scorable is not None else min(MIN_SCORABLE, cfg.trials)
    with tempfile.TemporaryDirectory(prefix="sllmb-probe-") as tmp:
        root = Path(tmp)
        staged, task_id, module = _stage(cfg.task_file, root)
        runs = []
        for target in cfg.targets:
            request = RunRequest(
                model=target.model,
                endpoint=target.endpoint,
                api_key=target.api_key,
                output=root / f"{target.role}.json",
                trials=cfg.trials,
                concurrency=cfg.concurrency,
                tasks_dir=root / "bank",
                resume=False,
                temperature=cfg.temperature,
                thinking=cfg.thinking,
                max_retries=cfg.max_retries,
                backoff_s=cfg.backoff_s,
                limits=cfg.request_timeout_s,  # the whole request within it (RequestLimits.of)
                show_progress=cfg.show_progress,
            )
            runs.append(run_benchmark(request, sandbox=cfg.sandbox))
        mismatches = regrade_mismatches(staged, runs, cfg.sandbox)
    outcomes = [_outcome(t.role, r) for t, r in zip(cfg.targets, runs, strict=True)]
    verdict, reasons = decide(outcomes, mismatches, gap=cfg.gap, slack=cfg.slack, min_scorable=min_scorable)
    return ProbeReport(
        task_id=task_id,
        module=module,
        verdict=verdict,
        reasons=reasons,
        outcomes=outcomes,
        regrade_mismatches=mismatches,
        trials=cfg.trials,
        gap=cfg.gap,
        slack=cfg.slack,
    )
