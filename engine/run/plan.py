"""From a request to a plan: the tasks selected once, the sandbox, the server facts, the resolved settings and
what an earlier attempt left, read once.

The ``RunPlan`` is frozen and holds everything resolved, the one ``ClientSettings`` of the run among it; the
runner executes it, changes nothing in it and never reads the request behind it. Live objects (the sandbox
backend, the embedded server's handle) travel beside it as arguments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from types import MappingProxyType
from typing import Any

from engine.bank.load import load_bank, select
from engine.core.config import endpoint_host
from engine.core.errors import UserError
from engine.core.schema import CheckpointHeader, MachineInfo, RunSettings, TrialRecord
from engine.episodes import MODULES
from engine.episodes.base import LoadedTask
from engine.model import servers
from engine.model.client import ClientSettings
from engine.model.local_server import LocalServer
from engine.run.checkpoint import fingerprint
from engine.run.machine import gather_machine
from engine.run.request import RunRequest
from engine.run.resume import read_previous, trials_to_keep
from engine.run.resume_rule import check_model_file, check_resume
from engine.run.sampling import Sampling, resolve_sampling
from engine.run.sandbox_choice import SandboxChoice
from engine.run.server_facts import check_server


@dataclass(frozen=True)
class RunPlan:
    """Everything the runner reads, resolved: it never looks at the request behind it."""

    tasks: tuple[LoadedTask, ...]  # what runs, in bank order (code tasks skipped for want of a sandbox are not)
    skipped_tasks: Mapping[str, str]  # task id -> why it does not run
    sandbox_limits: tuple[str, ...]  # the limits the code sandbox enforces here, in words
    machine: MachineInfo  # this machine as it reports itself (CPU, memory, GPUs, OS), gathered once
    # What the result file records as the run's settings, everything resolved: the trials (with
    # --add-trials), the sampler, the seed, the token budget, the concurrency, the sandbox backend.
    settings: RunSettings
    # The one client configuration of the run: the endpoint (the request's, or the embedded server's), the
    # sampler, retries, what the server check found (kind, window, how it counts prompts) and the request
    # limits, first-byte deadlines scaled to the warm-up's measure.
    client: ClientSettings
    server_meta: Mapping[str, Any]
    header: CheckpointHeader  # the checkpoint's first line; an earlier attempt's start time carries over
    kept: tuple[TrialRecord, ...]  # earlier trials that stand
    previous_duration_s: float  # the time earlier attempts took, added to this one's
    # Where the result goes and how it is kept and shown (not part of what the model saw).
    output: Path
    save_responses: bool
    show_progress: bool


def select_tasks(request: RunRequest) -> tuple[LoadedTask, ...]:
    """The one selection of a run: the profile, the modules and the filter applied to the bank."""
    tasks = select(load_bank(request.tasks_dir), profile=request.profile,
                   modules=list(request.modules) if request.modules else None, pattern=request.pattern)
    if not tasks:
        raise UserError("no task matches the selection (check --profile, --modules and --filter)")
    return tuple(tasks)


@dataclass(frozen=True)
class Selection:
    """The tasks a run selected, with the context window each needs, estimated once per task: the embedded
    server's window and the plan's window check both read these figures."""

    tasks: tuple[LoadedTask, ...]
    needs: Mapping[str, int]  # task id -> the context window it needs (an estimate)

    @classmethod
    def of(cls, tasks: Sequence[LoadedTask]) -> Selection:
        return cls(tuple(tasks), MappingProxyType({t.id: MODULES[t.task.module].required_context(t) for t in tasks}))

    @property
    def required_context(self) -> int | None:
        """The largest context window a selected task needs."""
        return max(self.needs.values(), default=None)


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _check_context(tasks: Sequence[LoadedTask], needs: Mapping[str, int], served: int | None, allow: bool) -> None:
    if served is None:
        return
    too_big = [(t.id, needs[t.id]) for t in tasks if needs[t.id] > served]
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


def client_settings(request: RunRequest, endpoint: str, sampling: Sampling | None = None) -> ClientSettings:
    """The run's client settings as the request resolves them (the sampling settled here, once: card, bench
    or by hand); the server check adds what it finds (``make_plan``). ``sampler`` holds only what replaces
    the server kind's neutral fields (a card's top-k and min-p)."""
    sampling = sampling or resolve_sampling(request)
    return ClientSettings(
        endpoint=endpoint, model=request.model, api_key=request.api_key,
        temperature=sampling.temperature, top_p=sampling.top_p, sampler=sampling.extra_fields(),
        thinking=request.thinking, max_retries=request.max_retries, backoff_s=request.backoff_s,
        limits=request.limits, stop_loops=request.stop_loops,
    )


async def make_plan(request: RunRequest, selection: Selection, sandbox: SandboxChoice,
                    embedded: LocalServer | None = None, machine: MachineInfo | None = None) -> RunPlan:
    """Check the server, check the window, gather the machine's facts (``machine``: already gathered), and
    reconcile with what an earlier attempt left. Raises ``UserError`` for anything the user must fix."""
    endpoint = embedded.endpoint if embedded is not None else request.endpoint
    if not endpoint:
        raise UserError("no endpoint: give --endpoint, or run without one to use the embedded server")
    _check_writable(request.output)  # no model call before the result is known to have somewhere to go
    sampling = resolve_sampling(request)
    asked = client_settings(request, endpoint, sampling)
    tasks = selection.tasks
    facts = await check_server(request, asked, tasks, embedded)
    client = replace(asked, server_kind=facts.kind, served_context=facts.served_context,
                     sampler=servers.sampler_fields(facts.kind, asked.sampler), limits=facts.limits,
                     whole_prompt_counts=facts.whole_prompt_counts)
    runnable = tuple(t for t in tasks if t.id not in sandbox.skipped)
    _check_context(runnable, selection.needs, facts.served_context, request.allow_undersized_context)
    previous = read_previous(request.output, request.resume)
    base_trials = previous.header.settings.trials if previous.header and request.add_trials else request.trials
    settings = RunSettings(
        model=request.model,
        endpoint_host=endpoint_host(endpoint),
        trials=base_trials + request.add_trials,
        profile=request.profile,
        modules=sorted(request.modules or []),
        filter=request.pattern,
        thinking=request.thinking,
        temperature=client.temperature,
        top_p=client.top_p,
        sampling_mode=sampling.mode,
        top_k=sampling.top_k,
        min_p=sampling.min_p,
        sampling_source=sampling.source,
        seed=request.seed,
        max_tokens=request.max_tokens,
        concurrency=facts.concurrency or 1,
        sandbox_backend=sandbox.label,
        stop_loops=request.stop_loops,
        early_stop=request.early_stop,
    )
    model_file = embedded.model_file.name if embedded is not None else None
    if previous.header is not None:
        check_resume(previous.source, previous.header.settings, settings, previous.trials, runnable,
                     lambda: {t.id: t for t in load_bank(request.tasks_dir)})
        check_model_file(previous.source, previous.header.model_file, model_file)
    header = CheckpointHeader(fingerprint=fingerprint(settings), settings=settings, model_file=model_file,
                              started_at=previous.header.started_at if previous.header else utc_now())
    return RunPlan(
        tasks=runnable,
        machine=machine or gather_machine(),
        skipped_tasks=MappingProxyType(dict(sandbox.skipped)),
        sandbox_limits=sandbox.limits,
        settings=settings,
        client=client,
        server_meta=facts.meta,
        header=header,
        kept=trials_to_keep(previous, runnable, settings.trials),
        previous_duration_s=previous.duration_s,
        output=request.output,
        save_responses=request.save_responses,
        show_progress=request.show_progress,
    )
