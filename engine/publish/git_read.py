"""The one way the publish stage runs git: a repository read as data, bounded in time and in size.

Shared by the pull-request check (``pr_files.py``: what a pull request changed) and the board's history
(``board_history.py``). ``core.quotepath=off`` leaves non-ASCII paths unquoted; the callers add ``-z`` so paths
come raw and NUL-separated, and ``--no-ext-diff --no-textconv`` so that no program the repository configures
runs. Nothing the repository holds is executed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path


class GitError(Exception):
    """git could not run, ran past its time, wrote more than its bound, or refused (its message kept)."""


def git_output(root: Path, *args: str, timeout_s: float, max_bytes: int) -> bytes:
    """git's standard output for ``args`` run in ``root``; a GitError saying why when there is none."""
    try:
        done = subprocess.run(["git", "-c", "core.quotepath=off", *args], cwd=root, capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=timeout_s, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitError(f"git {args[0]} could not run in {root}: {exc}") from exc
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()[:500]
        raise GitError(f"git {' '.join(args[:2])} failed: {message}")
    if len(done.stdout) > max_bytes:
        raise GitError(f"git {args[0]} wrote {len(done.stdout)} bytes, more than the {max_bytes} read")
    return done.stdout
