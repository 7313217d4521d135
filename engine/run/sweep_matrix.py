"""The fleet workflow's matrix for a sweep plan: one job per configuration, on the runners the plan names.

The workflow reads this JSON rather than parsing YAML in shell, so the plan is validated once, by the same
model ``sllmb sweep`` uses. Every value in it is a validated plain word (configuration names, runner labels)
or a path the plan's own folder gives, relative to the working directory (the workflow's checkout), where the
jobs upload from and the last job downloads to.
"""

from __future__ import annotations

from pathlib import Path

from engine.core.errors import UserError
from engine.run.sweep import result_file
from engine.run.sweep_plan import SweepPlan


def _inside(path: Path, root: Path, plan_path: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        raise UserError(f"{plan_path}: field 'output': {path} is outside the working directory {root}; the "
                        "workflow uploads and collects the result files inside its checkout, so give an output "
                        "folder under it (or leave output out)") from None


def sweep_matrix(plan: SweepPlan, plan_path: Path, root: Path) -> dict:
    """``{"matrix": {"include": [...]}, "output": DIR}``: one include per configuration (its name, runner
    labels and result file) and the folder the result files and the report go to, relative to ``root``."""
    assert plan.output is not None  # load_plan fills it
    include = [{"name": c.name, "runs_on": list(c.runs_on or plan.runs_on),
                "result": _inside(result_file(plan, c), root, plan_path)} for c in plan.configurations]
    return {"matrix": {"include": include}, "output": _inside(plan.output, root, plan_path)}
