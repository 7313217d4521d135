"""Import Artificial Analysis's independent measurements: their scores on our benchmarks and median speeds.

Their free API has answered in two shapes over time, and both are accepted:

* ``legacy``: ``GET /api/v2/data/llms/models`` gives ``{"status": 200, "data": [model, ...]}`` in one page.
* ``paged``: the newer language-models listing gives ``{"data": [model, ...], "page": 1, "total_pages": 3,
  "has_more": true, ...}``; further pages are read with ``?page=N``.

In both a model has ``id``, ``name``, ``slug``, ``model_creator``, ``evaluations`` (benchmark scores as
fractions 0-1, plus their own 0-100 indices, which we ignore) and flat median speed fields. A body in any
other shape, or a score outside 0-1, stops the import with a message naming the field: nothing is
written. The key is read from the environment by the caller and sent only in the ``x-api-key`` header; no
message, file or log line ever contains it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.index.data import atomic_write_many, entry_to_yaml, load_entries
from engine.index.schema import AASpeed, ModelEntry, Score
from engine.index.sync import SyncError, SyncReport, json_body

AA_KEY_ENV = "AA_API_KEY"
AA_BASE_ENV = "INDEX_AA_BASE_URL"
DEFAULT_AA_BASE = "https://artificialanalysis.ai/api/v2"
DEFAULT_AA_PATH = "/data/llms/models"
EVALUATOR = "Artificial Analysis"
MODEL_PAGE = "https://artificialanalysis.ai/models/{slug}"
MAX_PAGES = 50
TIMEOUT_S = 30.0

# Their evaluation key -> our benchmark and the variant recorded with the figure. Keys not listed (their own
# indices, benchmarks we do not track) are ignored. "aime" is the 2024 exam of their earlier index versions,
# "aime_25" the 2025 exam that replaced it.
KEY_MAP: dict[str, tuple[str, str]] = {
    "mmlu_pro": ("MMLU-Pro", "AA implementation"),
    "gpqa": ("GPQA Diamond", "AA implementation"),
    "gpqa_diamond": ("GPQA Diamond", "AA implementation"),
    "hle": ("HLE", "AA implementation, text-only, no tools"),
    "aime": ("AIME", "AIME 2024; AA implementation"),
    "aime_25": ("AIME", "AIME 2025; AA implementation"),
    "livecodebench": ("LiveCodeBench", "AA implementation (AA problem window)"),
    "scicode": ("SciCode", "AA implementation"),
    "math_500": ("MATH-500", "AA implementation"),
    "ifbench": ("IFBench", "AA implementation"),
    "lcr": ("AA-LCR", "AA Long Context Reasoning"),
    "aa_lcr": ("AA-LCR", "AA Long Context Reasoning"),
    "terminalbench_hard": ("Terminal-Bench", "Terminal-Bench Hard (AA subset)"),
    "tau2": ("tau2-Bench", "Telecom (AA)"),
    "tau2_telecom": ("tau2-Bench", "Telecom (AA)"),
}


class _Open(BaseModel):
    # Their records grow new fields often; unknown fields are allowed, the ones we read are checked.
    model_config = ConfigDict(extra="allow")


class AACreator(_Open):
    id: str
    name: str


class AAModel(_Open):
    id: str = Field(min_length=1)
    name: str
    slug: str = Field(min_length=1)
    model_creator: AACreator
    evaluations: dict[str, float | None] | None = None
    median_output_tokens_per_second: float | None = Field(default=None, ge=0)
    median_time_to_first_token_seconds: float | None = Field(default=None, ge=0)


class LegacyEnvelope(BaseModel):
    model_config = ConfigDict(extra="allow")
    status: int
    data: list[AAModel]


class PagedEnvelope(BaseModel):
    model_config = ConfigDict(extra="allow")
    data: list[AAModel]
    page: int = Field(ge=1)
    total_pages: int = Field(ge=0)
    has_more: bool


Shape = Literal["legacy", "paged"]


@dataclass(frozen=True)
class ParsedPage:
    shape: Shape
    models: list[AAModel]
    has_more: bool


def _where(err: Any) -> str:
    return ".".join(str(p) for p in err["loc"]) or "(top level)"


def parse_body(body: Any, url: str) -> ParsedPage:
    """Validate one response body against the two known shapes; anything else is a SyncError."""
    if not isinstance(body, dict):
        raise SyncError(
            f"GET {url}: unknown response shape (top level is {type(body).__name__}, expected an object); "
            "nothing was written",
            retryable=False,
        )
    keys = set(body)
    if "data" in keys and {"page", "total_pages", "has_more"} <= keys:
        model: type[BaseModel] = PagedEnvelope
        shape: Shape = "paged"
    elif "data" in keys and "status" in keys:
        model, shape = LegacyEnvelope, "legacy"
    else:
        raise SyncError(
            f"GET {url}: unknown response shape (top-level keys {sorted(keys)}); expected 'status' and "
            "'data' (legacy) or 'data', 'page', 'total_pages' and 'has_more' (paged). The API may have "
            "changed: update engine/index/aa.py; nothing was written",
            retryable=False,
        )
    try:
        parsed = model.model_validate(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise SyncError(
            f"GET {url}: {shape} response shape, but field '{_where(first)}': {first['msg']} "
            f"({len(exc.errors())} problem(s) in all); nothing was written",
            retryable=False,
        ) from exc
    has_more = bool(getattr(parsed, "has_more", False))
    return ParsedPage(shape, list(parsed.data), has_more)  # type: ignore[attr-defined]


def _get(http: httpx.Client, url: str, params: dict[str, str] | None = None) -> Any:
    try:
        response = http.get(url, params=params)
    except httpx.HTTPError as exc:
        raise SyncError(f"GET {url} failed: {exc.__class__.__name__}; nothing was written") from exc
    if response.status_code in (401, 403):
        raise SyncError(
            f"GET {url}: the key in {AA_KEY_ENV} was refused (HTTP {response.status_code}); check or renew "
            "it. Nothing was written",
            retryable=False,
        )
    return json_body(response, url, "the free API allows a limited number of requests a day. ")


def fetch_models(http: httpx.Client, url: str) -> tuple[Shape, list[AAModel]]:
    page = parse_body(_get(http, url), url)
    models = list(page.models)
    number = 1
    while page.has_more:
        number += 1
        if number > MAX_PAGES:
            raise SyncError(f"GET {url}: more than {MAX_PAGES} pages; nothing was written", retryable=False)
        page = parse_body(_get(http, url, {"page": str(number)}), f"{url}?page={number}")
        models.extend(page.models)
    return page.shape, models


def scores_of(model: AAModel, today: dt.date) -> list[Score]:
    """Our benchmarks among the model's evaluations, as independent figures naming Artificial Analysis."""
    url = MODEL_PAGE.format(slug=model.slug)
    out: list[Score] = []
    seen: set[tuple[str, str]] = set()
    for key, value in (model.evaluations or {}).items():
        if key not in KEY_MAP or value is None:
            continue
        if not 0.0 <= value <= 1.0:
            raise SyncError(
                f"model '{model.slug}': field 'evaluations.{key}' is {value!r}, expected a fraction between "
                "0 and 1; the API's scale may have changed. Nothing was written",
                retryable=False,
            )
        bench, variant = KEY_MAP[key]
        if (bench, variant) in seen:  # e.g. both "gpqa" and "gpqa_diamond": keep the first
            continue
        seen.add((bench, variant))
        out.append(
            Score(
                benchmark=bench,  # type: ignore[arg-type]
                value=round(100.0 * value, 2),
                variant=variant,
                source_url=url,
                measured_by="independent",
                evaluator=EVALUATOR,
                checked=today,
                note=f"imported by sync-aa from the Artificial Analysis API (field evaluations.{key})",
            )
        )
    return out


