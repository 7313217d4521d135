"""Read and write the model files of ``results/reported/``; pick the score that counts per benchmark."""

from __future__ import annotations

import datetime as dt
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

import yaml
from pydantic import ValidationError

from engine.core.errors import UserError
from engine.core.yamlfile import invalid_file_message, read_mapping
from engine.index.schema import ModelEntry, Score

DEFAULT_DATA_DIR = Path("results/reported")
# Which measurement wins when a benchmark has several: a neutral evaluator first, then the model's own lab,
# then a rival's comparison table (often run without the model's best settings). An unverified independent
# figure (a snapshot copy nobody compared with the evaluator's own site) ranks below a verified lab figure and
# above an unverified one: it does not replace what someone checked until it is checked itself.
_RANK = {
    ("independent", True): 0,
    ("lab", True): 1,
    ("independent", False): 2,
    ("lab", False): 3,
    ("other_lab", True): 4,
    ("other_lab", False): 5,
}


def load_entry(path: Path) -> ModelEntry:
    raw = read_mapping(path, "model file")
    if raw.get("schema_version") != 1:
        raise UserError(
            f"{path}: field 'schema_version': expected 1, found {raw.get('schema_version')!r}; "
            "this engine reads schema version 1"
        )
    try:
        entry = ModelEntry.model_validate(raw)
    except ValidationError as exc:
        raise UserError(invalid_file_message(path, "model file", exc.errors())) from exc
    if entry.id != path.stem:
        raise UserError(f"{path}: field 'id': '{entry.id}' does not match the file name '{path.stem}'")
    return entry


def load_entries(data_dir: Path = DEFAULT_DATA_DIR) -> list[ModelEntry]:
    """Every model file in ``data_dir``, sorted by id. Errors name the file and the field."""
    if not data_dir.is_dir():
        raise UserError(f"{data_dir}: no such folder of reported scores")
    entries = [load_entry(path) for path in sorted(data_dir.glob("*.yaml"))]
    if not entries:
        raise UserError(f"{data_dir}: no model files (*.yaml) found")
    return entries


def score_rank(score: Score, position: int) -> tuple[int, int, int, int]:
    """Sort key of a figure among rivals for one benchmark: lower wins."""
    checked = score.checked.toordinal() if score.checked is not None else 0
    return (_RANK[(score.measured_by, score.verified)], int(score.source_url is None), -checked, position)


def chosen_scores(entry: ModelEntry) -> dict[str, Score]:
    """The one score per benchmark that enters the fit and the tables.

    Verified independent, verified lab, unverified independent, unverified lab, then another lab's (verified
    first); within a tier a figure citing its primary document beats one known only from a copy, then the most
    recently checked, then the first in the file. Earlier-version scores live elsewhere and are never
    considered.
    """
    best: dict[str, tuple[tuple[int, int, int, int], Score]] = {}
    for position, score in enumerate(entry.scores):
        key = score_rank(score, position)
        current = best.get(score.benchmark)
        if current is None or key < current[0]:
            best[score.benchmark] = (key, score)
    return {bench: pair[1] for bench, pair in best.items()}


def lab_scores(entry: ModelEntry) -> dict[str, Score]:
    """The lab's own figure per benchmark, kept for the model page when an independent one replaces it."""
    out: dict[str, Score] = {}
    for score in entry.scores:
        if score.measured_by == "lab" and score.benchmark not in out:
            out[score.benchmark] = score
    return out


def entry_to_yaml(entry: ModelEntry) -> str:
    data = entry.model_dump(mode="json", exclude_none=True, exclude_defaults=False)
    if not data.get("bench_models"):
        data.pop("bench_models", None)  # optional and rare: keep it out of the files that do not use it
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110)


def atomic_write_many(files: Iterable[tuple[Path, str]]) -> None:
    """Write every file, or none: each goes to a temp file first (fsynced), then all are renamed."""
    staged: list[tuple[str, Path]] = []
    try:
        for path, text in files:
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            staged.append((tmp, path))
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
    except BaseException:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)
        raise
    for tmp, path in staged:
        os.replace(tmp, path)


def write_entries(data_dir: Path, entries: Iterable[ModelEntry]) -> None:
    atomic_write_many((data_dir / f"{entry.id}.yaml", entry_to_yaml(entry)) for entry in entries)


def today() -> dt.date:
    return dt.date.today()

