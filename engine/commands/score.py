"""``sllmb score``: the scorecard of one result file, with the judged numbers when a judged file sits
beside it."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console

from engine.analysis.judge import apply_verdicts, judged_path_for, load_judged_file, score_judged
from engine.analysis.scoring import PRESETS, score_run
from engine.core.errors import UserError
from engine.core.percent import percent_text
from engine.core.results import RAW_SUFFIX, load_run_file
from engine.episodes import MODULE_NAMES
from engine.publish.board import result_files
from engine.publish.scorecard import render


def result_files_in(folder: Path) -> list[Path]:
    """The raw result files of a folder (``*_raw_results.json``), sorted; an empty or missing folder is
    an error (the board allows an empty one; scoring nothing is a mistake)."""
    files = result_files(folder)
    if not files:
        raise UserError(
            f"{folder}: no result files (*{RAW_SUFFIX}) found; run `sllmb run` first or point "
            "--results-dir at the folder that holds them"
        )
    return files


def weights_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--weights",
        default="balanced",
        choices=sorted(PRESETS),
        help="module weight preset (default balanced)",
    )


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "score",
        help="print the scorecard of one result file",
        description="Score one result file: pass^k per module, the det score and the pass headline. When "
        "<model>_judged.json sits beside it, the judged numbers and judge coverage are shown too.",
    )
    p.add_argument("--results", "-r", type=Path, required=True, help="a *_raw_results.json file")
    weights_arg(p)
    p.add_argument("--k", type=int, help="k of pass^k (default: the file's trial count)")
    p.add_argument(
        "--judged", type=Path, help="judged file (default: <model>_judged.json beside the results)"
    )
    p.add_argument("--json", action="store_true", help="print the scorecard as JSON")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    run = load_run_file(args.results, MODULE_NAMES)
    judged_path = args.judged or judged_path_for(args.results)
    if args.judged is not None and not judged_path.is_file():
        raise UserError(f"{judged_path}: no such judged file (--judged); run `sllmb judge` first")
    judged = load_judged_file(judged_path) if judged_path.is_file() else None
    card = score_run(run, k=args.k, weights=args.weights)
    js = None
    if judged is not None:
        js = score_judged(run, apply_verdicts(run, judged), k=card.k, weights=args.weights)
    if args.json:
        payload: dict = {"scorecard": card.model_dump(mode="json")}
        if js is not None:
            payload["judged"] = js.model_dump(mode="json", exclude={"card", "judged_card"})
        json.dump(payload, sys.stdout, indent=1)
        print()
        return 0
    console = Console()
    render(run, card, console)
    if card.clipped_modules:
        console.print(f"[yellow]weights clipped to their caps:[/yellow] {', '.join(card.clipped_modules)}")
    if js is not None:
        line = (
            f"judged pass^{js.k}: {percent_text(js.judged_headline)}  "
            f"judged det: {percent_text(js.judged_det_score)}  verdicts changed: {js.changed_verdicts}"
        )
        console.print(line, markup=False)
        if js.uncovered_modules or js.stale_verdicts:
            console.print(
                f"⚠ judge coverage incomplete in {', '.join(js.uncovered_modules) or '-'} "
                f"({js.stale_verdicts} stale verdict(s)); those modules carry their det scores",
                markup=False,
            )
    return 0
