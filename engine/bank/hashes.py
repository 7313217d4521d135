"""``tasks/HASHES.yaml``: every hash each task of the bank has had, oldest first, today's last.

A trial records the hash of the task it ran (``engine.bank.load.task_hash``). A hash that is neither today's
nor one of these was never the bank's: the trial was edited or ran against another bank, and the pull-request
check says so. A past hash is a real trial of an older version of the task, which today's graders cannot
regrade: that check asks for it to be re-run. ``sllmb tasks --record-hashes`` adds today's hashes, and a test
keeps every one of them in the file, so changing what a task asks records its new hash in the same commit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, ValidationError

from engine.core.errors import UserError
from engine.core.fileio import atomic_write_text
from engine.core.schema import Strict
from engine.core.yamlfile import invalid_file_message, read_mapping
from engine.episodes.base import LoadedTask

HASHES_FILE = "HASHES.yaml"

TaskId = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9_]*$")]
TaskHash = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{16}$")]

HEADER = """\
# Every hash each task of the bank has had, oldest first, today's last (engine/bank/hashes.py).
# A trial whose task_hash is none of these was not run against this bank: the pull-request check refuses it.
# Changing what a task asks changes its hash: run `sllmb tasks --record-hashes` and commit this file with it.
# The past hashes were taken from every version of the task files and of the result files in the history.
"""


class HashRecord(Strict):
    schema_version: Literal[1] = 1
    tasks: dict[TaskId, list[TaskHash]] = Field(default_factory=dict)


def hashes_path(tasks_dir: Path) -> Path:
    return tasks_dir / HASHES_FILE


def load_hash_record(tasks_dir: Path) -> HashRecord:
    """The committed record; a missing file is an empty record (a bank with no history yet)."""
    path = hashes_path(tasks_dir)
    if not path.is_file():
        return HashRecord()
    raw = read_mapping(path, "task hash record")
    try:
        return HashRecord.model_validate(raw)
    except ValidationError as exc:
        raise UserError(invalid_file_message(path, "task hash record", exc.errors())) from exc


def known_hashes(tasks_dir: Path, bank: list[LoadedTask]) -> dict[str, set[str]]:
    """Task id -> every hash the bank has had for it: the record's and today's."""
    known = {task_id: set(hashes) for task_id, hashes in load_hash_record(tasks_dir).tasks.items()}
    for task in bank:
        known.setdefault(task.id, set()).add(task.hash)
    return known


def missing_hashes(tasks_dir: Path, bank: list[LoadedTask]) -> list[LoadedTask]:
    """Tasks whose hash of today the record does not hold yet."""
    record = load_hash_record(tasks_dir).tasks
    return [t for t in bank if t.hash not in record.get(t.id, [])]


def record_hashes(tasks_dir: Path, bank: list[LoadedTask]) -> list[LoadedTask]:
    """Append today's hash of every task the record lacks it for; return those tasks. Written whole, sorted by
    task id, one line per task, so a change shows as one changed line in a diff."""
    added = missing_hashes(tasks_dir, bank)
    if not added:
        return []
    tasks = {k: list(v) for k, v in load_hash_record(tasks_dir).tasks.items()}
    for task in added:
        tasks.setdefault(task.id, []).append(task.hash)
    lines = [HEADER, "schema_version: 1", "tasks:"]
    # Quoted: a hash of sixteen decimal digits would otherwise read back as a number.
    lines += [f"  {task_id}: [{', '.join(f'{h!r}' for h in hashes)}]" for task_id, hashes in sorted(tasks.items())]
    atomic_write_text(hashes_path(tasks_dir), "\n".join(lines) + "\n")
    return added
