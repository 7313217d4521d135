"""What the judge is told about a task besides its transcript: its title, what it tests, its usual failure."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from engine.core.errors import UserError
from engine.core.yamlfile import read_mapping


@dataclass(frozen=True)
class TaskContext:
    title: str = ""
    what_this_tests: str = ""
    failure_mode: str = ""


def load_task_contexts(tasks_dir: Path | None, task_ids: Iterable[str]) -> dict[str, TaskContext]:
    """Title and intent of each task from its YAML, read leniently: a task missing from the bank (renamed,
    or a module not implemented here) is judged on its transcript alone."""
    out: dict[str, TaskContext] = {}
    if tasks_dir is None or not tasks_dir.is_dir():
        return out
    wanted = set(task_ids)
    for path in tasks_dir.glob("*/*.yaml"):
        if path.stem not in wanted:
            continue
        try:
            raw = read_mapping(path, "task file")  # the one bounded reader: an alias bomb is refused there
        except UserError:
            continue
        if isinstance(raw, dict) and raw.get("id") == path.stem:
            out[path.stem] = TaskContext(
                title=str(raw.get("title", "")),
                what_this_tests=str(raw.get("what_this_tests", "")),
                failure_mode=str(raw.get("failure_mode", "")),
            )
    return out

