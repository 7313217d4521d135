"""One result file on the terminal, for `sllmb show`: its tasks, a task's trials, and one trial's whole
evidence (the conversation as the model saw and answered it, injected tool failures marked, the world's
expected and final state for a trial that acted on one, then the grade).

Every string from the file passes through :func:`engine.publish.termsafe.safe_text` and reaches rich either
inside a ``Text`` (never parsed as markup) or through ``escape``; the console is made without emoji codes
or highlighting, so ``:warning:`` in a reply prints as written. ``limits`` bounds what one message prints;
None lifts every bound (``--full``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from engine.core.schema import RunFile, TrialRecord, Turn
from engine.episodes.base import LoadedTask
from engine.publish.termsafe import safe_text
from engine.publish.world_view import WorldView, injected_turns, world_view


@dataclass(frozen=True)
class Limits:
    """Characters printed per message, per reasoning block, per grade detail, per table cell."""

    message: int | None = 4000
    reasoning: int | None = 800
    detail: int | None = 600
    cell: int | None = 200


FULL = Limits(message=None, reasoning=None, detail=None, cell=None)


def show_console() -> Console:
    """The terminal's width, 160 columns when piped; no emoji codes and no highlighting of model text."""
    console = Console(emoji=False, highlight=False)
    return console if console.is_terminal else Console(width=160, emoji=False, highlight=False)


def _s(text: object, limit: int | None) -> str:
    return safe_text(text if isinstance(text, str) else str(text), limit)


def trial_mark(trial: TrialRecord) -> str:
    """✓ passed, ✗ failed, ! not scorable (infrastructure error, invalid, no grade)."""
    return "!" if not trial.scorable else "✓" if trial.passed else "✗"


def tasks_of(run: RunFile) -> dict[str, list[TrialRecord]]:
    """Trials by task, tasks in the file's order, each task's trials by trial index."""
    out: dict[str, list[TrialRecord]] = {}
    for t in run.trials:
        out.setdefault(t.task_id, []).append(t)
    return {k: sorted(v, key=lambda t: t.trial) for k, v in out.items()}


def render_tasks(run: RunFile, source: str, console: Console, limits: Limits) -> None:
    tasks = tasks_of(run)
    table = Table(title=escape(f"{_s(source, limits.cell)} · {_s(run.settings.model, limits.cell)} · "
                               f"{len(tasks)} tasks, {len(run.trials)} trials (✓ passed, ✗ failed, ! not scorable)"))
    for col in ("task", "module", "passed", "trials"):
        table.add_column(col, overflow="fold")
    for task_id, trials in tasks.items():
        scorable = [t for t in trials if t.scorable]
        table.add_row(
            Text(_s(task_id, limits.cell)),
            trials[0].module,
            f"{sum(t.passed for t in scorable)}/{len(scorable)}",
            " ".join(trial_mark(t) for t in trials),
        )
    console.print(table)
    console.print("show one with: sllmb show FILE --task ID [--trial N]", markup=False)


def render_trials(trials: list[TrialRecord], console: Console, limits: Limits) -> None:
    table = Table(title=escape(f"task {_s(trials[0].task_id, limits.cell)}: {len(trials)} trial(s)"))
    for col in ("trial", "passed", "score", "reason"):
        table.add_column(col, overflow="fold")
    for t in trials:
        reason = t.grade.reason if t.grade else (t.invalid_reason or t.error or "no grade")
        table.add_row(
            str(t.trial),
            trial_mark(t),
            "—" if t.grade is None else f"{t.grade.score:.3f}",
            Text(_s(reason, limits.cell)),
        )
    console.print(table)


def _turn_header(index: int, turn: Turn, limits: Limits) -> str:
    parts = [f"#{index} {turn.role}"]
    if turn.role == "tool":
        name, call = _s(turn.name or "?", limits.cell), _s(turn.tool_call_id or "?", limits.cell)
        parts.append(f"answer of {name} (call {call})")
    if turn.finish_reason:
        parts.append(f"finish {_s(turn.finish_reason, limits.cell)}")
    if turn.usage and turn.usage.completion_tokens is not None:
        parts.append(f"{turn.usage.completion_tokens} tokens")
    if turn.timings:
        if turn.timings.ttft_ms is not None:
            parts.append(f"first token {turn.timings.ttft_ms:.0f} ms")
        if turn.timings.wall_ms:
            parts.append(f"{turn.timings.wall_ms / 1000:.1f} s")
    return " · ".join(parts)


_ROLE_STYLE = {"system": "magenta", "user": "cyan", "assistant": "green", "tool": "yellow"}


# What a tool turn's injected-failure mark says, on the terminal and (in evidence.js) on the site.
INJECTED_MARK = "INJECTED FAILURE: the task's failure injection answered this call on purpose; the tool did not run"


