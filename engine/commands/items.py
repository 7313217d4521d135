"""``sllmb items``: what the board can resolve. Intervals per model, paired sign tests (Holm), tasks needed
for adjacent pairs, and the class of every task across the fleet."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pydantic import BaseModel, ConfigDict
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from engine.analysis.items import ItemReport, class_counts, classify_items
from engine.analysis.loaded_run import VERDICTS_HELP, LoadedRun, Verdicts, load_runs
from engine.analysis.scoring import board_k, score_run
from engine.analysis.stats import PairTest, Separability, model_interval, separability
from engine.commands.score import result_files_in, weights_arg
from engine.core.errors import UserError
from engine.core.models_file import ModelEntry, ModelsFile, default_models_path, load_models
from engine.core.percent import percent_text
from engine.core.reference_setting import load_reference_setting, setting_path_for
from engine.core.results import FLEET_DIR
from engine.core.schema import RunFile
from engine.episodes import MODULE_NAMES


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ModelRow(_Model):
    model: str
    # Which verdicts every figure of this model comes from: its judged file's, or the raw file's.
    verdicts: Verdicts
    # "7B", "35B (3B active)", or "?" when models.yaml does not list the model or its size.
    size: str
    size_b: float | None
    architecture: str | None
    headline: float | None
    low: float | None
    high: float | None
    effective_tasks: float
    tasks_scored: int


class ItemsReport(_Model):
    k: int
    weights: str
    module: str | None
    models: list[ModelRow]
    separability: Separability
    adjacent_pairs: list[PairTest]
    item_counts: dict[str, int]
    items: list[ItemReport]


def size_label(entry: ModelEntry | None) -> str:
    if entry is None or entry.total_params_b is None:
        return "?"
    total = f"{entry.total_params_b:g}B"
    if entry.active_params_b is not None and entry.active_params_b < entry.total_params_b:
        return f"{total} ({entry.active_params_b:g}B active)"
    return total


def ranking_size(entry: ModelEntry | None) -> float | None:
    """The size a model is compared by: active parameters when known (the cost of a forward pass),
    else total."""
    if entry is None:
        return None
    return entry.active_params_b or entry.total_params_b


def only_module(run: RunFile, module: str) -> RunFile:
    return run.model_copy(update={"trials": [t for t in run.trials if t.module == module]})


def build_report(
    loaded: list[LoadedRun],
    models: ModelsFile | None,
    *,
    module: str | None = None,
    weights: str = "balanced",
    k: int | None = None,
) -> ItemsReport:
    """``k``: the folder's declared k (its reference setting); None: the largest trial count (``board_k``)."""
    if module is not None and module not in MODULE_NAMES:
        raise UserError(f"unknown module {module!r} (--module); choose one of: {', '.join(MODULE_NAMES)}")
    runs = [item.scored_run for item in loaded]
    if module is not None:
        runs = [only_module(r, module) for r in runs]
    k = k if k is not None else board_k(runs)
    cards = [score_run(r, k=k, weights=weights) for r in runs]
    verdicts = {item.model: item.verdicts for item in loaded}
    entries = {c.model: (models.find(c.model) if models else None) for c in cards}
    sep = separability(cards)
    order = {name: i for i, name in enumerate(sep.ranking)}
    rows = []
    for card in sorted(cards, key=lambda c: order[c.model]):
        interval = model_interval(card)
        entry = entries[card.model]
        rows.append(
            ModelRow(
                model=card.model,
                verdicts=verdicts[card.model],
                size=size_label(entry),
                size_b=ranking_size(entry),
                architecture=entry.architecture if entry else None,
                headline=card.headline,
                low=interval.low if interval else None,
                high=interval.high if interval else None,
                effective_tasks=interval.n if interval else 0.0,
                tasks_scored=card.tasks_scored,
            )
        )
    items = classify_items(cards, {name: ranking_size(e) for name, e in entries.items()}, module)
    return ItemsReport(
        k=k,
        weights=weights,
        module=module,
        models=rows,
        separability=sep,
        adjacent_pairs=[p for p in sep.pairs if p.adjacent],
        item_counts=class_counts(items),
        items=items,
    )


