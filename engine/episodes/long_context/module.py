"""long_context: pull one exact fact out of a long generated document (RULER and NoLiMa style).

The document is built by :mod:`engine.episodes.long_context.haystack` from the task's seed, so a task file holds only
the seed, the needles and the question, and the haystack version is part of this module's version (hence of every task
hash). The prompt is the document first, then the question: the document's first line is unique to the
task, so a prefix-caching server never reuses another task's prefill.

Graded like knowledge, with the same answer-line reader (:mod:`engine.episodes.answer_line`): the model ends
with ``Answer: <value>`` (a label in the reply's own language, or a reply that is only the value, is read as
one and marked unsure; a reply with no answer fails; a numeric answer is read through the quantity reader, so
``89 009`` is 89009). The line passes when it names the answer and commits to it, read by the stance
reader (:mod:`engine.readers.stance`): any other candidate it names (a trap, another speaker, a second value
offered as an alternative) must be set aside on the line or said of something else in an aside ("Dana, not
Priya" and "9082 (the west store uses 5530)" pass; "Dana or Priya", "Dana and Priya" and "9082 (or 9028)"
fail), prose after the line must not revise, hedge or retract it, and the reason names the trap the model
fell into.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.core.schema import Grade, Turn
from engine.episodes.answer_line import AnswerLine, answered_before_cut, read_answer_line
from engine.episodes.base import Conversation, Env, LoadedTask, default_system_prompt, estimate_tokens
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
from engine.readers import quantity
from engine.readers.stance import OFFERED, Mention, after_answer, roles

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


def _norm_lines(text: str) -> str:
    """:func:`_norm` line by line, so that the stance reader still sees where lines end."""
    return "\n".join(_norm(line) for line in text.split("\n"))


def _shape(gold: str) -> re.Pattern[str] | None:
    """Another value of the answer's shape (a number of as many digits), for spotting a hedge."""
    return re.compile(rf"(?<![\w.]){'[0-9]' * len(gold)}(?![\w.])") if gold.isdigit() else None


def _finder(body: LongContextBody) -> Callable[[str], list[Mention]]:
    """The candidates a normalised text names, each keyed by how the task spells it: the answer (its
    accepted spellings keyed as the answer), the traps, the other speakers, and any other value of the
    answer's shape (a hedge between two codes need not name a trap)."""
    spellings = {_norm(g): body.answer for g in [body.answer, *body.accept]}
    known = traps(body)
    for name in [*known, *(n for n in body.speakers if n not in known)]:
        spellings.setdefault(_norm(name), name)
    shape = _shape(body.answer)

    def find(text: str) -> list[Mention]:
        found: dict[int, Mention] = {}
        for needle, key in spellings.items():
            for m in re.finditer(rf"(?<![a-z0-9]){re.escape(needle)}(?![a-z0-9])", text):
                found.setdefault(m.start(), Mention(m.start(), m.end(), key))
        if shape is not None:
            for m in shape.finditer(text):
                found.setdefault(m.start(), Mention(m.start(), m.end(), m.group(0)))
        return sorted(found.values(), key=lambda m: m.start)

    return find


@dataclass(frozen=True)
class Verdict:
    passed: bool
    reason: str
    unsure: str | None = None


def _judge_line(body: LongContextBody, text: str, find: Callable[[str], list[Mention]]) -> tuple[Verdict, object]:
    """The verdict on the answer line alone, and the candidate it commits to (None when none)."""
    known = traps(body)
    roled = roles(text, find(text))
    offered = [m for m, role in roled if role in OFFERED]
    gold_offered = any(m.key == body.answer for m in offered)
    for m in offered:
        if m.key in known:
            also = " alongside the right one" if gold_offered else ""
            return Verdict(False, f"gave {m.key!r}: {known[m.key]}{also}"), m.key
    if not gold_offered:
        head = offered[0].key if offered else None
        if any(m.key == body.answer for m, _ in roled):
            return Verdict(False, f"named the answer only to reject it ({text[:80]!r})"), head
        return Verdict(False, f"answered {text[:80]!r}"), head
    others = sorted({str(m.key) for m in offered if m.key != body.answer})
    if others:
        return Verdict(False, f"offered two candidates ({body.answer!r} and {others[0]!r})"), body.answer
    beside = sorted({str(m.key) for m, role in roled if role == "aside" and m.key in known})
    unsure = f"{beside[0]!r} named in an aside beside the answer, read as said of something else" if beside else None
    return Verdict(True, "correct", unsure), body.answer


