"""A tools trial's world as the evidence shows it: the expected and the final state as a diff, each changed path
labelled with what the grade found there (missed, side effect, undone), and the calls a failure injection
answered. The one place both the site's trial view (``evidence.py``) and ``sllmb show`` (``trial_view.py``) get
it from.

The result file does not store the world's states, and nothing new is stored for this: the final state is
derived by replaying the trial's recorded calls through the simulated world (``engine.world``), the same
read-only, deterministic replay the grader runs (seed, gold and failure injections from the task file). That
is only sound for the task file the trial ran: when the bank's hash of the task differs from the trial's
``task_hash`` (or the task is not in the bank), nothing is replayed and the view holds only the paths the
grade's details list, with a note saying why.

Every value is turned into display text here (JSON, or ``(absent)`` for a path that does not exist), so both
views show the same words; the callers escape it for their medium.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.bank.load import default_tasks_dir, find_tasks
from engine.core.schema import TrialRecord
from engine.episodes.agent.transcript import read_transcript
from engine.episodes.base import LoadedTask
from engine.world import WorldEpisode
from engine.world.diff import ABSENT, same_value
from engine.world.errors import WorldSpecError

# Rows shown at most (a file rewritten line by line can change hundreds of paths); the count says how many.
MAX_ROWS = 200
# Characters of one value shown at most: a path's value may be a whole line of a file, or a model's text.
MAX_VALUE = 400

ABSENT_TEXT = "(absent)"


@dataclass(frozen=True)
class WorldRow:
    """One path of the world: its value in the seed, in the expected (gold) state and in the final state,
    and what the grade found there: ``missed`` (a change the task asked for, not made), ``side effect`` (a
    change the task did not ask for), ``undone`` (a change outside the task made and later put back),
    ``reached`` (an asked-for change made). ``note``: the values an undone path went through."""

    path: str
    seed: str
    expected: str
    final: str
    finding: str
    note: str = ""


@dataclass(frozen=True)
class WorldView:
    """The diff, where it came from (``replay`` or ``grade``), why there was no replay, whether a failure
    injection answered each of the model's calls, in call order (from the replay; empty without one), and how
    many rows there were before the cut."""

    rows: tuple[WorldRow, ...]
    source: str
    note: str
    injected_calls: tuple[bool, ...]
    total_rows: int

    def as_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "note": self.note,
            "total_rows": self.total_rows,
            "rows": [row.__dict__ for row in self.rows],
        }


def _text(value: Any) -> str:
    """A flat value as display text: JSON (a string quoted), or ``(absent)``; long values cut, marked."""
    if value is ABSENT:
        return ABSENT_TEXT
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= MAX_VALUE else f"{text[:MAX_VALUE]}… ({len(text):,} characters)"


def _found(details: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = details.get(key)
    return value if isinstance(value, Mapping) else {}


def _went_through(entry: Any) -> str:
    if isinstance(entry, Mapping) and isinstance(entry.get("went_through"), list):
        return "held " + ", ".join(_text(v) for v in entry["went_through"]) + " along the way"
    return ""


def _grade_rows(details: Mapping[str, Any]) -> list[WorldRow]:
    """The paths the grade's details list, when there is no replay to diff."""
    rows = []
    for path, entry in _found(details, "missed").items():
        e = entry if isinstance(entry, Mapping) else {}
        rows.append(WorldRow(str(path), "", _text(e.get("expected")), _text(e.get("got")), "missed"))
    for path, entry in _found(details, "side_effects").items():
        e = entry if isinstance(entry, Mapping) else {}
        rows.append(WorldRow(str(path), _text(e.get("seed")), "", _text(e.get("got")), "side effect"))
    for path, entry in _found(details, "undone_changes").items():
        rows.append(WorldRow(str(path), "", "", "", "undone", _went_through(entry)))
    return rows


def _world_of(task: LoadedTask[Any]) -> WorldEpisode | None:
    """The world a task's model acts on: a tools task's body, or the episode an adversarial task wraps."""
    body = task.body
    episode = body if isinstance(body, WorldEpisode) else getattr(body, "episode", None)
    return episode if isinstance(episode, WorldEpisode) else None


def world_view(trial: TrialRecord, task: LoadedTask[Any] | str | None) -> WorldView | None:
    """The world of a trial that acted on one, or None for a trial that did not. ``task``: the bank's task
    of that id, or why it could not be loaded."""
    details = trial.grade.details if trial.grade is not None else {}
    loaded = task if isinstance(task, LoadedTask) else None
    episode = _world_of(loaded) if loaded is not None else None
    if loaded is not None and episode is None:
        return None
    # The world grader's details name what it compared; without them (or a world task) there is no world.
    if episode is None and "missed" not in details:
        return None
    why = ""
    if loaded is None:
        why = f"the task is not in this bank ({task or 'not found'}), so its world cannot be replayed"
    elif loaded.hash != trial.task_hash:
        why = (f"the task file changed since this trial ran (hash {loaded.hash}, the trial's {trial.task_hash}), "
               "so its world is not replayed")
    if why or episode is None:
        rows = _grade_rows(details)
        return WorldView(tuple(rows[:MAX_ROWS]), "grade", why, (), len(rows))
    try:
        replay = episode.replay(read_transcript(trial.turns).calls)
    except WorldSpecError as exc:  # the bank's task cannot replay (a broken file): say so, show the grade's
        rows = _grade_rows(details)
        return WorldView(tuple(rows[:MAX_ROWS]), "grade", f"the replay failed: {exc}", (), len(rows))
    missed, side, undone = (_found(details, k) for k in ("missed", "side_effects", "undone_changes"))
    seed, expected, final = replay.seed_flat, replay.expected_flat, replay.final_flat
    out = []
    for path in sorted(replay.targets | replay.changed | set(undone)):
        want, got = expected.get(path, ABSENT), final.get(path, ABSENT)
        # What the grade found decides the label; a path past the details' cut is labelled by the same rule
        # the grader applies (engine/world/gates.py: goal_match, side_effects).
        if path in missed or (path in replay.targets and not same_value(want, got)):
            finding = "missed"
        elif path in side or path not in replay.targets and path not in undone:
            finding = "side effect"
        elif path in undone:
            finding = "undone"
        else:
            finding = "reached"
        note = _went_through(undone[path]) if path in undone else ""
        out.append(WorldRow(path, _text(seed.get(path, ABSENT)), _text(want), _text(got), finding, note))
    injected = tuple(o.injected for o in replay.outcomes)
    return WorldView(tuple(out[:MAX_ROWS]), "replay", "", injected, len(out))


def injected_turns(trial: TrialRecord, view: WorldView | None) -> dict[int, str]:
    """The indices of ``trial.turns`` that are tool answers a failure injection gave: ``recorded`` where the
    turn says so (``injected_failure``), ``replayed`` where the file predates that record and the replay
    found it. The loop answers every call with one tool turn in call order, so the n-th tool turn is the
    answer to the replay's n-th call."""
    replayed = view.injected_calls if view is not None else ()
    out: dict[int, str] = {}
    tool_turns = [i for i, turn in enumerate(trial.turns) if turn.role == "tool"]
    for n, i in enumerate(tool_turns):
        recorded = trial.turns[i].injected_failure
        if recorded:
            out[i] = "recorded"
        elif recorded is None and n < len(replayed) and replayed[n]:
            out[i] = "replayed"
    return out


def bank_tasks(task_ids: set[str]) -> dict[str, LoadedTask[Any] | str]:
    """Each task id's task from the bank beside the working directory, or why it could not be loaded."""
    return find_tasks(default_tasks_dir(), task_ids)
