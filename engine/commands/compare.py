"""``sllmb compare``: several result files side by side, with the settings that differ and the tasks where
the models disagree."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pydantic import BaseModel, ConfigDict
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from engine.analysis.judge import JudgedScore, judged_path_for, load_judged_file, score_judged
from engine.analysis.scoring import Scorecard, board_k
from engine.analysis.stats import Separability, separability
from engine.commands.items import wide_console
from engine.commands.score import load_runs, weights_arg
from engine.core.errors import UserError
from engine.core.schema import RunFile
from engine.episodes import MODULE_NAMES

# Settings that change what a model saw or how it was graded; a comparison across them is flagged.
COMPARED_SETTINGS = ("trials", "profile", "thinking", "temperature", "max_tokens", "seed", "sandbox_backend")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TaskRow(_Model):
    task_id: str
    module: str
    # passed/scorable per model, in the order of ``Comparison.models``; None where the model has no trial.
    outcomes: list[str | None]


class Comparison(_Model):
    k: int
    weights: str
    models: list[str]
    cards: list[Scorecard]
    judged: list[JudgedScore | None]
    # Setting name -> value per model, only for settings that are not the same in every file.
    differing_settings: dict[str, list[str]]
    task_set_hashes: list[str]
    disagreements: list[TaskRow]
    separability: Separability | None


def _setting(run: RunFile, name: str) -> str:
    if name == "task_set_hash":
        return run.provenance.task_set_hash
    return str(getattr(run.settings, name))


def compare_runs(
    runs: list[RunFile], judged_files: list[Path | None], weights: str = "balanced"
) -> Comparison:
    if len(runs) < 2:
        raise UserError("compare needs at least two result files")
    k = board_k(runs)
    judged = [load_judged_file(p) if p is not None and p.is_file() else None for p in judged_files]
    scores = [score_judged(r, j, k=k, weights=weights) for r, j in zip(runs, judged, strict=True)]
    cards = [s.card for s in scores]
    differing = {}
    for name in (*COMPARED_SETTINGS, "task_set_hash"):
        values = [_setting(r, name) for r in runs]
        if len(set(values)) > 1:
            differing[name] = values
    task_ids: dict[str, str] = {}
    for card in cards:
        for t in card.tasks.values():
            task_ids.setdefault(t.task_id, t.module)
    order = {m: i for i, m in enumerate(MODULE_NAMES)}
    rows = []
    for task_id, module in sorted(task_ids.items(), key=lambda kv: (order.get(kv[1], 99), kv[0])):
        fractions = []
        cells: list[str | None] = []
        for card in cards:
            ts = card.tasks.get(task_id)
            if ts is None or ts.scorable_trials == 0:
                cells.append(None)
                continue
            cells.append(f"{ts.passed_trials}/{ts.scorable_trials}")
            fractions.append(ts.passed_trials / ts.scorable_trials)
        if len(set(fractions)) > 1 or None in cells:
            rows.append(TaskRow(task_id=task_id, module=module, outcomes=cells))
    return Comparison(
        k=k,
        weights=weights,
        models=[c.model for c in cards],
        cards=cards,
        judged=[s if j is not None else None for s, j in zip(scores, judged, strict=True)],
        differing_settings=differing,
        task_set_hashes=[r.provenance.task_set_hash for r in runs],
        disagreements=rows,
        separability=separability(cards),
    )


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{v * 100:.1f}"


def render(cmp: Comparison, console: Console) -> None:
    t = Table(title=f"pass^{cmp.k} (det score) · weights {cmp.weights}")
    t.add_column("module")
    for name in cmp.models:
        t.add_column(escape(name), justify="right")
    modules = [m for m in MODULE_NAMES if any(m in c.modules for c in cmp.cards)]
    for m in modules:
        cells = []
        for card in cmp.cards:
            ms = card.modules.get(m)
            cells.append("—" if ms is None else f"{_pct(ms.pass_k)} ({_pct(ms.det_score)})")
        t.add_row(m, *cells)
    t.add_row(
        "[bold]headline[/bold]",
        *[f"[bold]{_pct(c.headline)}[/bold] ({_pct(c.det_score)})" for c in cmp.cards],
    )
    if any(j is not None for j in cmp.judged):
        t.add_row(
            "judged",
            *[
                "—"
                if j is None
                else f"{_pct(j.judged_headline)} ({_pct(j.judged_det_score)})"
                + (" ⚠" if j.uncovered_modules else "")
                for j in cmp.judged
            ],
        )
    t.add_row("tasks scored / excluded", *[f"{c.tasks_scored} / {c.tasks_excluded}" for c in cmp.cards])
    console.print(t)
    if cmp.differing_settings:
        console.print("[yellow]settings differ; the comparison is not like for like:[/yellow]")
        for name, values in cmp.differing_settings.items():
            console.print(
                f"  {name}: " + ", ".join(f"{m}={v}" for m, v in zip(cmp.models, values, strict=True)),
                markup=False,
            )
    if cmp.separability is not None:
        for p in cmp.separability.pairs:
            console.print(
                f"{p.model_a} vs {p.model_b}: wins {p.wins_a}-{p.wins_b}, ties {p.ties}, "
                f"Holm p {p.p_adjusted:.3g} ({'separable' if p.separable else 'not separable'})",
                markup=False,
            )
    if cmp.disagreements:
        d = Table(title=f"tasks where they differ ({len(cmp.disagreements)})")
        d.add_column("task")
        d.add_column("module")
        for name in cmp.models:
            d.add_column(escape(name), justify="right")
        for row in cmp.disagreements:
            d.add_row(escape(row.task_id), row.module, *["—" if o is None else o for o in row.outcomes])
        console.print(d)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare",
        help="several result files side by side",
        description="Score several result files with one k and show them side by side: per module pass^k and "
        "det score, the judged headline where a judged file sits beside the result, the settings "
        "that differ, the paired sign test of each pair, and the tasks where the models disagree.",
    )
    p.add_argument("results", nargs="+", type=Path, help="two or more *_raw_results.json files")
    weights_arg(p)
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    runs = load_runs(list(args.results))
    cmp = compare_runs(runs, [judged_path_for(p) for p in args.results], weights=args.weights)
    if args.json:
        sys.stdout.write(
            cmp.model_dump_json(indent=1, exclude={"judged": {"__all__": {"card", "judged_card"}}}) + "\n"
        )
        return 0
    render(cmp, wide_console())
    return 0
