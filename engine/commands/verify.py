"""``sllmb verify``: a maintainer's spot check of a result file against the model it claims to be."""

from __future__ import annotations

import argparse
import contextlib
import json
import secrets
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from engine.analysis.consistency import ALPHA
from engine.analysis.verify import SpotCheck, rerun_request, sample_tasks, spot_check
from engine.core.config import Settings, endpoint_url, float_in, int_in
from engine.core.errors import UserError
from engine.core.outputlock import output_lock
from engine.core.results import default_output, load_run_file, recorded_top_p
from engine.episodes import MODULE_NAMES

EXIT_CONSISTENT = 0
EXIT_INCONSISTENT = 1

_SAMPLE = int_in(1, 1000, " (tasks to re-run)")
_SEED = int_in(0, 2**32 - 1, " (the seed of the random choice of tasks)")
_ALPHA = float_in(0.0, 0.5, " (the significance level, e.g. 0.05)", low_open=True)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "verify",
        help="spot-check a result file: re-run a random sample of its tasks and test the pass rates",
        description="Re-run N random tasks of a result file against the same model at the file's settings "
        "(its trials, profile, temperature, top_p, seed, max tokens, thinking, --stop-loops and --early-stop) "
        "and say whether the file's pass counts are consistent with the re-run's: Fisher's exact test per "
        "task, combined by Fisher's method and by Holm's correction (the smaller, doubled, is the verdict's "
        "p). Only tasks whose hash and grading version are the bank's today can be re-run as they were. "
        "Exit 0: consistent; 1: inconsistent (the file's pass rates are not what the model does); 2: bad "
        "input or nothing could be compared.",
    )
    p.add_argument("file", type=Path, help="the *_raw_results.json file to check")
    p.add_argument("--endpoint", "-e", type=endpoint_url, required=True,
                   help="the OpenAI-compatible base URL serving the model the file claims, e.g. "
                        "http://127.0.0.1:8080/v1")
    p.add_argument("--model", "-m", required=True, help="the model's name on that server")
    p.add_argument("--sample", "-n", type=_SAMPLE, required=True, metavar="N",
                   help="how many of the file's tasks to re-run, chosen at random (all when it has fewer); at 3 "
                        "trials a task one task alone cannot show a difference at 0.05 (its smallest p is 0.1), so "
                        "take at least 5, and all of them for a row that decides a merge")
    p.add_argument("--seed", type=_SEED, metavar="S",
                   help="seed of the random choice of tasks (default: a fresh one, printed, so the check can be "
                        "repeated); not the sampling seed, which is the file's")
    p.add_argument("--alpha", type=_ALPHA, default=ALPHA, help=f"significance level (default {ALPHA})")
    p.add_argument("--output", "-o", type=Path,
                   help="keep the re-run's result file here (default: a temporary folder, removed afterwards); "
                        "an interrupted check resumes when issued again with the same --output and --seed")
    p.add_argument("--tasks-dir", type=Path, help="task bank folder (default ./tasks)")
    p.add_argument("--json", action="store_true", help="print the verdict as JSON")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.set_defaults(func=handle)


def _notes(run_file: Path, file_model: str, model: str, temperature: float | None, top_p: float | None) -> None:
    err = sys.stderr
    if file_model != model:
        print(f"note: {run_file} names its model {file_model!r}; re-running {model!r}: make sure the server "
              "serves the same weights and quantisation", file=err)
    if temperature is None:
        print("note: the file records no temperature; the re-run sends the bench's default", file=err)
    if top_p is None:
        print("note: the file records no top_p; the re-run sends the bench's default", file=err)


def _render(check: SpotCheck, console: Console) -> None:
    r = check.result
    t = Table(title=f"spot check · {len(r.tasks)} task(s) compared · Fisher's exact test per task")
    for col in ("task", "module", "file passed", "re-run passed", "p", "Holm p"):
        t.add_column(col, justify="left" if col in ("task", "module") else "right")
    for task in r.tasks:
        t.add_row(escape(task.task_id), task.module, f"{task.file.passed}/{task.file.scorable}",
                  f"{task.rerun.passed}/{task.rerun.scorable}", f"{task.p_value:.3g}", f"{task.p_holm:.3g}")
    console.print(t)
    for task_id, why in r.not_compared.items():
        console.print(f"not compared: {task_id}: {why}", markup=False)
    if check.sample.not_comparable:
        console.print(f"{len(check.sample.not_comparable)} task(s) of the file could not be sampled (changed or "
                      "regraded since the run; `sllmb rescore` the file, or re-run them)", markup=False)
    console.print(
        f"Fisher's method p = {r.fisher_p:.3g}; smallest Holm p = {r.holm_min_p:.3g}; "
        f"verdict p = {r.p_value:.3g} (alpha {r.alpha:g})",
        markup=False,
    )
    if r.consistent:
        console.print("CONSISTENT: the re-run gives no evidence against the file's pass rates", markup=False)
        if r.differing:
            # Not rejecting is not proof: at 3 trials a side one task's smallest p is 0.1.
            console.print(f"{r.differing} of the {len(r.tasks)} tasks compared passed at another rate on the "
                          "re-run; a larger --sample gives the test more to go on", markup=False)
    else:
        console.print("INCONSISTENT: the file's pass rates are not what the model does on a re-run; read its "
                      "transcripts against the re-run's before merging", markup=False)


def handle(args: argparse.Namespace) -> int:
    run = load_run_file(args.file, MODULE_NAMES)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**32)
    sample = sample_tasks(run, args.sample, seed, args.tasks_dir)
    print(f"sample seed {seed} (repeat the same choice with --seed {seed}): "
          f"{', '.join(t.id for t in sample.tasks)}", file=sys.stderr)
    _notes(args.file, run.settings.model, args.model, run.settings.temperature, recorded_top_p(run))
    with contextlib.ExitStack() as stack:
        if args.output is not None:
            if args.output.resolve() == args.file.resolve():
                raise UserError(f"--output {args.output} is the file being checked; give the re-run its own file")
            if args.output.is_dir():
                raise UserError(f"--output {args.output} is a folder; give a file name such as "
                                f"{args.output / 'rerun_raw_results.json'}")
            output = args.output
        else:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="sllmb-verify-")))
            output = default_output(args.model, folder)
        stack.enter_context(output_lock(output))
        request = rerun_request(run, model=args.model, endpoint=args.endpoint, output=output,
                                api_key=Settings().raw("BENCH_API_KEY"), tasks_dir=args.tasks_dir,
                                show_progress=not args.quiet and not args.json)
        check = spot_check(run, request, sample, args.alpha)
    if args.json:
        payload = {
            "file": str(args.file),
            "model": args.model,
            "sample_seed": seed,
            "sampled": [t.id for t in sample.tasks],
            "not_comparable": dict(sample.not_comparable),
            "rerun_file": str(args.output) if args.output is not None else None,
            **check.result.model_dump(mode="json"),
        }
        sys.stdout.write(json.dumps(payload, indent=1) + "\n")
    else:
        _render(check, Console())
        print(f"the re-run is in {args.output}" if args.output is not None
              else "the re-run was not kept (--output FILE keeps it)", file=sys.stderr)
    return EXIT_CONSISTENT if check.result.consistent else EXIT_INCONSISTENT
