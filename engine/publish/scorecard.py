"""The table printed when a run ends: per module pass^k, det score and exclusions; then the headline."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from engine.analysis.scoring import Scorecard
from engine.core.percent import percent_text
from engine.core.schema import RunFile
from engine.run.runcost import decode_median, describe, run_minutes


def render(run: RunFile, card: Scorecard, console: Console | None = None) -> None:
    console = console or Console(stderr=False)
    table = Table(title=f"{run.settings.model} · pass^{card.k} · weights {card.weights_preset}")
    for column in ("module", "weight", "pass^k", "det score", "tasks scored", "excluded trials"):
        table.add_column(column, justify="left" if column == "module" else "right")
    for name, mod in card.modules.items():
        table.add_row(name, f"{mod.weight:.2f}", percent_text(mod.pass_k), percent_text(mod.det_score),
                      str(mod.tasks_scored), str(mod.trials_excluded))
    console.print(table)
    rate = decode_median(run.trials)
    minutes = run_minutes(run.provenance.duration_s)
    run_time = "—" if minutes is None else f"{minutes:.1f} min"
    decode = "—" if rate is None else f"{rate:.1f} tok/s"
    console.print(
        f"[bold]headline pass^{card.k}: {percent_text(card.headline)}[/bold]  "
        f"det score: {percent_text(card.det_score)}  "
        f"tasks scored: {card.tasks_scored} (excluded {card.tasks_excluded})  "
        f"run time: {run_time}  decode: {decode}"
    )
    if run.provenance.cost is not None:
        console.print(describe(run.provenance.cost))
    if run.provenance.skipped_tasks:
        console.print(f"[yellow]skipped {len(run.provenance.skipped_tasks)} task(s):[/yellow] "
                      + "; ".join(f"{k}: {v}" for k, v in sorted(run.provenance.skipped_tasks.items())))