def _merge(entry: ModelEntry, model: AAModel, today: dt.date) -> ModelEntry:
    kept = [s for s in entry.scores if s.evaluator != EVALUATOR]
    speed = None
    if model.median_output_tokens_per_second or model.median_time_to_first_token_seconds is not None:
        speed = AASpeed(
            output_tokens_per_s=model.median_output_tokens_per_second or None,
            ttft_s=model.median_time_to_first_token_seconds,
            source_url=MODEL_PAGE.format(slug=model.slug),
            synced=today,
        )
    data = entry.model_dump()
    data["scores"] = [s.model_dump() for s in kept + scores_of(model, today)]
    data["aa_speed"] = None if speed is None else speed.model_dump()
    return ModelEntry.model_validate(data)


def sync_aa(
    data_dir: Path,
    base: str,
    api_key: str,
    today: dt.date,
    path: str = DEFAULT_AA_PATH,
    client: httpx.Client | None = None,
) -> SyncReport:
    """Fetch, validate everything, then write every changed model file or none."""
    entries = load_entries(data_dir)
    url = f"{base.rstrip('/')}/{path.lstrip('/')}"
    http = client or httpx.Client(timeout=TIMEOUT_S)
    headers = {"x-api-key": api_key, "User-Agent": "small-llm-bench index sync-aa"}
    try:
        http.headers.update(headers)
        _, models = fetch_models(http, url)
    finally:
        if client is None:
            http.close()
    by_slug = {m.slug: m for m in models}
    report = SyncReport()
    changed: list[ModelEntry] = []
    for entry in entries:
        model = by_slug.get(entry.aa_slug or entry.id)
        if model is None:
            report.missing.append(entry.id)
            continue
        new = _merge(entry, model, today)
        if new != entry:
            changed.append(new)
        report.updated.append(entry.id)
    atomic_write_many((data_dir / f"{e.id}.yaml", entry_to_yaml(e)) for e in changed)
    return report
