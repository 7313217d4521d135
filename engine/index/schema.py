"""The file format of ``results/reported/<id>.yaml``: one open-weight model and the scores reported for it.

Every score carries where it was read, who measured it and when it was checked, because the index is only
as trustworthy as the figures that go in. Unknown keys are errors so a typo cannot silently drop a score.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.core.fieldtypes import HttpsUrl, ModelName

SCHEMA_VERSION = 1

# The benchmarks are spelled once, as the types a model file is validated against; the tuples the fit and
# the pages iterate over are read from them.
CoreBenchmark = Literal[
    "MMLU-Pro",
    "GPQA Diamond",
    "HLE",
    "AIME",
    "LiveCodeBench",
    "SWE-bench Verified",
]
SupplementaryBenchmark = Literal[
    "Terminal-Bench",
    "tau2-Bench",
    "IFBench",
    "MMMU-Pro",
    "MMLU",
    "Multilingual MMLU",
    "IFEval",
    "BFCL",
    "MATH-500",
    "HMMT",
    "AA-LCR",
    "SciCode",
]
Benchmark = Literal[CoreBenchmark, SupplementaryBenchmark]
CORE_BENCHMARKS: tuple[str, ...] = get_args(CoreBenchmark)
SUPPLEMENTARY_BENCHMARKS: tuple[str, ...] = get_args(SupplementaryBenchmark)
ALL_BENCHMARKS: tuple[str, ...] = CORE_BENCHMARKS + SUPPLEMENTARY_BENCHMARKS

Region = Literal["United States", "China", "Europe", "Rest of Asia", "Other"]
REGIONS: tuple[str, ...] = ("United States", "China", "Europe", "Rest of Asia", "Other")
MeasuredBy = Literal["lab", "other_lab", "independent"]
Reasoning = Literal["thinking", "non-thinking"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Score(Strict):
    """One figure, where it was published, and whether anyone has compared it with that publication.

    ``source_url`` is the primary document: the lab's model card, technical report or launch post, or the
    evaluator's own site for an independent figure. ``secondary_url`` is the copy the figure was actually read
    from (a mirrored model card, a text copy of a paper, an aggregator's snapshot), when it was. ``checked`` is
    the date a person or a script compared the figure with the primary document; it stays empty until then,
    and an import is not a check. A figure is verified exactly when it has been checked.
    """

    benchmark: Benchmark
    value: float = Field(ge=0, le=100)
    # AIME year, LiveCodeBench version or window, harness details: whatever the source states.
    variant: str | None = None
    source_url: HttpsUrl | None = None
    secondary_url: HttpsUrl | None = None
    measured_by: MeasuredBy
    # Named for independent scores (shown on hover), e.g. "Artificial Analysis".
    evaluator: str | None = None
    checked: dt.date | None = None
    note: str | None = None
    # A figure of exactly 0 or 100 is often "not run" written as a number. One is kept only with the reason,
    # read from its source, why it is a real measurement; ``index validate`` lists every one without.
    edge_reason: str | None = None
    # Why a check was tried and the primary document could not be read from here (dated), so a page can say
    # that instead of counting the figure among those nobody has looked at yet.
    unreadable: str | None = None

    @model_validator(mode="after")
    def _provenance(self) -> Score:
        if self.source_url is None and self.secondary_url is None:
            raise ValueError("a figure needs a source: source_url (the primary document) or secondary_url")
        if self.checked is not None and self.source_url is None:
            raise ValueError(
                "checked is set but source_url is empty: a figure is checked against its primary document, "
                "so record that document's address in source_url"
            )
        if self.measured_by == "independent" and not self.evaluator:
            raise ValueError("an independent score must name its evaluator")
        if self.unreadable is not None and self.checked is not None:
            raise ValueError(
                "unreadable is set but so is checked: a figure read in its primary document is checked, so drop "
                "unreadable"
            )
        if self.edge_reason is not None and not self.at_edge:
            raise ValueError(
                f"edge_reason is set but the value is {self.value:g}: it explains a figure of exactly 0 or 100 "
                "only; move the text to note"
            )
        return self

    @property
    def at_edge(self) -> bool:
        """Exactly 0 or 100: the values a "not run" or "not reported" is most often written as."""
        return self.value in (0.0, 100.0)

    @property
    def verified(self) -> bool:
        return self.checked is not None

    @property
    def needs_verification(self) -> bool:
        return self.checked is None

    @property
    def link(self) -> str:
        """The address a reader is sent to: the primary document, or the copy when no primary is known."""
        return self.source_url or self.secondary_url or ""


class EarlierVersion(Strict):
    """Scores of the previous release, shown as context only: never fitted, never in the table or charts."""

    name: str
    scores: list[Score]


class Attention(Strict):
    """The parts of config.json that decide the size of the context cache.

    ``full_layers`` hold every token, ``sliding_layers`` hold at most ``sliding_window`` tokens and
    ``recurrent_layers`` (Mamba, short convolution, linear attention) hold a constant state. Layers that have
    none of these (MLP-only blocks) are simply not counted.
    """

    layers: int = Field(ge=1)
    full_layers: int = Field(ge=0)
    sliding_layers: int = Field(default=0, ge=0)
    sliding_window: int | None = Field(default=None, ge=1)
    recurrent_layers: int = Field(default=0, ge=0)
    kv_heads: int = Field(ge=1)
    head_dim: int = Field(ge=1)
    source_url: HttpsUrl
    note: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Attention:
        if self.full_layers + self.sliding_layers + self.recurrent_layers > self.layers:
            raise ValueError("full_layers + sliding_layers + recurrent_layers is larger than layers")
        if self.sliding_layers and self.sliding_window is None:
            raise ValueError("sliding_layers is set but sliding_window is missing")
        if self.full_layers + self.sliding_layers == 0:
            raise ValueError("a model needs at least one attention layer (full or sliding)")
        return self


class MaxContext(Strict):
    """The longest context the model is made for, in tokens, and where that figure is written.

    Optional: a model without it is sized at any context the calculator is asked (and the page and
    ``sllmb index can-i-run`` say the maximum is not recorded). ``note`` says how the source writes it:
    a "128K" of a model card is recorded as 131,072 tokens (K = 1,024, as the configuration files count).
    """

    tokens: int = Field(ge=1, le=10_000_000)
    source_url: HttpsUrl
    note: str | None = None


class Pricing(Strict):
    """From the OpenRouter models API, in USD per million tokens."""

    input_per_m: float = Field(ge=0)
    output_per_m: float = Field(ge=0)
    blended_per_m: float = Field(ge=0)
    providers: int = Field(ge=0)
    synced: dt.date


class Hub(Strict):
    """From the Hugging Face models API: downloads are a rolling 30-day count of the main repository."""

    downloads_30d: int = Field(ge=0)
    likes: int = Field(ge=0)
    synced: dt.date


class SpeedRun(Strict):
    """Our own speed measurement: medians over several streamed runs of one fixed prompt.

    Output speed is tokens generated after the first one, divided by the time between the first and the last
    streamed token; time to first token runs from sending the request to the first token of text.
    """

    output_tokens_per_s: float = Field(gt=0)
    ttft_s: float = Field(ge=0)
    runs: int = Field(ge=1)
    prompt_id: str
    prompt_tokens: int | None = Field(default=None, ge=1)
    prompt_chars: int = Field(ge=1)
    max_output_tokens: int = Field(ge=1)
    # Who served the measured requests (the provider the router picked, when it says) and through what.
    provider: str
    endpoint: str
    measured: dt.date


class AASpeed(Strict):
    """Artificial Analysis's median speed across the providers they measure, shown only while we have none."""

    output_tokens_per_s: float | None = Field(default=None, gt=0)
    ttft_s: float | None = Field(default=None, ge=0)
    source_url: HttpsUrl
    synced: dt.date

    @model_validator(mode="after")
    def _something(self) -> AASpeed:
        if self.output_tokens_per_s is None and self.ttft_s is None:
            raise ValueError("a speed figure needs output_tokens_per_s or ttft_s")
        return self


class ModelEntry(Strict):
    schema_version: Literal[1]
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")
    name: str = Field(min_length=1)
    lab: str = Field(min_length=1)
    region: Region
    fully_open: bool = False
    # Another lab's model this one was trained from; None for a lab's own model.
    fine_tune_of: str | None = None
    total_params_b: float = Field(gt=0, lt=100)
    active_params_b: float | None = Field(default=None, gt=0)
    release_date: dt.date | None = None
    hf_repo: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
    openrouter_id: str | None = Field(default=None, pattern=r"^[a-z0-9_.-]+/[A-Za-z0-9_.:-]+$")
    # Set when one model has a thinking and a non-thinking mode: each mode is its own entry.
    reasoning: Reasoning | None = None
    attention: Attention | None = None
    max_context: MaxContext | None = None
    scores: list[Score] = Field(default_factory=list)
    earlier_version: EarlierVersion | None = None
    pricing: Pricing | None = None
    hub: Hub | None = None
    # Artificial Analysis's slug for this model, when it differs from our id (sync-aa matches on it).
    aa_slug: str | None = Field(default=None, pattern=r"^[a-z0-9][a-z0-9._-]*$")
    # Model names our own small-llm-bench runs used for this model (a run named like the id matches anyway).
    bench_models: list[ModelName] = Field(default_factory=list)
    speed: SpeedRun | None = None
    aa_speed: AASpeed | None = None
    notes: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> ModelEntry:
        if self.active_params_b is not None and self.active_params_b > self.total_params_b:
            raise ValueError("active_params_b is larger than total_params_b")
        seen: set[tuple[str, str, str, str | None]] = set()
        for score in self.scores:
            key = (score.benchmark, score.measured_by, score.link, score.variant)
            if key in seen:
                raise ValueError(
                    f"two {score.benchmark} scores ({score.variant or 'no variant'}) by {score.measured_by} "
                    f"from the same source {score.source_url}"
                )
            seen.add(key)
        return self

    @property
    def checked(self) -> dt.date | None:
        """The latest date any of the model's figures was compared with its primary document."""
        dates = [s.checked for s in self.scores if s.checked is not None]
        return max(dates) if dates else None

    @property
    def is_moe(self) -> bool:
        return self.active_params_b is not None and self.active_params_b < self.total_params_b

    @property
    def size_class(self) -> str:
        return size_class(self.total_params_b)


# The Small LM Index's size classes: (label, highest total params in billions, exclusive), in order. The
# glossary (engine/publish/glossary.py) defines them on the site from this table.
SIZE_CLASS_LIMITS: tuple[tuple[str, float], ...] = (
    ("Tiny", 5.0),
    ("Small", 15.0),
    ("Medium", 40.0),
    ("Large", float("inf")),
)


def size_class(total_params_b: float) -> str:
    return next(label for label, below in SIZE_CLASS_LIMITS if total_params_b < below)
