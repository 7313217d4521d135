"""``sllmb show``: one trial of a result file on the terminal, for people who never build the site."""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.core.errors import UserError
from engine.core.results import load_run_file
from engine.episodes import MODULE_NAMES
from engine.publish.termsafe import safe_text
from engine.publish.trial_view import (
    FULL,
    Limits,
    render_tasks,
    render_trial,
    render_trials,
    show_console,
    tasks_of,
)
from engine.publish.world_view import bank_tasks

# How many ids an error message lists before "…": a file may hold hundreds of tasks.
_LISTED = 20


def _listing(values: list[str]) -> str:
    shown = ", ".join(safe_text(v, 80) for v in values[:_LISTED])
    return shown + (f", … ({len(values)} in all)" if len(values) > _LISTED else "")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "show",
        help="print one trial of a result file: the conversation and the grade",
        description="Print one trial of a result file on the terminal: every turn as the model saw and "
        "answered it (system and user turns, each reply with its reasoning dimmed and clipped, every tool call "
        "with its arguments and the tool's answer, an answer the task's failure injection gave marked as "
        "such), for a trial that acted on the simulated world its expected and final state as a diff (the "
        "final state replayed from the recorded calls when the bank's task has the trial's hash), then the "
        "grade (passed, score and breakdown, hard gate, reason, unsure, truncation, tokens, time, seed, the "
        "task's hash and version, and the details the grade keeps, such as a code trial's attempts). Without "
        "--task it lists the file's tasks and their trial outcomes; without --trial it lists the task's trials "
        "and shows the first. Text from the file is printed as text: markup is escaped, terminal control "
        "sequences are removed, and each message is "
        "clipped (marked where it is) unless --full is given.",
    )
    p.add_argument("results", type=Path, help="a result file (*_raw_results.json)")
    p.add_argument("--task", "-t", help="the task id to show (default: list the file's tasks)")
    p.add_argument("--trial", "-n", type=int, help="the trial index to show (default: list them, show the first)")
    p.add_argument("--full", action="store_true", help="print every message whole (no clipping)")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    run = load_run_file(args.results, MODULE_NAMES)
    limits = FULL if args.full else Limits()
    console = show_console()
    tasks = tasks_of(run)
    if args.task is None:
        if args.trial is not None:
            raise UserError("--trial needs --task: name the task whose trial to show")
        render_tasks(run, str(args.results), console, limits)
        return 0
    trials = tasks.get(args.task)
    if trials is None:
        raise UserError(
            f"{args.results}: no task {safe_text(args.task, 80)!r} (--task); the file holds: "
            f"{_listing(list(tasks))}"
        )
    if args.trial is None:
        render_trials(trials, console, limits)
        chosen = trials[0]
    else:
        found = [t for t in trials if t.trial == args.trial]
        if not found:
            raise UserError(
                f"{args.results}: task {safe_text(args.task, 80)!r} has no trial {args.trial} (--trial); "
                f"its trials are: {_listing([str(t.trial) for t in trials])}"
            )
        chosen = found[0]
    # The bank's task, to replay a world trial's calls for its diff (read-only; nothing is written).
    render_trial(chosen, console, limits, bank_tasks({chosen.task_id})[chosen.task_id])
    return 0