def _same_number(gold: str, given: str) -> bool:
    """A numeric answer written with its digits grouped ("89 009" with a no-break space, "89,009") is the
    number: read through the quantity reader. A gold with a leading zero is a code, never a number."""
    if not gold.isdigit() or gold.startswith("0"):
        return False
    want, got = quantity.parse(gold), quantity.parse(given)
    return want is not None and got is not None and quantity.compare(want, got) == (True, False)


def judge_answer(body: LongContextBody, line: AnswerLine) -> Verdict:
    """The verdict on the model's answer line and the prose after it.

    The line passes when it commits to the answer (:mod:`engine.readers.stance`): every other candidate it
    names (a trap, a speaker, another value of the answer's shape) is set aside ("Dana, not Priya", "9082
    (formerly 4471)") or said of something else in an aside ("9082 (the west store uses 5530)"); "Dana or
    Priya", "Dana and Priya" and "9082 (or 9028)" fail. Prose after the line that revises the answer is
    graded instead of it; prose that hedges it with another candidate, or retracts it, fails it.
    """
    value = _norm(line.text)
    golds = {_norm(g) for g in [body.answer, *body.accept]}
    find = _finder(body)
    if value in golds or any(_norm(s) in golds for s in line.spans) or _same_number(body.answer, line.text):
        verdict, committed = Verdict(True, "correct"), body.answer
    else:
        verdict, committed = _judge_line(body, value, find)
    after = after_answer(_norm_lines(line.tail), committed, find)
    if after.retracted:
        return Verdict(False, f"took the answer back after the answer line ({after.retracted[:80]!r})")
    if after.hedged:
        return Verdict(False, f"offered another candidate after the answer line ({after.hedged[:80]!r})")
    if after.revised is not None:
        revised, _ = _judge_line(body, _norm(str(after.revised.key)), find)
        if not revised.passed:
            return Verdict(False, f"revised the answer after the answer line: {revised.reason}")
        return Verdict(True, "correct", revised.unsure)
    if after.doubt and verdict.passed:
        return Verdict(True, verdict.reason, f"doubt voiced after the answer: {after.doubt[:80]!r}")
    return verdict


class LongContext:
    spec = ModuleSpec(
        name="long_context", label="Long ctx", bank_tasks=4, judge="advisory",
        uses_tools=False, runs_code=False, weights=ModuleWeights(balanced=0.12, agentic=0.12, coding=0.12),
    )
    version = f"1+haystack{HAYSTACK_VERSION}"
    body_model = LongContextBody

    def system_prompt(self, task: LoadedTask[LongContextBody]) -> str | None:
        return default_system_prompt(task)

    async def run(self, task: LoadedTask[LongContextBody], convo: Conversation, env: Env) -> None:
        convo.add("user", prompt(task.body))
        await convo.ask()

    def grade(self, task: LoadedTask[LongContextBody], turns: list[Turn], env: Env) -> Grade:
        body = task.body
        replies = [t for t in turns if t.role == "assistant"]
        # Reasoning never counts: strip it again in case the stored content still holds a <think> block.
        text = split_reasoning(replies[-1].content)[0] if replies else ""
        details: dict[str, object] = {}
        line = read_answer_line(text, prompt(body))
        if line is None:
            return Grade(score=0.0, passed=False, breakdown={"correct": 0.0},
                         reason="no 'Answer:' line", details=details)
        verdict = judge_answer(body, line)
        if line.how:
            # A label in the reply's own language, or a reply that is only its value: an answer, said unsure.
            verdict = Verdict(verdict.passed, verdict.reason, "; ".join(n for n in (line.how, verdict.unsure) if n))
        details["answer_given"] = line.text[:200]
        score = 1.0 if verdict.passed else 0.0
        # Only a pass can rest on a reading that could not decide (the rule every module's grade follows).
        unsure = f"check: {verdict.unsure}"[:2000] if verdict.unsure and verdict.passed else None
        return Grade(score=score, passed=verdict.passed, breakdown={"correct": score}, reason=verdict.reason,
                     details=details, unsure=unsure)

    def complete_before_cut(self, task: LoadedTask[LongContextBody], turns: list[Turn]) -> bool:
        """A cut reply is graded when its answer line came before the cut (:mod:`engine.episodes.cut`)."""
        replies = [t for t in turns if t.role == "assistant"]
        return bool(replies) and answered_before_cut(replies[-1].content)

    def required_context(self, task: LoadedTask[LongContextBody]) -> int:
        """Exactly the prompt this task sends (estimated generously), its reply budget and a margin for the
        chat template."""
        return estimate_tokens(prompt(task.body)) + task.task.max_tokens * task.task.max_turns + 64


MODULE = LongContext()
