"""knowledge: multi-step arithmetic (GSM8K style) and predicting what a short program prints (CRUXEval style).

One question, one reply, one exact answer. The model is asked to end with ``Answer: <value>``, found by
:mod:`engine.episodes.answer_line` and read by the readers: numbers in any notation, words included
(:mod:`engine.readers.quantity`), and what the reply commits to (:mod:`engine.readers.stance`): a line that
offers two different values fails, and prose after the answer line that revises, hedges or retracts it
counts. An answer labelled in the reply's own language ("Antwort: 369") or a reply that is only the value is
an answer, graded and marked unsure. A reply with no answer line fails, even when its prose ends on the right
number: the request asks for the line, and a grader that picks a "concluding" number out of prose guesses for
the model (every reader who judged replies with the full request in front of them failed such replies).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.core.schema import Grade, Turn
from engine.episodes.answer_line import AnswerLine, answered_before_cut, read_answer_line
from engine.episodes.base import (
    Conversation,
    Env,
    LoadedTask,
    default_required_context,
    default_system_prompt,
    last_assistant_text,
)
from engine.episodes.spec import ModuleSpec, ModuleWeights
from engine.readers import quantity
from engine.readers.stance import (
    ALTERNATIVE_WORD,
    After,
    Mention,
    after_answer,
    alternatives,
    committed_number,
    prose_numbers,
)

INSTRUCTION = "\n\nThink step by step if you need to, then end your reply with one line: Answer: <value>"

# "The program prints: X", "Output: X" on the answer line: X is the printed text.
_PRINTS = re.compile(
    r"^(?:the\s+)?(?:program\s+|code\s+|it\s+)?(?:prints|outputs|output\s+is|displays)\s*:?\s+(.+)$", re.IGNORECASE)
# A value followed by its explanation: "fdb3 (the initials and the count)", "fdb3 — initials plus 3",
# "fdb3, because the initials are reversed", "fdb3 since ...".
_EXPLAINED = re.compile(r"^(\S+)\s+(?:\((.*)\)|[—–]\s+(.*)|-\s+(.*))$")
_PROSE_AFTER = re.compile(r"^(\S+?)[,;]?\s+((?:[^\W\d_]+\b\W*){2}.*)$")
# Working before the printed value: "initials + str(3) = fdb3", "'fdb' + '3' → fdb3".
_RESULT_AFTER = re.compile(r"(?:=|→|->|⇒|=>)\s*([^=→⇒]+)$")
# Values a sentence after a text answer can name: code spans and quoted text.
_QUOTED = re.compile(r"`([^`\n]+)`|\"([^\"\n]+)\"|“([^”\n]+)”|(?<!\w)'([^'\n]+)'(?!\w)")


class KnowledgeBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["arithmetic", "program_output"]
    question: str
    # For program_output tasks the program is shown in a fenced block under the question.
    program: str | None = None
    answer: str = Field(min_length=1)

    @model_validator(mode="after")
    def _readable(self) -> KnowledgeBody:
        """An arithmetic answer the quantity reader cannot read could never be matched: a task bug."""
        if self.kind == "arithmetic" and quantity.parse(self.answer) is None:
            raise ValueError(f"answer {self.answer!r} is not a number (write it in digits, e.g. 85.80)")
        return self


@dataclass(frozen=True)
class Verdict:
    passed: bool
    reason: str
    given: str | None = None
    unsure: str | None = None


def judge(reply: str, body: KnowledgeBody) -> Verdict:
    """The verdict on one reply. The value comes from the answer line; an arithmetic reply without one is
    read at the number its last concluding sentence commits to."""
    line = read_answer_line(reply, MODULE.prompt(body))
    if line is None:
        # The request asks for the line; a value left in the prose is not given in the form asked for, and
        # picking the "concluding" number out of prose is a guess a grader should not make for the model.
        return Verdict(False, "no 'Answer:' line")
    verdict = _judge_number(line, body.answer) if body.kind == "arithmetic" else _judge_text(line, body.answer)
    # An answer found under a label in another language, or a reply that is only its value, is an answer;
    # the verdict says it rests on that reading.
    return dataclasses.replace(verdict, unsure=_joined(line.how, verdict.unsure)) if line.how else verdict


def _joined(*notes: str | None) -> str | None:
    return "; ".join(n for n in notes if n) or None


def _same_number(expected: str, given: quantity.Quantity) -> tuple[bool, str | None]:
    """(right, why unsure): the given number against the task's answer (:func:`engine.readers.quantity.compare`)."""
    want = quantity.parse(expected)
    assert want is not None  # checked when the task loads (KnowledgeBody)
    ok, second = quantity.compare(want, given)
    return ok, f"read {given.text!r} as {expected} only in a second reading" if ok and second else None


def _number_mentions(sentence: str) -> list[Mention]:
    return [Mention(q.start, q.end, q.value) for q in prose_numbers(sentence)]


def _after(after: After) -> str | None:
    """The reason prose after the answer line fails it, if it does."""
    if after.retracted:
        return f"took the answer back after the answer line ({after.retracted[:80]!r})"
    if after.hedged:
        return f"offered another value after the answer line ({after.hedged[:80]!r})"
    return None


