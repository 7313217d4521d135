"""Run the selected tasks k times each against one model, checkpointing every trial, and write the result.

The flow is one way: bank -> jobs -> episodes (module.run + module.grade) -> checkpoint lines -> one
atomically written result file. Nothing is computed from the result file here except the scorecard.
"""

from __future__ import annotations

import asyncio
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import httpx

from engine import __version__
from engine.bank.load import load_bank, select, task_set_hash
from engine.core.errors import ContextOverflow, InfraError, ModelFailure, Truncated, UserError
from engine.core.results import load_run_file, write_run_file
from engine.core.schema import CheckpointHeader, Grade, Provenance, RunFile, RunSettings, TrialRecord, Turn
from engine.episodes import MODULES
from engine.episodes.base import Conversation, Env, LoadedTask
from engine.model import servers
from engine.model.client import ChatClient, ClientSettings, SilentTruncation
from engine.model.preflight import ServerInfo, inspect_server
from engine.model.requestlimits import RequestLimits
from engine.run.checkpoint import Checkpoint, checkpoint_path, describe_mismatch, fingerprint
from engine.run.runcost import run_cost


@dataclass
class RunConfig:
    model: str
    endpoint: str
    output: Path
    api_key: str | None = field(default=None, repr=False)
    trials: int = 3
    add_trials: int = 0
    concurrency: int | None = None  # None: the server's own default, resolved by preflight
    profile: str = "full"
    modules: list[str] | None = None
    pattern: str | None = None
    resume: bool = True
    max_tokens: int | None = None
    temperature: float | None = None  # None: servers.DEFAULT_TEMPERATURE, resolved by preflight
    top_p: float | None = None
    seed: int = 0
    thinking: bool | None = None
    save_responses: bool = False
    allow_undersized_context: bool = False
    tasks_dir: Path | None = None
    served_context: int | None = None
    server_meta: dict = field(default_factory=dict)
    sandbox: object = None
    sandbox_backend: str | None = None
    # How the code sandbox is chosen when ``sandbox`` is not given (--sandbox, --sandbox-memory,
    # --allow-unsandboxed); ``sandbox_candidates`` replaces the automatic backend list (tests, custom setups).
    sandbox_name: str | None = None
    sandbox_memory_mb: int = 256
    allow_unsandboxed: bool = False
    sandbox_candidates: list | None = None
    skipped_tasks: dict[str, str] = field(default_factory=dict)
    # The task bank, loaded on first use so that preflight, the sandbox choice and planning share one load.
    bank: list[LoadedTask] | None = field(default=None, repr=False)
    max_retries: int = 4
    backoff_s: float = 1.0
    request_timeout_s: float = 600.0
    # Time and size bounds of every model request (--connect-timeout, --first-byte-timeout ...); None: the
    # defaults, with the whole request bounded by request_timeout_s.
    limits: RequestLimits | None = None
    show_progress: bool = True
    # The server check's model calls: one warm-up request, and a tool-call check for a run with tool tasks.
    # The CLI turns them on; tests that count requests leave them off.
    warm_up: bool = False
    ready_timeout_s: float = 300.0
    server_kind: str | None = None
    # --stop-loops: end a streamed reply once it is certainly degenerate (recorded in the run's settings).
    stop_loops: bool = False
    # --early-stop: skip a task's remaining trials once one has failed (its pass^k is then decided: 0).
    early_stop: bool = False
    # The embedded server runs a model whose own chat template may render no tools (SmolLM2's does not).
    # Its user cannot change that template, and the tools module lists the tools in its system prompt as
    # well, so such a run goes ahead (recorded) instead of being refused as a misconfigured server would be.
    allow_template_without_tools: bool = False
    # "task" runs a task's trials back to back so the server's prefix cache serves the repeated prompt;
    # "trial" runs every task once before any runs twice (kept for the benchmark's before/after).
    job_order: str = "task"


