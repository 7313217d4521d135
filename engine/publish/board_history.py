"""The board's changes, read from the git history of its result files as data: which model's file was added,
changed (a rescore or a re-run: the commit's subject says which, shown only as text) or removed, and when.

Only what git records is used: ``git log --name-status`` over ``<results>/*_raw_results.json``, each commit's
committer date and subject. The history is bounded (the newest ``MAX_COMMITS`` commits that touched such a
file, ``MAX_BYTES`` of output, ``TIMEOUT_S`` seconds) and every string in it is hostile: a subject is clipped and
its control characters dropped here, and the page escapes it. A build without the history (a source archive,
a shallow clone, no git) says so and lists nothing rather than failing or listing a shallow clone's first
commit as every model "added".
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from engine.core.results import RAW_SUFFIX
from engine.core.textclip import shorten
from engine.publish.dates import date_text
from engine.publish.git_read import GitError, git_output

MAX_COMMITS = 500
MAX_BYTES = 4 * 1024 * 1024
TIMEOUT_S = 60
SUBJECT_CHARS = 160
# What a status letter of --name-status means for a board row (T: a file became a link or back).
WHAT = {"A": "added", "M": "changed", "T": "changed", "D": "removed"}
_HEADER = re.compile(r"([0-9a-f]{40})\x1f([^\x1f]*)\x1f(.*)", re.DOTALL)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class BoardChange:
    date: str  # the commit's day (UTC), as every board date is written
    model: str  # the result file's name without _raw_results.json: the name the runner gave it
    file: str  # the result file's name, to match a row on the board
    what: str  # "added", "changed" or "removed"
    subject: str  # the commit's subject, clipped, control characters dropped: text, never markup
    commit: str  # the commit's abbreviated hash


@dataclass(frozen=True)
class BoardHistory:
    changes: tuple[BoardChange, ...]
    # None when the history was read; else why it could not be ("history not available: ...").
    unavailable: str | None = None
    # True when the history goes back further than the MAX_COMMITS read.
    cut: bool = False


def _clean(text: str) -> str:
    return shorten(" ".join(_CONTROL.sub(" ", text).split()), SUBJECT_CHARS)


def parse_log(out: bytes) -> tuple[tuple[BoardChange, ...], int]:
    """The entries (newest first) and the number of commits in the output of
    ``git log -z --name-status --relative --format=%H%x1f%cI%x1f%s``.

    A subject cannot hold a NUL, so each commit's header is one field; after it come (status, path) pairs
    until the next header. A field that fits neither is skipped, never guessed at.
    """
    fields = [os.fsdecode(f) for f in out.split(b"\0")]
    changes: list[BoardChange] = []
    header: re.Match[str] | None = None
    commits = 0
    i = 0
    while i < len(fields):
        field = fields[i].lstrip("\n")
        i += 1
        if match := _HEADER.fullmatch(field):
            header = match
            commits += 1
            continue
        if header is None or field[:1] not in WHAT or i >= len(fields):
            continue
        path = fields[i]
        i += 1
        # --relative names paths from the results folder: one in a subfolder is not a board row.
        if "/" in path or not path.endswith(RAW_SUFFIX) or len(path) <= len(RAW_SUFFIX):
            continue
        changes.append(BoardChange(
            date=date_text(header.group(2)), model=_clean(path[: -len(RAW_SUFFIX)]), file=path,
            what=WHAT[field[0]], subject=_clean(header.group(3)), commit=header.group(1)[:10],
        ))
    return tuple(changes), commits


def board_history(results_dir: Path) -> BoardHistory:
    """The board's changes, newest first, or why they cannot be listed; never raises for a missing history."""
    if not results_dir.is_dir():
        return BoardHistory((), "history not available: there is no results folder")
    try:
        shallow = git_output(results_dir, "rev-parse", "--is-shallow-repository", timeout_s=TIMEOUT_S, max_bytes=64)
        if shallow.strip() == b"true":
            return BoardHistory((), "history not available: this build's checkout is shallow (fetch-depth 0 "
                                    "gives the whole history)")
        out = git_output(results_dir, "log", "--no-renames", "--no-ext-diff", "--no-textconv", "-z", "--name-status",
                         "--relative", f"--max-count={MAX_COMMITS}", "--format=%H%x1f%cI%x1f%s", "--",
                         f":(glob)*{RAW_SUFFIX}", timeout_s=TIMEOUT_S, max_bytes=MAX_BYTES)
    except GitError:
        return BoardHistory((), "history not available: this build has no git history of the result files (a "
                                "source archive, or git is missing)")
    changes, commits = parse_log(out)
    return BoardHistory(changes, None, cut=commits >= MAX_COMMITS)
