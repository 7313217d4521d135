"""``sllmb pr-check``: the pull-request check for a new model (the pr-model workflow runs it)."""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.core.errors import UserError
from engine.publish.pr_check import run_check


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "pr-check",
        help="validate the models and result files a pull request changes, and say where they land",
        description="Validate the models.yaml rows and result files changed since --base, then say where each "
                    "changed model lands on the board built from --results-dir. Prints Markdown for the job "
                    "summary. Exit 0 when everything validates; 2 with the file, field and fix when not.",
    )
    p.add_argument("--base", required=True, help="the commit the pull request is based on (fetched)")
    p.add_argument("--results-dir", type=Path, default=Path("results/reference"),
                   help="the folder of result files the board is built from (default: %(default)s)")
    p.add_argument("--root", type=Path, default=Path("."), help="the repository checkout (default: .)")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    root = args.root.resolve()
    results = args.results_dir if args.results_dir.is_absolute() else root / args.results_dir
    try:
        print(run_check(args.base, root, results), end="")
    except UserError as exc:
        # The job summary shows the reason too, not only the log.
        print(f"## Model check\n\n**Invalid:** {exc}")
        raise
    return 0