# Reasoning is kept in every trial record, clipped to this many characters unless --save-responses asks for
# all of it: a thinking model can write tens of thousands of characters per turn.
REASONING_KEPT_CHARS = 4000


def _clip_reasoning(turn: Turn) -> Turn:
    if turn.reasoning is None or len(turn.reasoning) <= REASONING_KEPT_CHARS:
        return turn
    cut = len(turn.reasoning) - REASONING_KEPT_CHARS
    return turn.model_copy(update={"reasoning": turn.reasoning[:REASONING_KEPT_CHARS] + f"… [{cut} chars clipped]"})


def _bank(cfg: RunConfig) -> list[LoadedTask]:
    if cfg.bank is None:
        cfg.bank = load_bank(cfg.tasks_dir)
    return cfg.bank


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _endpoint_host(endpoint: str) -> str:
    """Host and port only: a URL may carry credentials (user:key@host) that must never reach a file."""
    url = httpx.URL(endpoint)
    return f"{url.host}:{url.port}" if url.port else (url.host or "unknown")


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parent)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def _settings(cfg: RunConfig, trials: int) -> RunSettings:
    return RunSettings(
        model=cfg.model,
        endpoint_host=_endpoint_host(cfg.endpoint),
        trials=trials,
        profile=cfg.profile,
        modules=sorted(cfg.modules or []),
        filter=cfg.pattern,
        thinking=cfg.thinking,
        temperature=cfg.temperature,
        seed=cfg.seed,
        max_tokens=cfg.max_tokens,
        concurrency=cfg.concurrency or 1,
        sandbox_backend=cfg.sandbox_backend,
        stop_loops=cfg.stop_loops,
        early_stop=cfg.early_stop,
    )


def decided_tasks(records: list[TrialRecord]) -> set[str]:
    """Tasks whose pass^k is already decided: one scorable trial failed, so no later trial can make all k
    pass. (A task whose trials all pass so far is decided only by its last one.)"""
    return {r.task_id for r in records if r.scorable and not r.passed}


def _check_context(tasks: list[LoadedTask], served: int | None, allow: bool) -> None:
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
        probe_file = output.parent / f".{output.name}.write-test"
        probe_file.write_text("")
        probe_file.unlink()
    except OSError as exc:
        raise UserError(f"cannot write the output {output}: {exc.strerror or exc}; choose another --output") from exc


def job_list(tasks: list[LoadedTask], trials: int, done: set[tuple[str, int]],
             order: str = "task") -> list[tuple[LoadedTask, int]]:
    """The trials still to run. Task-major by default: a task's trials send the same opening prompt, so
    running them back to back lets a server's prefix cache serve it instead of computing it again (on a
    single-slot server any other task in between evicts it). The order changes no request's content."""
    if order == "trial":
        pairs = [(t, i) for i in range(trials) for t in tasks]
    elif order == "task":
        pairs = [(t, i) for t in tasks for i in range(trials)]
    else:
        raise ValueError(f"unknown job order {order!r}")
    return [(t, i) for t, i in pairs if (t.id, i) not in done]


