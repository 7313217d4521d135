"""Find, validate and hash the tasks of the bank, and pick a profile.

A task's hash covers its whole file content and its module's grader version, so a resumed run re-runs
exactly the trials whose task changed meaning.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from pathlib import Path

from pydantic import ValidationError

from engine.core.errors import UserError
from engine.core.schema import Task, module_context
from engine.core.yamlfile import invalid_file_message, read_mapping
from engine.episodes import MODULE_NAMES, MODULES
from engine.episodes.base import LoadedTask

PROFILES = ("full", "fast")


def default_tasks_dir() -> Path:
    """The bank next to the working directory, else the one beside the installed package (a checkout)."""
    here = Path.cwd() / "tasks"
    if here.is_dir():
        return here
    return Path(__file__).resolve().parents[2] / "tasks"


def task_hash(raw: dict, module_version: str) -> str:
    """What the model is asked: the whole file but its grading ``version``, and the module's format version."""
    asked = {k: v for k, v in raw.items() if k != "version"}
    canonical = json.dumps(asked, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    digest = hashlib.sha256(f"{module_version}\n{canonical}".encode()).hexdigest()
    return digest[:16]


def load_task(path: Path) -> LoadedTask:
    raw = read_mapping(path, "task file")
    try:
        task = Task.model_validate(raw, context=module_context(MODULE_NAMES))
    except ValidationError as exc:
        raise UserError(invalid_file_message(path, "task file", exc.errors())) from exc
    module = MODULES.get(task.module)
    if module is None:
        raise UserError(f"{path}: module '{task.module}' has no implementation in this version of the bench")
    if path.parent.name != task.module:
        raise UserError(f"{path}: module is '{task.module}' but the file lives in tasks/{path.parent.name}/; "
                        f"move it to tasks/{task.module}/")
    try:
        body = module.body_model.model_validate(task.body)
    except ValidationError as exc:
        raise UserError(invalid_file_message(path, "task file", exc.errors(), prefix=("body",))) from exc
    return LoadedTask(task=task, body=body, hash=task_hash(raw, module.version), path=str(path))


def find_tasks(tasks_dir: Path, wanted: set[str]) -> dict[str, LoadedTask | str]:
    """Each wanted task loaded from ``tasks_dir/<module>/<id>.yaml``, or the reason it could not be."""
    out: dict[str, LoadedTask | str] = {}
    paths = {p.stem: p for p in tasks_dir.glob("*/*.yaml")} if tasks_dir.is_dir() else {}
    for task_id in wanted:
        path = paths.get(task_id)
        if path is None:
            out[task_id] = "not in the bank"
            continue
        try:
            out[task_id] = load_task(path)
        except UserError as exc:
            out[task_id] = str(exc).splitlines()[0]
    return out


def load_bank(tasks_dir: Path | None = None) -> list[LoadedTask]:
    """Every task under ``tasks_dir``, sorted by module then id. Duplicate ids are an error."""
    root = tasks_dir or default_tasks_dir()
    if not root.is_dir():
        raise UserError(f"task bank not found at {root}; run from the repository root or pass --tasks-dir")
    tasks: list[LoadedTask] = []
    seen: dict[str, str] = {}
    for path in sorted(root.glob("*/*.yaml")):
        loaded = load_task(path)
        if loaded.id in seen:
            raise UserError(f"{path}: task id '{loaded.id}' is also used by {seen[loaded.id]}; ids must be unique")
        seen[loaded.id] = str(path)
        tasks.append(loaded)
    order = {name: i for i, name in enumerate(MODULE_NAMES)}
    tasks.sort(key=lambda t: (order[t.task.module], t.id))
    return tasks


def select(
    tasks: list[LoadedTask],
    *,
    profile: str = "full",
    modules: list[str] | None = None,
    pattern: str | None = None,
) -> list[LoadedTask]:
    """Apply the profile, the module list and a glob or substring filter on task ids."""
    if profile not in PROFILES:
        raise UserError(f"unknown profile '{profile}'; choose one of: {', '.join(PROFILES)}")
    unknown = sorted(set(modules or []) - set(MODULE_NAMES))
    if unknown:
        raise UserError(f"unknown module(s) {', '.join(unknown)}; choose from: {', '.join(MODULE_NAMES)}")
    chosen = [t for t in tasks if profile == "full" or t.task.fast]
    if modules:
        chosen = [t for t in chosen if t.task.module in modules]
    if pattern:
        glob = pattern if any(c in pattern for c in "*?[") else f"*{pattern}*"
        chosen = [t for t in chosen if fnmatch.fnmatch(t.id, glob)]
    return chosen


def task_set_hash(tasks: list[LoadedTask]) -> str:
    joined = "\n".join(f"{t.id}:{t.hash}" for t in sorted(tasks, key=lambda t: t.id))
    return hashlib.sha256(joined.encode()).hexdigest()[:16]
