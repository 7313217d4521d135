"""Run a plan's tasks k times each against one model, checkpointing every trial, and write the result.

The flow is one way: request -> plan (``engine.run.plan``: tasks, sandbox, server facts, the client's
settings, resume) -> jobs -> episodes (module.run + module.grade) -> checkpoint lines -> one atomically
written result file. The runner reads only the plan, never the request behind it, and changes nothing in it;
what the client saw comes back from it as one frozen record (``Observed``); nothing is computed from the
result file here.
"""

from __future__ import annotations

import asyncio
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from engine import __version__
from engine.bank.load import task_set_hash
from engine.core.errors import ContextOverflow, InfraError, ModelFailure, Truncated, UserError
from engine.core.results import write_run_file
from engine.core.schema import Grade, Provenance, RunFile, TrialRecord, Turn
from engine.episodes import MODULES
from engine.episodes.base import Conversation, Env, LoadedTask
from engine.episodes.cut import cut_grade
from engine.model import servers
from engine.model.client import ChatClient, Observed, SilentTruncation
from engine.model.local_server import LocalServer
from engine.run.checkpoint import Checkpoint, checkpoint_path
from engine.run.plan import RunPlan, Selection, make_plan, select_tasks, utc_now
from engine.run.request import RunRequest
from engine.run.runcost import run_cost
from engine.run.sandbox_choice import choose_sandbox
from engine.sandbox.core import Backend
from engine.sandbox.handle import SandboxHandle

# Reasoning is kept in every trial record, clipped to this many characters unless --save-responses asks for
# all of it: a thinking model can write tens of thousands of characters per turn.
REASONING_KEPT_CHARS = 4000


def _clip_reasoning(turn: Turn) -> Turn:
    if turn.reasoning is None or len(turn.reasoning) <= REASONING_KEPT_CHARS:
        return turn
    cut = len(turn.reasoning) - REASONING_KEPT_CHARS
    return turn.model_copy(update={"reasoning": turn.reasoning[:REASONING_KEPT_CHARS] + f"… [{cut} chars clipped]"})


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parent)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def decided_tasks(records: Sequence[TrialRecord]) -> set[str]:
    """Tasks whose pass^k is already decided: one scorable trial failed, so no later trial can make all k
    pass. (A task whose trials all pass so far is decided only by its last one.)"""
    return {r.task_id for r in records if r.scorable and not r.passed}


