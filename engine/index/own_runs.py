"""Our own small-llm-bench runs as independent measurements on the index's model pages.

A raw result file (``results/*_raw_results.json``, ``results/reference/*_raw_results.json``) is scored with
``engine.analysis.scoring.score_run`` and attached to the index model it ran: the one whose id equals the run's model
name, or that lists the name under ``bench_models``. The figure is our pass^k, shown beside the reported
benchmarks with the run's settings; it is not one of the 18 benchmarks and never enters the index fit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from engine.analysis.scoring import score_run
from engine.core.results import load_run_file
from engine.index.schema import ModelEntry

RAW_SUFFIX = "_raw_results.json"
DEFAULT_RESULT_DIRS = (Path("results"), Path("results/reference"))


@dataclass(frozen=True)
class OwnRun:
    run_model: str
    file: str
    pass_k: float | None  # 0-100
    det: float | None  # 0-100
    k: int
    tasks_scored: int
    tasks_excluded: int
    settings: str
    finished: str | None

    @property
    def label(self) -> str:
        return f"small-llm-bench pass^{self.k}"


def _settings_text(run) -> str:  # type: ignore[no-untyped-def]
    s = run.settings
    parts = [
        f"{s.trials} trials",
        f"profile {s.profile}",
        f"thinking {'on' if s.thinking else 'off' if s.thinking is False else 'server default'}",
        f"temperature {s.temperature if s.temperature is not None else 'server default'}",
        f"seed {s.seed}",
        f"served from {s.endpoint_host}",
        f"bench {run.provenance.bench_version}",
    ]
    if run.provenance.served_context:
        parts.append(f"context {run.provenance.served_context}")
    return ", ".join(parts)


def result_files(dirs: Iterable[Path]) -> list[Path]:
    files: list[Path] = []
    for folder in dirs:
        if folder.is_dir():
            files.extend(sorted(folder.glob(f"*{RAW_SUFFIX}")))
    return files


def load_own_runs(dirs: Iterable[Path] = DEFAULT_RESULT_DIRS, root: Path | None = None) -> list[OwnRun]:
    """Every raw result file in ``dirs``, scored. A bad file is a UserError naming it."""
    out = []
    for path in result_files(dirs):
        run = load_run_file(path)
        card = score_run(run)
        shown = path.relative_to(root) if root is not None and path.is_relative_to(root) else path
        out.append(
            OwnRun(
                run_model=run.settings.model,
                file=str(shown),
                pass_k=None if card.headline is None else round(100 * card.headline, 1),
                det=None if card.det_score is None else round(100 * card.det_score, 1),
                k=card.k,
                tasks_scored=card.tasks_scored,
                tasks_excluded=card.tasks_excluded,
                settings=_settings_text(run),
                finished=(run.provenance.finished_at or "")[:10] or None,
            )
        )
    return out


def runs_for(entry: ModelEntry, runs: Iterable[OwnRun]) -> list[OwnRun]:
    names = {entry.id, *entry.bench_models}
    return [r for r in runs if r.run_model in names]