def render(report: ItemsReport, console: Console) -> None:
    scope = f" · module {report.module}" if report.module else ""
    t = Table(
        title=f"models · pass^{report.k} · weights {report.weights}{scope} · Wilson 95%, task as the unit"
    )
    for col in ("#", "model", "verdicts", "size", "pass", "95% interval", "eff. tasks"):
        t.add_column(col, justify="left" if col in ("model", "verdicts", "size") else "right")
    for i, row in enumerate(report.models, start=1):
        t.add_row(
            str(i),
            escape(row.model),
            row.verdicts,
            escape(row.size),
            percent_text(row.headline),
            f"{percent_text(row.low)}–{percent_text(row.high)}",
            f"{row.effective_tasks:.1f}",
        )
    console.print(t)

    sep = report.separability
    console.print(
        f"pairs separable: {sep.separable_count} of {sep.pair_count} (sign test over shared tasks, "
        f"Holm-corrected, alpha {sep.alpha}); adjacent pairs separable: "
        f"{sep.adjacent_separable} of {sep.adjacent_count}",
        markup=False,
    )
    if report.adjacent_pairs:
        a = Table(title="adjacent pairs")
        for col in ("higher", "lower", "wins", "losses", "ties", "p", "Holm p", "separable", "tasks needed"):
            a.add_column(col, justify="left" if col in ("higher", "lower") else "right")
        for p in report.adjacent_pairs:
            a.add_row(
                escape(p.model_a),
                escape(p.model_b),
                str(p.wins_a),
                str(p.wins_b),
                str(p.ties),
                f"{p.p_value:.3g}",
                f"{p.p_adjusted:.3g}",
                "yes" if p.separable else "no",
                "—" if p.tasks_needed is None else str(p.tasks_needed),
            )
        console.print(a)
    others = [p for p in sep.pairs if p.separable and not p.adjacent]
    if others:
        console.print(
            "other separable pairs: "
            + "; ".join(f"{p.model_a} > {p.model_b}" for p in others[:20])
            + (" …" if len(others) > 20 else ""),
            markup=False,
        )

    counts = ", ".join(f"{k} {v}" for k, v in report.item_counts.items())
    it = Table(title=f"items ({len(report.items)} tasks: {counts})")
    for col in ("task", "module", "classes", "pass fractions (best model first)", "item-rest r"):
        # Folded, never cut: with many models the fractions run longer than a line.
        it.add_column(col, overflow="fold")
    for item in report.items:
        fractions = " ".join(
            f"{item.outcomes[m.model].passed}/{item.outcomes[m.model].trials}"
            if m.model in item.outcomes
            else "-"
            for m in report.models
        )
        it.add_row(
            escape(item.task_id),
            item.module,
            ", ".join(item.classes) or "—",
            fractions,
            "—" if item.discrimination is None else f"{item.discrimination:+.2f}",
        )
    console.print(it)


def wide_console() -> Console:
    """A terminal's own width; 160 columns when piped, so model names are not folded in logs."""
    console = Console()
    return console if console.is_terminal else Console(width=160)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "items",
        help="intervals, paired tests and item classes across result files",
        description="Load every *_raw_results.json of a folder and print what the board can resolve: "
        "a Wilson "
        "95%% interval per model (the task as the unit), the sign test of every pair with Holm's "
        "correction, the tasks needed to separate adjacent pairs, and each task's class "
        "(discriminating, flaky, dead easy, dead hard, inverted by size). "
        "Scored at the k of the folder's setting.yaml where it has one (as the board is), else at the "
        f"largest trial count of its files. {VERDICTS_HELP}",
    )
    p.add_argument(
        "--results-dir",
        "-d",
        type=Path,
        default=FLEET_DIR,
        help=f"folder of result files (default: {FLEET_DIR.as_posix()}, the reference fleet)",
    )
    p.add_argument("--module", "-m", help="restrict scores, tests and items to one module")
    p.add_argument("--models", type=Path, help="models.yaml for sizes (default ./models.yaml)")
    weights_arg(p)
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=handle)


def load_models_for_sizes(path: Path | None) -> ModelsFile | None:
    """An explicit --models must load; the default file may be absent (sizes then show as "?")."""
    if path is not None:
        return load_models(path)
    default = default_models_path()
    return load_models(default) if default.is_file() else None


def handle(args: argparse.Namespace) -> int:
    runs = load_runs(result_files_in(args.results_dir))
    setting = setting_path_for(args.results_dir)
    k = load_reference_setting(setting).k if setting.is_file() else None
    report = build_report(
        runs, load_models_for_sizes(args.models), module=args.module, weights=args.weights, k=k
    )
    if args.json:
        sys.stdout.write(report.model_dump_json(indent=1) + "\n")
        return 0
    render(report, wide_console())
    return 0
