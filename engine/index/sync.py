"""Refresh prices (OpenRouter models API) and downloads/likes (Hugging Face models API) in the model files.

Both commands read everything first and write only at the end, all files or none: a rate limit, a server
error or a body in an unexpected shape stops the sync with a message that names the address and the field,
and leaves every file as it was. A model the service does not know is listed and left untouched.
Base addresses come from the caller (flags, environment) so tests can point them at a loopback server.
"""

from __future__ import annotations

import datetime as dt
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from engine.core.errors import InfraError
from engine.index.data import atomic_write_many, entry_to_yaml, load_entries
from engine.index.schema import Hub, ModelEntry, Pricing

OPENROUTER_BASE_ENV = "INDEX_OPENROUTER_BASE_URL"
HF_BASE_ENV = "INDEX_HF_BASE_URL"
DEFAULT_OPENROUTER_BASE = "https://openrouter.ai"
DEFAULT_HF_BASE = "https://huggingface.co"
TIMEOUT_S = 30.0


class SyncError(InfraError):
    """The service answered something we cannot use; nothing was written."""


@dataclass
class SyncReport:
    updated: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def summary(self, what: str) -> str:
        lines = [f"{what}: updated {len(self.updated)} model files"]
        if self.missing:
            lines.append(f"not found at the service ({len(self.missing)}): {', '.join(self.missing)}")
        if self.skipped:
            lines.append(f"no id to look up ({len(self.skipped)}): {', '.join(self.skipped)}")
        return "\n".join(lines)


def base_url(explicit: str | None, env_name: str, default: str) -> str:
    return (explicit or os.environ.get(env_name) or default).rstrip("/")


def _get_json(client: httpx.Client, url: str) -> Any | None:
    """The decoded body, or None for a 404. Anything else that is not a 200 with JSON is a SyncError."""
    try:
        response = client.get(url)
    except httpx.HTTPError as exc:
        raise SyncError(f"GET {url} failed: {exc.__class__.__name__}: {exc}; nothing was written") from exc
    if response.status_code == 404:
        return None
    return json_body(response, url)


def json_body(response: httpx.Response, url: str, rate_limit_note: str = "") -> Any:
    """The decoded body of a 200; a rate limit, another status or a body that is not JSON is a SyncError.
    ``rate_limit_note`` says what the service allows, before the advice to run again later."""
    if response.status_code == 429:
        retry = response.headers.get("retry-after")
        wait = f" (retry after {retry} s)" if retry else ""
        advice = f"{rate_limit_note}Nothing was written" if rate_limit_note else "nothing was written"
        raise SyncError(
            f"GET {url}: rate limited (429){wait}; {advice}, run it again later",
            retry_after=float(retry) if retry and retry.isdigit() else None,
        )
    if response.status_code != 200:
        raise SyncError(
            f"GET {url}: HTTP {response.status_code}; nothing was written",
            retryable=response.status_code >= 500,
        )
    try:
        return response.json()
    except ValueError as exc:
        raise SyncError(f"GET {url}: the body is not JSON; nothing was written", retryable=False) from exc


