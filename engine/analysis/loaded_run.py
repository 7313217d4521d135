"""Loading a model's run the way every comparison of models scores it: with the verdicts of its judged file.

``sllmb items``, ``sllmb compare`` and the Board all load result files here, so one folder gives one answer:
a model whose ``<model>_judged.json`` sits beside its raw file is scored on the judged verdicts (applied
once, here), any other on its raw verdicts, and each output says which it used.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from engine.analysis.judge import AppliedVerdicts, JudgedFile, apply_verdicts, judged_path_for, load_judged_file
from engine.core.errors import UserError
from engine.core.results import load_run_file
from engine.core.schema import RunFile
from engine.episodes import MODULE_NAMES

Verdicts = Literal["judged", "raw"]
# The rule in the words of the CLI help of every command that loads runs here.
VERDICTS_HELP = (
    "A model with a <model>_judged.json beside its result file is scored on the judged verdicts, any other on "
    "its raw verdicts (as the leaderboard does); the output says which, per model."
)


@dataclass(frozen=True)
class LoadedRun:
    """One model's raw result file, the judged file beside it if any, and the run with its verdicts applied."""

    path: Path
    # The run as the result file holds it (the det verdicts).
    run: RunFile
    judged_path: Path | None
    judged: JudgedFile | None
    # The judged file's verdicts applied to ``run``; None when there is no judged file.
    applied: AppliedVerdicts | None

    @property
    def model(self) -> str:
        return self.run.settings.model

    @property
    def verdicts(self) -> Verdicts:
        return "raw" if self.applied is None else "judged"

    @property
    def scored_run(self) -> RunFile:
        """The run every figure is computed from: judged verdicts where there is a judged file, raw otherwise."""
        return self.run if self.applied is None else self.applied.run


def load_run(path: Path) -> LoadedRun:
    """A raw result file with the judged file beside it (``judged_path_for``), its verdicts applied."""
    run = load_run_file(path, MODULE_NAMES)
    jpath = judged_path_for(path)
    if not jpath.is_file():
        return LoadedRun(path, run, None, None, None)
    judged = load_judged_file(jpath)
    if judged.model != run.settings.model:
        raise UserError(
            f"{jpath}: judged file is for model {judged.model!r} but {path.name} holds "
            f"{run.settings.model!r}; re-run `sllmb judge --results {path}`"
        )
    return LoadedRun(path, run, jpath, judged, apply_verdicts(run, judged))


def load_runs(paths: Sequence[Path]) -> list[LoadedRun]:
    """Every file of ``paths`` loaded; two files for one model are an error (one result per model)."""
    loaded: list[LoadedRun] = []
    seen: dict[str, Path] = {}
    for path in paths:
        item = load_run(path)
        if item.model in seen:
            raise UserError(
                f"{path} and {seen[item.model]} both hold model {item.model!r}; keep one result file per model"
            )
        seen[item.model] = path
        loaded.append(item)
    return loaded