def render_turn(index: int, turn: Turn, console: Console, limits: Limits, *, injected: bool = False,
                replayed: bool = False) -> None:
    """One turn in a panel. ``injected``: the turn is a tool answer an injection gave; ``replayed``: found by
    replaying the calls, for a file from before the record on the turn (``world_view.injected_turns``)."""
    body = Text()
    if injected:
        body.append(INJECTED_MARK, style="bold red")
        if replayed:
            body.append(" (found by replaying the calls: this file predates the record on the turn)", style="red")
        body.append("\n\n")
    if turn.reasoning:
        body.append("reasoning (collapsed):\n", style="dim italic")
        body.append(_s(turn.reasoning, limits.reasoning) + "\n\n", style="dim")
    body.append(_s(turn.content, limits.message) if turn.content else "(no text)",
                style="" if turn.content else "dim")
    for call in turn.tool_calls:
        body.append("\n\n→ call ", style="bold")
        body.append(_s(call.name, limits.cell), style="bold")
        body.append(f"  id {_s(call.id, limits.cell)}" + ("  (recovered from the text)" if call.from_text else ""),
                    style="dim")
        body.append("\n  arguments: ")
        body.append(_s(call.arguments, limits.detail))
    if turn.tool_calls_refused:
        body.append(f"\n\n{turn.tool_calls_refused} further call(s) refused (past the per-reply cap), never run",
                    style="bold red")
    header = _turn_header(index, turn, limits) + (" · injected failure" if injected else "")
    title = Text(header, style=f"bold {_ROLE_STYLE[turn.role]}")
    console.print(Panel(body, title=title, title_align="left", border_style=_ROLE_STYLE[turn.role]))


def _detail_value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=False)


def render_grade(trial: TrialRecord, console: Console, limits: Limits) -> None:
    table = Table(show_header=False, title="grade", title_justify="left")
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")

    def row(name: str, value: object, limit: int | None = limits.detail) -> None:
        table.add_row(name, Text(_s(value, limit)))

    g = trial.grade
    if g is None:
        row("grade", "none: " + (trial.invalid_reason or trial.error or "the trial was not graded"))
    else:
        row("passed", "yes" if g.passed else "no")
        row("score", f"{g.score:.4f}")
        if g.breakdown:
            row("breakdown", "\n".join(f"{k}: {v:g}" for k, v in g.breakdown.items()), limits.message)
        row("hard gate", g.hard_gate or "—")
        row("reason", g.reason or "—")
        row("unsure", g.unsure or "—")
    row("scorable", "yes" if trial.scorable else
        "no: " + ("infrastructure error" if trial.infra else trial.invalid_reason or "no grade"))
    if trial.error:
        row("error", trial.error)
    row("truncation", trial.truncation)
    row("tokens", f"{trial.prompt_tokens} prompt, {trial.completion_tokens} completion")
    row("time", f"{trial.wall_s:.1f} s")
    row("seed", "—" if trial.seed is None else trial.seed)
    row("task", f"{trial.task_id} · module {trial.module} · hash {trial.task_hash} · version {trial.task_version}")
    console.print(table)
    if g is not None and g.details:
        d = Table(show_header=False, title="details the grade keeps", title_justify="left")
        d.add_column("key", style="bold", overflow="fold")
        d.add_column("value", overflow="fold")
        for key, value in g.details.items():
            if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                # Per-attempt records (code) and the like: one line each, so attempts read as a list.
                text = "\n".join(f"{i}. {_detail_value(v)}" for i, v in enumerate(value, start=1))
            else:
                text = _detail_value(value)
            d.add_row(Text(_s(key, limits.cell)), Text(_s(text, limits.detail)))
        console.print(d)


_FINDING = {
    "missed": "missed: asked for, not made",
    "side effect": "side effect: not asked for",
    "undone": "undone: changed outside the task, then put back",
    "reached": "reached",
}


def render_world(view: WorldView, console: Console, limits: Limits) -> None:
    """The world's expected and final state as a diff, each path with what the grade found there."""
    if view.source == "replay":
        how = ("final state derived by replaying the trial's recorded calls through the simulated world; "
               "expected: the task's gold actions on the same seed")
    else:
        how = f"only the paths the grade's details list: {view.note or 'no replay'}"
    table = Table(title=Text(_s(f"the world: expected and final state ({view.total_rows} paths; {how})", None)),
                  title_justify="left")
    for col in ("path", "seed", "expected", "final", "the grade found"):
        table.add_column(col, overflow="fold")
    for row in view.rows:
        found = _FINDING.get(row.finding, row.finding) + (f" ({row.note})" if row.note else "")
        style = "" if row.finding == "reached" else "bold red"
        table.add_row(*(Text(_s(v or "—", limits.cell)) for v in (row.path, row.seed, row.expected, row.final)),
                      Text(_s(found, limits.detail), style=style))
    if not view.rows:
        table.add_row("(no path differs from the seed in either state)", "", "", "", "")
    console.print(table)
    if view.total_rows > len(view.rows):
        console.print(f"… and {view.total_rows - len(view.rows)} more paths, not shown", markup=False)


def render_trial(trial: TrialRecord, console: Console, limits: Limits,
                 task: LoadedTask[Any] | str | None = None) -> None:
    """The trial's conversation, its world (for a trial that acted on one; ``task``: the bank's task, or why
    it could not be loaded) and its grade."""
    console.print(Text(f"{_s(trial.task_id, limits.cell)} · trial {trial.trial} · {trial.module}", style="bold"))
    view = world_view(trial, task)
    injected = injected_turns(trial, view)
    if not trial.turns:
        console.print("(no turns recorded)", markup=False)
    for i, turn in enumerate(trial.turns):
        render_turn(i + 1, turn, console, limits, injected=i in injected, replayed=injected.get(i) == "replayed")
    if view is not None:
        render_world(view, console, limits)
    render_grade(trial, console, limits)
