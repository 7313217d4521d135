"""``sllmb tasks``: list and validate the task bank."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.table import Table

from engine.bank.hashes import record_hashes
from engine.bank.load import default_tasks_dir, load_bank, select, task_set_hash
from engine.episodes import MODULES


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "tasks",
        help="list (and validate) the task bank",
        description="Load every task file, validate it, and list the tasks of a profile with their hashes. "
                    "Exits 2 with the file and field when a task file is invalid.",
    )
    p.add_argument("--record-hashes", action="store_true",
                   help="add today's hash of every task to tasks/HASHES.yaml, the record of every hash each task "
                        "has had (commit it with a task change)")
    p.add_argument("--profile", choices=("full", "fast"), default="full")
    p.add_argument("--modules", type=lambda s: [m for m in s.split(",") if m], help="comma-separated modules")
    p.add_argument("--filter", "-k", dest="pattern", help="glob or substring on task ids")
    p.add_argument("--tasks-dir", type=Path)
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    if args.record_hashes:
        bank = load_bank(args.tasks_dir)
        added = record_hashes(args.tasks_dir or default_tasks_dir(), bank)
        for task in added:
            print(f"recorded {task.id}: {task.hash}")
        print(f"{len(added)} new hash(es) recorded" if added else "every task's hash is already recorded")
        return 0
    tasks = select(load_bank(args.tasks_dir), profile=args.profile, modules=args.modules, pattern=args.pattern)
    table = Table(title=f"{len(tasks)} tasks · profile {args.profile} · set {task_set_hash(tasks)}")
    for column in ("id", "module", "fast", "context", "hash", "title"):
        table.add_column(column)
    for t in tasks:
        need = MODULES[t.task.module].required_context(t)
        table.add_row(t.id, t.task.module, "yes" if t.task.fast else "", str(need), t.hash, t.task.title)
    Console().print(table)
    return 0
