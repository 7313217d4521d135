"""multi_turn_if: a scripted user adds, cancels and corrects instructions over several turns.

The task lists its rules once, each with a check, and its user turns in order; a turn says which rules it
adds and which it drops, and may carry checks of its own (the figure it asks for, the list it wants). The
episode sends each user turn and lets the model answer it. Grading walks the transcript: every assistant
reply is checked against every rule in force at that turn plus the turn's own checks, and the breakdown
names both (``t3.no_digits``). The score is the share of (turn, check) pairs that held; a trial passes only
when all did. A turn the model never answered fails all its checks.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.core.schema import Grade, Turn
from engine.episodes.base import Conversation, Env, LoadedTask, default_required_context, default_system_prompt
from engine.episodes.checks import CheckBase, CheckSpec, run_checks
from engine.episodes.format.module import grade_outcomes
from engine.episodes.spec import ModuleSpec, ModuleWeights

_RULE_ID = r"^[a-z][a-z0-9_]*$"


class Rule(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=_RULE_ID)
    # The rule in the user's words, for people reading the task and its grades.
    says: str = Field(min_length=1)
    check: CheckSpec


class UserTurn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user: str = Field(min_length=1)
    adds: list[str] = Field(default_factory=list)
    drops: list[str] = Field(default_factory=list)
    expect: list[CheckSpec] = Field(default_factory=list)


class MultiTurnBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rules: list[Rule] = Field(min_length=1)
    turns: list[UserTurn] = Field(min_length=2)

    @model_validator(mode="after")
    def _consistent(self) -> MultiTurnBody:
        known = [r.id for r in self.rules]
        if len(set(known)) != len(known):
            raise ValueError("rule ids must be unique")
        active: set[str] = set()
        used: set[str] = set()
        for n, turn in enumerate(self.turns, start=1):
            for rid in turn.drops:
                if rid not in active:
                    raise ValueError(f"turns.{n - 1}.drops: rule '{rid}' is not in force at turn {n}")
                active.discard(rid)
            for rid in turn.adds:
                if rid not in known:
                    raise ValueError(f"turns.{n - 1}.adds: no rule '{rid}'; define it under rules")
                if rid in active:
                    raise ValueError(f"turns.{n - 1}.adds: rule '{rid}' is already in force at turn {n}")
                active.add(rid)
                used.add(rid)
            labels = [c.id for c in turn.expect if c.id]
            clash = sorted({x for x in labels if labels.count(x) > 1 or x in known})
            if clash:
                raise ValueError(f"turns.{n - 1}.expect: id(s) {', '.join(clash)} repeat a rule or check id")
        unused = sorted(set(known) - used)
        if unused:
            raise ValueError(f"rule(s) {', '.join(unused)} never added by any turn; add or remove them")
        return self

    def in_force(self) -> list[list[Rule]]:
        """The rules in force at each turn, in the order they were added (drops apply before adds)."""
        by_id = {r.id: r for r in self.rules}
        active: list[str] = []
        out: list[list[Rule]] = []
        for turn in self.turns:
            active = [r for r in active if r not in turn.drops] + list(turn.adds)
            out.append([by_id[r] for r in active])
        return out


def _label(check: CheckBase) -> str:
    return re.sub(r"\s+", "_", check.breakdown_name())


class MultiTurnIf:
    spec = ModuleSpec(
        name="multi_turn_if", label="Multi-turn", bank_tasks=4, judge="movable",
        uses_tools=False, runs_code=False, weights=ModuleWeights(balanced=0.13, agentic=0.16, coding=0.11),
    )
    version = "1"
    body_model = MultiTurnBody

    def system_prompt(self, task: LoadedTask[MultiTurnBody]) -> str | None:
        return default_system_prompt(task)

    async def run(self, task: LoadedTask[MultiTurnBody], convo: Conversation, env: Env) -> None:
        body = task.body
        for turn in body.turns:
            convo.add("user", turn.user)
            await convo.ask()

    def grade(self, task: LoadedTask[MultiTurnBody], turns: list[Turn], env: Env) -> Grade:
        body = task.body
        replies = [t.content for t in turns if t.role == "assistant"]
        outcomes: dict[str, tuple[bool, str]] = {}
        for n, (turn, rules) in enumerate(zip(body.turns, body.in_force(), strict=True), start=1):
            checks = [r.check for r in rules] + list(turn.expect)
            names = [f"t{n}.{r.id}" for r in rules] + [f"t{n}.{_label(c)}" for c in turn.expect]
            if n > len(replies):
                outcomes.update({name: (False, "no reply to this turn") for name in names})
                continue
            results = list(run_checks(replies[n - 1], checks).values())
            for name, result in zip(_dedupe(names), results, strict=True):
                outcomes[name] = result
        grade = grade_outcomes(outcomes, what="turn checks")
        failed_turns = sorted({int(k.split(".", 1)[0][1:]) for k, v in grade.breakdown.items() if v < 1.0})
        grade.details["failed_turns"] = failed_turns
        return grade

    def required_context(self, task: LoadedTask[MultiTurnBody]) -> int:
        # The last request carries every earlier reply, so every turn's budget counts, not only four.
        body = task.body
        extra = task.task.max_tokens * max(0, len(body.turns) - min(task.task.max_turns, 4))
        return default_required_context(task) + extra


def _dedupe(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out


MODULE = MultiTurnIf()
