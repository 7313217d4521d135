"""The pull-request check's part for a committed sweep (``results/sweeps/<name>/``): the folder holds only what
``sllmb sweep`` writes (its result files, ``sweep_report.json`` and ``.md``) and the plan and notes beside
them, and the report the site shows is the one its result files give, rebuilt here, not taken on trust. The
result files themselves are re-derived like any other (``pr_check.run_check``)."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from pydantic import ValidationError

from engine.analysis.sweep_report import SweepReport, build_report
from engine.core.errors import UserError
from engine.core.results import RAW_SUFFIX, load_run_file
from engine.episodes import MODULE_NAMES

SWEEPS = "results/sweeps"
REPORT = "sweep_report.json"
# Beside the result files: the report (JSON for the site, Markdown for a reader), the plan, the notes.
SWEEP_FILES = frozenset({REPORT, "sweep_report.md", "plan.yaml", "README.md"})
# A sweep's folder name is its site page's address (engine/publish/site/sweep_pages.py holds it to this too).
SWEEP_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}")
# What the rebuilt report must agree with: everything the page shows that the files decide.
COMPARED = ("model", "k", "weights", "baseline", "scopes", "verdicts")


def sweep_folder(rel: str) -> str | None:
    """``results/sweeps/<name>`` when ``rel`` is a file directly in a sweep's folder, else None."""
    parts = PurePosixPath(rel).parts
    if len(parts) == 4 and "/".join(parts[:2]) == SWEEPS:
        return "/".join(parts[:3])
    return None


def where_in_sweep(rel: str) -> str | None:
    """Why ``rel`` may not be in a sweep's folder, or None when it may."""
    name, file = PurePosixPath(rel).parts[2:]
    if not SWEEP_NAME.fullmatch(name):
        return ("a sweep's folder name is its page's address on the site: letters, digits, '.', '_' and '-' "
                "(at most 80); rename the folder")
    if file in SWEEP_FILES or file.endswith(RAW_SUFFIX):
        return None
    return (f"a sweep's folder holds its result files (<configuration>{RAW_SUFFIX}), {', '.join(sorted(SWEEP_FILES))}"
            "; leave this out")


def rebuilt_report_problems(root: Path, folder: str, data: bytes) -> list[tuple[str, str]]:
    """(field, why) for each way the committed report differs from the one its folder's result files give."""
    try:
        stored = SweepReport.model_validate_json(data)
    except ValidationError as exc:
        return [(".".join(str(p) for p in e["loc"]) or "(top level)", f"not a valid sweep report: {e['msg']}")
                for e in exc.errors()]
    named = []
    for c in stored.configurations:
        if not SWEEP_NAME.fullmatch(c.name):
            return [("configurations", f"{c.name!r} is not a configuration name a plan allows")]
        path = root / folder / f"{c.name}{RAW_SUFFIX}"
        if not path.is_file() or path.is_symlink():
            return [("configurations", f"configuration {c.name!r} has no result file {folder}/{path.name} beside "
                                       "the report; commit it")]
        try:
            named.append((c.name, path, load_run_file(path, MODULE_NAMES), c.reused))
        except UserError as exc:
            return [("configurations", f"{folder}/{path.name} cannot be read: {str(exc).splitlines()[0]}")]
    if len(named) < 2:
        return [("configurations", "a sweep compares at least two configurations")]
    try:
        rebuilt = build_report(Path(stored.plan), stored.model, named, weights=stored.weights)
    except (UserError, ValueError, KeyError) as exc:
        return [("(top level)", f"the report cannot be rebuilt from its result files: {exc}")]
    return [(f, "differs from the report its result files give; write it again with `sllmb sweep PLAN "
                "--report-only` and commit that")
            for f in COMPARED if getattr(rebuilt, f) != getattr(stored, f)]
