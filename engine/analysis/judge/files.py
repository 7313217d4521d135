"""The judged file: its schema, its name beside the raw file, reading and writing it, the raw file's SHA-256."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from engine.analysis.judge.prompt import PROMPT_VERSION
from engine.analysis.judge.rules import DEMOTE_BELOW, DEMOTE_MARGIN, RESCUE_MIN, VerdictStatus
from engine.core.fieldtypes import ModelName
from engine.core.results import RAW_SUFFIX, read_json_model, write_json_model

JUDGED_SCHEMA_VERSION = 1


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")



class JudgeInfo(_Strict):
    endpoint_host: str
    model: str
    prompt_version: str = PROMPT_VERSION
    rescue_min: float = RESCUE_MIN
    demote_below: float = DEMOTE_BELOW
    demote_margin: float = DEMOTE_MARGIN


class TrialVerdict(_Strict):
    """What happened to one trial sent to the judge."""

    task_id: str
    trial: int
    module: str
    # What the judge saw: the appeal is valid only while the raw trial still has this hash and det score.
    task_hash: str
    det_score: float
    det_passed: bool
    hard_gate: str | None = None
    status: VerdictStatus
    judge_passed: bool | None = None
    judge_score: float | None = None
    judge_reason: str | None = None
    # Why an appeal was refused (threshold not met, hard gate, module cannot be moved).
    refusal: str | None = None
    # Why the judge call failed (transport, time-out, malformed output).
    error: str | None = None
    final_score: float
    final_passed: bool


class ModuleCoverage(_Strict):
    sent: int
    judged: int
    failed: int
    complete: bool


class Tally(NamedTuple):
    """The counts a judged file records about its verdicts. The judge writes them and ``judge_check``
    recomputes them, both through ``tally``, so the two cannot count differently."""

    modules: dict[str, ModuleCoverage]
    # Modules with at least one failed judge call.
    flagged_modules: list[str]
    changed: int
    refused: int


def tally(verdicts: Sequence[TrialVerdict]) -> Tally:
    modules: dict[str, ModuleCoverage] = {}
    for module in dict.fromkeys(v.module for v in verdicts):
        mine = [v for v in verdicts if v.module == module]
        failed = sum(v.status == "failed" for v in mine)
        modules[module] = ModuleCoverage(sent=len(mine), judged=len(mine) - failed, failed=failed, complete=failed == 0)
    return Tally(
        modules=modules,
        flagged_modules=[m for m, c in modules.items() if not c.complete],
        changed=sum(v.status in ("rescued", "demoted") for v in verdicts),
        refused=sum(v.status == "refused" for v in verdicts),
    )


class JudgedFile(_Strict):
    schema_version: int = JUDGED_SCHEMA_VERSION
    kind: Literal["judged"] = "judged"
    model: ModelName
    raw_file: str
    raw_sha256: str
    judge: JudgeInfo
    created_at: str
    modules: dict[str, ModuleCoverage]
    # Modules with at least one failed judge call: they fall back to det scores as a whole.
    flagged_modules: list[str] = Field(default_factory=list)
    changed: int
    refused: int
    verdicts: list[TrialVerdict]

    @property
    def partial(self) -> bool:
        return bool(self.flagged_modules)


def judged_path_for(raw_path: Path) -> Path:
    """``results/x_raw_results.json`` -> ``results/x_judged.json``; any other name gets ``_judged`` added."""
    name = raw_path.name
    if name.endswith(RAW_SUFFIX):
        return raw_path.with_name(name.removesuffix(RAW_SUFFIX) + "_judged.json")
    return raw_path.with_name(raw_path.stem + "_judged.json")


def write_judged_file(path: Path, judged: JudgedFile) -> None:
    write_json_model(path, judged)


def load_judged_file(path: Path) -> JudgedFile:
    return read_json_model(path, JudgedFile, "judged file", "; re-run `judge` to write it again")


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()

