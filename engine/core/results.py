"""Reading and writing result files (``results/<model-slug>_raw_results.json``)."""

from __future__ import annotations

import hashlib
import json
import math
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from engine.core.errors import UserError
from engine.core.fileio import atomic_write_text, read_text
from engine.core.schema import RunFile, module_context, with_module_names

M = TypeVar("M", bound=BaseModel)


def model_slug(model: str) -> str:
    """A file-name-safe form of a model name: ``qwen3:8b`` -> ``qwen3_8b``. Letters and digits of every script
    are kept (``модель-7b`` stays readable); a name with none gets a hash of itself, so two such names never
    share one file."""
    slug = re.sub(r"[^\w.-]+", "_", unicodedata.normalize("NFKC", model)).strip("._-")
    return slug or "model-" + hashlib.sha256(model.encode("utf-8")).hexdigest()[:10]


# The name every raw result file ends in; judged and rescored files are named from it.
RAW_SUFFIX = "_raw_results.json"
# The reference fleet: the folder the board, the site and the PR check read. Every command that reads the
# fleet defaults to it (a bare `sllmb leaderboard` or `sllmb items` then works in a checkout); `sllmb run`
# still writes to results/ unless given --output, so a trial run never lands in the fleet by accident.
FLEET_DIR = Path("results/reference")


def default_output(model: str, results_dir: Path = Path("results")) -> Path:
    return results_dir / f"{model_slug(model)}{RAW_SUFFIX}"


def _not_finite(data: object, where: str = "") -> str | None:
    """Where the first number JSON cannot hold (Infinity, NaN) sits in ``data``, as ``a.b.0.c``."""
    if isinstance(data, float) and not math.isfinite(data):
        return f"{where or '(top level)'} = {data}"
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        found = _not_finite(value, f"{where}.{key}" if where else str(key))
        if found:
            return found
    return None


def write_json_model(path: Path, model: BaseModel) -> None:
    """Write a file model as indented JSON, atomically. A number JSON cannot hold is refused (never written as
    ``Infinity``, which no strict JSON reader accepts), naming where it is."""
    data = model.model_dump(mode="json")
    try:
        text = json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False)
    except ValueError as exc:
        raise UserError(f"{path}: not written: {_not_finite(data)} is not a number JSON can hold; this is a bench "
                        "bug (a value taken unchecked), please report it with this message") from exc
    atomic_write_text(path, text + "\n")


def read_json_model(path: Path, cls: type[M], what: str, fix: str = "", *,
                    context: dict[str, Any] | None = None) -> M:
    """Read and validate a JSON file model (under pydantic's validation ``context``); any problem is a
    ``UserError`` naming the file and the field."""
    text = read_text(path, what, fix)  # missing, unreadable or not UTF-8: a UserError naming the file
    try:
        return cls.model_validate_json(text, context=context)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        count = exc.error_count()
        message = f"{path}: not a valid {what} ({where}: {first['msg']}; {count} problem(s) in all){fix}"
        raise UserError(message) from exc


def write_run_file(path: Path, run: RunFile) -> None:
    write_json_model(path, run)


def load_run_file(path: Path, modules: Sequence[str] | None = None) -> RunFile:
    """A result file, its module names held to ``modules`` (the registry's: every caller in the engine passes
    ``engine.episodes.MODULE_NAMES``); without them, to the shape of a module name only."""
    context = module_context(modules) if modules is not None else None
    return read_json_model(path, RunFile, "result file", context=context)


def recorded_top_p(run: RunFile) -> float | None:
    """The top_p a run sent, as its server check recorded it (``provenance.server.sampler``; ``RunSettings``
    has no field for it); None for a file that does not say."""
    sampler = run.provenance.server.get("sampler")
    value = sampler.get("top_p") if isinstance(sampler, dict) else None
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def result_json_schema(modules: Sequence[str]) -> dict:
    """The JSON Schema of the result file, exported to the docs: module names are the enum of ``modules``."""
    schema: dict = with_module_names(RunFile.model_json_schema(), modules)
    return schema
