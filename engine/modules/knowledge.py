"""knowledge: multi-step arithmetic (GSM8K style) and predicting what a short program prints (CRUXEval style).

One question, one reply, one exact answer. The model is asked to end with ``Answer: <value>``; a reply
without that line is graded on its last number (arithmetic) or not at all (program output), because a
grader that guesses generously would reward rambling.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from engine.modules.base import Conversation, Env, LoadedTask, default_required_context, last_assistant_text
from engine.schema import Grade, Turn

INSTRUCTION = "\n\nThink step by step if you need to, then end your reply with one line: Answer: <value>"

_ANSWER_LINE = re.compile(r"^\s*\**\s*(?:final\s+)?answer\s*\**\s*[:：]\s*\**\s*(.+?)\s*\**\s*$",
                          re.IGNORECASE | re.MULTILINE)
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


class KnowledgeBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["arithmetic", "program_output"]
    question: str
    # For program_output tasks the program is shown in a fenced block under the question.
    program: str | None = None
    answer: str = Field(min_length=1)


def _as_number(text: str) -> Decimal | None:
    cleaned = text.strip().strip("$€£.").replace(",", "").replace("$", "")
    try:
        return Decimal(cleaned)
    except InvalidOperation:
        return None


def extract_answer(reply: str, kind: str) -> str | None:
    lines = _ANSWER_LINE.findall(reply)
    if lines:
        return lines[-1].strip().strip("`").strip()
    if kind == "arithmetic":
        numbers = _NUMBER.findall(reply)
        return numbers[-1] if numbers else None
    return None


def answers_match(given: str, expected: str, kind: str) -> bool:
    if kind == "arithmetic":
        number = _NUMBER.search(given)
        a = _as_number(number.group(0)) if number else None
        b = _as_number(expected)
        return a is not None and b is not None and a == b
    return given.strip().strip("'\"") == expected.strip().strip("'\"")


class Knowledge:
    name = "knowledge"
    version = "1"
    body_model = KnowledgeBody

    def prompt(self, body: KnowledgeBody) -> str:
        text = body.question
        if body.program:
            text += f"\n\n```python\n{body.program.rstrip()}\n```"
        return text + INSTRUCTION

    async def run(self, task: LoadedTask, convo: Conversation, env: Env) -> None:
        convo.add("user", self.prompt(task.body))
        await convo.ask()

    def grade(self, task: LoadedTask, turns: list[Turn], env: Env) -> Grade:
        body: KnowledgeBody = task.body
        reply = last_assistant_text(turns)
        given = extract_answer(reply, body.kind)
        if given is None:
            return Grade(score=0.0, passed=False, breakdown={"correct": 0.0},
                         reason="no 'Answer:' line and no value to read")
        ok = answers_match(given, body.answer, body.kind)
        return Grade(
            score=1.0 if ok else 0.0,
            passed=ok,
            breakdown={"correct": 1.0 if ok else 0.0},
            reason="correct" if ok else f"answered {given[:80]!r}",
            details={"answer_given": given[:200]},
        )

    def required_context(self, task: LoadedTask) -> int:
        return default_required_context(task)


MODULE = Knowledge()
