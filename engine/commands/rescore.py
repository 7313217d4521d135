"""``sllmb rescore``: regrade a result file's stored trials with the current graders (no model is called)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.analysis.scoring import score_run
from engine.bank.load import default_tasks_dir
from engine.core.errors import UserError
from engine.core.percent import percent_text
from engine.core.results import load_run_file, write_run_file
from engine.episodes import MODULE_NAMES
from engine.run.rescore import rescore_run, rescored_path_for, sandbox_factory


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "rescore",
        help="regrade stored trials with the current graders",
        description="Regrade every graded trial of a result file with the current graders, without calling a "
        "model, and write the result to a new file (<model>_rescored.json) unless --in-place. "
        "Trials whose task changed since the run (task hash mismatch) keep their grade and are "
        "listed. A judged file made from the old grades goes stale where a det score moved.",
    )
    p.add_argument("--results", "-r", type=Path, required=True, help="a *_raw_results.json file")
    p.add_argument(
        "--output", "-o", type=Path, help="where to write (default <model>_rescored.json beside it)"
    )
    p.add_argument("--in-place", action="store_true", help="overwrite the result file itself")
    p.add_argument("--tasks-dir", type=Path, help="task bank folder (default ./tasks)")
    p.add_argument(
        "--sandbox", help="code sandbox backend for regrading code trials (default: the first that works)"
    )
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    if args.in_place and args.output:
        raise UserError("--in-place and --output exclude each other; pick one")
    run = load_run_file(args.results, MODULE_NAMES)
    out = args.results if args.in_place else (args.output or rescored_path_for(args.results))

    report = rescore_run(run, args.tasks_dir or default_tasks_dir(), sandbox_factory=sandbox_factory(args.sandbox))
    write_run_file(out, report.run)
    before, after = score_run(run), score_run(report.run)

    err = sys.stderr
    print(
        f"regraded {report.regraded} trial(s); {len(report.changed)} changed; "
        f"{report.untouched} kept as recorded (infra, invalid or failed before grading)",
        file=err,
    )
    for task_id, trial, old, new in report.changed[:20]:
        print(f"  changed {task_id}#{trial}: {old:.3f} -> {new:.3f}", file=err)
    for label, items in (
        ("task hash no longer matches the bank", report.hash_mismatch),
        ("task not found in the bank", report.missing_task),
    ):
        if items:
            shown = ", ".join(f"{t}#{i}" for t, i in items[:12]) + (" …" if len(items) > 12 else "")
            print(f"  {len(items)} trial(s) kept ({label}): {shown}", file=err)
    for task_id, trial, why in report.not_regraded[:12]:
        print(f"  not regraded {task_id}#{trial}: {why}", file=err)
    print(
        f"pass^{before.k}: {percent_text(before.headline)} -> {percent_text(after.headline)}; "
        f"det: {percent_text(before.det_score)} -> {percent_text(after.det_score)}",
        file=err,
    )
    print(f"wrote {out}", file=err)
    return 0
