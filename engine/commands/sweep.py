"""``sllmb sweep PLAN.yaml``: one model under several configurations, each run into its own result file, then
each configuration against the first by the paired sign test: printed, and written as JSON and Markdown."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from engine.analysis.sweep_report import SweepReport, build_report, test_cell, to_markdown
from engine.bank.load import default_tasks_dir
from engine.commands.items import wide_console
from engine.commands.run import request_limits, timeout_args
from engine.commands.score import weights_arg
from engine.core.config import Settings
from engine.core.errors import UserError
from engine.core.fileio import atomic_write_text
from engine.core.results import load_run_file
from engine.episodes import MODULE_NAMES
from engine.run.rederive import rederive_run
from engine.run.rescore import sandbox_factory
from engine.run.sweep import collected, run_sweep
from engine.run.sweep_matrix import sweep_matrix
from engine.run.sweep_plan import SweepPlan, load_plan

REPORT_NAME = "sweep_report"

PLAN_HELP = """plan (YAML; unknown keys are errors):
  model: qwen3-8b                  # the one model every configuration runs
  profile: fast                    # full or fast; also modules: [...], filter: GLOB, tasks_dir: DIR
  trials: 3                        # and seed: 0, the same for all (the test pairs tasks on the same seeds)
  output: sweeps/qwen3-8b          # default sweeps/<plan name>; relative to the plan's folder
  configurations:                  # the first is the baseline
    - name: q4-server
      endpoint: http://127.0.0.1:8080/v1
      served_model: qwen3-8b-q4    # the name that server knows it by (default: model)
    - name: embedded-q8kv
      embedded: {model: smollm2-135m, context: 8192, slots: 2, kv_cache_type: q8_0}
      temperature: 0.0             # also top_p, top_k, min_p (0: off), thinking: on|off, max_tokens
    - name: card-sampling
      sampling: card               # or bench; default: as run does (the card's where the models.yaml row
                                   # has one); not with temperature, top_p, top_k or min_p
    - name: own-q8
      embedded: {gguf: models/qwen3-8b-Q8_0.gguf}  # a GGUF of your own, relative to the plan's folder
      runs_on: [self-hosted, gpu]  # the fleet workflow's runner labels (also plan-wide; default self-hosted)
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sweep",
        help="one model under several configurations, each against the first",
        description=(
            "Run one model under each configuration of a plan (its own server or the embedded one, its "
            "sampler, thinking, token budget), each into its own result file under the plan's output folder, "
            "then compare each configuration with the first, overall and per module: pass^k, det score, output "
            "tokens and seconds per passed trial, and the paired sign test over tasks, Holm-corrected across "
            "the configurations, with the tasks a bank would need where it cannot tell them apart. Each run "
            "resumes like 'sllmb run'; a finished one is not run again. Writes sweep_report.json and "
            "sweep_report.md beside the result files. BENCH_API_KEY is sent to the configurations' endpoints."
        ),
        epilog=PLAN_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("plan", type=Path, help="the sweep plan (YAML)")
    weights_arg(p)
    p.add_argument("--no-warm-up", dest="warm_up", action="store_false",
                   help="skip each server check's warm-up request and tool-call check")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bars")
    timeout_args(p)  # the same deadlines for every configuration; a slow machine needs longer ones
    p.add_argument("--only", action="append", metavar="NAME",
                   help="run only this configuration (repeatable) and write no report: one job of the fleet "
                        "workflow; the report comes from --report-only once every file is there")
    p.add_argument("--report-only", action="store_true",
                   help="run nothing: report on the result files as they stand (each must be finished)")
    p.add_argument("--rederive", action="store_true",
                   help="with --report-only: first re-derive every result file from its transcripts, as the "
                        "pull-request check does (code trials in the sandbox); exit 2 on any difference")
    p.add_argument("--sandbox", help="with --rederive: the code sandbox backend (default: the first that works)")
    p.add_argument("--matrix", action="store_true",
                   help="print the fleet workflow's matrix for the plan as one line of JSON and run nothing: "
                        "one job per configuration with its runner labels and result file, and the output folder")
    p.set_defaults(func=handle)


def render(report: SweepReport, console: Console) -> None:
    for scope in report.scopes:
        t = Table(title=f"{escape(scope.scope)} · pass^{report.k} · against {escape(report.baseline)}")
        t.add_column("configuration", no_wrap=True)
        for head in ("pass^k", "det", "tasks", "tokens/pass", "s/pass"):
            t.add_column(head, justify="right")
        t.add_column("against the baseline", overflow="fold")
        for r in scope.rows:
            t.add_row(escape(r.configuration), "—" if r.pass_k is None else f"{r.pass_k * 100:.1f}",
                      "—" if r.det_score is None else f"{r.det_score * 100:.1f}", str(r.tasks_scored),
                      "—" if r.tokens_per_pass is None else f"{r.tokens_per_pass:g}",
                      "—" if r.seconds_per_pass is None else f"{r.seconds_per_pass:g}", escape(test_cell(r.test)))
        console.print(t)
    for line in report.verdicts:
        console.print(line, markup=False)


def rederived(plan: SweepPlan, files: list[Path], sandbox: str | None) -> bool:
    """Whether every file re-derives from its transcripts; each difference printed, naming the file."""
    tasks_dir = (plan.tasks_dir or default_tasks_dir()).resolve()
    ok = True
    for path in files:
        problems = rederive_run(load_run_file(path, MODULE_NAMES), tasks_dir, sandbox_factory=sandbox_factory(sandbox))
        for problem in problems:
            print(f"{path}: {problem}", file=sys.stderr)
        print(f"{path}: {'re-derived' if not problems else f'{len(problems)} difference(s)'}", file=sys.stderr)
        ok = ok and not problems
    return ok


def handle(args: argparse.Namespace) -> int:
    if (args.rederive or args.sandbox) and not args.report_only:
        raise UserError("--rederive and --sandbox go with --report-only (the fleet workflow's last job)")
    if sum(map(bool, (args.only, args.report_only, args.matrix))) > 1:
        raise UserError("give one of --only, --report-only and --matrix")
    plan = load_plan(args.plan)
    if args.matrix:
        # One line: the workflow appends it to $GITHUB_OUTPUT as is.
        print(json.dumps(sweep_matrix(plan, args.plan, Path.cwd()), separators=(",", ":")))
        return 0
    if args.report_only:
        done = collected(plan)
        if args.rederive and not rederived(plan, [d.output for d in done], args.sandbox):
            print("error: a result file does not re-derive; the lines above name each difference and its fix",
                  file=sys.stderr)
            return 2
    else:
        done = run_sweep(plan, api_key=Settings().raw("BENCH_API_KEY"), warm_up=args.warm_up,
                         show_progress=not args.quiet, only=args.only, limits=request_limits(args))
    if args.only:
        print(f"ran {', '.join(d.configuration.name for d in done)}; once every configuration's file is there, "
              f"'sllmb sweep {args.plan} --report-only' writes the report", file=sys.stderr)
        return 0
    named = [(d.configuration.name, d.output, load_run_file(d.output, MODULE_NAMES), d.reused) for d in done]
    report = build_report(args.plan, plan.model, named, weights=args.weights)
    assert plan.output is not None  # load_plan fills it
    json_path, md_path = plan.output / f"{REPORT_NAME}.json", plan.output / f"{REPORT_NAME}.md"
    atomic_write_text(json_path, report.model_dump_json(indent=1) + "\n")
    atomic_write_text(md_path, to_markdown(report))
    render(report, wide_console())
    print(f"wrote {json_path} and {md_path}")
    return 0
