"""From a request to a plan: the tasks selected once, the sandbox, the server facts, the resolved settings and
what an earlier attempt left, read once.

The ``RunPlan`` is frozen; the runner executes it and changes nothing in it. Live objects (the sandbox
backend, the embedded server's handle) travel beside it as arguments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from types import MappingProxyType
from typing import Any

import httpx

from engine.bank.load import load_bank, select
from engine.core.errors import UserError
from engine.core.schema import CheckpointHeader, RunSettings, TrialRecord
from engine.episodes import MODULES
from engine.episodes.base import LoadedTask
from engine.model.local_server import LocalServer
from engine.model.requestlimits import RequestLimits
from engine.run.checkpoint import fingerprint
from engine.run.request import RunRequest
from engine.run.resume import read_previous, trials_to_keep
from engine.run.resume_rule import check_resume
from engine.run.sandbox_choice import SandboxChoice
from engine.run.server_facts import check_server


@dataclass(frozen=True)
class RunPlan:
    request: RunRequest
    endpoint: str  # the request's, or the embedded server's
    tasks: tuple[LoadedTask, ...]  # what runs, in bank order (code tasks skipped for want of a sandbox are not)
    skipped_tasks: Mapping[str, str]  # task id -> why it does not run
    sandbox_limits: tuple[str, ...]  # the limits the code sandbox enforces here, in words
    # What the result file records as the run's settings, everything resolved: the trials (with
    # --add-trials), the sampler, the concurrency, the sandbox backend.
    settings: RunSettings
    server_kind: str
    served_context: int | None
    server_meta: Mapping[str, Any]
    limits: RequestLimits  # the request's limits, first-byte deadlines scaled to the warm-up's measure
    whole_prompt_counts: bool  # the server counts a prompt whole, cached part included (the truncation rule)
    header: CheckpointHeader  # the checkpoint's first line; an earlier attempt's start time carries over
    kept: tuple[TrialRecord, ...]  # earlier trials that stand
    previous_duration_s: float  # the time earlier attempts took, added to this one's


def select_tasks(request: RunRequest) -> tuple[LoadedTask, ...]:
    """The one selection of a run: the profile, the modules and the filter applied to the bank."""
    tasks = select(load_bank(request.tasks_dir), profile=request.profile,
                   modules=list(request.modules) if request.modules else None, pattern=request.pattern)
    if not tasks:
        raise UserError("no task matches the selection (check --profile, --modules and --filter)")
    return tuple(tasks)


def required_context(tasks: Sequence[LoadedTask]) -> int | None:
    """The largest context window a selected task needs (an estimate)."""
    return max((MODULES[t.task.module].required_context(t) for t in tasks), default=None)


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _endpoint_host(endpoint: str) -> str:
    """Host and port only: a URL may carry credentials (user:key@host) that must never reach a file."""
    url = httpx.URL(endpoint)
    return f"{url.host}:{url.port}" if url.port else (url.host or "unknown")


def _check_context(tasks: Sequence[LoadedTask], served: int | None, allow: bool) -> None:
    if served is None:
        return
    too_big = [(t.id, MODULES[t.task.module].required_context(t)) for t in tasks]
    too_big = [(tid, need) for tid, need in too_big if need > served]
    if too_big and not allow:
        listing = ", ".join(f"{tid} (needs ~{need})" for tid, need in too_big[:8])
        raise UserError(
            f"the server's context window is {served} tokens, too small for {len(too_big)} selected task(s): "
            f"{listing}. Start the server with a larger context (llama.cpp -c, Ollama OLLAMA_CONTEXT_LENGTH, "
            "vLLM --max-model-len), deselect them with --modules/--filter, or pass --allow-undersized-context "
            "to run them anyway (they will likely fail as context overflows)."
        )


def _check_writable(output: Path) -> None:
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        test_file = output.parent / f".{output.name}.write-test"
        test_file.write_text("")
        test_file.unlink()
    except OSError as exc:
        raise UserError(f"cannot write the output {output}: {exc.strerror or exc}; choose another --output") from exc


async def make_plan(request: RunRequest, tasks: Sequence[LoadedTask], sandbox: SandboxChoice,
                    embedded: LocalServer | None = None) -> RunPlan:
    """Check the server, check the window, and reconcile with what an earlier attempt left. Raises
    ``UserError`` for anything the user must fix."""
    endpoint = embedded.endpoint if embedded is not None else request.endpoint
    if not endpoint:
        raise UserError("no endpoint: give --endpoint, or run without one to use the embedded server")
    _check_writable(request.output)  # no model call before the result is known to have somewhere to go
    facts = await check_server(request, endpoint, tasks, embedded)
    runnable = tuple(t for t in tasks if t.id not in sandbox.skipped)
    _check_context(runnable, facts.served_context, request.allow_undersized_context)
    previous = read_previous(request.output, request.resume)
    base_trials = previous.header.settings.trials if previous.header and request.add_trials else request.trials
    settings = RunSettings(
        model=request.model,
        endpoint_host=_endpoint_host(endpoint),
        trials=base_trials + request.add_trials,
        profile=request.profile,
        modules=sorted(request.modules or []),
        filter=request.pattern,
        thinking=request.thinking,
        temperature=facts.temperature,
        top_p=facts.top_p,
        seed=request.seed,
        max_tokens=request.max_tokens,
        concurrency=facts.concurrency or 1,
        sandbox_backend=sandbox.label,
        stop_loops=request.stop_loops,
        early_stop=request.early_stop,
    )
    if previous.header is not None:
        check_resume(previous.source, previous.header.settings, settings, previous.trials, runnable,
                     lambda: {t.id: t for t in load_bank(request.tasks_dir)})
    header = CheckpointHeader(fingerprint=fingerprint(settings), settings=settings,
                              started_at=previous.header.started_at if previous.header else utc_now())
    return RunPlan(
        request=request,
        endpoint=endpoint,
        tasks=runnable,
        skipped_tasks=MappingProxyType(dict(sandbox.skipped)),
        sandbox_limits=sandbox.limits,
        settings=settings,
        server_kind=facts.kind,
        served_context=facts.served_context,
        server_meta=facts.meta,
        limits=facts.limits,
        whole_prompt_counts=facts.whole_prompt_counts,
        header=header,
        kept=trials_to_keep(previous, runnable, settings.trials),
        previous_duration_s=previous.duration_s,
    )
