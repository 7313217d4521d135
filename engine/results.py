"""Reading and writing result files (``results/<model-slug>_raw_results.json``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import ValidationError

from engine.errors import UserError
from engine.fileio import atomic_write_text
from engine.schema import RunFile


def model_slug(model: str) -> str:
    """A file-name-safe form of a model name: ``qwen3:8b`` -> ``qwen3_8b``."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("._-")
    return slug or "model"


def default_output(model: str, results_dir: Path = Path("results")) -> Path:
    return results_dir / f"{model_slug(model)}_raw_results.json"


def write_run_file(path: Path, run: RunFile) -> None:
    atomic_write_text(path, json.dumps(run.model_dump(mode="json"), indent=1, ensure_ascii=False) + "\n")


def load_run_file(path: Path) -> RunFile:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"{path}: cannot read result file: {exc}") from exc
    try:
        return RunFile.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise UserError(
            f"{path}: not a valid result file ({where}: {first['msg']}; {exc.error_count()} problem(s) in all)"
        ) from exc


def result_json_schema() -> dict:
    """The JSON Schema of the result file, exported to the docs."""
    return RunFile.model_json_schema()
