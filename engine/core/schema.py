"""Pydantic models of every file the engine reads or writes.

Every model forbids unknown keys, so a typo in a task file or a result file is an error that names the key
instead of a silently ignored field.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    ValidationInfo,
    field_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError

from engine.core.fieldtypes import HttpsUrl, ModelName

RESULT_SCHEMA_VERSION = 1
CHECKPOINT_SCHEMA_VERSION = 2  # 2: the header's model_file
# The oldest versions this build still reads (there is no migration yet, so: the current ones).
OLDEST_RESULT_SCHEMA_VERSION = 1
OLDEST_CHECKPOINT_SCHEMA_VERSION = 2  # 2: the header's model_file


def check_schema_version(version: int, *, current: int, oldest: int, what: str) -> int:
    """Refuse a file from a newer build or one older than the oldest migration, saying what to do."""
    if version > current:
        raise ValueError(f"{what} schema_version {version} is newer than this build reads (at most {current}): "
                         "upgrade small-llm-bench, or read the file with the build that wrote it")
    if version < oldest:
        raise ValueError(f"{what} schema_version {version} is older than this build can migrate (at least "
                         f"{oldest}): run the benchmark again to write a current file")
    return version



# Module names: ``core`` knows their shape, not the registry (``engine.episodes``, a later stage, is the one
# place they are spelled). Whoever has the registry at hand passes its names in pydantic's validation context
# (``module_context``): the bank when it loads tasks, the result-file and checkpoint loaders; the JSON Schema
# export lists them (``with_module_names``). Without a context a name is held to its shape only.
MODULE_NAMES_CONTEXT = "module_names"
_MODULE_NAME_SHAPE = re.compile(r"[a-z][a-z0-9_]{0,63}")
# Marks a module name in a model's JSON Schema, for ``with_module_names`` to replace by the registry's enum.
_MODULE_NAME_MARK = "x-module-name"


def module_context(names: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """The validation context under which a module name must be one of ``names`` (the registry's, in order)."""
    return {MODULE_NAMES_CONTEXT: tuple(names)}


def _module_name(name: str, info: ValidationInfo) -> str:
    names = info.context.get(MODULE_NAMES_CONTEXT) if isinstance(info.context, dict) else None
    if names is None:
        if not _MODULE_NAME_SHAPE.fullmatch(name):
            raise PydanticCustomError("module_name", "a module name is lower-case letters, digits and underscores, "
                                      "starting with a letter (at most 64)")
        return name
    if name not in names:
        # The error a Literal of the names gives, so messages about task and result files read as before.
        expected = " or ".join([", ".join(repr(n) for n in names[:-1]), repr(names[-1])])
        raise PydanticCustomError("literal_error", "Input should be {expected}", {"expected": expected})
    return name


class _ModuleNameSchema:
    """The JSON Schema of a module name: a marked string, which the export turns into the registry's enum."""

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        return {"type": "string", _MODULE_NAME_MARK: True}


def with_module_names(schema: Any, names: Sequence[str]) -> Any:
    """``schema`` (a model's JSON Schema) with every module name written as the enum of ``names``, as a
    Literal of them would be."""
    if isinstance(schema, dict):
        if schema.get(_MODULE_NAME_MARK):
            return {**{k: v for k, v in schema.items() if k != _MODULE_NAME_MARK}, "enum": list(names)}
        return {key: with_module_names(value, names) for key, value in schema.items()}
    if isinstance(schema, list):
        return [with_module_names(value, names) for value in schema]
    return schema


# The name of a module: its shape here; one of the registry's (``engine.episodes.SPECS``) under a
# ``module_context``.
ModuleName = Annotated[str, AfterValidator(_module_name), _ModuleNameSchema]

TruncationClass = Literal["none", "incomplete", "degenerate"]


class Strict(BaseModel):
    """Base for every file model: unknown keys are errors, and so is a number JSON cannot hold (Infinity,
    NaN: a file with one is not JSON, whatever Python's parser accepts)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


# --------------------------------------------------------------------------------------------------------
# Tasks


class Task(Strict):
    """One task of the bank, as written in ``tasks/<module>/<id>.yaml``.

    The fields shared by every module live here; ``body`` is validated by the module's own model
    (``Module.body_model``) when the bank loads, so each module owns its task format.
    """

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_]*$")
    module: ModuleName
    title: str
    what_this_tests: str
    failure_mode: str
    fast: bool = False
    # Largest number of model calls one trial may make (agent loops, repair attempts, conversation turns).
    max_turns: int = Field(default=8, ge=1, le=64)
    # Completion budget per model call; the run's --max-tokens overrides it when given.
    max_tokens: int = Field(default=1024, ge=16, le=32768)
    system: str | None = None
    # The grading version of this task: bumped when how its answers are judged changes while what the model
    # is asked stays the same. It is left out of the task hash, so ``rescore`` regrades old transcripts of
    # the task instead of refusing them; a resumed run re-runs trials graded under an older version.
    version: int = Field(default=1, ge=1)
    body: dict[str, Any]


# --------------------------------------------------------------------------------------------------------
# One model call and one trial


class ToolCall(Strict):
    id: str
    name: str
    # The arguments exactly as the model wrote them: a model that writes broken JSON is recorded as such.
    arguments: str
    # Set when the call was recovered from plain text in the content rather than the tool_calls field.
    from_text: bool = False


class Usage(Strict):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_prompt_tokens: int | None = None
    # Prompt tokens the server computed for this request (llama.cpp's ``timings.prompt_n``): unlike
    # prompt_tokens, never ambiguous about the cached part.
    evaluated_prompt_tokens: int | None = None


class Timings(Strict):
    """What one call cost. Server figures are copied when the server reports them (llama.cpp ``timings``)."""

    wall_ms: float = 0.0
    ttft_ms: float | None = None
    decode_tps: float | None = None
    prompt_ms: float | None = None
    prompt_tps: float | None = None


class Turn(Strict):
    """One message of a trial's conversation, with the reply's metadata on assistant turns: the one message
    type from the client to the result file (the client turns a list of them into the wire format at its
    edge, ``engine.model.client.wire_messages``). ``content`` is always text, empty when a reply only calls
    tools."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str = ""
    reasoning: str | None = None
    # An assistant turn whose content held inline reasoning the client split off (a ``<think>`` block, a lone
    # ``</think>``, gpt-oss analysis text): that content as the server sent it, which is what a user of the
    # server is shown. ``content`` keeps the answer part and ``reasoning`` the split-off text (with any the
    # server sent apart, in its reasoning field, which no user sees). None when nothing was split off, and in
    # files written before it was recorded.
    visible: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    # Calls of this reply past the per-reply cap (RequestLimits.max_tool_calls): dropped before anything runs
    # them, and counted here so the module can tell the model they were refused.
    tool_calls_refused: int = Field(default=0, ge=0)
    tool_call_id: str | None = None
    name: str | None = None
    # A tool turn only: True when the task's failure injection answered instead of the tool (an error or an
    # empty result the task declares on purpose), False when the tool ran. None: not recorded (a file from
    # before the field, or any other role). Never sent to the model: the client writes only the wire fields.
    injected_failure: bool | None = None
    finish_reason: str | None = None
    usage: Usage | None = None
    timings: Timings | None = None

    @field_validator("injected_failure")
    @classmethod
    def _only_on_tool_turns(cls, value: bool | None, info: ValidationInfo) -> bool | None:
        if value is not None and info.data.get("role") != "tool":
            raise ValueError("injected_failure is recorded on tool turns only; remove it from this turn")
        return value

    def __eq__(self, other: object) -> bool:
        # A turn is its fields: the reply as the client returned it (an AssistantTurn) equals the same turn
        # read back from the result file (a Turn). Pydantic's own equality would also compare the classes.
        if isinstance(other, Turn):
            return self.__dict__ == other.__dict__
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, as every pydantic model that is not frozen


class AssistantTurn(Turn):
    """A model's reply as the client returns it, normalised across servers: an assistant turn whose usage and
    timings are always there (a field the server did not report is None inside them). It is stored as it is
    returned; its fields and their order are Turn's, so the result file holds it as any other turn."""

    role: Literal["assistant"] = "assistant"
    usage: Usage = Field(default_factory=Usage)
    timings: Timings = Field(default_factory=Timings)


class Grade(Strict):
    """A grader's verdict on one trial."""

    score: float = Field(ge=0.0, le=1.0)
    passed: bool
    breakdown: dict[str, float] = Field(default_factory=dict)
    reason: str = ""
    # Name of the hard gate that failed the trial (forbidden_tool, call_budget, loop, degenerate ...).
    hard_gate: str | None = None
    # Module-specific facts worth keeping (first_try_pass, attempts, state diff summary ...).
    details: dict[str, Any] = Field(default_factory=dict)
    # Set when a check could not decide from the text (an open paraphrase, an item described but not named):
    # which check, and why. The verdict stands as graded; the judge, where configured, reviews these, and
    # the board shows per model the share of verdicts that rest on one.
    unsure: str | None = Field(default=None, max_length=2000)


class TrialRecord(Strict):
    task_id: str
    task_hash: str
    # The task's grading version the grade was made under (files from before versions existed: 1).
    task_version: int = Field(default=1, ge=1)
    module: ModuleName
    trial: int = Field(ge=0)
    seed: int | None = None
    turns: list[Turn] = Field(default_factory=list)
    grade: Grade | None = None
    truncation: TruncationClass = "none"
    error: str | None = None
    # True when the trial failed for a reason outside the model (network, server 5xx ...): excluded from scores.
    infra: bool = False
    # Set when the trial could not be scored for a reason outside the model that is not a transport error
    # (the server silently dropped part of the prompt, no sandbox was available ...): also excluded.
    invalid_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    wall_s: float = 0.0

    @property
    def scorable(self) -> bool:
        return not self.infra and self.invalid_reason is None and self.grade is not None

    @property
    def passed(self) -> bool:
        return self.scorable and self.grade is not None and self.grade.passed


# --------------------------------------------------------------------------------------------------------
# The run file


class RunSettings(Strict):
    """Everything that decides what the model saw. Two runs compare fairly only when these agree."""

    model: ModelName
    endpoint_host: str
    trials: int
    profile: str
    modules: list[str]
    filter: str | None = None
    thinking: bool | None = None
    temperature: float | None = None
    # Nucleus sampling sent with every request (--top-p, default 0.95). None: a file written before top_p was
    # recorded (the bench then sent --top-p or the default).
    top_p: float | None = None
    # Where the sampling came from: "bench" the fixed settings (--temperature 0.6, --top-p 0.95 and the server
    # kind's neutral top-k and min-p), "card" the models.yaml row's sampling from its model card, "custom" a
    # --temperature, --top-p, --top-k or --min-p given by hand. A file written before the mode was recorded is
    # "bench": the bench then had no other default.
    sampling_mode: Literal["bench", "card", "custom"] = "bench"
    # top-k and min-p the run sent in place of the server kind's neutral ones (card or custom mode; 0 is off);
    # None: the neutral ones (servers.sampler_fields), as every run sent before card sampling.
    top_k: int | None = Field(default=None, ge=0)
    min_p: float | None = Field(default=None, ge=0.0, le=1.0)
    # The model card the card sampling was taken from (card mode only).
    sampling_source: HttpsUrl | None = None
    seed: int = 0
    max_tokens: int | None = None
    concurrency: int = 1
    sandbox_backend: str | None = None
    # --stop-loops: streamed replies were ended once certainly degenerate (recorded as they would have been
    # at the token limit); the board flags a run that used it.
    stop_loops: bool = False
    # --early-stop: a task's remaining trials were skipped once one failed (its pass^k was then 0 whatever
    # they did); the scoring scores such a task on the trials it ran, and the board flags the run.
    early_stop: bool = False


class RunCost(Strict):
    """Where the time of the latest invocation went (a resumed run's earlier invocations are not in it)."""

    trials_run: int = Field(ge=0)
    wall_s: float = Field(ge=0.0)
    concurrency: int = Field(ge=1)
    # Summed over every model call of those trials: request sent to the last byte received. At concurrency
    # 1 the rest of wall_s is the engine's own work (grading, the code sandbox, writing the checkpoint).
    server_wait_s: float = Field(ge=0.0)
    # Prompt tokens the server took from its prefix cache, and those it computed; None where the server
    # does not say. cache_source names where the figures came from.
    prompt_tokens_cached: int | None = None
    prompt_tokens_evaluated: int | None = None
    cache_source: str | None = None
    # The median decode rate over the replies whose server reported one (llama.cpp's predicted_per_second).
    decode_tps_median: float | None = None
    # Replies that --stop-loops ended before the token limit (None: the run did not use it).
    replies_stopped_as_loops: int | None = None
    # Trials --early-stop skipped because their task had already failed (None: the run did not use it).
    trials_skipped_as_decided: int | None = None


class GpuInfo(Strict):
    """One accelerator as the vendor's tool reported it."""

    name: str = Field(max_length=200)
    memory_mb: int | None = Field(default=None, ge=0)


class MachineInfo(Strict):
    """The machine a run ran on, as the machine itself reports it (never typed in): gathered once per
    invocation by ``engine.run.machine``. None in a field: the machine did not say."""

    os: str = Field(max_length=200)
    cpu_model: str | None = Field(default=None, max_length=200)
    # Logical CPUs of the machine, and those this process may run on (a container's CPU set).
    cpu_cores: int | None = Field(default=None, ge=1)
    usable_cores: int | None = Field(default=None, ge=1)
    memory_mb: int | None = Field(default=None, ge=0)
    gpus: list[GpuInfo] = Field(default_factory=list, max_length=64)
    # The tool that listed the GPUs (nvidia-smi, rocm-smi); None when neither is on the machine.
    gpu_tool: str | None = Field(default=None, max_length=50)
    # Why a tool that is there listed none (timed out, said something unreadable); None when it answered.
    gpu_note: str | None = Field(default=None, max_length=300)


class Provenance(Strict):
    bench_version: str
    # The commit checked out when the latest invocation started (a resumed run may span several).
    git_commit: str | None = None
    task_set_hash: str
    python_version: str
    served_context: int | None = None
    server: dict[str, Any] = Field(default_factory=dict)
    # Tasks selected but not run, with the reason (no sandbox for code, context too small ...).
    skipped_tasks: dict[str, str] = Field(default_factory=dict)
    # The limits the code sandbox enforced on this host, in words (which held by the kernel's accounting,
    # which only by an rlimit); empty when no code task ran or for files from before this was recorded.
    sandbox_limits: list[str] = Field(default_factory=list)
    started_at: str
    finished_at: str | None = None
    duration_s: float = 0.0
    cost: RunCost | None = None
    # The machine of the latest invocation (None: a file from before it was recorded).
    machine: MachineInfo | None = None


class RunFile(Strict):
    schema_version: int = RESULT_SCHEMA_VERSION
    settings: RunSettings
    provenance: Provenance
    task_hashes: dict[str, str]
    trials: list[TrialRecord]

    @field_validator("schema_version")
    @classmethod
    def _known_version(cls, version: int) -> int:
        return check_schema_version(version, current=RESULT_SCHEMA_VERSION, oldest=OLDEST_RESULT_SCHEMA_VERSION,
                                    what="result file")


class CheckpointHeader(Strict):
    """First line of ``<output>.partial.jsonl``: a resumed run must match it."""

    kind: Literal["header"] = "header"
    schema_version: int = CHECKPOINT_SCHEMA_VERSION
    fingerprint: str
    settings: RunSettings
    started_at: str
    # The model file the embedded server ran (its name, as provenance.server.model_file records it); None: a
    # server of one's own, or a checkpoint from before it was recorded. A resume on another file is refused
    # (``resume_rule.check_model_file``): the settings alone do not tell a Q4 file from a Q8 one.
    model_file: str | None = Field(default=None, max_length=255)

    @field_validator("schema_version")
    @classmethod
    def _known_version(cls, version: int) -> int:
        return check_schema_version(version, current=CHECKPOINT_SCHEMA_VERSION,
                                    oldest=OLDEST_CHECKPOINT_SCHEMA_VERSION, what="checkpoint")
