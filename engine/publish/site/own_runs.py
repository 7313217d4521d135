"""Our own small-llm-bench runs as independent measurements on the Small LM Index's model pages.

Each figure is a row of the site's Board, as the leaderboard shows it: the same headline (judged pass^k, or
raw pass^k for a row with no judged file), the same k and settings. Nothing is read or scored again here, so a
model's index page and its leaderboard row cannot show two numbers for one run. A row is attached to the
index model it ran: the one whose id equals the run's model name, or that lists the name under
``bench_models``. The figure is shown beside the reported benchmarks; it is not one of the 18 benchmarks and
never enters the index fit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.index.schema import ModelEntry
from engine.publish.board import Board, Row


@dataclass(frozen=True)
class OwnRun:
    run_model: str
    file: str
    # The Board row's headline, 0-100.
    pass_k: float | None
    k: int
    # "judged" or "raw": the verdicts the headline comes from.
    verdicts: str
    tasks_scored: int
    settings: str

    @property
    def label(self) -> str:
        return f"small-llm-bench pass^{self.k}"


def _verdicts(row: Row) -> str:
    return "raw" if row.judge_state == "fallback" else "judged"


def _settings_text(row: Row) -> str:
    s = {item.field: item.value for item in row.settings}
    parts = [
        f"{s['trials']} trials",
        f"profile {s['profile']}",
        f"thinking {s['thinking']}",
        s["sampling"],
        f"bench {s['bench_version']}",
        f"{_verdicts(row)} verdicts",
    ]
    if s["served_context"] != "not reported":
        parts.append(f"context {s['served_context']}")
    return ", ".join(parts)


def own_runs_from_board(board: Board) -> list[OwnRun]:
    """One measurement per Board row."""
    return [
        OwnRun(
            run_model=row.model,
            file=row.source_file,
            pass_k=row.headline,
            k=board.k,
            verdicts=_verdicts(row),
            tasks_scored=row.tasks_scored,
            settings=_settings_text(row),
        )
        for row in board.rows
    ]


def runs_for(entry: ModelEntry, runs: Iterable[OwnRun]) -> list[OwnRun]:
    names = {entry.id, *entry.bench_models}
    return [r for r in runs if r.run_model in names]
