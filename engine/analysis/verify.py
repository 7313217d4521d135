"""A maintainer's spot check of a result file (``sllmb verify``): re-run a random sample of its tasks against
the same model at the file's settings, through the ordinary run machinery, and compare pass counts.

Regrading (``rescore``) checks a stored verdict against its stored transcript; it cannot tell a transcript
written by hand from one the model wrote. A re-run can: a file whose pass rates the model does not reproduce
is inconsistent (the statistics: ``engine.analysis.consistency``). What is re-run is exactly what the file
says it ran: its trials, profile, sampler (temperature, top_p, seed), max tokens, thinking, --stop-loops and
--early-stop, the same task versions, and the trial seeds the runner assigns.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.analysis.consistency import ALPHA, Consistency, check_consistency
from engine.bank.load import load_bank
from engine.core.errors import UserError
from engine.core.results import recorded_top_p
from engine.core.schema import RunFile
from engine.episodes.base import LoadedTask
from engine.run.request import RunRequest
from engine.run.runner import run_benchmark


@dataclass(frozen=True)
class Sample:
    tasks: tuple[LoadedTask, ...]  # the sampled tasks, in bank order
    seed: int
    # Tasks of the file that cannot be compared with a re-run today, with the reason (never sampled).
    not_comparable: Mapping[str, str]


@dataclass(frozen=True)
class SpotCheck:
    sample: Sample
    rerun: RunFile
    result: Consistency


def comparable_tasks(run: RunFile, bank: Sequence[LoadedTask]) -> tuple[list[LoadedTask], dict[str, str]]:
    """The bank's tasks a re-run asks exactly what the file's trials were asked, graded the same way; and the
    file's other tasks with the reason each cannot be compared."""
    by_id = {t.id: t for t in bank}
    trials: dict[str, list] = {}
    for t in run.trials:
        trials.setdefault(t.task_id, []).append(t)
    ok: list[LoadedTask] = []
    why_not: dict[str, str] = {}
    for task_id, records in trials.items():
        task = by_id.get(task_id)
        hashes = {r.task_hash for r in records}
        versions = {r.task_version for r in records}
        if task is None:
            why_not[task_id] = "no longer in the bank"
        elif hashes != {task.hash}:
            was = ", ".join(sorted(hashes))
            why_not[task_id] = f"the task changed since the file was run (hash {was}, now {task.hash})"
        elif versions != {task.task.version}:
            why_not[task_id] = (
                f"graded under version {', '.join(map(str, sorted(versions)))}, the bank's is {task.task.version}: "
                "`sllmb rescore` the file first"
            )
        elif not any(r.scorable for r in records):
            why_not[task_id] = "no scorable trial in the file"
        else:
            ok.append(task)
    order = {t.id: i for i, t in enumerate(bank)}
    ok.sort(key=lambda t: order[t.id])
    return ok, why_not


def sample_tasks(run: RunFile, n: int, seed: int, tasks_dir: Path | None = None) -> Sample:
    """``n`` tasks drawn at random (``random.Random(seed)``) from the file's comparable tasks; all of them when it
    has fewer. No comparable task at all is a ``UserError``: nothing could be checked."""
    if n < 1:
        raise UserError(f"--sample must be at least 1 task, got {n}")
    ok, why_not = comparable_tasks(run, load_bank(tasks_dir))
    if not ok:
        listing = "; ".join(f"{t}: {why}" for t, why in list(why_not.items())[:8])
        raise UserError(f"no task of the file can be re-run as it was run ({listing})")
    chosen = {t.id for t in random.Random(seed).sample(ok, min(n, len(ok)))}
    return Sample(tasks=tuple(t for t in ok if t.id in chosen), seed=seed, not_comparable=why_not)


def rerun_request(
    run: RunFile,
    *,
    model: str,
    endpoint: str,
    output: Path,
    api_key: str | None = None,
    tasks_dir: Path | None = None,
    show_progress: bool = False,
) -> RunRequest:
    """A run at the file's settings: what its model saw, sampled and budgeted the same way."""
    s = run.settings
    return RunRequest(
        model=model,
        endpoint=endpoint,
        api_key=api_key,
        output=output,
        trials=s.trials,
        profile=s.profile,
        tasks_dir=tasks_dir,
        max_tokens=s.max_tokens,
        temperature=s.temperature,
        top_p=recorded_top_p(run),
        seed=s.seed,
        thinking=s.thinking,
        stop_loops=s.stop_loops,
        early_stop=s.early_stop,
        warm_up=True,
        show_progress=show_progress,
    )


def spot_check(
    run: RunFile,
    request: RunRequest,
    sample: Sample,
    alpha: float = ALPHA,
) -> SpotCheck:
    """Re-run ``sample`` with ``request`` (``rerun_request``) and compare its pass counts with the file's."""
    rerun = run_benchmark(request, tasks=sample.tasks)
    ids = [t.id for t in sample.tasks]
    wanted = set(ids)
    mine = [t for t in run.trials if t.task_id in wanted]
    return SpotCheck(sample, rerun, check_consistency(mine, rerun.trials, ids, alpha))
