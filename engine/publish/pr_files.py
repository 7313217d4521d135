"""What a pull request changed, read from git as data: every path (non-ASCII ones too) and the base's blobs.

``git diff --name-only`` quotes a path with non-ASCII bytes (``"results/\\320\\274..."``), so such a file used to
be missed. ``-z`` writes paths raw and NUL-separated, ``core.quotepath=off`` leaves them unquoted anywhere
else, and ``--no-renames`` reports a move as a deletion and an addition, so each rule sees both sides. No
external diff driver or text conversion runs (``--no-ext-diff --no-textconv``): the repository is the pull
request's, and nothing of it runs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from engine.core.errors import UserError
from engine.publish.git_read import GitError, git_output

GIT_TIMEOUT_S = 120
# A pull request's list of paths and one base file: far below this; more is not a pull request to check.
GIT_MAX_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True)
class Change:
    # "A" added, "M" modified, "D" deleted, "T" type changed (a file became a link or back).
    status: str
    # Repository-relative, with "/" separators, decoded from UTF-8 (other bytes kept as surrogate escapes).
    path: str


def _git(root: Path, *args: str) -> bytes:
    try:
        return git_output(root, *args, timeout_s=GIT_TIMEOUT_S, max_bytes=GIT_MAX_BYTES)
    except GitError as exc:
        raise UserError(f"{exc}; fetch the base commit first (a checkout with its history: fetch-depth 0)") from exc


def changed_paths(base: str, root: Path) -> list[Change]:
    """Every path that differs between the merge base of ``base`` and HEAD, and HEAD."""
    out = _git(root, "diff", "--no-renames", "--no-ext-diff", "--no-textconv", "-z", "--name-status",
               f"{base}...HEAD", "--")
    fields = [os.fsdecode(f) for f in out.split(b"\0") if f]
    if len(fields) % 2:
        raise UserError("git diff --name-status -z gave an odd number of fields; is this a git checkout?")
    return [Change(status=fields[i][0], path=fields[i + 1]) for i in range(0, len(fields), 2)]


def base_blob(base: str, root: Path, path: str) -> bytes | None:
    """The file at ``path`` in the base commit, or None where the base has none."""
    try:
        return _git(root, "cat-file", "blob", f"{base}:{path}")
    except UserError:
        return None
