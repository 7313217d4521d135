"""``sllmb probe``: try a new task on a weak, a mid and a strong model before it enters the bank."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from engine.analysis.task_probe import (
    DEFAULT_TRIALS,
    GAP,
    ROLES,
    SLACK,
    ProbeConfig,
    ProbeReport,
    ProbeTarget,
    probe_task,
)
from engine.commands.helpformat import LinesHelpFormatter
from engine.core.config import Settings, parse_bool
from engine.core.errors import UserError
from engine.episodes import SPECS

EPILOG = """verdicts (exit code 0 for ACCEPT, 1 otherwise):
  ACCEPT   strong beats weak by the gap, mid in between, at most one model flaky, grading reproducible
  REPROBE  some signal but not enough (small gap, muddled order, too flaky) or too many infra errors
  REJECT   grading not reproducible, dead easy, dead hard, or inverted (weak beats strong by the gap)
environment: BENCH_ENDPOINT (default for every role), BENCH_API_KEY (sent to every endpoint)
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "probe",
        help="check a new task separates a weak, a mid and a strong model",
        description="Run one new task file against three declared models (weak, mid, strong), several trials "
        "each, regrade every transcript to check the grading is stable, and print ACCEPT, "
        "REPROBE or REJECT. New tasks go through this before they enter the bank.",
        epilog=EPILOG,
        formatter_class=LinesHelpFormatter,
    )
    p.add_argument(
        "--task", "-t", type=Path, required=True, help="the task file, e.g. tasks/tools/tl_new.yaml"
    )
    for role in ROLES:
        p.add_argument(f"--{role}", required=True, metavar="MODEL", help=f"the {role} model's name")
        p.add_argument(
            f"--{role}-endpoint", metavar="URL", help=f"endpoint of the {role} model (default --endpoint)"
        )
    p.add_argument("--endpoint", "-e", help="endpoint shared by the three models (default BENCH_ENDPOINT)")
    p.add_argument(
        "--trials",
        "-n",
        type=int,
        default=DEFAULT_TRIALS,
        help=f"trials per model (default {DEFAULT_TRIALS})",
    )
    p.add_argument("--concurrency", "-c", type=int, default=1, help="parallel trials per model (default 1)")
    p.add_argument("--temperature", type=float, help="sampling temperature (unset: each server's default)")
    p.add_argument("--thinking", type=parse_bool, metavar="on|off", help="ask the servers to reason or not")
    p.add_argument(
        "--gap", type=float, default=GAP, help=f"pass-rate gap strong over weak to accept (default {GAP})"
    )
    p.add_argument("--sandbox", help="code tasks only: sandbox backend (default: the first that works)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=handle)


def render(report: ProbeReport, console: Console) -> None:
    t = Table(title=f"probe {escape(report.task_id)} ({report.module}) · {report.trials} trials per model")
    for col in ("role", "model", "passed", "scorable", "rate", "flaky"):
        t.add_column(col, justify="left" if col in ("role", "model") else "right")
    for o in report.outcomes:
        t.add_row(
            o.role,
            escape(o.model),
            str(o.passed),
            str(o.scorable),
            "—" if o.rate is None else f"{o.rate:.0%}",
            "yes" if o.flaky else "",
        )
    console.print(t)
    console.print(f"regrade mismatches: {report.regrade_mismatches}", markup=False)
    console.print(f"verdict: {report.verdict}", markup=False)
    for reason in report.reasons:
        console.print(f"  - {reason}", markup=False)


def handle(args: argparse.Namespace) -> int:
    settings = Settings()
    shared = args.endpoint or settings.raw("BENCH_ENDPOINT")
    key = settings.raw("BENCH_API_KEY")
    targets = []
    for role in ROLES:
        endpoint = getattr(args, f"{role}_endpoint") or shared
        if not endpoint:
            raise UserError(
                f"no endpoint for the {role} model: pass --{role}-endpoint or --endpoint, or set "
                "BENCH_ENDPOINT"
            )
        targets.append(ProbeTarget(role=role, model=getattr(args, role), endpoint=endpoint, api_key=key))
    if args.concurrency < 1 or not 0 < args.gap <= 1:
        raise UserError("--concurrency must be at least 1 and --gap between 0 and 1")
    sandbox = None
    spec = SPECS.get(args.task.parent.name)  # the task's folder is its module
    if spec is not None and spec.runs_code:
        from engine.sandbox import open_sandbox

        sandbox = open_sandbox(args.sandbox)
    report = probe_task(
        ProbeConfig(
            task_file=args.task,
            targets=targets,
            trials=args.trials,
            concurrency=args.concurrency,
            temperature=args.temperature,
            thinking=args.thinking,
            gap=args.gap,
            slack=SLACK,
            show_progress=sys.stderr.isatty() and not args.json,
            sandbox=sandbox,
        )
    )
    if args.json:
        sys.stdout.write(report.model_dump_json(indent=1) + "\n")
    else:
        render(report, Console())
    return 0 if report.verdict == "ACCEPT" else 1