def _field(obj: Any, key: str, url: str, where: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise SyncError(
            f"GET {url}: field '{where}{key}' missing in the body; nothing was written", retryable=False
        )
    return obj[key]


def _usd_per_token(value: Any, url: str, where: str) -> float:
    # OpenRouter sends prices as decimal strings in USD per token.
    try:
        number = float(value)
    except (TypeError, ValueError) as exc:
        raise SyncError(
            f"GET {url}: field '{where}' is {value!r}, not a price; nothing was written", retryable=False
        ) from exc
    if not math.isfinite(number) or number < 0:
        raise SyncError(
            f"GET {url}: field '{where}' is {value!r}, not a price; nothing was written", retryable=False
        )
    return number


def blended_per_million(input_per_token: float, output_per_token: float) -> float:
    """Three input tokens for every output token, per million tokens."""
    return (3 * input_per_token + output_per_token) / 4 * 1e6


def _client(client: httpx.Client | None) -> httpx.Client:
    return client or httpx.Client(timeout=TIMEOUT_S, headers={"User-Agent": "small-llm-bench index sync"})


def sync_prices(data_dir: Path, base: str, today: dt.date, client: httpx.Client | None = None) -> SyncReport:
    entries = load_entries(data_dir)
    report = SyncReport()
    changed: list[ModelEntry] = []
    http = _client(client)
    try:
        list_url = f"{base}/api/v1/models"
        body = _get_json(http, list_url)
        if body is None:
            raise SyncError(f"GET {list_url}: 404; check the base address; nothing was written")
        models = _field(body, "data", list_url, "")
        if not isinstance(models, list):
            raise SyncError(
                f"GET {list_url}: field 'data' is not a list; nothing was written", retryable=False
            )
        by_id: dict[str, dict] = {}
        by_hf: dict[str, dict] = {}
        for n, item in enumerate(models):
            model_id = _field(item, "id", list_url, f"data[{n}].")
            by_id[str(model_id)] = item
            hf = item.get("hugging_face_id") if isinstance(item, dict) else None
            if hf:
                by_hf[str(hf).lower()] = item
        for entry in entries:
            if not entry.openrouter_id and not entry.hf_repo:
                report.skipped.append(entry.id)
                continue
            item = by_id.get(entry.openrouter_id or "") or by_hf.get((entry.hf_repo or "").lower())
            if item is None:
                report.missing.append(entry.id)
                continue
            n = models.index(item)
            pricing = _field(item, "pricing", list_url, f"data[{n}].")
            prompt = _usd_per_token(
                _field(pricing, "prompt", list_url, f"data[{n}].pricing."),
                list_url,
                f"data[{n}].pricing.prompt",
            )
            completion = _usd_per_token(
                _field(pricing, "completion", list_url, f"data[{n}].pricing."),
                list_url,
                f"data[{n}].pricing.completion",
            )
            endpoints_url = f"{base}/api/v1/models/{item['id']}/endpoints"
            providers = _provider_count(http, endpoints_url)
            new = entry.model_copy(
                update={
                    "openrouter_id": str(item["id"]),
                    "pricing": Pricing(
                        input_per_m=round(prompt * 1e6, 6),
                        output_per_m=round(completion * 1e6, 6),
                        blended_per_m=round(blended_per_million(prompt, completion), 6),
                        providers=providers,
                        synced=today,
                    ),
                }
            )
            changed.append(ModelEntry.model_validate(new.model_dump()))
            report.updated.append(entry.id)
    finally:
        if client is None:
            http.close()
    atomic_write_many((data_dir / f"{e.id}.yaml", entry_to_yaml(e)) for e in changed)
    return report


def _provider_count(http: httpx.Client, url: str) -> int:
    body = _get_json(http, url)
    if body is None:
        return 0
    data = _field(body, "data", url, "")
    endpoints = _field(data, "endpoints", url, "data.")
    if not isinstance(endpoints, list):
        raise SyncError(
            f"GET {url}: field 'data.endpoints' is not a list; nothing was written", retryable=False
        )
    names = set()
    for n, endpoint in enumerate(endpoints):
        names.add(str(_field(endpoint, "provider_name", url, f"data.endpoints[{n}].")))
    return len(names)


def sync_hub(data_dir: Path, base: str, today: dt.date, client: httpx.Client | None = None) -> SyncReport:
    entries = load_entries(data_dir)
    report = SyncReport()
    changed: list[ModelEntry] = []
    http = _client(client)
    try:
        for entry in entries:
            if not entry.hf_repo:
                report.skipped.append(entry.id)
                continue
            url = f"{base}/api/models/{entry.hf_repo}"
            body = _get_json(http, url)
            if body is None:
                report.missing.append(entry.id)
                continue
            values = []
            for key in ("downloads", "likes"):
                value = _field(body, key, url, "")
                if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                    raise SyncError(
                        f"GET {url}: field '{key}' is {value!r}, not a count; nothing was written",
                        retryable=False,
                    )
                values.append(value)
            new = entry.model_copy(
                update={"hub": Hub(downloads_30d=values[0], likes=values[1], synced=today)}
            )
            changed.append(ModelEntry.model_validate(new.model_dump()))
            report.updated.append(entry.id)
    finally:
        if client is None:
            http.close()
    atomic_write_many((data_dir / f"{e.id}.yaml", entry_to_yaml(e)) for e in changed)
    return report
