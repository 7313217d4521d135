"""The one rule for what a resumed run may change from the attempt it continues, and what it must refuse.

A run adds to its output; it never drops a trial the output holds and never mixes trials made under
different conditions. Against the earlier attempt's settings (its checkpoint's header, or its finished file):

* must match: everything that decides what the model saw or how a reply was ended (``MUST_MATCH``);
* may change: the server's address (a restarted server), the concurrency, ``--early-stop`` (it decides only
  which trials run, and the file records the last attempt's);
* may grow, never shrink: the trials per task, and the task selection (profile, modules, filter): every task
  the earlier attempt holds a standing trial of must still be selected and run;
* the sandbox backend must match once the earlier attempt has graded code in it.

A trial that does not stand (an infrastructure error, an invalid trial, a trial of a task that changed or left
the bank) runs again or goes, as it always did: it is not a result. ``--no-resume`` is the way to start over; it
keeps the earlier checkpoint and result file as ``.bak`` files.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from engine.core.errors import UserError
from engine.core.schema import RunSettings, TrialRecord
from engine.episodes import SPECS
from engine.episodes.base import LoadedTask
from engine.model import servers

# Settings that decide what the model saw or how its replies were ended.
MUST_MATCH = ("model", "thinking", "temperature", "top_p", "top_k", "min_p", "seed", "max_tokens", "stop_loops")
# Named in the docs and the message; everything in RunSettings is in one of these or in MUST_MATCH. The
# sampling mode and its card's address name where the values came from; the values themselves must match.
MAY_CHANGE = ("endpoint_host", "concurrency", "early_stop", "sampling_mode", "sampling_source")
MAY_GROW = ("trials", "profile", "modules", "filter")
MATCH_ONCE_CODE_RAN = ("sandbox_backend",)
SAMPLING = ("temperature", "top_p", "top_k", "min_p")
# Shown at most this many task ids in a message.
SHOWN_IDS = 8


def stands(record: TrialRecord, task: LoadedTask | None) -> bool:
    """Whether an earlier trial is a result of ``task`` as the bank holds it now: scorable, of the same task
    text and grading version. Anything else runs again when its task is selected."""
    return (task is not None and task.hash == record.task_hash and not record.infra
            and record.invalid_reason is None and record.task_version == task.task.version)


def _then(old: RunSettings, name: str) -> object:
    # A file from before top_p was recorded: the bench sent --top-p or, unless it was given, the default.
    if name == "top_p" and old.top_p is None:
        return servers.DEFAULT_TOP_P
    return getattr(old, name)


def _selection(s: RunSettings) -> str:
    parts = [f"--profile {s.profile}"]
    if s.modules:
        parts.append(f"--modules {','.join(s.modules)}")
    if s.filter:
        parts.append(f"--filter {s.filter!r}")
    return " ".join(parts)


def resume_problems(old: RunSettings, new: RunSettings, held: Sequence[TrialRecord],
                    selected: Sequence[LoadedTask], bank: Callable[[], Mapping[str, LoadedTask]]) -> list[str]:
    """What this run would change that a resume may not, one line each; empty when it may resume.

    ``held`` are the earlier attempt's trials, ``selected`` the tasks this run runs, ``bank`` the whole bank by
    id (read only when a held trial's task is not selected)."""
    problems = [f"{n}: {_then(old, n)!r} then, {getattr(new, n)!r} now" for n in MUST_MATCH
                if _then(old, n) != getattr(new, n)]
    if new.trials < old.trials:
        problems.append(f"trials: {old.trials} then, {new.trials} now (a run may add trials, never drop them: "
                        f"give --trials {old.trials} or more, or --add-trials)")
    ran_code = any(r.module in SPECS and SPECS[r.module].runs_code and r.grade is not None and not r.infra
                   for r in held)
    if ran_code and new.sandbox_backend != old.sandbox_backend:
        problems.append(f"sandbox_backend: {old.sandbox_backend!r} then, {new.sandbox_backend!r} now (its "
                        "code trials were run in the first)")
    chosen = {t.id for t in selected}
    outside = [r for r in held if r.task_id not in chosen]
    if outside:
        tasks = bank()
        left_out = sorted({r.task_id for r in outside if stands(r, tasks.get(r.task_id))})
        if left_out:
            shown = ", ".join(left_out[:SHOWN_IDS]) + (" …" if len(left_out) > SHOWN_IDS else "")
            problems.append(f"the selection leaves out {len(left_out)} task(s) it holds finished trials of "
                            f"({shown}): a run may add tasks, never drop them; select them too (it was "
                            f"{_selection(old)})")
    return problems


def check_resume(source: Path, old: RunSettings, new: RunSettings, held: Sequence[TrialRecord],
                 selected: Sequence[LoadedTask], bank: Callable[[], Mapping[str, LoadedTask]]) -> None:
    """Raise ``UserError`` naming every change a resume may not make; say so when an old file is read by
    an assumption (a top_p it did not record)."""
    problems = resume_problems(old, new, held, selected, bank)
    if problems:
        sampled = any(p.split(":", 1)[0] in SAMPLING for p in problems) and old.sampling_mode != new.sampling_mode
        again = ("the same --temperature/--top-p/--top-k/--min-p" if old.sampling_mode == "custom"
                 else f"--sampling {old.sampling_mode}")
        hint = (f" (it sampled in {old.sampling_mode} mode, this run in {new.sampling_mode}: give {again})"
                if sampled else "")
        raise UserError(
            f"{source} cannot be resumed by this run: " + "; ".join(problems) + f"{hint}. Re-issue the original "
            "command to resume it, choose another --output, or pass --no-resume to start over (the old "
            "checkpoint and result file are kept as .bak files)"
        )
    if old.top_p is None:
        print(f"note: {source} does not record top_p (it was written before top_p was); resumed as "
              f"{servers.DEFAULT_TOP_P}, the default then", file=sys.stderr)


def check_model_file(source: Path, ran: str | None, now: str | None) -> None:
    """Refuse to resume an attempt that ran another model file on the embedded server (``ran``: the earlier
    attempt's, from its checkpoint header or its result file; ``now``: this run's), so that trials of a Q4 and
    a Q8 file never share one result. Either unknown (a server of one's own, an older checkpoint): allowed."""
    if ran is not None and now is not None and ran != now:
        raise UserError(f"{source} was made with the model file {ran[:200]!r}, and this run would use {now[:200]!r}; "
                        "trials of two model files cannot share one result: give the new file its own --output (a "
                        "sweep: a new configuration name), or --no-resume to start over (the old files are kept "
                        "as .bak)")
