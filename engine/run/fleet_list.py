"""The fleet list (``sllmb fleet FLEET.yaml``): several models, each run once at the same selection, trials and
seed, each into ``<output>/<model>_raw_results.json``, the name ``sllmb run`` gives it and the pull-request check
and the board expect.

A fleet is a sweep's other axis: where a sweep runs one model under several configurations and compares them,
a fleet runs several models under one setting and puts them on a board. Its models take what a sweep's
configurations take (``sweep_plan.RunTarget``) except ``served_model``: a result file carries the name the
model was asked for, and the board and the pull-request check read the model's row and file name from it, so
a fleet's model is served under its own name (``llama-server --alias``, ``ollama cp``), as ``sllmb run
--model`` requires. Unknown keys are errors everywhere, with the file, the field and the fix.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator

from engine.core.fieldtypes import ModelName
from engine.core.results import RAW_SUFFIX, model_slug
from engine.run.sweep import Job
from engine.run.sweep_plan import RunTarget, Shared, gguf_from, read_shared

MAX_MODELS = 64


class FleetModel(RunTarget):
    # The model's name: the one its models.yaml row, its result file and the board know it by, and the one sent
    # to its server (an embedded one runs the row of that name, or embedded.gguf under it).
    name: ModelName

    @model_validator(mode="after")
    def _one_name(self) -> FleetModel:
        if self.served_model is not None:
            raise ValueError("a fleet's model is asked for by its own name, which its result file and the board "
                             "carry: remove served_model and serve the model under its name (llama-server "
                             "--alias NAME, ollama cp OLD NAME)")
        if self.embedded is not None and self.embedded.model not in (None, self.name):
            raise ValueError("embedded.model: the fleet entry's name is the models.yaml row the embedded server "
                             "runs; remove embedded.model (or make it the name)")
        return self


class FleetList(Shared):
    # The reference setting's selection by default (results/reference/setting.yaml: the full bank).
    profile: Literal["full", "fast"] = "full"
    models: list[FleetModel] = Field(min_length=1, max_length=MAX_MODELS)

    @field_validator("models")
    @classmethod
    def _files_differ(cls, models: list[FleetModel]) -> list[FleetModel]:
        slugs = [model_slug(m.name).lower() for m in models]
        repeated = sorted({s for s in slugs if slugs.count(s) > 1})
        if repeated:
            raise ValueError(f"two models would share a result file ({', '.join(f'{s}{RAW_SUFFIX}' for s in repeated)}"
                             "): list each model once, under names that differ in more than case or punctuation")
        return models


def load_fleet(path: Path) -> FleetList:
    """The fleet list in ``path`` (``sweep_plan.read_shared``), each GGUF path read from its folder."""
    fleet = read_shared(path, FleetList, "fleet list", "fleets")
    here = path.resolve().parent
    return fleet.model_copy(update={"models": [gguf_from(here, m) for m in fleet.models]})


def fleet_jobs(fleet: FleetList) -> list[Job]:
    """The list's models, in its order, each into ``<output>/<model>_raw_results.json`` (``sllmb run``'s name)."""
    assert fleet.output is not None  # load_fleet fills it
    return [Job(m.name, f"model '{m.name}'", m.name, m, fleet.output / f"{model_slug(m.name)}{RAW_SUFFIX}", fleet)
            for m in fleet.models]
