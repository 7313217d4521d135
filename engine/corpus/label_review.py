"""An independent review of a batch's labels, and what the batch's first sight reads under the reviewed labels.

A first-sight record (``results/first_sight/<batch>.json``) is written once and never changed: it is what the
graders said the first time they saw the batch. Its labels can still be wrong, most often because a writer
judged a reply against less than the model was sent (a task file without the instruction its module adds).
When a second person reviews every case of some modules against the full request, without seeing the
graders' verdicts, the labels they change are recorded in ``results/label_reviews/<batch>.yaml`` and applied
to the corpus files; the first-sight verdicts themselves are unchanged, so the figure under the reviewed labels
follows from the record and the review alone: a changed case the graders got "wrong" now agrees with its label,
and a changed case they got "right" is now a misgrade.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field, ValidationError, model_validator

from engine.core.errors import UserError
from engine.core.schema import Strict
from engine.core.yamlfile import invalid_file_message, read_mapping
from engine.corpus.schema import BATCH

REVIEWS = Path("results") / "label_reviews"
Verdict = Literal["pass", "fail"]


class _Frozen(Strict):
    """A review file's models: the base of every file model (unknown keys are errors), frozen once read."""

    model_config = ConfigDict(frozen=True)


class LabelChange(_Frozen):
    module: str = Field(min_length=1, max_length=40)
    task: str = Field(min_length=1, max_length=100)
    case: str = Field(min_length=1, max_length=100)
    old: Verdict
    new: Verdict
    why: str = Field(min_length=10, max_length=400)

    @model_validator(mode="after")
    def _a_change(self) -> LabelChange:
        if self.old == self.new:
            raise ValueError(f"{self.task}/{self.case}: old and new are the same label; a change changes it")
        return self


class LabelReview(_Frozen):
    batch: str = Field(pattern=BATCH.pattern)
    date: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")
    # Every case of these modules was reviewed, not only the ones the graders disagreed with: a review of the
    # misgrades alone would only ever move the figure the graders' way.
    modules: list[str] = Field(min_length=1)
    cases_reviewed: int = Field(ge=1)
    # Who reviewed and with what in front of them (the full prompt, never the graders' verdicts).
    how: str = Field(min_length=10, max_length=600)
    changes: list[LabelChange]


def load_review(path: Path) -> LabelReview:
    raw = read_mapping(path, "label review")
    try:
        return LabelReview.model_validate(raw)
    except ValidationError as exc:
        raise UserError(invalid_file_message(path, "label review", exc.errors())) from exc


def review_for(project_dir: Path, batch: str) -> LabelReview | None:
    path = project_dir / REVIEWS / f"{batch}.yaml"
    return load_review(path) if path.is_file() else None


def _key(entry: dict[str, Any]) -> tuple[str, str]:
    return entry["task"], entry["case"]


def under_review(record: dict[str, Any], review: LabelReview) -> dict[str, Any]:
    """The first-sight record as it reads with the reviewed labels: same verdicts, counts and misgrades redone."""
    misgraded = {_key(m): m for m in record["misgraded"]}
    modules = {m["module"]: dict(m) for m in record["modules"]}
    for change in review.changes:
        module = change.module
        if module not in modules:
            raise UserError(f"label review of {review.batch}: module '{module}' is not in the batch's record")
        row = modules[module]
        row["should_pass" if change.old == "pass" else "should_fail"] -= 1
        row["should_pass" if change.new == "pass" else "should_fail"] += 1
        key = (change.task, change.case)
        if key in misgraded:
            # The graders said what the reviewer now says: no longer a misgrade.
            gone = misgraded.pop(key)
            row["false_fails" if gone["expect"] == "pass" else "false_passes"] -= 1
        else:
            # The graders agreed with the old label, so they now disagree with the new one.
            misgraded[key] = {"task": change.task, "module": module, "case": change.case, "expect": change.new,
                              "got": change.old, "reason": "as at first sight", "why": change.why,
                              "batch": review.batch}
            row["false_fails" if change.new == "pass" else "false_passes"] += 1
    rows = list(modules.values())
    return {**record, "modules": rows, "misgraded": sorted(misgraded.values(), key=_key),
            "false_fails": sum(r["false_fails"] for r in rows),
            "false_passes": sum(r["false_passes"] for r in rows)}
