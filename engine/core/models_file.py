"""``models.yaml``: what we know about each model (sizes from model cards, architecture, the GGUF file the
embedded server can run). A model missing from it still scores; the board shows "?" for its size."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError, model_validator

from engine.core.errors import UserError
from engine.core.fieldtypes import HttpsUrl, ModelName
from engine.core.schema import Strict
from engine.core.yamlfile import invalid_file_message, read_mapping


class GgufSource(Strict):
    """A GGUF file shipped inside an installable Python package (no download at run time)."""

    package: str
    file: str
    install: str

    def locate(self) -> Path:
        spec = importlib.util.find_spec(self.package)
        if spec is None or not spec.submodule_search_locations:
            raise UserError(f"the model file package '{self.package}' is not installed; run: {self.install}")
        for folder in spec.submodule_search_locations:
            candidate = Path(folder) / self.file
            if candidate.is_file():
                return candidate
        raise UserError(f"package '{self.package}' is installed but has no {self.file}; run: {self.install}")


class CardSampling(Strict):
    """The sampling a model's card recommends, with the card's address: ``sllmb run`` sends it unless told
    otherwise (``--sampling bench``, or a --temperature or --top-p of its own)."""

    temperature: float = Field(ge=0.0, le=2.0)
    top_p: float = Field(gt=0.0, le=1.0)
    # Left out: off (the server kind's neutral value, as in bench mode).
    top_k: int | None = Field(default=None, ge=0, le=1000)
    min_p: float | None = Field(default=None, ge=0.0, le=1.0)
    # Where the card says so (https only): the result file records it, and the board links the card.
    source: HttpsUrl


class ModelEntry(Strict):
    name: ModelName
    family: str | None = None
    variant_of: ModelName | None = None
    total_params_b: float | None = Field(default=None, gt=0)
    active_params_b: float | None = Field(default=None, gt=0)
    architecture: Literal["dense", "moe", "ple"] = "dense"
    quantisation: str | None = None
    context: int | None = Field(default=None, gt=0)
    thinking: bool = False
    # Set when the embedded llama.cpp server can run this model from a file a package ships.
    gguf: GgufSource | None = None
    # Extra arguments for the embedded server (chat format and the like), from the model card.
    server_args: list[str] = Field(default_factory=list)
    card_url: HttpsUrl | None = None
    # The sampling the model card recommends; None: the bench's fixed sampling.
    sampling: CardSampling | None = None
    notes: str | None = None

    @model_validator(mode="after")
    def _active_not_above_total(self) -> ModelEntry:
        if self.total_params_b and self.active_params_b and self.active_params_b > self.total_params_b:
            raise ValueError("active_params_b cannot exceed total_params_b")
        return self


class ModelsFile(Strict):
    schema_version: int = 1
    default: ModelName
    models: list[ModelEntry]

    @model_validator(mode="after")
    def _names_unique_and_default_known(self) -> ModelsFile:
        names = [m.name for m in self.models]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"model names must be unique; repeated: {', '.join(dupes)}")
        if self.default not in names:
            raise ValueError(f"default '{self.default}' is not one of the models listed")
        return self

    def find(self, name: str) -> ModelEntry | None:
        for entry in self.models:
            if entry.name == name:
                return entry
        return None

    def same_model_key(self, name: str) -> str:
        """What makes two rows one model: the model card's address where the row gives one (the same weights
        served under two names, ``qwen3-8b`` on llama.cpp and ``qwen3-8b-ollama``), else the name itself.
        A fine-tune has a card of its own, so it stays a model of its own."""
        entry = self.find(name)
        return str(entry.card_url) if entry is not None and entry.card_url else f"name:{name}"


def default_models_path() -> Path:
    here = Path.cwd() / "models.yaml"
    return here if here.is_file() else Path(__file__).resolve().parents[2] / "models.yaml"


def load_models(path: Path | None = None) -> ModelsFile:
    path = path or default_models_path()
    raw = read_mapping(path, "models file")
    try:
        return ModelsFile.model_validate(raw)
    except ValidationError as exc:
        listed = raw.get("models")
        rows = listed if isinstance(listed, list) else []

        def by_name(loc: list) -> list:
            # "models.3 (qwen3-4b).size_b" says which row without counting lines.
            if len(loc) >= 2 and loc[0] == "models" and isinstance(loc[1], int):
                row = rows[loc[1]] if loc[1] < len(rows) else None
                loc = [loc[0], f"{loc[1]} ({row.get('name', '?') if isinstance(row, dict) else '?'})", *loc[2:]]
            return loc

        raise UserError(invalid_file_message(path, "models file", exc.errors(), name_part=by_name)) from exc