class Runner:
    def __init__(self, cfg: RunConfig, on_trial: Callable[[TrialRecord], None] | None = None):
        self.cfg = cfg
        self.on_trial = on_trial

    def plan(self) -> tuple[list[LoadedTask], Checkpoint, CheckpointHeader, list[TrialRecord], int]:
        """Select tasks, reconcile with what a previous attempt left, and say which trials remain."""
        cfg = self.cfg
        tasks = select(_bank(cfg), profile=cfg.profile, modules=cfg.modules, pattern=cfg.pattern)
        tasks = [t for t in tasks if t.id not in cfg.skipped_tasks]
        if not tasks:
            raise UserError("no task matches the selection (check --profile, --modules and --filter)")
        _check_context(tasks, cfg.served_context, cfg.allow_undersized_context)
        _check_writable(cfg.output)
        checkpoint = Checkpoint(checkpoint_path(cfg.output))
        previous_header: CheckpointHeader | None = None
        previous: list[TrialRecord] = []
        if cfg.resume:
            previous_header, previous = checkpoint.read()
            if previous_header is None and cfg.output.is_file():
                old = load_run_file(cfg.output)
                previous_header = CheckpointHeader(fingerprint=fingerprint(old.settings), settings=old.settings,
                                                   started_at=old.provenance.started_at)
                previous = old.trials
        else:
            moved = checkpoint.set_aside()
            if moved:
                print(f"--no-resume: the previous checkpoint was kept as {moved}", file=sys.stderr)
        base_trials = previous_header.settings.trials if previous_header and cfg.add_trials else cfg.trials
        trials = base_trials + cfg.add_trials
        settings = _settings(cfg, trials)
        if previous_header is not None and previous_header.fingerprint != fingerprint(settings):
            raise UserError(
                f"{checkpoint.path if checkpoint.path.exists() else cfg.output} was written with different "
                f"settings ({describe_mismatch(previous_header.settings, settings)}); re-issue the original "
                "command to resume it, choose another --output, or pass --no-resume to start over "
                "(the old checkpoint is kept as a .bak file)"
            )
        current = {t.id: t.hash for t in tasks}
        versions = {t.id: t.task.version for t in tasks}
        keep: dict[tuple[str, int], TrialRecord] = {}
        for rec in previous:
            # Infra and invalid trials run again: the server may have been fixed in between.
            # So do trials graded under an older grading version of their task.
            if (current.get(rec.task_id) == rec.task_hash and rec.trial < trials and not rec.infra
                    and rec.invalid_reason is None and rec.task_version == versions[rec.task_id]):
                keep[(rec.task_id, rec.trial)] = rec
        header = CheckpointHeader(
            fingerprint=fingerprint(settings),
            settings=settings,
            started_at=previous_header.started_at if previous_header else _now(),
        )
        self.settings = settings
        self.leftover = [r for r in previous if (r.task_id, r.trial) not in keep and current.get(r.task_id)
                         is None and not r.infra]
        return tasks, checkpoint, header, list(keep.values()), trials

    async def _episode(self, client: ChatClient, task: LoadedTask, trial: int) -> TrialRecord:
        cfg = self.cfg
        seed = None if cfg.seed == -1 else cfg.seed + trial
        env = Env(max_tokens=cfg.max_tokens, seed=seed, sandbox=cfg.sandbox)
        module = MODULES[task.task.module]
        convo = Conversation(client, task, env)
        started = time.perf_counter()
        grade: Grade | None = None
        error: str | None = None
        infra = False
        truncation = "none"
        invalid_reason: str | None = None
        try:
            await module.run(task, convo, env)
            if getattr(module, "grade_blocks", False):  # graders that run code keep the event loop free
                grade = await asyncio.to_thread(module.grade, task, convo.turns, env)
            else:
                grade = module.grade(task, convo.turns, env)
        except InfraError as exc:
            infra, error = True, str(exc)
        except SilentTruncation as exc:
            invalid_reason, error = "silent_truncation", str(exc)
        except Truncated as exc:
            truncation, error = exc.truncation, str(exc)
            gate = "degenerate" if exc.truncation == "degenerate" else None
            spent = bool(convo.turns and not convo.turns[-1].content and convo.turns[-1].reasoning)
            grade = Grade(score=0.0, passed=False, reason=f"truncated ({exc.truncation})", hard_gate=gate,
                          details={"reasoning_spent_budget": True} if spent else {})
        except ModelFailure as exc:
            error = str(exc)
            grade = Grade(score=0.0, passed=False, reason=exc.kind)
        turns = convo.turns
        if not cfg.save_responses:
            turns = [_clip_reasoning(t) for t in turns]
        usages = [t.usage for t in convo.turns if t.usage is not None]
        return TrialRecord(
            task_id=task.id,
            task_hash=task.hash,
            task_version=task.task.version,
            module=task.task.module,
            trial=trial,
            seed=seed,
            turns=turns,
            grade=grade,
            truncation=truncation,  # type: ignore[arg-type]
            error=error,
            infra=infra,
            invalid_reason=invalid_reason,
            prompt_tokens=sum(u.prompt_tokens or 0 for u in usages),
            completion_tokens=sum(u.completion_tokens or 0 for u in usages),
            wall_s=round(time.perf_counter() - started, 4),
        )

    async def run(self) -> RunFile:
        cfg = self.cfg
        tasks, checkpoint, header, kept, trials = self.plan()
        started = time.perf_counter()
        # Taken now, not when the file is written: the code may be committed over while a long run goes on.
        commit = _git_commit()
        done = {(r.task_id, r.trial) for r in kept}
        # With --early-stop every task runs once before any runs twice: task-major order would start a task's
        # trials together on parallel slots, before the first could decide the rest.
        jobs = job_list(tasks, trials, done, "trial" if cfg.early_stop else cfg.job_order)
        decided = decided_tasks(kept) if cfg.early_stop else set()
        skipped = 0
        checkpoint.open(header, kept)
        results: list[TrialRecord] = list(kept)
        client = ChatClient(ClientSettings(
            endpoint=cfg.endpoint, model=cfg.model, api_key=cfg.api_key, temperature=cfg.temperature,
            thinking=cfg.thinking, max_retries=cfg.max_retries, backoff_s=cfg.backoff_s,
            timeout_s=cfg.request_timeout_s, top_p=cfg.top_p, server_kind=cfg.server_kind or servers.OTHER,
            served_context=cfg.served_context, sampler=servers.sampler_fields(cfg.server_kind), limits=cfg.limits,
            stop_loops=cfg.stop_loops,
        ))
        progress = _progress(cfg.show_progress, len(jobs) + len(kept), len(kept), cfg.model)
        queue: asyncio.Queue[tuple[LoadedTask, int]] = asyncio.Queue()
        for job in jobs:
            queue.put_nowait(job)

        async def worker() -> None:
            nonlocal skipped
            while True:
                try:
                    task, trial = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                if task.id in decided:
                    skipped += 1
                    progress.skip()
                    continue
                record = await self._episode(client, task, trial)
                checkpoint.append(record)
                results.append(record)
                if cfg.early_stop:
                    decided.update(decided_tasks([record]))
                if self.on_trial:
                    self.on_trial(record)
                progress.advance(record)

        try:
            with progress:
                await asyncio.gather(*(worker() for _ in range(max(1, cfg.concurrency or 1))))
        finally:
            checkpoint.close()
            await client.aclose()
        wall = time.perf_counter() - started
        ran = results[len(kept):]
        cost = run_cost(ran, wall, max(1, cfg.concurrency or 1),
                        client.loops_stopped if cfg.stop_loops else None,
                        skipped if cfg.early_stop else None)
        advice = _advice(cfg, results, client)
        order = {t.id: i for i, t in enumerate(tasks)}
        results.sort(key=lambda r: (order[r.task_id], r.trial))
        previous_duration = 0.0
        if cfg.output.is_file() and cfg.resume:
            try:
                previous_duration = load_run_file(cfg.output).provenance.duration_s
            except UserError:
                previous_duration = 0.0
        run = RunFile(
            settings=self.settings,
            provenance=Provenance(
                bench_version=__version__,
                git_commit=commit,
                task_set_hash=task_set_hash(tasks),
                python_version=platform.python_version(),
                served_context=cfg.served_context,
                server=_server_meta(cfg, client, advice),
                skipped_tasks=cfg.skipped_tasks,
                started_at=header.started_at,
                finished_at=_now(),
                duration_s=round(previous_duration + wall, 3),
                cost=cost,
            ),
            task_hashes={t.id: t.hash for t in tasks},
            trials=results,
        )
        write_run_file(cfg.output, run)
        for line in advice:
            print(line, file=sys.stderr)
        if not self.leftover:
            checkpoint.path.unlink(missing_ok=True)
        return run


