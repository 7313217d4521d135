"""``sllmb leaderboard``: the board as one self-contained HTML file, with leaderboard.json beside it."""

from __future__ import annotations

import argparse
import webbrowser
from pathlib import Path

from engine.analysis.scoring import DEFAULT_PRESET, PRESETS
from engine.core.errors import UserError
from engine.core.fileio import atomic_write_text
from engine.core.results import FLEET_DIR
from engine.publish.board import board_from_dir, write_board_json
from engine.publish.html import plural, separable_text, standalone_html


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "leaderboard",
        help="write the leaderboard as one self-contained HTML file (and leaderboard.json beside it)",
        description="Build the board from every *_raw_results.json in a folder (using <model>_judged.json "
        "where one sits beside it) and models.yaml, and write it as one HTML file that needs no server "
        "and loads nothing from the network, plus the same board as JSON next to it. Every row is scored at "
        "the k of the folder's reference setting (setting.yaml, see results/reference/README.md) and flagged "
        "for each run setting that differs from it.",
    )
    p.add_argument(
        "--results-dir",
        type=Path,
        default=FLEET_DIR,
        help=f"folder of result files (default: {FLEET_DIR.as_posix()}, the reference fleet)",
    )
    p.add_argument(
        "--setting",
        type=Path,
        help="the reference setting the rows are scored at and compared with (default: setting.yaml in "
        "--results-dir; results/reference/setting.yaml is the reference fleet's)",
    )
    p.add_argument(
        "--models",
        type=Path,
        default=Path("models.yaml"),
        help="models file with sizes (default: models.yaml; a missing file shows sizes as ?)",
    )
    p.add_argument(
        "--output",
        "-o",
        type=Path,
        default=Path("leaderboard.html"),
        help="HTML file to write (default: leaderboard.html); leaderboard.json goes beside it",
    )
    p.add_argument(
        "--weights",
        default=DEFAULT_PRESET,
        choices=sorted(PRESETS),
        help=f"module weight preset (default {DEFAULT_PRESET})",
    )
    p.add_argument("--open", action="store_true", help="open the file in the default browser when written")
    p.set_defaults(func=handle)


def json_path_for(output: Path) -> Path:
    return output.with_name("leaderboard.json") if output.suffix == ".html" else output.with_suffix(".json")


def handle(args: argparse.Namespace) -> int:
    board = board_from_dir(args.results_dir, args.models, args.weights, args.setting)
    if not board.rows:
        raise UserError(
            f"{args.results_dir}: no result files (*_raw_results.json) found; run `sllmb run` first "
            "or point --results-dir at the folder that holds them"
        )
    if args.output.is_dir():
        raise UserError(
            f"--output {args.output} is a folder; give a file name such as {args.output}/leaderboard.html"
        )
    atomic_write_text(args.output, standalone_html(board))
    json_path = json_path_for(args.output)
    write_board_json(json_path, board)
    print(
        f"wrote {args.output} and {json_path}: {plural(len(board.rows), 'model')}, pass^{board.k}, "
        f"{separable_text(board)}"
    )
    if args.open:
        webbrowser.open(args.output.resolve().as_uri())
    return 0
