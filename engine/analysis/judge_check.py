"""Re-apply a judged file from its own records under the judge's rules, instead of trusting its verdicts.

What the judge said (its pass, score and reason for a trial) cannot be worked out again without calling it;
everything the bench decided from that is. So for each verdict: the trial it names exists in the raw file and
is one the judge is sent (never a ``never_sent`` module, never an excluded trial), the det score, pass, task
hash and hard gate it records are the raw trial's, and ``decide`` (advisory modules stand, hard gates are
never crossed, the rescue and demotion thresholds) turns the judge's answer into exactly the status and
final score the file stores. The counts and coverage are recomputed, the thresholds and prompt version must
be this bench's, and the file must name the SHA-256 of the raw file beside it: a judged file judges one
exact raw file.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pydantic import ValidationError

from engine.analysis.judge.files import JudgedFile, TrialVerdict, file_sha256, tally
from engine.analysis.judge.prompt import PROMPT_VERSION
from engine.analysis.judge.reply import JudgeReply
from engine.analysis.judge.rules import DEMOTE_BELOW, DEMOTE_MARGIN, RESCUE_MIN, decide, sendable, trial_hard_gate
from engine.core.schema import RunFile, TrialRecord
from engine.run.rederive import Problem

RERUN = "run `sllmb judge` again on the raw file and commit the judged file it writes"


def _verdict_problems(v: TrialVerdict, trial: TrialRecord) -> list[Problem]:
    where, out = f"verdicts {v.task_id}#{v.trial}", []
    if not sendable(trial):
        why = (f"module {trial.module} is never judged unless its check was unsure" if trial.scorable
               else "the trial is excluded")
        return [Problem(where, "status", f"the judge is never sent this trial ({why}), so it has no verdict")]
    assert trial.grade is not None
    facts = {"module": trial.module, "task_hash": trial.task_hash, "det_score": trial.grade.score,
             "det_passed": trial.grade.passed, "hard_gate": trial_hard_gate(trial)}
    for name, value in facts.items():
        if getattr(v, name) != value:
            out.append(Problem(where, name, f"stored {getattr(v, name)!r}, the raw trial's is {value!r}; {RERUN}"))
    if out:
        return out
    if v.status == "failed":
        said = {"judge_passed": v.judge_passed, "judge_score": v.judge_score, "judge_reason": v.judge_reason}
        out += [Problem(where, k, f"stored {x!r}; a failed judge call has no answer") for k, x in said.items()
                if x is not None]
        if not v.error:
            out.append(Problem(where, "error", "a failed judge call records why it failed"))
        if (v.final_score, v.final_passed, v.refusal) != (trial.grade.score, trial.grade.passed, None):
            out.append(Problem(where, "final_score", "a failed judge call keeps the det grade"))
        return out
    try:
        reply = JudgeReply.model_validate({"passed": v.judge_passed, "score": v.judge_score,
                                           "reason": v.judge_reason})
    except ValidationError as exc:
        first = exc.errors()[0]
        field = f"judge_{first['loc'][0]}" if first["loc"] else "judge_reason"
        return [Problem(where, field, f"not an answer the judge may give ({first['msg']}); {RERUN}")]
    if v.error is not None:
        out.append(Problem(where, "error", f"stored {v.error!r} on a verdict the judge answered"))
    decision = decide(trial.module, trial.grade.score, trial.grade.passed, trial_hard_gate(trial), reply,
                      unsure=trial.grade.unsure is not None)
    derived = {"status": decision.status, "final_score": decision.final_score,
               "final_passed": decision.final_passed, "refusal": decision.refusal}
    for name, value in derived.items():
        if getattr(v, name) != value:
            out.append(Problem(where, name, f"stored {getattr(v, name)!r}, the judge's rules give {value!r} for "
                                            f"its answer (passed {reply.passed}, score {reply.score})"))
    return out


def rederive_judged(judged: JudgedFile, raw_path: Path, run: RunFile) -> list[Problem]:
    """Every way ``judged`` differs from the judge's rules applied to its own records (empty: none)."""
    out: list[Problem] = []
    digest = file_sha256(raw_path)
    if judged.raw_sha256 != digest:
        out.append(Problem("judged file", "raw_sha256", f"stored {judged.raw_sha256!r}, but {raw_path.name} hashes "
                                                        f"to {digest!r}: the verdicts were given on another version "
                                                        f"of it; {RERUN}"))
    if judged.raw_file != raw_path.name:
        out.append(Problem("judged file", "raw_file", f"stored {judged.raw_file!r}, the raw file beside it is "
                                                      f"{raw_path.name!r}"))
    if judged.model != run.settings.model:
        out.append(Problem("judged file", "model", f"stored {judged.model!r}, the raw file's model is "
                                                   f"{run.settings.model!r}"))
    rules = {"rescue_min": RESCUE_MIN, "demote_below": DEMOTE_BELOW, "demote_margin": DEMOTE_MARGIN,
             "prompt_version": PROMPT_VERSION}
    for name, value in rules.items():
        if getattr(judged.judge, name) != value:
            out.append(Problem("judged file", f"judge.{name}", f"stored {getattr(judged.judge, name)!r}, this "
                                                               f"bench's judge uses {value!r}; {RERUN}"))
    trials = {(t.task_id, t.trial): t for t in run.trials}
    seen = Counter((v.task_id, v.trial) for v in judged.verdicts)
    for (task_id, index), count in sorted(seen.items()):
        if count > 1:
            out.append(Problem(f"verdicts {task_id}#{index}", "verdicts", f"{count} verdicts for one trial"))
    for v in judged.verdicts:
        trial = trials.get((v.task_id, v.trial))
        if trial is None:
            out.append(Problem(f"verdicts {v.task_id}#{v.trial}", "task_id", "no such trial in the raw file"))
        else:
            out += _verdict_problems(v, trial)
    counts = tally(judged.verdicts)
    counted = {
        "modules": ({m: c.model_dump() for m, c in judged.modules.items()},
                    {m: c.model_dump() for m, c in counts.modules.items()}),
        "flagged_modules": (judged.flagged_modules, counts.flagged_modules),
        "changed": (judged.changed, counts.changed),
        "refused": (judged.refused, counts.refused),
    }
    for name, (stored, derived) in counted.items():
        if stored != derived:
            out.append(Problem("judged file", name, f"stored {stored!r}, its verdicts give {derived!r}"))
    return out