class _Progress:
    """A rich progress bar with ETA on a terminal; silent otherwise (CI logs stay readable)."""

    def __init__(self, enabled: bool, total: int, completed: int, label: str):
        self.enabled = enabled
        self.failed = 0
        self.excluded = 0
        if enabled:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._bar = Progress(
                TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[status]}"), TimeElapsedColumn(), TextColumn("ETA"),
                TimeRemainingColumn(), transient=False,
            )
            self._task = self._bar.add_task(label, total=total, completed=completed, status="")

    def __enter__(self) -> _Progress:
        if self.enabled:
            self._bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self._bar.stop()

    def advance(self, record: TrialRecord) -> None:
        if record.infra:
            self.excluded += 1
        elif not record.passed:
            self.failed += 1
        if self.enabled:
            status = f"failed {self.failed} · excluded {self.excluded}"
            self._bar.update(self._task, advance=1, status=status)

    def skip(self) -> None:
        """A trial --early-stop skipped: the bar still reaches its end."""
        if self.enabled:
            self._bar.update(self._task, advance=1)


def _progress(enabled: bool, total: int, completed: int, label: str) -> _Progress:
    return _Progress(enabled and sys.stderr.isatty(), total, completed, label)


def _server_meta(cfg: RunConfig, client: ChatClient, advice: list[str]) -> dict:
    meta = dict(cfg.server_meta)
    if client.thinking_check is not None:
        meta["thinking_check"] = client.thinking_check
    if advice:
        meta["advice"] = advice
    return meta


