"""``sllmb pr-check``: the pull-request check for a new model (the pr-model workflow runs it)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.bank.load import default_tasks_dir
from engine.core.results import FLEET_DIR
from engine.publish.pr_check import run_check
from engine.run.rescore import sandbox_factory


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "pr-check",
        help="re-derive the models and result files a pull request changes, and say where they land",
        description="Re-derive every file the pull request changes under results/ since --base (each graded "
                    "trial regraded from its transcript, code trials in the sandbox; every other trial, hash, "
                    "trial count and seed against what the runner writes; a judged file under the judge's "
                    "rules) and its models.yaml rows, then say where each changed model lands on the board "
                    "built from --results-dir. Prints Markdown for the job summary, listing every problem. "
                    "Exit 0 when everything re-derives; 2 when not.",
    )
    p.add_argument("--base", required=True, help="the commit the pull request is based on (fetched)")
    p.add_argument("--root", type=Path, default=Path("."),
                   help="the pull request's checkout, read as data only (default: .)")
    p.add_argument("--results-dir", type=Path, default=FLEET_DIR,
                   help="the folder of result files the board is built from, under --root (default: %(default)s)")
    p.add_argument("--tasks-dir", type=Path,
                   help="the task bank the trials are regraded against: the checker's own, never the pull "
                        "request's (default: ./tasks)")
    p.add_argument("--sandbox", help="code sandbox backend for regrading code trials (default: the first that works)")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    root = args.root.resolve()
    results = args.results_dir if args.results_dir.is_absolute() else root / args.results_dir
    result = run_check(args.base, root, results, (args.tasks_dir or default_tasks_dir()).resolve(),
                       sandbox_factory(args.sandbox))
    print(result.markdown(), end="")
    if result.ok:
        return 0
    print(f"error: {len(result.problems)} problem(s); the summary above lists each with its fix", file=sys.stderr)
    return 2  # bad input, as a UserError would exit
