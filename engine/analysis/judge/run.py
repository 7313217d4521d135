"""Running the judge: one bounded call per sendable trial, within --judge-timeout, into a judged file."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from engine.analysis.judge.context import TaskContext, load_task_contexts
from engine.analysis.judge.files import JudgedFile, JudgeInfo, TrialVerdict, file_sha256, tally
from engine.analysis.judge.prompt import MAX_REASON_CHARS, build_messages, clip
from engine.analysis.judge.reply import parse_judge_reply
from engine.analysis.judge.rules import decide, sendable, trial_hard_gate
from engine.core import scrub
from engine.core.config import endpoint_host
from engine.core.errors import BenchError, UserError
from engine.core.schema import RunFile, TrialRecord
from engine.model.client import ChatClient, ClientSettings
from engine.model.requestlimits import LimitFlags, RequestLimits


@dataclass
class JudgeConfig:
    endpoint: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    concurrency: int = 4
    timeout_s: float = 120.0
    max_retries: int = 2
    backoff_s: float = 1.0
    max_tokens: int = 400
    tasks_dir: Path | None = None


#: ``sllmb judge`` has one time limit, --judge-timeout, for each whole call; every message about a time limit
#: names it (the run's --request-timeout and friends do not exist there).
JUDGE_FLAGS = LimitFlags(connect="--judge-timeout", first_byte="--judge-timeout", idle="--judge-timeout",
                         total="--judge-timeout")


def judge_limits(timeout_s: float) -> RequestLimits:
    """The judge's request limits: the whole call within --judge-timeout (replies are not streamed, so the
    first byte is the whole reply), the connection within 10 s of it."""
    return RequestLimits(connect_s=min(10.0, timeout_s), first_byte_s=timeout_s, idle_s=timeout_s,
                         total_s=timeout_s, flags=JUDGE_FLAGS)


async def _judge_one(
    client: ChatClient, cfg: JudgeConfig, trial: TrialRecord, context: TaskContext | None
) -> TrialVerdict:
    grade = trial.grade
    assert grade is not None
    gate = trial_hard_gate(trial)
    # The verdict of a failed call; a successful one updates it. Both keep what the judge saw.
    kept = TrialVerdict(
        task_id=trial.task_id,
        trial=trial.trial,
        module=trial.module,
        task_hash=trial.task_hash,
        det_score=grade.score,
        det_passed=grade.passed,
        hard_gate=gate,
        status="failed",
        final_score=grade.score,
        final_passed=grade.passed,
    )
    try:
        reply_msg = await client.chat(build_messages(trial, context), max_tokens=cfg.max_tokens)
        reply = parse_judge_reply(reply_msg.content)
    except BenchError as exc:
        # Transport failures, time-outs and garbage all land here; the trial keeps its det grade.
        return kept.model_copy(update={"error": clip(scrub.scrub(str(exc), bearer=True), 300)})
    decision = decide(trial.module, grade.score, grade.passed, gate, reply, unsure=grade.unsure is not None)
    return kept.model_copy(
        update={
            "status": decision.status,
            "judge_passed": reply.passed,
            "judge_score": reply.score,
            "judge_reason": clip(scrub.scrub(reply.reason, bearer=True), MAX_REASON_CHARS),
            "refusal": decision.refusal,
            "final_score": decision.final_score,
            "final_passed": decision.final_passed,
        }
    )


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


async def judge_run_async(
    run: RunFile, raw_path: Path, cfg: JudgeConfig, on_verdict: Callable[[TrialVerdict], None] | None = None
) -> JudgedFile:
    if not cfg.endpoint or not cfg.model:
        raise UserError(
            "the judge needs an endpoint and a model: pass --judge-endpoint and --judge-model, or "
            "set JUDGE_ENDPOINT and JUDGE_MODEL"
        )
    if cfg.concurrency < 1:
        raise UserError("--judge-concurrency must be at least 1")
    host = endpoint_host(cfg.endpoint, "judge endpoint")
    trials = [t for t in run.trials if sendable(t)]
    contexts = load_task_contexts(cfg.tasks_dir, {t.task_id for t in trials})
    client = ChatClient(
        ClientSettings(
            endpoint=cfg.endpoint,
            model=cfg.model,
            api_key=cfg.api_key,
            temperature=0.0,
            max_retries=cfg.max_retries,
            backoff_s=cfg.backoff_s,
            stream=False,
            limits=judge_limits(cfg.timeout_s),
        )
    )
    gate = asyncio.Semaphore(cfg.concurrency)

    async def one(trial: TrialRecord) -> TrialVerdict:
        async with gate:
            verdict = await _judge_one(client, cfg, trial, contexts.get(trial.task_id))
        if on_verdict:
            on_verdict(verdict)
        return verdict

    try:
        verdicts = list(await asyncio.gather(*(one(t) for t in trials)))
    finally:
        await client.aclose()
    if client.stalled:
        # Every call still waiting ended at once (failed verdicts); a file of them would only hide a judged
        # file written before, so nothing is written.
        judged = sum(v.status != "failed" for v in verdicts)
        raise UserError(
            f"stopped judging: the judge at {host} stopped answering ({client.streak.count} calls in a row timed "
            f"out; the last: {client.streak.last}). Nothing was written ({judged} of {len(trials)} trial(s) had "
            "been judged). When the judge answers again, run the same `sllmb judge` command; give a slow judge "
            f"longer with {JUDGE_FLAGS.total} S."
        )

    return JudgedFile(
        model=run.settings.model,
        raw_file=raw_path.name,
        raw_sha256=file_sha256(raw_path),
        judge=JudgeInfo(endpoint_host=host, model=cfg.model),
        created_at=_now(),
        **tally(verdicts)._asdict(),
        verdicts=verdicts,
    )


def judge_run(run: RunFile, raw_path: Path, cfg: JudgeConfig) -> JudgedFile:
    return asyncio.run(judge_run_async(run, raw_path, cfg))

