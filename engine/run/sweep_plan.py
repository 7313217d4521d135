"""The sweep plan (``sllmb sweep PLAN.yaml``): one model, several named configurations, and the selection,
trials and seed they all share.

Only what a ``RunRequest`` carries end to end is a field here (plus the embedded server's own options), so a
plan cannot ask for a setting the run would silently drop. Unknown keys are errors everywhere, with the file,
the field and the fix.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Annotated, Literal, TypeVar

from pydantic import AfterValidator, Field, ValidationError, field_validator, model_validator

from engine.core.config import endpoint_url
from engine.core.errors import UserError
from engine.core.fieldtypes import ModelName
from engine.core.schema import Strict
from engine.core.yamlfile import invalid_file_message, read_mapping

# A plan is a few dozen lines; anything far larger is not one.
MAX_PLAN_BYTES = 256 * 1024
MAX_CONFIGURATIONS = 16
# KV-cache types llama.cpp's server takes (-ctk/-ctv), as the embedded server's option names them.
KvCacheType = Literal["f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"]


def _endpoint(value: str) -> str:
    try:
        return endpoint_url(value)
    except argparse.ArgumentTypeError as exc:
        raise ValueError(str(exc)) from None


# A configuration's name is its result file's name and its row in the report: kept to a plain word.
ConfigName = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$")]
# A GitHub Actions runner label (the fleet workflow's runs-on): a plain word too, so a label read from a plan
# can never be more than a label where the workflow uses it.
RunnerLabel = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")]
RunnerLabels = Annotated[list[RunnerLabel], Field(min_length=1, max_length=8)]


class EmbeddedServer(Strict):
    """The embedded llama.cpp server, started for this configuration alone and stopped after it."""

    # The models.yaml row whose GGUF it runs (a file a Python package ships); default: the plan's model. With
    # gguf, the name the file runs under (and the row, if any, that lends it its context and server options).
    model: ModelName | None = None
    # A GGUF file of your own instead of the row's (relative to the plan's folder): "Q4 or Q8". Checked as a
    # GGUF file when its configuration is about to run (``gguf_file.checked_gguf``), not when the plan is read,
    # so a fleet's collecting job need not hold the runners' model files.
    gguf: Path | None = None
    # The window of one slot and the slot count (``sllmb run --context``, ``--slots``); default: chosen as
    # ``run`` chooses them.
    context: int | None = Field(default=None, ge=512, le=1 << 20)
    slots: int | None = Field(default=None, ge=1, le=64)
    # Both the K and the V cache (llama-server -ctk and -ctv); default: the server's, f16.
    kv_cache_type: KvCacheType | None = None


class RunTarget(Strict):
    """What one run of a sweep or a fleet runs against and how it samples: a sweep's configuration or a fleet's
    model, less the name each gives it."""

    # Your own server: its /v1 address, and the name it serves the model under (default: the plan's model).
    endpoint: Annotated[str, AfterValidator(_endpoint)] | None = None
    served_model: ModelName | None = None
    # The embedded server; a configuration with neither this nor an endpoint runs the embedded default.
    embedded: EmbeddedServer | None = None
    # Which sampling, as ``sllmb run --sampling`` takes it: "card" the models.yaml row's (the row of the name the
    # configuration runs under, else the plan's model's), "bench" the bench's fixed one; unset: what run does,
    # the card's where the row has one, else the bench's (``engine.run.sampling``).
    sampling: Literal["card", "bench"] | None = None
    # The sampler and the reply budget, as ``sllmb run`` takes them; unset: run's defaults.
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    # Top-k and min-p (0 turns either off), sent in place of the server kind's neutral values; with any of these
    # four the run's sampling is recorded as "custom".
    top_k: int | None = Field(default=None, ge=0, le=1000)
    min_p: float | None = Field(default=None, ge=0.0, le=1.0)
    thinking: bool | None = None
    max_tokens: int | None = Field(default=None, ge=16, le=131072)
    # The labels of the runner the fleet workflow runs this configuration on; default: the plan's runs_on.
    runs_on: RunnerLabels | None = None

    @model_validator(mode="after")
    def _one_server(self) -> Configuration:
        if self.endpoint is not None and self.embedded is not None:
            raise ValueError("give either endpoint (your server) or embedded (the bench's), not both")
        if self.served_model is not None and self.endpoint is None:
            raise ValueError("served_model names the model on your endpoint; give endpoint too, or remove it")
        by_hand = [k for k in ("temperature", "top_p", "top_k", "min_p") if getattr(self, k) is not None]
        if self.sampling is not None and by_hand:
            # As run refuses --sampling with --temperature: it would be unclear which wins.
            raise ValueError(f"sampling: {self.sampling} and {', '.join(by_hand)} both choose the sampling; give "
                             "one of them (values of your own run in custom mode)")
        return self


class Configuration(RunTarget):
    name: ConfigName


class Shared(Strict):
    """What every run of a sweep plan or a fleet list shares: the selection, trials and seed, where the result
    files go and the fleet workflow's runners."""

    schema_version: Literal[1] = 1
    # What every run runs, the same for all: the paired test compares tasks on the same seeds.
    profile: Literal["full", "fast"] = "fast"
    modules: list[str] | None = None
    filter: str | None = Field(default=None, max_length=200)
    tasks_dir: Path | None = None
    trials: int = Field(default=3, ge=1, le=1000)
    seed: int = Field(default=0, ge=-1, le=2**31 - 1)  # the base seed, offset by the trial; -1 sends none
    # Where the result files (and a sweep's report) go; relative paths are read from the file's folder.
    output: Path | None = None
    # The labels of the runners the fleet workflow (.github/workflows/sweep-fleet.yml) runs each configuration
    # or model on, e.g. [self-hosted, gpu]; one's own runs_on replaces it. Ignored outside the workflow.
    runs_on: RunnerLabels = Field(default_factory=lambda: ["self-hosted"])