def _advice(cfg: RunConfig, results: list[TrialRecord], client: ChatClient) -> list[str]:
    """What the person running the bench should fix, said once at the end of the run."""
    lines = []
    cut = [r for r in results if r.invalid_reason == "silent_truncation"]
    if cut:
        lines.append(
            f"warning: {len(cut)} trial(s) were recorded invalid because the server silently dropped part of "
            "the prompt (its context window is too small for them): "
            f"{servers.larger_window_advice(cfg.server_kind)}; "
            "then re-issue the same command, and those trials run again."
        )
    overflowed = [r for r in results if r.grade is not None and r.grade.reason == ContextOverflow.kind]
    if overflowed:
        window = f"{cfg.served_context}-token" if cfg.served_context else "context"
        lines.append(
            f"note: {len(overflowed)} trial(s) failed as context overflows (counted as the model's failures): "
            f"the conversation outgrew the server's {window} window. To give the model more room, "
            f"{servers.larger_window_advice(cfg.server_kind)}."
        )
    if client.thinking_check and client.thinking_check.get("warning"):
        lines.append(f"warning: --thinking: {client.thinking_check['warning']}")
    return lines


def _uses_tools(module: str) -> bool:
    return bool(getattr(MODULES.get(module), "uses_tools", module == "tools"))


def _needs_tools(cfg: RunConfig) -> bool:
    if cfg.modules and not any(_uses_tools(m) for m in cfg.modules):
        return False  # decided by the modules alone, without loading the bank
    try:
        bank = _bank(cfg)
        tasks = select(bank, profile=cfg.profile, modules=cfg.modules, pattern=cfg.pattern)
    except UserError:
        return False  # the run's own planning reports a bad bank or selection
    return any(_uses_tools(t.task.module) for t in tasks)


def required_context(cfg: RunConfig) -> int | None:
    """The largest context window a selected task needs (an estimate), or None when the selection is bad
    (the run's own planning reports that)."""
    try:
        tasks = select(_bank(cfg), profile=cfg.profile, modules=cfg.modules, pattern=cfg.pattern)
    except UserError:
        return None
    return max((MODULES[t.task.module].required_context(t) for t in tasks), default=None)