def _judge_number(line: AnswerLine, expected: str) -> Verdict:
    offered: list[quantity.Quantity] = []
    for candidate in alternatives(line.text):
        value = committed_number(candidate)
        if value is not None and all(value.value != o.value for o in offered):
            offered.append(value)
    if len(offered) > 1:
        shown = ", ".join(quantity.describe(v) for v in offered[:3])
        return Verdict(False, f"offered {len(offered)} different values ({shown})", line.text)
    if not offered:
        return Verdict(False, f"no number on the answer line ({line.text[:80]!r})", line.text)
    given = offered[0]
    after = after_answer(line.tail, given.value, _number_mentions)
    doubt = f"doubt voiced after the answer: {after.doubt[:80]!r}" if after.doubt else None
    failed = _after(after)
    if failed:
        return Verdict(False, failed, line.text)
    if after.revised is not None:
        revised = next(q for q in prose_numbers(after.revised_in) if q.start == after.revised.start)
        ok, second = _same_number(expected, revised)
        shown = quantity.describe(revised)
        reason = "correct" if ok else f"answered {quantity.describe(given)}, then revised it to {shown}"
        return Verdict(ok, reason, f"{line.text} -> {shown}", _joined(doubt, second))
    ok, second = _same_number(expected, given)
    return Verdict(ok, "correct" if ok else f"answered {quantity.describe(given)}", line.text, _joined(doubt, second))


def _printed_forms(line: AnswerLine) -> list[str]:
    """What the answer line may mean as printed text: the line, its one code span, the text after
    "it prints:" or after the last ``=`` of working, the value before an explanation (in parentheses, after
    a dash, or prose after a comma)."""
    forms = [line.text]
    if len(set(line.spans)) == 1:
        forms.append(line.spans[0])
    said = _PRINTS.match(line.text)
    if said:
        forms.append(said.group(1))
    result = _RESULT_AFTER.search(line.text)
    if result:
        forms.append(result.group(1))
    for form in list(forms):
        head = _EXPLAINED.match(form)
        if head and not ALTERNATIVE_WORD.search(next(g for g in head.groups()[1:] if g is not None)):
            forms.append(head.group(1))
        prose = _PROSE_AFTER.match(form)
        if prose and not ALTERNATIVE_WORD.search(prose.group(2)):
            forms.append(prose.group(1))
    out = []
    for form in forms:
        form = form.strip()
        unquoted = form[1:-1] if len(form) > 1 and form[0] == form[-1] and form[0] in "'\"" else form
        out.extend([unquoted, unquoted.rstrip(".;,!")])
    return out


def _quoted_mentions(sentence: str) -> list[Mention]:
    out = []
    for m in _QUOTED.finditer(sentence):
        inner = next(g for g in m.groups() if g is not None)
        out.append(Mention(m.start(), m.end(), inner.strip()))
    return out


def _judge_text(line: AnswerLine, expected: str) -> Verdict:
    want = expected.strip()
    if want in _printed_forms(line):
        after = after_answer(line.tail, want, _quoted_mentions)
        failed = _after(after)
        if failed:
            return Verdict(False, failed, line.text)
        if after.revised is not None:
            ok = after.revised.key == want
            return Verdict(ok, "correct" if ok else f"answered {want!r}, then revised it to {after.revised.key!r}",
                           line.text)
        return Verdict(True, "correct", line.text,
                       f"doubt voiced after the answer: {after.doubt[:80]!r}" if after.doubt else None)
    offered = list(dict.fromkeys(alternatives(line.text)))
    if len(offered) > 1:
        shown = ", ".join(repr(v) for v in offered[:3])
        return Verdict(False, f"offered {len(offered)} different values ({shown})", line.text)
    return Verdict(False, f"answered {line.text[:80]!r}", line.text)


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

    def system_prompt(self, task: LoadedTask[KnowledgeBody]) -> str | None:
        return default_system_prompt(task)

    async def run(self, task: LoadedTask[KnowledgeBody], convo: Conversation, env: Env) -> None:
        convo.add("user", self.prompt(task.body))
        await convo.ask()

    def grade(self, task: LoadedTask[KnowledgeBody], turns: list[Turn], env: Env) -> Grade:
        body = task.body
        reply = last_assistant_text(turns)
        verdict = judge(reply, body)
        details = {"answer_given": verdict.given[:200]} if verdict.given is not None else {}
        score = 1.0 if verdict.passed else 0.0
        # Only a pass can rest on a reading that could not decide (the rule every module's grade follows).
        unsure = f"check: {verdict.unsure}"[:2000] if verdict.unsure and verdict.passed else None
        return Grade(score=score, passed=verdict.passed, breakdown={"correct": score}, reason=verdict.reason,
                     details=details, unsure=unsure)

    def complete_before_cut(self, task: LoadedTask[KnowledgeBody], turns: list[Turn]) -> bool:
        """A cut reply is graded when its answer line came before the cut (:mod:`engine.episodes.cut`)."""
        return answered_before_cut(last_assistant_text(turns))

    def required_context(self, task: LoadedTask[KnowledgeBody]) -> int:
        return default_required_context(task)


MODULE = Knowledge()