class SweepPlan(Shared):
    # The one model every configuration runs (the result files' model name unless served_model says another).
    model: ModelName
    # The first is the baseline every other is compared with.
    configurations: list[Configuration] = Field(min_length=2, max_length=MAX_CONFIGURATIONS)

    @field_validator("configurations")
    @classmethod
    def _names_unique(cls, configs: list[Configuration]) -> list[Configuration]:
        names = [c.name.lower() for c in configs]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"configuration names must differ (they name the result files): {', '.join(repeated)}")
        return configs


T = TypeVar("T", bound=RunTarget)
S = TypeVar("S", bound=Shared)


def gguf_from(here: Path, config: T) -> T:
    """The configuration (or fleet model) with its GGUF path read from the plan's folder ``here``."""
    embedded = config.embedded
    if embedded is None or embedded.gguf is None or embedded.gguf.is_absolute():
        return config
    return config.model_copy(update={"embedded": embedded.model_copy(update={"gguf": here / embedded.gguf})})


def read_shared(path: Path, cls: type[S], what: str, default_folder: str) -> S:
    """The ``what`` in ``path`` (a sweep plan, a fleet list), with its relative paths made relative to its
    folder (the output's default ``<default_folder>/<file stem>``); a missing, oversized or invalid file is a
    ``UserError`` naming the file, the field and the fix."""
    if path.is_file() and path.stat().st_size > MAX_PLAN_BYTES:
        raise UserError(f"{path}: {path.stat().st_size} bytes is not a {what} (at most {MAX_PLAN_BYTES})")
    raw = read_mapping(path, what)
    try:
        doc = cls.model_validate(raw)
    except ValidationError as exc:
        raise UserError(invalid_file_message(path, what, exc.errors())) from exc
    here = path.resolve().parent
    output = doc.output if doc.output is not None else Path(default_folder) / path.stem
    return doc.model_copy(update={
        "output": output if output.is_absolute() else here / output,
        "tasks_dir": None if doc.tasks_dir is None or doc.tasks_dir.is_absolute() else here / doc.tasks_dir,
    })


def load_plan(path: Path) -> SweepPlan:
    """The sweep plan in ``path`` (``read_shared``), each GGUF path read from the plan's folder."""
    plan = read_shared(path, SweepPlan, "sweep plan", "sweeps")
    here = path.resolve().parent
    return plan.model_copy(update={"configurations": [gguf_from(here, c) for c in plan.configurations]})
