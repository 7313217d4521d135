"""What ``sllmb sweep`` and ``sllmb fleet`` share: the flags of a file of jobs (one per configuration or model)
and their modes: run them all, run one (--only, a job of the fleet workflow), print the workflow's matrix
(--matrix), or run nothing and collect the files as they stand (--report-only, with --rederive)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from engine.bank.load import default_tasks_dir
from engine.commands.run import request_limits, timeout_args
from engine.core.config import Settings
from engine.core.errors import UserError
from engine.core.results import load_run_file
from engine.episodes import MODULE_NAMES
from engine.run.rederive import rederive_run
from engine.run.rescore import sandbox_factory
from engine.run.sweep import Job, SweepRun, chosen, collected, run_jobs
from engine.run.sweep_matrix import job_matrix


def job_args(p: argparse.ArgumentParser, *, one: str, collect: str) -> None:
    """The shared flags; ``one`` says what a job is ("configuration", "model") and ``collect`` what the
    collecting mode does once the files are there."""
    p.add_argument("--no-warm-up", dest="warm_up", action="store_false",
                   help="skip each server check's warm-up request and tool-call check")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bars")
    timeout_args(p)  # the same deadlines for every job; a slow machine needs longer ones
    p.add_argument("--only", action="append", metavar="NAME",
                   help=f"run only this {one} (repeatable): one job of the fleet workflow; nothing else is "
                        "written")
    p.add_argument("--report-only", action="store_true",
                   help=f"run nothing: {collect} from the result files as they stand (each must be finished)")
    p.add_argument("--rederive", action="store_true",
                   help="with --report-only: first re-derive every result file from its transcripts, as the "
                        "pull-request check does (code trials in the sandbox); exit 2 on any difference")
    p.add_argument("--sandbox", help="with --rederive: the code sandbox backend (default: the first that works)")
    p.add_argument("--matrix", action="store_true",
                   help=f"print the fleet workflow's matrix as one line of JSON and run nothing: one job per {one} "
                        "with its runner labels and result file, and the output folder")


def rederived(tasks_dir: Path | None, files: list[Path], sandbox: str | None) -> bool:
    """Whether every file re-derives from its transcripts; each difference printed, naming the file."""
    tasks = (tasks_dir or default_tasks_dir()).resolve()
    ok = True
    for path in files:
        problems = rederive_run(load_run_file(path, MODULE_NAMES), tasks, sandbox_factory=sandbox_factory(sandbox))
        for problem in problems:
            print(f"{path}: {problem}", file=sys.stderr)
        print(f"{path}: {'re-derived' if not problems else f'{len(problems)} difference(s)'}", file=sys.stderr)
        ok = ok and not problems
    return ok


def run_mode(args: argparse.Namespace, jobs: Sequence[Job], output: Path, *, command: str,
             what: str) -> list[SweepRun] | int:
    """The jobs run (all, or --only's) or collected (--report-only), or an exit status where the mode ends
    here (--matrix printed, a file that does not re-derive). ``command`` runs the file (``sllmb sweep
    PLAN``), named in the fixes; ``what`` is the file's kind (``sweep plan``)."""
    if (args.rederive or args.sandbox) and not args.report_only:
        raise UserError("--rederive and --sandbox go with --report-only (the fleet workflow's last job)")
    if sum(map(bool, (args.only, args.report_only, args.matrix))) > 1:
        raise UserError("give one of --only, --report-only and --matrix")
    if args.matrix:
        # One line: the workflow appends it to $GITHUB_OUTPUT as is.
        print(json.dumps(job_matrix(jobs, output, args.file, Path.cwd()), separators=(",", ":")))
        return 0
    if args.report_only:
        done = collected(jobs, command)
        if args.rederive and not rederived(jobs[0].shared.tasks_dir, [d.output for d in done], args.sandbox):
            print("error: a result file does not re-derive; the lines above name each difference and its fix",
                  file=sys.stderr)
            return 2
        return done
    return run_jobs(chosen(jobs, args.only, what), api_key=Settings().raw("BENCH_API_KEY"), warm_up=args.warm_up,
                    show_progress=not args.quiet, limits=request_limits(args))
