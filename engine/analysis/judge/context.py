"""What the judge is told about a task besides its transcript: its title, what it tests, its usual failure."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from engine.bank.load import find_tasks


@dataclass(frozen=True)
class TaskContext:
    title: str = ""
    what_this_tests: str = ""
    failure_mode: str = ""


def load_task_contexts(tasks_dir: Path | None, task_ids: Iterable[str]) -> dict[str, TaskContext]:
    """Title and intent of each task, as the bank loads it. Lenient on purpose: a task missing from the bank
    (renamed, or a module not implemented here) or one that does not load is judged on its transcript alone,
    rather than stopping a judge run over a result file that may be older than the bank."""
    if tasks_dir is None:
        return {}
    out: dict[str, TaskContext] = {}
    for task_id, found in find_tasks(tasks_dir, set(task_ids)).items():
        if isinstance(found, str) or found.id != task_id:  # the reason it could not load, or another task's id
            continue
        task = found.task
        out[task_id] = TaskContext(task.title, task.what_this_tests, task.failure_mode)
    return out
