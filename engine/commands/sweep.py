"""``sllmb sweep PLAN.yaml``: one model under several configurations, each run into its own result file, then
each configuration against the first by the paired sign test: printed, and written as JSON and Markdown."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from engine.analysis.sweep_report import SweepReport, build_report, test_cell, to_markdown
from engine.commands.helpformat import LinesHelpFormatter
from engine.commands.items import wide_console
from engine.commands.jobs import job_args, run_mode
from engine.commands.score import weights_arg
from engine.core.fileio import atomic_write_text
from engine.core.results import load_run_file
from engine.episodes import MODULE_NAMES
from engine.run.sweep import sweep_jobs
from engine.run.sweep_plan import load_plan

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
        formatter_class=LinesHelpFormatter,
    )
    p.add_argument("file", type=Path, metavar="plan", help="the sweep plan (YAML)")
    weights_arg(p)
    job_args(p, one="configuration", collect="write the report")
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


def handle(args: argparse.Namespace) -> int:
    plan = load_plan(args.file)
    assert plan.output is not None  # load_plan fills it
    done = run_mode(args, sweep_jobs(plan), plan.output, command=f"sllmb sweep {args.file}", what="sweep plan")
    if isinstance(done, int):
        return done
    if args.only:
        print(f"ran {', '.join(d.job.name for d in done)}; once every configuration's file is there, "
              f"'sllmb sweep {args.file} --report-only' writes the report", file=sys.stderr)
        return 0
    named = [(d.job.name, d.output, load_run_file(d.output, MODULE_NAMES), d.reused) for d in done]
    report = build_report(args.file, plan.model, named, weights=args.weights)
    json_path, md_path = plan.output / f"{REPORT_NAME}.json", plan.output / f"{REPORT_NAME}.md"
    atomic_write_text(json_path, report.model_dump_json(indent=1) + "\n")
    atomic_write_text(md_path, to_markdown(report))
    render(report, wide_console())
    print(f"wrote {json_path} and {md_path}")
    return 0