async def preflight(cfg: RunConfig) -> ServerInfo:
    """Identify the server and settle what the user left open: window, concurrency, sampler."""
    if cfg.warm_up:
        _check_writable(cfg.output)  # no model call before the result is known to have somewhere to go
    if cfg.temperature is None:
        cfg.temperature = servers.DEFAULT_TEMPERATURE
    if cfg.top_p is None:
        cfg.top_p = servers.DEFAULT_TOP_P
    base = ClientSettings(
        endpoint=cfg.endpoint, model=cfg.model, api_key=cfg.api_key, temperature=cfg.temperature,
        top_p=cfg.top_p, thinking=cfg.thinking, timeout_s=cfg.request_timeout_s, backoff_s=cfg.backoff_s,
        limits=cfg.limits,
    )
    needs_tools = _needs_tools(cfg)
    info = await inspect_server(cfg.endpoint, cfg.api_key, cfg.model, warm=cfg.warm_up,
                       needs_tools=needs_tools and not cfg.allow_template_without_tools,
                       client_settings=base, ready_timeout_s=cfg.ready_timeout_s)
    if needs_tools and cfg.allow_template_without_tools and info.tool_support is False:
        info.details["tools_note"] = ("the model's chat template renders no tools: the model sees them only "
                                      "in the tools module's system prompt and can call them as text")
        print(f"note: {info.details['tools_note']}", file=sys.stderr)
    cfg.server_kind = info.kind
    if cfg.served_context is None:
        cfg.served_context = info.served_context
    if cfg.concurrency is None:
        cfg.concurrency = info.default_concurrency
    cfg.server_meta = {**info.as_meta(), "sampler": {"temperature": cfg.temperature, "top_p": cfg.top_p,
                                                     **servers.sampler_fields(info.kind)},
                       **cfg.server_meta}
    return info


def prepare_sandbox(cfg: RunConfig) -> None:
    """Choose the code sandbox once, when code tasks are selected. Fail-closed: with no working backend the
    code tasks are skipped (recorded with the reason, printed) and the rest runs; they run unconfined only
    with ``allow_unsandboxed``. The result file records the backend either way."""
    from engine.episodes.code.module import open_sandbox, sandbox_label

    if cfg.sandbox is not None:
        cfg.sandbox_backend = cfg.sandbox_backend or sandbox_label(cfg.sandbox)
        return
    if cfg.modules and "code" not in cfg.modules:
        return
    try:
        tasks = select(_bank(cfg), profile=cfg.profile, modules=cfg.modules, pattern=cfg.pattern)
    except UserError:
        return  # the run's own planning reports a bad bank or selection
    code_ids = [t.id for t in tasks if t.task.module == "code" and t.id not in cfg.skipped_tasks]
    if not code_ids:
        return
    cfg.sandbox, label = open_sandbox(cfg.sandbox_name, cfg.allow_unsandboxed, cfg.sandbox_memory_mb,
                                      cfg.sandbox_candidates)
    if cfg.sandbox is not None:
        cfg.sandbox_backend = label
        return
    cfg.sandbox_backend = "none (code tasks skipped)"
    if len(code_ids) == len(tasks):
        raise UserError(f"every selected task is a code task and {label}")
    for tid in code_ids:
        cfg.skipped_tasks[tid] = label
    print(f"warning: {len(code_ids)} code task(s) skipped, the rest runs: {label}", file=sys.stderr)


def run_benchmark(cfg: RunConfig) -> RunFile:
    """Preflight, context check, then the run. Raises ``UserError`` for anything the user must fix."""

    async def main() -> RunFile:
        prepare_sandbox(cfg)
        await preflight(cfg)
        return await Runner(cfg).run()

    return asyncio.run(main())
