"""``sllmb compare``: several result files side by side, with the settings that differ and the tasks where
the models disagree.

Every figure of a model comes from the verdicts the Board uses for it: its judged file's where one sits beside
the result file, the raw file's otherwise; the table and the JSON say which per model. The table has one row
per model, so a board of 28 models stays readable: no name or value is cut."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pydantic import BaseModel, ConfigDict
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from engine.analysis.judge import JudgedScore, score_judged
from engine.analysis.loaded_run import VERDICTS_HELP, LoadedRun, Verdicts, load_runs
from engine.analysis.scoring import Scorecard, board_k
from engine.analysis.stats import Separability, separability
from engine.commands.items import wide_console
from engine.commands.score import weights_arg
from engine.core.errors import UserError
from engine.core.schema import RunFile
from engine.episodes import MODULE_NAMES
from engine.publish.percent import percent_text

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
    # Per model: the verdicts ``cards``, the disagreements and the pair tests come from.
    verdicts: list[Verdicts]
    cards: list[Scorecard]
    # Raw and judged numbers side by side, for the models that have a judged file.
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


def compare_runs(loaded: list[LoadedRun], weights: str = "balanced") -> Comparison:
    if len(loaded) < 2:
        raise UserError("compare needs at least two result files")
    runs = [item.run for item in loaded]
    k = board_k(runs)
    scores = [score_judged(item.run, item.applied, k=k, weights=weights) for item in loaded]
    cards = [s.card if item.applied is None else s.judged_card for item, s in zip(loaded, scores, strict=True)]
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
        verdicts=[item.verdicts for item in loaded],
        cards=cards,
        judged=[s if item.applied is not None else None for item, s in zip(loaded, scores, strict=True)],
        differing_settings=differing,
        task_set_hashes=[r.provenance.task_set_hash for r in runs],
        disagreements=rows,
        separability=separability(cards),
    )


def render(cmp: Comparison, console: Console) -> None:
    modules = [m for m in MODULE_NAMES if any(m in c.modules for c in cmp.cards)]
    t = Table(title=f"pass^{cmp.k} (det score) · weights {cmp.weights}")
    # One row per model: the name is never folded; the figures fold rather than being cut when the terminal
    # is narrow.
    t.add_column("model", no_wrap=True)
    t.add_column("verdicts", overflow="fold")
    for m in modules:
        t.add_column(m, justify="right", overflow="fold")
    t.add_column("headline", justify="right", overflow="fold")
    judged_any = any(j is not None for j in cmp.judged)
    if judged_any:
        t.add_column("raw headline", justify="right", overflow="fold")
    t.add_column("tasks scored / excluded", justify="right", overflow="fold")
    for name, verdicts, card, judged in zip(cmp.models, cmp.verdicts, cmp.cards, cmp.judged, strict=True):
        cells = [escape(name), verdicts + (" ⚠" if judged is not None and judged.uncovered_modules else "")]
        for m in modules:
            ms = card.modules.get(m)
            cells.append("—" if ms is None else f"{percent_text(ms.pass_k)} ({percent_text(ms.det_score)})")
        cells.append(f"[bold]{percent_text(card.headline)}[/bold] ({percent_text(card.det_score)})")
        if judged_any:
            both = None if judged is None else f"{percent_text(judged.headline)} ({percent_text(judged.det_score)})"
            cells.append(both or "—")
        cells.append(f"{card.tasks_scored} / {card.tasks_excluded}")
        t.add_row(*cells)
    console.print(t)
    if any(j is not None and j.uncovered_modules for j in cmp.judged):
        console.print(
            "⚠: the judge did not cover every trial of a module; that module keeps its raw verdicts",
            markup=False,
        )
    if cmp.differing_settings:
        console.print("[yellow]settings differ; the comparison is not like for like:[/yellow]")
        for name, values in cmp.differing_settings.items():
            console.print(
                f"  {name}: " + ", ".join(f"{m}={v}" for m, v in zip(cmp.models, values, strict=True)),
                markup=False,
            )
    if cmp.separability is not None:
        sep = cmp.separability
        console.print(
            f"pairs separable: {sep.separable_count} of {sep.pair_count} (sign test over shared tasks, "
            f"Holm-corrected, alpha {sep.alpha})",
            markup=False,
        )
        for p in sep.pairs:
            console.print(
                f"{p.model_a} vs {p.model_b}: wins {p.wins_a}-{p.wins_b}, ties {p.ties}, "
                f"Holm p {p.p_adjusted:.3g} ({'separable' if p.separable else 'not separable'})",
                markup=False,
            )
    if cmp.disagreements:
        # One row per task and one line of outcomes in the models' order above: a column per model would cut
        # every cell to a few characters on a board of many models.
        d = Table(title=f"tasks where they differ ({len(cmp.disagreements)}; passed/scorable, models in order)")
        d.add_column("task", overflow="fold")
        d.add_column("module", overflow="fold")
        d.add_column("outcomes", overflow="fold")
        for row in cmp.disagreements:
            d.add_row(escape(row.task_id), row.module, " ".join("-" if o is None else o for o in row.outcomes))
        console.print(d)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare",
        help="several result files side by side",
        description="Score several result files with one k and show them side by side, one row per model: "
        "per module pass^k and det score, the raw headline beside the judged one where a judged file "
        "sits beside the result, the settings that differ, the paired sign test of each pair, and the "
        f"tasks where the models disagree. {VERDICTS_HELP}",
    )
    p.add_argument("results", nargs="+", type=Path, help="two or more *_raw_results.json files")
    weights_arg(p)
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    cmp = compare_runs(load_runs(list(args.results)), weights=args.weights)
    if args.json:
        sys.stdout.write(
            cmp.model_dump_json(indent=1, exclude={"judged": {"__all__": {"card", "judged_card"}}}) + "\n"
        )
        return 0
    render(cmp, wide_console())
    return 0
