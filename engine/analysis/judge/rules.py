"""The judge's rules: which trials it is sent, and when its answer may move a verdict.

Which rule a module falls under is the ``judge`` policy its spec declares (``engine.episodes.spec``); the
rules themselves are written up in ``site_src/methodology/judge.md`` and summed up in this package's
``__init__``. ``decide`` is the whole policy, and ``judge_check`` re-applies a judged file through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.analysis.judge.reply import JudgeReply
from engine.core.schema import TrialRecord
from engine.episodes import SPECS
from engine.episodes.cut import graded_after_cut
from engine.episodes.spec import JudgePolicy


def _modules_under(policy: JudgePolicy) -> frozenset[str]:
    return frozenset(name for name, spec in SPECS.items() if spec.judge == policy)


NEVER_SENT = _modules_under("never_sent")
ADVISORY = _modules_under("advisory")
MOVABLE = _modules_under("movable")

RESCUE_MIN = 0.95
DEMOTE_BELOW = 0.85
DEMOTE_MARGIN = 0.02


VerdictStatus = Literal["upheld", "rescued", "demoted", "refused", "advisory", "failed"]


def trial_hard_gate(trial: TrialRecord) -> str | None:
    """The hard gate a trial failed, if any: the grader's own, or a reply cut at the token limit before its
    answer was complete (such a trial is never passed, looping or not; one cut after a complete answer is
    graded on that answer, :mod:`engine.episodes.cut`)."""
    if trial.grade is not None and trial.grade.hard_gate:
        return trial.grade.hard_gate
    if graded_after_cut(trial.grade):
        return None
    if trial.truncation == "degenerate":
        return "degenerate"
    if trial.truncation == "incomplete":
        return "truncated"
    return None


@dataclass(frozen=True)
class Decision:
    status: VerdictStatus
    final_score: float
    final_passed: bool
    refusal: str | None = None


def decide(
    module: str, det_score: float, det_passed: bool, hard_gate: str | None, reply: JudgeReply,
    unsure: bool = False,
) -> Decision:
    """Apply the appeal rules to one judge reply. Pure: the whole policy is here.

    ``unsure``: the grade rests on a check that could not decide from the text (``Grade.unsure``). Such a
    verdict is reviewed in every module, and in a module whose verdicts are otherwise never sent it is
    movable under the same bars: the deterministic check itself said it could not settle it."""
    keep = Decision("upheld", det_score, det_passed)
    if module in ADVISORY:
        return Decision("advisory", det_score, det_passed)
    if module not in MOVABLE and not (unsure and module in NEVER_SENT):
        # Not reached through ``judge_run`` (never-sent modules are filtered first); kept for direct callers.
        return Decision("refused", det_score, det_passed, f"module {module} is never judged")
    if reply.passed == det_passed:
        return keep
    if not det_passed:
        if hard_gate:
            return Decision(
                "refused",
                det_score,
                det_passed,
                f"hard gate '{hard_gate}' failed; the judge cannot rescue it",
            )
        if reply.score == 1.0 or (reply.score >= RESCUE_MIN and reply.score > det_score):
            return Decision("rescued", reply.score, True)
        if reply.score < RESCUE_MIN:
            why = f"judge score {reply.score:.3f} is below the rescue bar {RESCUE_MIN}"
        else:
            why = f"judge score {reply.score:.3f} is not above the det score {det_score:.3f}"
        return Decision("refused", det_score, det_passed, why)
    if reply.score < DEMOTE_BELOW and reply.score < det_score - DEMOTE_MARGIN:
        return Decision("demoted", reply.score, False)
    if reply.score >= DEMOTE_BELOW:
        why = f"judge score {reply.score:.3f} is not below the demotion bar {DEMOTE_BELOW}"
    else:
        why = (f"judge score {reply.score:.3f} is not more than {DEMOTE_MARGIN} below the det score "
               f"{det_score:.3f}")
    return Decision("refused", det_score, det_passed, why)



def sendable(trial: TrialRecord) -> bool:
    """Whether the judge reviews a trial: every scored trial of a judged module, and in the modules whose
    verdicts are otherwise never sent, the ones whose grade rests on an unsure check."""
    if not trial.scorable or trial.grade is None:
        return False
    return trial.module not in NEVER_SENT or trial.grade.unsure is not None
