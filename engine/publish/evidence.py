"""The evidence of every trial, per task, as the site's task pages read it: one JSON document per task holding
every model's trials of it (turns, tool calls and the tools' answers, the grade, the judge's decision, and for
a trial that acted on a simulated world its expected and final state as a diff: ``world_view.py``).

The documents are data, written to their own files at build and read by the page's script, which places every
string as text (``textContent``), never as HTML; nothing here meets the macro engine or Markdown.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.analysis.judge import TrialVerdict
from engine.analysis.loaded_run import LoadedRun
from engine.core.schema import RunFile, TrialRecord
from engine.episodes.base import LoadedTask
from engine.publish.world_view import injected_turns, world_view

# A task id that is already a safe path segment is its own slug; anything else (a result file may say
# anything) becomes a hash, so no id can reach outside tasks/ or collide with another page.
_PLAIN_ID = re.compile(r"^[a-z0-9][a-z0-9_]{0,79}$")


def task_slug(task_id: str) -> str:
    """The path segment of a task's page: the id when it is plain, otherwise ``task-`` and a hash of it."""
    if _PLAIN_ID.match(task_id):
        return task_id
    return "task-" + hashlib.sha256(task_id.encode("utf-8", "surrogatepass")).hexdigest()[:16]


# A result file may hold anything; a page's data is bounded. A string past this many characters is cut with a
# marker that says so (the result file and `sllmb show --full` keep the whole text), a list past this many
# items likewise: one task's file, every model's trials together, stays within a page's weight.
MAX_TEXT = 12_000
MAX_ITEMS = 200


def bounded(value: Any) -> Any:
    """``value`` (JSON data) with every string and list cut to the bounds above, each cut marked."""
    if isinstance(value, str):
        if len(value) <= MAX_TEXT:
            return value
        return f"{value[:MAX_TEXT]}\n[… cut here: {len(value):,} characters in all; `sllmb show --full` prints them]"
    if isinstance(value, list):
        items = [bounded(v) for v in value[:MAX_ITEMS]]
        if len(value) > MAX_ITEMS:
            items.append(f"[… {len(value) - MAX_ITEMS} more items]")
        return items
    if isinstance(value, dict):
        return {str(k)[:200]: bounded(v) for k, v in value.items()}
    return value


def _judge(verdict: TrialVerdict | None) -> dict[str, Any] | None:
    if verdict is None:
        return None
    return verdict.model_dump(
        mode="json",
        include={"status", "judge_passed", "judge_score", "judge_reason", "refusal", "error", "final_passed",
                 "final_score"},
    )


def trial_evidence(trial: TrialRecord, verdict: TrialVerdict | None, task: LoadedTask[Any] | str | None = None
                   ) -> dict[str, Any]:
    """One trial as the page reads it: the record as stored (bounded), whether it counts, the judge's
    decision on it where there is one, and, for a trial that acted on a world, that world's diff and the
    tool turns a failure injection answered (``world_view.py``, from ``task``: the bank's task or why not)."""
    data = trial.model_dump(mode="json", exclude={"task_id", "module", "turns"})
    # A turn's empty fields (no reasoning, no calls, no timings) are left out: a task's file holds every
    # model's trials, and they made a sixth of it.
    data["turns"] = [turn.model_dump(mode="json", exclude_defaults=True) for turn in trial.turns]
    data["scorable"] = trial.scorable
    data["judge"] = _judge(verdict)
    view = world_view(trial, task)
    data["world"] = None if view is None else view.as_json()
    # Turn index (as a string: a JSON key) -> "recorded" or "replayed"; see world_view.injected_turns.
    data["injected"] = {str(i): how for i, how in injected_turns(trial, view).items()}
    return bounded(data)


@dataclass(frozen=True)
class ModelRun:
    """A board row's run as the evidence needs it: the row's slug and name, the run, its judged verdicts."""

    slug: str
    model: str
    run: RunFile
    verdicts: dict[tuple[str, int], TrialVerdict]


def model_runs(rows: Sequence[Any], runs: Sequence[LoadedRun]) -> list[ModelRun]:
    """The board's rows in board order, each with its loaded run (matched by model name: one file a model)."""
    by_model = {r.run.settings.model: r for r in runs}
    out = []
    for row in rows:
        loaded = by_model.get(row.model)
        if loaded is None:
            continue
        verdicts = {} if loaded.judged is None else {(v.task_id, v.trial): v for v in loaded.judged.verdicts}
        out.append(ModelRun(slug=row.slug, model=row.model, run=loaded.run, verdicts=verdicts))
    return out


@dataclass(frozen=True)
class TaskEvidence:
    slug: str
    task_id: str
    module: str
    # (model slug, model name, its trials of the task by trial index), in board order.
    models: tuple[tuple[str, str, tuple[TrialRecord, ...]], ...]
    document: dict[str, Any]


def task_evidence(model_runs: Sequence[ModelRun], tasks: Mapping[str, LoadedTask[Any] | str] | None = None
                  ) -> list[TaskEvidence]:
    """One entry per task any run holds, tasks in the order they first appear, each with every model's trials.
    ``tasks``: the bank's task of each id, or why not (``world_view.bank_tasks``); none: no world replayed."""
    bank = tasks or {}
    trials: dict[str, dict[str, list[TrialRecord]]] = {}
    for m in model_runs:
        for t in m.run.trials:
            trials.setdefault(t.task_id, {}).setdefault(m.slug, []).append(t)
    by_slug = {m.slug: m for m in model_runs}
    out = []
    seen: set[str] = set()
    for task_id, per_model in trials.items():
        slug = task_slug(task_id)
        if slug in seen:  # two ids hashing alike: vanishingly rare, and never a second page at one address
            continue
        seen.add(slug)
        models = []
        doc_models = []
        for m in model_runs:
            mine = tuple(sorted(per_model.get(m.slug, []), key=lambda t: t.trial))
            if not mine:
                continue
            models.append((m.slug, m.model, mine))
            run = by_slug[m.slug]
            doc_models.append({
                "slug": m.slug,
                "model": m.model,
                "trials": [trial_evidence(t, run.verdicts.get((t.task_id, t.trial)), bank.get(task_id))
                           for t in mine],
            })
        module = models[0][2][0].module
        document = {"task_id": bounded(task_id), "module": module, "models": doc_models}
        out.append(TaskEvidence(slug=slug, task_id=task_id, module=module, models=tuple(models), document=document))
    return out


def evidence_json(document: dict[str, Any]) -> str:
    """A task's document as the JSON file the page fetches (compact; read as data, never as HTML)."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))
