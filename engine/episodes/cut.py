"""The one rule for a reply cut by the token limit: the cut fails the trial only when what the grader needs
is not complete before it.

A module may say what "complete" means for it (``complete_before_cut(task, turns)``): an answer line
followed by more text (knowledge, long_context), every fenced code block closed (code), a final message
whose sentences written whole before the one the cut fell in already pass the task's answer checks (tools:
working cut before its choice, "Let me compare ...:" and a list of figures, says nothing whole and still
fails), a whole refusal
before the sentence the cut fell in, with nothing of the secret shown (adversarial chat tasks,
:func:`engine.episodes.adversarial.before_cut.refused_before_cut`). A cut reply
that is complete is graded like any other, and a pass is marked unsure ("cut by the token limit after its
answer"): the grader read an answer the model never finished explaining. A module may also say what its
grader reads of a complete cut trial (``before_cut(task, turns)``: tools grades only the part of the final
message written whole, so a claim or a half-written figure in the sentence the cut fell in counts for
nothing, and one in the whole part counts as in any reply); a module that says nothing is graded on the
turns as they are. Every other cut reply fails as a
truncation of its class (degenerate when it was looping, incomplete otherwise), as before; a module that
says nothing keeps that rule for every cut.

A cut with another attempt still to come is no truncation of the trial: a module whose episode gives further
attempts says so (``another_attempt_after(task, replies)``: code, whose feedback then tells the model its
reply was cut and whose grade counts that reply as an attempt that failed unless its code came whole before
the cut), and the episode goes on (:func:`goes_on_after_cut`). Only a cut on the last attempt, or a cut where
the module gives none after it, ends the trial as a cut, graded by the rule above.

The runner (a trial as it runs) and rescore (a stored trial regraded) both grade a cut trial here, so the
two never disagree; the re-derivation check holds a stored conversation that goes on after a cut to
:func:`goes_on_after_cut` too.
"""

from __future__ import annotations

from typing import Any

from engine.core.schema import Grade, Turn
from engine.episodes.base import Env, LoadedTask

CUT_NOTE = "cut by the token limit after its answer"
CUT_DETAIL = "graded_after_cut"


def complete_before_cut(module: Any, task: LoadedTask, turns: list[Turn]) -> bool:
    """Whether the module finds what its grader needs whole in a trial whose last reply was cut."""
    check = getattr(module, "complete_before_cut", None)
    return bool(check is not None and check(task, turns))


def before_cut(module: Any, task: LoadedTask, turns: list[Turn]) -> list[Turn]:
    """The turns the module's grader reads of a cut trial whose answer was complete (the turns as they are
    where the module says nothing)."""
    part = getattr(module, "before_cut", None)
    return turns if part is None else list(part(task, turns))


def goes_on_after_cut(module: Any, task: LoadedTask, replies: int) -> bool:
    """Whether the episode goes on after its ``replies``-th reply (counting from 1) was cut by the token limit:
    the module gives another attempt after it. A module that says nothing ends the episode at every cut."""
    check = getattr(module, "another_attempt_after", None)
    return bool(check is not None and check(task, replies))


def truncated_grade(turns: list[Turn], kind: str) -> Grade:
    """The grade of a cut trial whose answer was not complete: a failure of its truncation class."""
    last = turns[-1] if turns else None
    spent = bool(last is not None and last.role == "assistant" and not last.content and last.reasoning)
    return Grade(score=0.0, passed=False, reason=f"truncated ({kind})",
                 hard_gate="degenerate" if kind == "degenerate" else None,
                 details={"reasoning_spent_budget": True} if spent else {})


def cut_grade(module: Any, task: LoadedTask, turns: list[Turn], env: Env, kind: str) -> Grade:
    """The grade of a trial whose last reply ran out of tokens (class ``kind``)."""
    if not complete_before_cut(module, task, turns):
        return truncated_grade(turns, kind)
    grade: Grade = module.grade(task, before_cut(module, task, turns), env)
    # Recorded so that nothing downstream takes the cut for the verdict (the judge's hard gate).
    details = {**grade.details, CUT_DETAIL: True}
    if not grade.passed:
        return grade.model_copy(update={"details": details})
    note = f"check: {CUT_NOTE}"
    unsure = f"{note}; {grade.unsure.removeprefix('check: ')}" if grade.unsure else note
    return grade.model_copy(update={"unsure": unsure[:2000], "details": details})


def graded_after_cut(grade: Grade | None) -> bool:
    """Whether a cut trial's grade was made on its answer, which came whole before the cut."""
    return grade is not None and grade.details.get(CUT_DETAIL) is True

