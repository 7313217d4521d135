"""The JSONL checkpoint beside a run's output: a header line, then one fsynced line per finished trial.

A crash can cut at most the line being written; everything before it is kept, and re-issuing the same
command picks up exactly the trials that are missing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import TextIO

from pydantic import ValidationError

from engine.core.errors import UserError
from engine.core.fileio import atomic_write_text, read_text
from engine.core.schema import CheckpointHeader, RunSettings, TrialRecord, module_context
from engine.core.scrub import scrub
from engine.episodes import MODULE_NAMES
from engine.run.resume_rule import MUST_MATCH


def checkpoint_path(output: Path) -> Path:
    return output.with_name(output.name.removesuffix(".json") + ".partial.jsonl")


def fingerprint(settings: RunSettings) -> str:
    """A short hash of the settings a resume must match, for a person reading the header (the resume rule
    compares the settings themselves: ``engine.run.resume_rule``)."""
    picked = {name: getattr(settings, name) for name in MUST_MATCH}
    return hashlib.sha256(json.dumps(picked, sort_keys=True).encode()).hexdigest()[:16]


class Checkpoint:
    """Append-only trial log. Open it with ``start`` (fresh) or ``resume`` (keep what is there)."""

    def __init__(self, path: Path):
        self.path = path
        self._handle: TextIO | None = None

    def read(self) -> tuple[CheckpointHeader | None, list[TrialRecord]]:
        if not self.path.is_file():
            return None, []
        fix = "; re-run with --no-resume to start over (the file is kept as a backup)"
        # One record per "\n" and nothing else: str.splitlines() also breaks at U+2028, U+0085, \x1c ... which
        # JSON leaves unescaped inside strings, so a reply holding one would split its own record in two.
        lines = read_text(self.path, "the checkpoint", fix).split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        header: CheckpointHeader | None = None
        trials: list[TrialRecord] = []
        known = module_context(MODULE_NAMES)
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                if number == 1:
                    header = CheckpointHeader.model_validate(data, context=known)
                else:
                    trials.append(TrialRecord.model_validate(data, context=known))
            except (json.JSONDecodeError, ValidationError) as exc:
                if number == len(lines) and number > 1:
                    break  # the last line was cut by a crash mid-write: that trial simply runs again
                why = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else exc.__class__.__name__
                raise UserError(f"{self.path}:{number}: corrupt checkpoint line ({why}){fix}") from exc
        return header, trials

    def open(self, header: CheckpointHeader, keep: list[TrialRecord]) -> None:
        """Rewrite the file cleanly (header plus the trials kept), then append from there on."""
        text = header.model_dump_json() + "\n" + "".join(t.model_dump_json() + "\n" for t in keep)
        atomic_write_text(self.path, text)  # scrubs
        self._handle = self.path.open("a", encoding="utf-8")

    def append(self, trial: TrialRecord) -> None:
        assert self._handle is not None, "open() the checkpoint first"
        try:
            self._handle.write(scrub(trial.model_dump_json()) + "\n")
            self._handle.flush()
            os.fsync(self._handle.fileno())
        except OSError as exc:
            # A line cut by a full disk is the last line, which the reader drops: that trial runs again.
            raise UserError(f"{self.path}: cannot add a trial to the checkpoint: {exc.strerror or exc}; the "
                            "trials before it are kept: free some space, then issue the same command again "
                            "to resume") from exc

    def close(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            # Every line was flushed as it was added; what close could still fail on is a line a full disk
            # cut, which the reader drops (that trial runs again).
            with contextlib.suppress(OSError):
                handle.close()
