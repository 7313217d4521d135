"""The published index: the candidate model that predicted held-out figures best, with calibrated ranges,
averaged over the core benchmarks whose held-out estimates beat knowing nothing."""

from __future__ import annotations

from engine.index.index import IndexResult, build_index
from engine.index.schema import ModelEntry
from engine.index.validate import ValidationReport, leave_one_out


def published_index(entries: list[ModelEntry]) -> tuple[IndexResult, ValidationReport]:
    """Run leave-one-out once, then build the index with the winning model and the ranges it calibrated."""
    report = leave_one_out(entries)
    result = build_index(entries, report.published, calibration=report.calibration, excluded=report.excluded)
    return result, report
