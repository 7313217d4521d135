"""What an earlier attempt at the same output left: its checkpoint, or else its finished result file.

Both are read here, once, when the run is planned; the runner works from what this returns and never opens
them again.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from engine.core.errors import UserError
from engine.core.fileio import set_aside
from engine.core.results import load_run_file
from engine.core.schema import CheckpointHeader, RunFile, TrialRecord
from engine.episodes import MODULE_NAMES
from engine.episodes.base import LoadedTask
from engine.run.checkpoint import Checkpoint, checkpoint_path, fingerprint
from engine.run.resume_rule import stands


@dataclass(frozen=True)
class PreviousRun:
    header: CheckpointHeader | None  # None: nothing to resume
    trials: tuple[TrialRecord, ...]
    duration_s: float  # the time the finished result file recorded, added to this attempt's
    source: Path  # the file the header came from, named when its settings differ from the new ones


def read_previous(output: Path, resume: bool) -> PreviousRun:
    """Read the checkpoint and the old result file once. With ``resume`` off, both are set aside (kept as
    ``.bak`` files, never deleted) and nothing is read."""
    checkpoint = Checkpoint(checkpoint_path(output))
    if not resume:
        for path, what in ((checkpoint.path, "checkpoint"), (output, "result file")):
            moved = set_aside(path)
            if moved:
                print(f"--no-resume: the previous {what} was kept as {moved}", file=sys.stderr)
        return PreviousRun(header=None, trials=(), duration_s=0.0, source=output)
    header, trials = checkpoint.read()
    old = _old_result(output, needed=header is None)
    if header is None and old is not None:
        ran = old.provenance.server.get("model_file")
        header = CheckpointHeader(fingerprint=fingerprint(old.settings), settings=old.settings,
                                  started_at=old.provenance.started_at,
                                  model_file=str(ran)[:255] if ran is not None else None)
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
        return load_run_file(output, MODULE_NAMES)
    except UserError:
        if needed:
            raise
        return None


def trials_to_keep(previous: PreviousRun, tasks: tuple[LoadedTask, ...], trials: int) -> tuple[TrialRecord, ...]:
    """The earlier trials this run keeps: those that stand (``resume_rule.stands``). Infra and invalid trials
    run again (the server may have been fixed in between), and so do trials of a changed task or graded under
    an older grading version of it. (The resume rule has already refused a run that would leave out a task
    or a trial index that stands.)"""
    current = {t.id: t for t in tasks}
    keep: dict[tuple[str, int], TrialRecord] = {}
    for rec in previous.trials:
        if rec.trial < trials and stands(rec, current.get(rec.task_id)):
            keep[(rec.task_id, rec.trial)] = rec
    return tuple(keep.values())
