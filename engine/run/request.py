"""What the person asked a run to do: the flags and environment of ``sllmb run``, before anything is resolved.

A ``RunRequest`` is frozen: the server facts, the tasks selected and what an earlier attempt left are found by
planning (``engine.run.plan``) and carried by the ``RunPlan``, never written back here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from engine.core.models_file import CardSampling
from engine.model.requestlimits import RequestLimits


class RunRequest(BaseModel):
    # Unknown fields are errors, so a misspelt option fails where it is written, not as a silent default.
    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    # None: the embedded server's, which the caller starts and hands to planning.
    endpoint: str | None
    # The result file, always ending in .json (``result_path``): the lock and the checkpoint are named from it.
    output: Path
    api_key: str | None = Field(default=None, repr=False)
    trials: int = 3
    add_trials: int = 0
    concurrency: int | None = None  # None: the server's own default, found by the server check
    # Which tasks: a profile, then the modules, then a glob or substring of task ids.
    profile: str = "full"
    modules: tuple[str, ...] | None = None
    pattern: str | None = None
    tasks_dir: Path | None = None
    resume: bool = True
    max_tokens: int | None = None
    temperature: float | None = None  # None: servers.DEFAULT_TEMPERATURE
    top_p: float | None = None  # None: servers.DEFAULT_TOP_P
    # --top-k, --min-p: sent in place of the server kind's neutral values (0 turns either off); None: neutral.
    top_k: int | None = None
    min_p: float | None = None
    # --sampling: "card" the models.yaml row's card sampling, "bench" the fixed one; None: card where the row
    # has one, else bench (``engine.run.sampling``).
    sampling: Literal["card", "bench"] | None = None
    # The models.yaml row's card sampling, if it has one (the command looks the row up).
    card_sampling: CardSampling | None = None
    seed: int = 0
    thinking: bool | None = None
    save_responses: bool = False
    allow_undersized_context: bool = False
    # How the code sandbox is chosen: --sandbox, --sandbox-memory, --allow-unsandboxed.
    sandbox_name: str | None = None
    sandbox_memory_mb: int = 256
    allow_unsandboxed: bool = False
    max_retries: int = 4
    backoff_s: float = 1.0
    # Time and size bounds of every model request (--connect-timeout, --first-byte-timeout, --idle-timeout,
    # --request-timeout), in one object; given as a number of seconds, that bounds the whole request
    # (``RequestLimits.of``).
    limits: RequestLimits = Field(default_factory=RequestLimits)
    show_progress: bool = True
    # The server check's model calls: one warm-up request, and a tool-call check for a run with tool tasks.
    # The CLI turns them on (--no-warm-up turns them off); tests that count requests leave them off.
    warm_up: bool = False
    ready_timeout_s: float = 300.0
    # --stop-loops: end a streamed reply once it is certainly degenerate (recorded in the run's settings).
    stop_loops: bool = False
    # --early-stop: skip a task's remaining trials once one has failed (its pass^k is then decided: 0).
    early_stop: bool = False

    @field_validator("limits", mode="before")
    @classmethod
    def _one_limits_object(cls, given: RequestLimits | float | None) -> RequestLimits:
        return RequestLimits.of(given)

    @field_validator("output")
    @classmethod
    def _one_name_per_result(cls, output: Path) -> Path:
        return result_path(output)


def result_path(output: Path) -> Path:
    """The result file ``--output`` names: ``X`` and ``X.json`` are one file, so they take one lock and one
    checkpoint (the checkpoint drops ``.json`` from the name, the lock does not)."""
    return output if output.name.endswith(".json") else output.with_name(output.name + ".json")
