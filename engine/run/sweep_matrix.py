"""The fleet workflow's matrix for a sweep plan or a fleet list: one job per configuration or model, on the
runners the file names.

The workflow reads this JSON rather than parsing YAML in shell, so the file is validated once, by the same
model ``sllmb sweep`` or ``sllmb fleet`` uses. Every value in it is a validated name (a configuration's plain
word, a model name; ``key``, the artifact's name, is always a plain word: the result file's stem), a runner
label (a plain word) or a path the file's own folder gives, relative to the working directory (the
workflow's checkout), where the jobs upload from and the last job downloads to.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from engine.core.errors import UserError
from engine.core.results import RAW_SUFFIX
from engine.run.sweep import Job


def _inside(path: Path, root: Path, plan_path: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        raise UserError(f"{plan_path}: field 'output': {path} is outside the working directory {root}; the "
                        "workflow uploads and collects the result files inside its checkout, so give an output "
                        "folder under it (or leave output out)") from None


def job_matrix(jobs: Sequence[Job], output: Path, plan_path: Path, root: Path) -> dict:
    """``{"matrix": {"include": [...]}, "output": DIR}``: one include per job (its name, its result file's stem
    as the artifact's key, runner labels and result file) and the folder the result files go to, relative to
    ``root``."""
    include = [{"name": j.name, "key": j.output.name.removesuffix(RAW_SUFFIX),
                "runs_on": list(j.target.runs_on or j.shared.runs_on),
                "result": _inside(j.output, root, plan_path)} for j in jobs]
    return {"matrix": {"include": include}, "output": _inside(output, root, plan_path)}
