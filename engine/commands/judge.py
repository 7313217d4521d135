"""``sllmb judge``: run the LLM judge over a result file and write ``<model>_judged.json`` beside it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.analysis.judge import JudgeConfig, judge_run, judged_path_for, verdict_counts, write_judged_file
from engine.bank.load import default_tasks_dir
from engine.commands.helpformat import LinesHelpFormatter
from engine.core.config import Settings
from engine.core.errors import UserError
from engine.core.results import load_run_file
from engine.episodes import MODULE_NAMES
from engine.model.requestlimits import STALL_AFTER

ENV_HELP = """environment (also read from ./.env; flags win for endpoint and model):
  JUDGE_ENDPOINT   OpenAI-compatible base URL of the judge, ending in /v1
  JUDGE_MODEL      the judge model's name
  JUDGE_API_KEY    the judge's API key; read only from here, never from a flag, never written anywhere
exit codes: 0 every sent trial judged; 2 some module fell back to det scores (unless --allow-partial),
  or the judge stopped answering (nothing written)
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "judge",
        help="appeal verdicts of a result file to an LLM judge (optional)",
        description="Send the judgeable trials of a result file to an LLM judge and write "
        "<model>_judged.json "
        "beside it. The raw file is never changed. The judge may move tools and multi_turn_if "
        "verdicts under strict thresholds, never across a hard gate; it sees adversarial, code "
        "and long_context without changing them, and never sees format or knowledge.",
        epilog=ENV_HELP,
        formatter_class=LinesHelpFormatter,
    )
    p.add_argument("--results", "-r", type=Path, required=True, help="a *_raw_results.json file")
    p.add_argument("--judge-endpoint", help="judge base URL (default JUDGE_ENDPOINT)")
    p.add_argument("--judge-model", help="judge model name (default JUDGE_MODEL)")
    p.add_argument(
        "--output", "-o", type=Path, help="judged file (default <model>_judged.json beside the results)"
    )
    p.add_argument(
        "--allow-partial",
        action="store_true",
        help="exit 0 even when some judge calls failed (those modules keep their det scores)",
    )
    p.add_argument("--judge-concurrency", type=int, default=4, help="parallel judge calls (default 4)")
    p.add_argument("--judge-timeout", type=float, default=120.0,
                   help="seconds a whole judge call may take (default 120); a timed-out call is retried at most "
                        f"once. After {STALL_AFTER} calls in a row time out the judge stops and writes nothing")
    p.add_argument("--judge-retries", type=int, default=2, help="retries of a judge call on server errors")
    p.add_argument("--tasks-dir", type=Path, help="task bank, for the task descriptions shown to the judge")
    p.set_defaults(func=handle)


def build_config(args: argparse.Namespace, settings: Settings) -> JudgeConfig:
    endpoint = args.judge_endpoint or settings.raw("JUDGE_ENDPOINT")
    model = args.judge_model or settings.raw("JUDGE_MODEL")
    if not endpoint or not model:
        raise UserError(
            "the judge needs an endpoint and a model: pass --judge-endpoint and --judge-model, or "
            "set JUDGE_ENDPOINT and JUDGE_MODEL (and JUDGE_API_KEY if it needs a key)"
        )
    if args.judge_timeout <= 0 or args.judge_retries < 0:
        raise UserError("--judge-timeout must be positive and --judge-retries 0 or more")
    tasks_dir = args.tasks_dir or default_tasks_dir()
    return JudgeConfig(
        endpoint=endpoint,
        model=model,
        api_key=settings.raw("JUDGE_API_KEY"),
        concurrency=args.judge_concurrency,
        timeout_s=args.judge_timeout,
        max_retries=args.judge_retries,
        tasks_dir=tasks_dir,
    )


def handle(args: argparse.Namespace) -> int:
    cfg = build_config(args, Settings())
    run = load_run_file(args.results, MODULE_NAMES)
    out = args.output or judged_path_for(args.results)
    if out.resolve() == args.results.resolve():
        raise UserError(
            f"{out}: the judged file would overwrite the raw result file; choose another --output"
        )
    judged = judge_run(run, args.results, cfg)
    write_judged_file(out, judged)
    counts = verdict_counts(judged)
    summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "no trial to judge"
    print(
        f"judged {len(judged.verdicts)} trial(s) of {run.settings.model}: {summary}; "
        f"{judged.changed} verdict(s) changed",
        file=sys.stderr,
    )
    print(f"wrote {out}", file=sys.stderr)
    if judged.flagged_modules:
        failed = [v for v in judged.verdicts if v.status == "failed"]
        print(
            f"warning: judge calls failed in {', '.join(judged.flagged_modules)} "
            f"({len(failed)} call(s), first: "
            f"{failed[0].error}); those modules keep their det scores and are flagged",
            file=sys.stderr,
        )
        return 0 if args.allow_partial else 2
    return 0
