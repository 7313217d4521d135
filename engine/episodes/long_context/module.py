"""long_context: pull one exact fact out of a long generated document (RULER and NoLiMa style).

The document is built by :mod:`engine.episodes.long_context.haystack` from the task's seed, so a task file holds only
the seed, the needles and the question, and the haystack version is part of this module's version (hence of every task
hash). The prompt is the document first, then the question: the document's first line is unique to the
task, so a prefix-caching server never reuses another task's prefill.

Graded like knowledge, with the same answer-line reader (:mod:`engine.episodes.answer_line`): the model ends
with ``Answer: <value>``. The line passes when it names the answer and commits to it: any other candidate
it names (a trap, another speaker, a second value offered as an alternative) must be set aside on the line
("Dana, not Priya" passes; "Dana or Priya", "Dana and Priya" and "9082 (or 9028)" fail), and the reason
names the trap the model fell into.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.core.schema import Grade, Turn
from engine.episodes.answer_line import AnswerLine, alternatives, read_answer_line
from engine.episodes.base import Conversation, Env, LoadedTask, estimate_tokens
from engine.episodes.long_context.haystack import (
    HAYSTACK_VERSION,
    ChainSpec,
    Haystack,
    HaystackSpec,
    Insert,
    build,
    filler_only,
)
from engine.episodes.spec import ModuleSpec, ModuleWeights
from engine.model.normalise import split_reasoning

INSTRUCTION = ("Use only the document above. You may reason briefly, then end your reply with one line: "
               "Answer: <value>")


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Needle(_Body):
    # Relative depth in the filler: 0 is the top of the document, 1 the bottom.
    at: float = Field(ge=0.0, le=1.0)
    # Prose: one or more sentences. Meeting: one or more lines "Speaker: words" (timestamps are added).
    text: str = Field(min_length=1)


class Trap(_Body):
    """A wrong answer the task is built to attract, and what choosing it means."""

    answer: str = Field(min_length=1)
    meaning: str = Field(min_length=1)


class Chain(_Body):
    hops: int = Field(ge=1, le=64)
    decoys: list[int] = Field(default_factory=list)
    span: tuple[float, float] = (0.02, 0.98)


class LongContextBody(_Body):
    kind: Literal["stale_value", "no_overlap", "variable_chain", "meeting_owner"]
    # Unique across the bank: it decides the filler and the document's opening line.
    seed: str = Field(min_length=8)
    title: str
    style: Literal["prose", "meeting"] = "prose"
    # Size of the filler, in the bench's generous estimate (3 characters a token).
    filler_tokens: int = Field(ge=200, le=120_000)
    speakers: list[str] = Field(default_factory=list)
    needles: list[Needle] = Field(default_factory=list)
    chain: Chain | None = None
    # For variable_chain, "{final}" is replaced by the name of the variable asked about.
    question: str
    answer: str = Field(min_length=1)
    accept: list[str] = Field(default_factory=list)
    traps: list[Trap] = Field(default_factory=list)

    def spec(self) -> HaystackSpec:
        chain = None
        if self.chain is not None:
            chain = ChainSpec(hops=self.chain.hops, decoys=tuple(self.chain.decoys), span=self.chain.span)
        return HaystackSpec(
            seed=self.seed, title=self.title, filler_tokens=self.filler_tokens, style=self.style,
            speakers=tuple(self.speakers), inserts=tuple(Insert(n.at, n.text) for n in self.needles),
            chain=chain,
        )

    @model_validator(mode="after")
    def _answerable(self) -> LongContextBody:
        """A task whose document cannot hold its answer, or whose traps are missing, is a task bug."""
        if (self.kind == "variable_chain") != (self.chain is not None):
            raise ValueError("'chain' is required for kind variable_chain and not allowed for other kinds")
        if self.kind == "variable_chain" and "{final}" not in self.question:
            raise ValueError("a variable_chain question must name the variable as {final}")
        if self.kind == "meeting_owner" and self.style != "meeting":
            raise ValueError("kind meeting_owner needs style: meeting")
        if self.style == "meeting" and len(self.speakers) < 2:
            raise ValueError("style meeting needs at least two speakers")
        stack = build(self.spec())
        if stack.chain is not None and stack.chain.value != self.answer:
            raise ValueError(
                f"answer {self.answer!r} is not what the generated chain holds ({stack.chain.value!r}); "
                f"the haystack generator (version {HAYSTACK_VERSION}) or the seed changed: fix the answer"
            )
        if not _whole_word(_norm(self.answer), _norm(stack.text)):
            raise ValueError(f"answer {self.answer!r} does not occur in the generated document")
        for trap in self.traps:
            if not _whole_word(_norm(trap.answer), _norm(stack.text)):
                raise ValueError(f"trap {trap.answer!r} does not occur in the generated document")
        if self.style == "prose" and _whole_word(_norm(self.answer), _norm(filler_only(self.spec()))):
            raise ValueError(f"answer {self.answer!r} already occurs in the filler; change the seed")
        return self


def _norm(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower()
    text = re.sub(r"[*_`\"'“”‘’]", "", text)
    return " ".join(text.split()).strip(" .;:,!")


def _whole_word(needle: str, haystack: str) -> bool:
    return re.search(rf"(?<![a-z0-9]){re.escape(needle)}(?![a-z0-9])", haystack) is not None


def haystack(body: LongContextBody) -> Haystack:
    return build(body.spec())


def prompt(body: LongContextBody) -> str:
    stack = haystack(body)
    question = body.question
    if stack.chain is not None:
        question = question.replace("{final}", stack.chain.final)
    return f"{stack.text}\n---\n\n{question.strip()}\n\n{INSTRUCTION}"


def traps(body: LongContextBody) -> dict[str, str]:
    """Wrong answers worth naming: the task's own, and for a chain the roots of its decoy chains."""
    out = {t.answer: t.meaning for t in body.traps}
    stack = haystack(body)
    if stack.chain is not None:
        for value, last in stack.chain.decoy_roots.items():
            out.setdefault(value, f"the value of a decoy chain (ending in {last})")
    return out


