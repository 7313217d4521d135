"""Figures of exactly 0 or 100 that nobody has explained: the likeliest placeholders in the data.

An evaluator's table often writes "not run" (no tool calling, a context window too short for the test) as
0.0, and an import cannot tell that from a measured zero. Such a figure pulls a model's ability down as hard
as any real one, so each must carry ``edge_reason``: why its source shows it is a measurement.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.index.schema import ModelEntry, Score


@dataclass(frozen=True)
class EdgeFigure:
    model_id: str
    score: Score


def unexplained_edges(entries: Iterable[ModelEntry]) -> list[EdgeFigure]:
    """Every figure at 0 or 100 without an ``edge_reason``, in file order."""
    return [EdgeFigure(e.id, s) for e in entries for s in e.scores if s.at_edge and s.edge_reason is None]