def job_list(tasks: Sequence[LoadedTask], trials: int, done: set[tuple[str, int]],
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
    """Executes a plan: every trial still to run, checkpointed as it ends, then the result file."""

    def __init__(self, plan: RunPlan, *, sandbox: SandboxHandle | None = None, job_order: str = "task",
                 on_trial: Callable[[TrialRecord], None] | None = None):
        self.plan = plan
        self.sandbox = sandbox  # the sandbox code episodes run in (the plan records only its label)
        # "task" runs a task's trials back to back so the server's prefix cache serves the repeated prompt;
        # "trial" runs every task once before any runs twice (kept for the benchmark's before/after).
        self.job_order = job_order
        self.on_trial = on_trial

    async def _episode(self, client: ChatClient, task: LoadedTask, trial: int) -> TrialRecord:
        settings = self.plan.settings
        seed = None if settings.seed == -1 else settings.seed + trial
        env = Env(max_tokens=settings.max_tokens, seed=seed, sandbox=self.sandbox, record=[])
        module = MODULES[task.task.module]
        convo = Conversation(client, task, env, system=module.system_prompt(task))
        started = time.perf_counter()
        grade: Grade | None = None
        error: str | None = None
        infra = False
        truncation = "none"
        invalid_reason: str | None = None
        try:
            await module.run(task, convo, env)
            if module.spec.runs_code:  # graders that run code keep the event loop free
                grade = await asyncio.to_thread(module.grade, task, convo.turns, env)
            else:
                grade = module.grade(task, convo.turns, env)
        except InfraError as exc:
            infra, error = True, str(exc)
        except SilentTruncation as exc:
            invalid_reason, error = "silent_truncation", str(exc)
        except Truncated as exc:
            truncation, error = exc.truncation, str(exc)
            # Graded on its answer when that came whole before the cut; failed as a truncation otherwise.
            try:
                if module.spec.runs_code:
                    grade = await asyncio.to_thread(cut_grade, module, task, convo.turns, env, exc.truncation)
                else:
                    grade = cut_grade(module, task, convo.turns, env, exc.truncation)
            except InfraError as infra_exc:  # the sandbox failed while grading the cut answer: excluded
                infra, error, truncation, grade = True, str(infra_exc), "none", None
        except ModelFailure as exc:
            error = str(exc)
            grade = Grade(score=0.0, passed=False, reason=exc.kind)
        turns = convo.turns
        if not self.plan.save_responses:
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
        plan = self.plan
        settings = plan.settings
        started = time.perf_counter()
        # Taken now, not when the file is written: the code may be committed over while a long run goes on.
        commit = _git_commit()
        done = {(r.task_id, r.trial) for r in plan.kept}
        # With --early-stop every task runs once before any runs twice: task-major order would start a task's
        # trials together on parallel slots, before the first could decide the rest.
        jobs = job_list(plan.tasks, settings.trials, done, "trial" if settings.early_stop else self.job_order)
        decided = decided_tasks(plan.kept) if settings.early_stop else set()
        skipped = 0
        checkpoint = Checkpoint(checkpoint_path(plan.output))
        checkpoint.open(plan.header, list(plan.kept))
        results: list[TrialRecord] = list(plan.kept)
        client = ChatClient(plan.client)
        progress = _progress(plan.show_progress, len(jobs) + len(plan.kept), len(plan.kept), settings.model)
        queue: asyncio.Queue[tuple[LoadedTask, int]] = asyncio.Queue()
        for job in jobs:
            queue.put_nowait(job)

        async def worker() -> None:
            nonlocal skipped
            # A stalled client (STALL_AFTER requests in a row timed out) ends every trial waiting on it as
            # infrastructure at once; no worker starts another into the same wall.
            while not client.stalled:
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
                if settings.early_stop:
                    decided.update(decided_tasks([record]))
                if self.on_trial:
                    self.on_trial(record)
                progress.advance(record)

        workers = [asyncio.ensure_future(worker()) for _ in range(settings.concurrency)]
        try:
            with progress:
                await asyncio.gather(*workers)
        except BaseException:
            # One worker failed (the checkpoint cannot be written ...): stop the others before the checkpoint
            # closes, so that none finishes a trial it can no longer record.
            for w in workers:
                w.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            raise
        finally:
            checkpoint.close()
            await client.aclose()
        seen = client.observed()
        if seen.stalled is not None:
            raise _stopped(plan, seen.stalled, results, queue.qsize())
        wall = time.perf_counter() - started
        ran = results[len(plan.kept):]
        cost = run_cost(ran, wall, settings.concurrency,
                        seen.loops_stopped if settings.stop_loops else None,
                        skipped if settings.early_stop else None)
        advice = _advice(plan, results, seen)
        order = {t.id: i for i, t in enumerate(plan.tasks)}
        results.sort(key=lambda r: (order[r.task_id], r.trial))
        run = RunFile(
            settings=settings,
            provenance=Provenance(
                bench_version=__version__,
                git_commit=commit,
                task_set_hash=task_set_hash(list(plan.tasks)),
                python_version=platform.python_version(),
                served_context=plan.client.served_context,
                server=_server_meta(plan, seen, advice),
                skipped_tasks=dict(plan.skipped_tasks),
                sandbox_limits=list(plan.sandbox_limits),
                started_at=plan.header.started_at,
                finished_at=utc_now(),
                duration_s=round(plan.previous_duration_s + wall, 3),
                cost=cost,
                machine=plan.machine,
            ),
            task_hashes={t.id: t.hash for t in plan.tasks},
            trials=results,
        )
        try:
            write_run_file(plan.output, run)
        except UserError as exc:
            raise UserError(f"{exc}. Every trial is kept in {checkpoint.path}: issue the same command again to "
                            "write the result file from it") from exc
        for line in advice:
            print(line, file=sys.stderr)
        # Every trial that stands is in the file now (the resume rule refuses a run that would leave one out).
        checkpoint.path.unlink(missing_ok=True)
        return run


def _stopped(plan: RunPlan, why: str, results: list[TrialRecord], unstarted: int) -> UserError:
    """The message of a run stopped because the server stopped answering: what is kept, and how to go on."""
    ran = results[len(plan.kept):]
    timed_out = sum(r.infra for r in ran)
    kept = len(results) - timed_out
    lim = plan.client.limits.flags
    return UserError(
        f"stopped the run: {why}. {kept} finished trial(s) are kept in "
        f"{checkpoint_path(plan.output)}; the {timed_out} trial(s) that were waiting on the server are "
        f"recorded there as infrastructure failures and {unstarted} did not start. When the server answers "
        "again, re-issue the same command: the run resumes there, and those trials run again. If the server is "
        f"only slow, give it longer with {lim.first_byte} S (and {lim.total} S)."
    )


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


def _server_meta(plan: RunPlan, seen: Observed, advice: list[str]) -> dict:
    meta = dict(plan.server_meta)
    if seen.thinking_check is not None:
        meta["thinking_check"] = dict(seen.thinking_check)
    if advice:
        meta["advice"] = advice
    return meta


def _advice(plan: RunPlan, results: list[TrialRecord], seen: Observed) -> list[str]:
    """What the person running the bench should fix, said once at the end of the run."""
    lines = []
    cut = [r for r in results if r.invalid_reason == "silent_truncation"]
    if cut:
        lines.append(
            f"warning: {len(cut)} trial(s) were recorded invalid because the server silently dropped part of "
            "the prompt (its context window is too small for them): "
            f"{servers.larger_window_advice(plan.client.server_kind)}; "
            "then re-issue the same command, and those trials run again."
        )
    overflowed = [r for r in results if r.grade is not None and r.grade.reason == ContextOverflow.kind]
    if overflowed:
        window = f"{plan.client.served_context}-token" if plan.client.served_context else "context"
        lines.append(
            f"note: {len(overflowed)} trial(s) failed as context overflows (counted as the model's failures): "
            f"the conversation outgrew the server's {window} window. To give the model more room, "
            f"{servers.larger_window_advice(plan.client.server_kind)}."
        )
    if seen.thinking_check and seen.thinking_check.get("warning"):
        lines.append(f"warning: --thinking: {seen.thinking_check['warning']}")
    return lines


def run_benchmark(
    request: RunRequest,
    *,
    tasks: Selection | Sequence[LoadedTask] | None = None,
    sandbox: SandboxHandle | None = None,
    sandbox_candidates: Sequence[Backend] | None = None,
    embedded: LocalServer | None = None,
    job_order: str = "task",
) -> RunFile:
    """Select the tasks, choose the sandbox, plan (the server check, the window, resume), then run the plan.

    ``tasks`` are the tasks already selected (``select_tasks``, ideally as the ``Selection`` whose context needs
    the caller read) where the caller needed them first; ``sandbox`` a sandbox the caller holds and
    ``sandbox_candidates`` the backends tried in its place; ``embedded`` the running embedded server. Raises
    ``UserError`` for anything the user must fix.
    """
    if isinstance(tasks, Selection):
        selected = tasks
    else:
        selected = Selection.of(tasks if tasks is not None else select_tasks(request))
    choice = choose_sandbox(request, selected.tasks, given=sandbox, candidates=sandbox_candidates)

    async def main() -> RunFile:
        plan = await make_plan(request, selected, choice, embedded)
        return await Runner(plan, sandbox=choice.handle, job_order=job_order).run()

    return asyncio.run(main())
