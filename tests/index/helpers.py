"""Small model entries built in code for the index tests."""

from __future__ import annotations

import datetime as dt

from engine.index.schema import ModelEntry, Score

DAY = dt.date(2026, 11, 1)


def score(bench: str, value: float, measured_by: str = "lab", **extra) -> Score:
    if measured_by == "independent":
        extra.setdefault("evaluator", "Test evaluator")
    extra.setdefault("source_url", f"https://example.org/{bench.replace(' ', '_')}")
    extra.setdefault("checked", DAY)
    return Score(benchmark=bench, value=value, measured_by=measured_by, **extra)


def entry(model_id: str, scores: list[Score], total: float = 8.0, **extra) -> ModelEntry:
    return ModelEntry(
        schema_version=1,
        id=model_id,
        name=extra.pop("name", model_id),
        lab="Lab",
        region=extra.pop("region", "Europe"),
        total_params_b=total,
        scores=scores,
        **extra,
    )
