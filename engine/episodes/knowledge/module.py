"""knowledge: multi-step arithmetic (GSM8K style) and predicting what a short program prints (CRUXEval style).

One question, one reply, one exact answer. The model is asked to end with ``Answer: <value>``, read by
:mod:`engine.episodes.answer_line` (Markdown, working on the line and number formats understood; a line that
offers two different values fails). A reply without that line is graded on its last number (arithmetic) or
not at all (program output), because a grader that guesses generously would reward rambling.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from engine.core.schema import Grade, Turn
from engine.episodes.answer_line import (
    ALTERNATIVE_WORD,
    AnswerLine,
    alternatives,
    final_number,
    numbers,
    parse_number,
    read_answer_line,
)
from engine.episodes.base import Conversation, Env, LoadedTask, default_required_context, last_assistant_text
from engine.episodes.spec import ModuleSpec, ModuleWeights
from engine.model.normalise import split_reasoning

INSTRUCTION = "\n\nThink step by step if you need to, then end your reply with one line: Answer: <value>"

# "The program prints: X", "Output: X" on the answer line: X is the printed text.
_PRINTS = re.compile(
    r"^(?:the\s+)?(?:program\s+|code\s+|it\s+)?(?:prints|outputs|output\s+is|displays)\s*:?\s+(.+)$", re.IGNORECASE)
# A value followed by its explanation: "fdb3 (the initials and the count)", "fdb3 — initials plus 3".
_EXPLAINED = re.compile(r"^(\S+)\s+(?:\((.*)\)|[—–]\s+(.*)|-\s+(.*))$")


class KnowledgeBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["arithmetic", "program_output"]
    question: str
    # For program_output tasks the program is shown in a fenced block under the question.
    program: str | None = None
    answer: str = Field(min_length=1)


def judge(reply: str, body: KnowledgeBody) -> tuple[bool, str, str | None]:
    """(passed, reason, the value read) for one reply. The value comes from the answer line
    (:mod:`engine.episodes.answer_line`); an arithmetic reply without one is read at its last number."""
    line = read_answer_line(reply)
    if line is None:
        if body.kind == "arithmetic":
            found = numbers(split_reasoning(reply)[0])
            if found:
                ok = found[-1] == parse_number(body.answer)
                return ok, "correct" if ok else f"answered {found[-1]} (no 'Answer:' line; last number)", \
                    str(found[-1])
        return False, "no 'Answer:' line and no value to read", None
    if body.kind == "arithmetic":
        return (*_judge_number(line, body.answer), line.text)
    return (*_judge_text(line, body.answer), line.text)


def _judge_number(line: AnswerLine, expected: str) -> tuple[bool, str]:
    offered = []
    for candidate in alternatives(line.text):
        value = final_number(candidate)
        if value is not None and value not in offered:
            offered.append(value)
    if len(offered) > 1:
        return False, f"offered {len(offered)} different values ({', '.join(str(v) for v in offered[:3])})"
    if not offered:
        return False, f"no number on the answer line ({line.text[:80]!r})"
    ok = offered[0] == parse_number(expected)
    return ok, "correct" if ok else f"answered {offered[0]}"


def _printed_forms(line: AnswerLine) -> list[str]:
    """What the answer line may mean as printed text: the line, its one code span, the text after
    "it prints:", the value before an explanation in parentheses or after a dash."""
    forms = [line.text]
    if len(set(line.spans)) == 1:
        forms.append(line.spans[0])
    said = _PRINTS.match(line.text)
    if said:
        forms.append(said.group(1))
    for form in list(forms):
        head = _EXPLAINED.match(form)
        if head and not ALTERNATIVE_WORD.search(next(g for g in head.groups()[1:] if g is not None)):
            forms.append(head.group(1))
    out = []
    for form in forms:
        form = form.strip()
        unquoted = form[1:-1] if len(form) > 1 and form[0] == form[-1] and form[0] in "'\"" else form
        out.extend([unquoted, unquoted.rstrip(".;,!")])
    return out


def _judge_text(line: AnswerLine, expected: str) -> tuple[bool, str]:
    want = expected.strip()
    if want in _printed_forms(line):
        return True, "correct"
    offered = list(dict.fromkeys(alternatives(line.text)))
    if len(offered) > 1:
        return False, f"offered {len(offered)} different values ({', '.join(repr(v) for v in offered[:3])})"
    return False, f"answered {line.text[:80]!r}"


class Knowledge:
    spec = ModuleSpec(
        name="knowledge", label="Knowledge", bank_tasks=4, judge="never_sent",
        uses_tools=False, runs_code=False, weights=ModuleWeights(balanced=0.07, agentic=0.06, coding=0.06),
    )
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
        ok, reason, given = judge(reply, body)
        details = {"answer_given": given[:200]} if given is not None else {}
        return Grade(score=1.0 if ok else 0.0, passed=ok, breakdown={"correct": 1.0 if ok else 0.0},
                     reason=reason, details=details)

    def required_context(self, task: LoadedTask) -> int:
        return default_required_context(task)


MODULE = Knowledge()
