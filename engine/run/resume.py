"""What an earlier attempt at the same output left: its checkpoint, or else its finished result file.

Both are read here, once, when the run is planned; the runner works from what this returns and never opens
them again.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from engine.core.errors import UserError
from engine.core.results import load_run_file
from engine.core.schema import CheckpointHeader, RunFile, TrialRecord
from engine.episodes.base import LoadedTask
from engine.run.checkpoint import Checkpoint, checkpoint_path, fingerprint


@dataclass(frozen=True)
class PreviousRun:
    header: CheckpointHeader | None  # None: nothing to resume
    trials: tuple[TrialRecord, ...]
    duration_s: float  # the time the finished result file recorded, added to this attempt's
    source: Path  # the file the header came from, named when its settings differ from the new ones


def read_previous(output: Path, resume: bool) -> PreviousRun:
    """Read the checkpoint and the old result file once. With ``resume`` off, the checkpoint is set aside
    (kept as a ``.bak`` file) and nothing is read."""
    checkpoint = Checkpoint(checkpoint_path(output))
    if not resume:
        moved = checkpoint.set_aside()
        if moved:
            print(f"--no-resume: the previous checkpoint was kept as {moved}", file=sys.stderr)
        return PreviousRun(header=None, trials=(), duration_s=0.0, source=output)
    header, trials = checkpoint.read()
    old = _old_result(output, needed=header is None)
    if header is None and old is not None:
        header = CheckpointHeader(fingerprint=fingerprint(old.settings), settings=old.settings,
                                  started_at=old.provenance.started_at)
        trials = old.trials
    source = checkpoint.path if checkpoint.path.exists() else output
    return PreviousRun(header=header, trials=tuple(trials), duration_s=old.provenance.duration_s if old else 0.0,
                       source=source)


def _old_result(output: Path, *, needed: bool) -> RunFile | None:
    """The finished result file, if there is one. When a checkpoint carries the run on, a damaged result file
    costs only the time it recorded; when it is all there is to resume from, its fault is the user's to fix."""
    if not output.is_file():
        return None
    try:
        return load_run_file(output)
    except UserError:
        if needed:
            raise
        return None


def trials_to_keep(previous: PreviousRun, tasks: tuple[LoadedTask, ...], trials: int) -> tuple[TrialRecord, ...]:
    """The earlier trials this run keeps. Infra and invalid trials run again (the server may have been fixed
    in between), and so do trials of a changed task or graded under an older grading version of it."""
    current = {t.id: t for t in tasks}
    keep: dict[tuple[str, int], TrialRecord] = {}
    for rec in previous.trials:
        task = current.get(rec.task_id)
        if (task is not None and task.hash == rec.task_hash and rec.trial < trials and not rec.infra
                and rec.invalid_reason is None and rec.task_version == task.task.version):
            keep[(rec.task_id, rec.trial)] = rec
    return tuple(keep.values())


def holds_other_tasks(previous: PreviousRun, tasks: tuple[LoadedTask, ...]) -> bool:
    """Whether the earlier attempt has scorable trials of tasks outside this selection: then its checkpoint is
    kept after the run, so that a wider selection later can still use them."""
    selected = {t.id for t in tasks}
    return any(r.task_id not in selected and not r.infra for r in previous.trials)
