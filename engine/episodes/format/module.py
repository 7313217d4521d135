"""format: one request, one reply, graded by deterministic checks on its structure and values.

The task's checks run on the reply's text (what is left after reasoning was split off). Each check is one
entry of the grade's breakdown; the score is the share of checks that held, and the trial passes only
when all of them did. A reply cut off by the token limit never reaches the grader: the runner fails it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.core.schema import Grade, Turn
from engine.episodes.base import (
    Conversation,
    Env,
    LoadedTask,
    default_required_context,
    default_system_prompt,
    last_assistant_text,
)
from engine.episodes.checks import CheckSpec, run_checks, unsure_of
from engine.episodes.spec import ModuleSpec, ModuleWeights


class FormatBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    prompt: str = Field(min_length=1)
    checks: list[CheckSpec] = Field(min_length=1)

    @model_validator(mode="after")
    def _named_uniquely(self) -> FormatBody:
        ids = [c.id for c in self.checks if c.id]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"check id(s) used twice: {', '.join(dupes)}; give each check its own id")
        return self


def grade_outcomes(outcomes: dict[str, tuple[bool, str]], what: str = "checks") -> Grade:
    """One Grade from named check outcomes: score is the share that held; pass needs all of them. The
    checks that could not decide from the text (``Outcome.unsure``) are named in ``Grade.unsure``."""
    total = len(outcomes)
    good = sum(1 for ok, _ in outcomes.values() if ok)
    failed = {label: note for label, (ok, note) in outcomes.items() if not ok}
    score = good / total if total else 0.0
    if failed:
        listed = "; ".join(f"{label}: {note}" for label, note in list(failed.items())[:4])
        more = f" (+{len(failed) - 4} more)" if len(failed) > 4 else ""
        reason = f"{len(failed)} of {total} {what} failed: {listed}{more}"
    else:
        reason = f"all {total} {what} held"
    return Grade(
        score=round(score, 6),
        passed=score >= 0.999,
        breakdown={label: 1.0 if ok else 0.0 for label, (ok, _) in outcomes.items()},
        reason=reason,
        details={"failed": failed} if failed else {},
        # Only a pass can rest on a check that could not decide (a failed check fails it whatever the rest).
        unsure=None if failed else "; ".join(
            f"{label}: {why}" for label, o in outcomes.items() if (why := unsure_of(o)))[:2000] or None,
    )


class Format:
    spec = ModuleSpec(
        name="format", label="Format", bank_tasks=5, judge="never_sent",
        uses_tools=False, runs_code=False, weights=ModuleWeights(balanced=0.15, agentic=0.12, coding=0.15),
    )
    version = "1"
    body_model = FormatBody

    def system_prompt(self, task: LoadedTask[FormatBody]) -> str | None:
        return default_system_prompt(task)

    async def run(self, task: LoadedTask[FormatBody], convo: Conversation, env: Env) -> None:
        convo.add("user", task.body.prompt)
        await convo.ask()

    def grade(self, task: LoadedTask[FormatBody], turns: list[Turn], env: Env) -> Grade:
        body = task.body
        if not any(t.role == "assistant" for t in turns):
            return Grade(score=0.0, passed=False, reason="the model never replied")
        return grade_outcomes(run_checks(last_assistant_text(turns), list(body.checks)))

    def required_context(self, task: LoadedTask[FormatBody]) -> int:
        return default_required_context(task)


MODULE = Format()
