"""``sllmb fleet FLEET.yaml``: several models, each run once at one setting into the result file ``sllmb run``
would name, for the board. A command of its own rather than a mode of ``sweep``: a sweep is one model under
several configurations, compared with its first, while a fleet is several models under one setting, read by the
board and the pull-request check; they share their flags and their running (``commands/jobs.py``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.commands.helpformat import LinesHelpFormatter
from engine.commands.jobs import job_args, run_mode
from engine.run.fleet_list import fleet_jobs, load_fleet

FLEET_HELP = """fleet list (YAML; unknown keys are errors):
  profile: full                    # the default (the reference setting's); also modules: [...], filter: GLOB
  trials: 3                        # and seed: 0, the same for every model
  output: results/fleet            # default fleets/<file name>; relative to the list's folder
  runs_on: [self-hosted, gpu]      # the fleet workflow's runner labels (default [self-hosted])
  models:
    - name: qwen3-8b               # the models.yaml row, the result file's name and what the server is asked for
      endpoint: http://127.0.0.1:8080/v1
    - name: smollm2-135m-instruct  # no endpoint: the embedded server runs the row's GGUF
      embedded: {context: 8192, slots: 2}
    - name: qwen3-4b
      embedded: {gguf: models/Qwen3-4B-Q4_K_M.gguf}  # a GGUF of your own, relative to the list's folder
      runs_on: [self-hosted, gpu-48g]
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "fleet",
        help="several models, each run once at one setting, for the board",
        description=(
            "Run each model of a fleet list (its own server or the embedded one) at the list's selection, "
            "trials and seed, each into <output>/<model>_raw_results.json, the name 'sllmb run' gives it and "
            "the pull-request check and the board expect. Each run resumes like 'sllmb run'; a finished one "
            "is not run again. Then build the board over the folder with 'sllmb leaderboard --results-dir "
            "OUTPUT --setting results/reference/setting.yaml'. BENCH_API_KEY is sent to the models' endpoints."
        ),
        epilog=FLEET_HELP,
        formatter_class=LinesHelpFormatter,
    )
    p.add_argument("file", type=Path, metavar="fleet", help="the fleet list (YAML)")
    job_args(p, one="model", collect="check every model's file is there and finished")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    fleet = load_fleet(args.file)
    assert fleet.output is not None  # load_fleet fills it
    done = run_mode(args, fleet_jobs(fleet), fleet.output, command=f"sllmb fleet {args.file}", what="fleet list")
    if isinstance(done, int):
        return done
    for d in done:
        print(f"{d.job.name}: {d.output}{' (finished earlier)' if d.reused else ''}", file=sys.stderr)
    if not args.only:
        print(f"every model's file is in {fleet.output}; the board: sllmb leaderboard --results-dir "
              f"{fleet.output} --setting results/reference/setting.yaml", file=sys.stderr)
    return 0