# A mention the line rejects or dates: "Dana, not Priya", "9082 (formerly 4471)", "from Priya to Dana".
_REJECTED_BEFORE = re.compile(
    r"\b(?:not|never|no longer|formerly|previously|originally|initially|earlier|old|used to be|instead of|"
    r"rather than|replac(?:es|ed|ing)|retired|superseded|over from|from|except|unlike)\b[^a-z0-9]*(?:\w+\W+){0,2}$")
_REJECTED_AFTER = re.compile(
    r"^[^a-z0-9]*(?:(?:was|is|has been|had been|got|being)\s+)?(?:retired|replaced|superseded|outdated|stale|"
    r"no longer|handed|gave|passed|former|old|only mentions?|never)\b")


@dataclass(frozen=True)
class _Mention:
    value: str  # the candidate as the task spells it
    start: int
    end: int
    rejected: bool


def _mentions(text: str, candidates: list[str]) -> list[_Mention]:
    """Where each candidate occurs in ``text`` (normalised), and whether the line rejects it there."""
    found = []
    for candidate in dict.fromkeys(candidates):
        needle = _norm(candidate)
        for m in re.finditer(rf"(?<![a-z0-9]){re.escape(needle)}(?![a-z0-9])", text):
            found.append((m.start(), m.end(), candidate))
    found.sort()
    out: list[_Mention] = []
    for i, (start, end, candidate) in enumerate(found):
        before = text[(found[i - 1][1] if i else 0):start]
        after = text[end:(found[i + 1][0] if i + 1 < len(found) else len(text))]
        rejected = bool(_REJECTED_BEFORE.search(before) or _REJECTED_AFTER.search(after))
        out.append(_Mention(candidate, start, end, rejected))
    return out


def _shape(gold: str) -> re.Pattern[str] | None:
    """Another value of the answer's shape (a number of as many digits), for spotting a hedge."""
    return re.compile(rf"(?<![\w.]){'[0-9]' * len(gold)}(?![\w.])") if gold.isdigit() else None


def judge_answer(body: LongContextBody, line: AnswerLine) -> tuple[bool, str]:
    """(passed, reason) for the model's answer line.

    The line passes when it names the answer and commits to it: every other candidate it names (a trap, a
    speaker, another value offered as an alternative) is rejected or dated on the line ("Dana, not Priya",
    "9082 (formerly 4471)"). "Dana or Priya", "Dana and Priya" and "9082 (or 9028)" fail.
    """
    value = _norm(line.text)
    golds = [body.answer, *body.accept]
    if value in {_norm(g) for g in golds} or any(_norm(s) in {_norm(g) for g in golds} for s in line.spans):
        return True, "correct"
    known = traps(body)
    names = [n for n in body.speakers if n not in known]
    mentions = _mentions(value, [*golds, *known, *names])
    kept = [m for m in mentions if not m.rejected]
    for m in kept:
        if m.value in known:
            also = " alongside the right one" if any(k.value in golds for k in kept) else ""
            return False, f"gave {m.value!r}: {known[m.value]}{also}"
    if not any(m.value in golds for m in kept):
        if any(m.value in golds for m in mentions):
            return False, f"named the answer only to reject it ({line.text[:80]!r})"
        return False, f"answered {line.text[:80]!r}"
    others = sorted({m.value for m in kept if m.value not in golds})
    if others:
        return False, f"named {others[0]!r} as well as the answer"
    shape = _shape(body.answer)
    segments = alternatives(value)
    if len(segments) > 1:
        for segment in segments:
            if any(_whole_word(_norm(g), segment) for g in golds) or _REJECTED_BEFORE.search(segment + " x"):
                continue
            other = shape.search(segment) if shape else None
            if other:
                return False, f"offered two candidates ({body.answer!r} or {other.group(0)!r})"
    return True, "correct"


class LongContext:
    spec = ModuleSpec(
        name="long_context", label="Long ctx", bank_tasks=4, judge="advisory",
        uses_tools=False, runs_code=False, weights=ModuleWeights(balanced=0.12, agentic=0.12, coding=0.12),
    )
    version = f"1+haystack{HAYSTACK_VERSION}"
    body_model = LongContextBody

    async def run(self, task: LoadedTask, convo: Conversation, env: Env) -> None:
        convo.add("user", prompt(task.body))
        await convo.ask()

    def grade(self, task: LoadedTask, turns: list[Turn], env: Env) -> Grade:
        body: LongContextBody = task.body
        replies = [t for t in turns if t.role == "assistant"]
        # Reasoning never counts: strip it again in case the stored content still holds a <think> block.
        text = split_reasoning(replies[-1].content)[0] if replies else ""
        details: dict[str, object] = {}
        line = read_answer_line(text)
        if line is None:
            return Grade(score=0.0, passed=False, breakdown={"correct": 0.0},
                         reason="no 'Answer:' line", details=details)
        ok, reason = judge_answer(body, line)
        details["answer_given"] = line.text[:200]
        return Grade(score=1.0 if ok else 0.0, passed=ok, breakdown={"correct": 1.0 if ok else 0.0},
                     reason=reason, details=details)

    def required_context(self, task: LoadedTask) -> int:
        """Exactly the prompt this task sends (estimated generously), its reply budget and a margin for the
        chat template."""
        return estimate_tokens(prompt(task.body)) + task.task.max_tokens * task.task.max_turns + 64


MODULE = LongContext()
