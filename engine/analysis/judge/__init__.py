"""The optional LLM judge: an appeals layer over the deterministic graders, with strict rules.

The graders decide every verdict. The judge reads a bounded transcript and the det score, and says what it
thinks of the trial; a verdict moves only when the rules below allow it, and every refused appeal is kept
with its reason. Rules (written up in ``site_src/methodology/judge.md``); which rule a module falls under is
the ``judge`` policy its spec declares (``engine.episodes.spec``):

* ``never_sent`` modules (format, knowledge) are never sent: exact checks leave nothing to appeal.
* ``advisory`` modules (adversarial, code, long_context) are sent, but their verdicts stand; what the judge
  said is recorded.
* ``movable`` modules' (tools, multi_turn_if) verdicts may move. A rescue (det failed, judge says pass) needs a judge
  score >= 0.95 that is above the det score, or exactly 1.0. A demotion (det passed, judge says fail) needs
  a judge score < 0.85 that is more than 0.02 below the det score. No appeal crosses a hard gate (a
  forbidden tool, the call budget, a loop, a premature stop, a reply cut at the token limit).
* A verdict is tied to the det score and task hash the judge saw. When a later ``rescore`` changes either, the
  verdict is stale and the trial falls back to its det grade.
* The judge's reply must be one JSON object of a fixed schema. Anything else is a failed judge call, never a
  verdict. A module with any failed call falls back to det scores as a whole and is flagged.

The raw result file is only read. The judge writes its own file, ``<model>_judged.json``, beside it.
"""

# The judge's public face, for the stages after analysis and for the tests; the package's own files import
# from each other directly.
from engine.analysis.judge.apply import AppliedVerdicts, JudgedScore, apply_verdicts, score_judged, verdict_counts
from engine.analysis.judge.files import (
    JudgedFile,
    JudgeInfo,
    ModuleCoverage,
    TrialVerdict,
    file_sha256,
    judged_path_for,
    load_judged_file,
    write_judged_file,
)
from engine.analysis.judge.prompt import build_messages, render_transcript
from engine.analysis.judge.reply import JudgeReply, parse_judge_reply
from engine.analysis.judge.rules import ADVISORY, MOVABLE, NEVER_SENT, Decision, decide, sendable
from engine.analysis.judge.run import JudgeConfig, judge_run, judge_run_async

__all__ = [
    "ADVISORY",
    "AppliedVerdicts",
    "MOVABLE",
    "NEVER_SENT",
    "Decision",
    "JudgeConfig",
    "JudgeInfo",
    "JudgeReply",
    "JudgedFile",
    "JudgedScore",
    "ModuleCoverage",
    "TrialVerdict",
    "apply_verdicts",
    "build_messages",
    "decide",
    "file_sha256",
    "judge_run",
    "judge_run_async",
    "judged_path_for",
    "load_judged_file",
    "parse_judge_reply",
    "render_transcript",
    "score_judged",
    "sendable",
    "verdict_counts",
    "write_judged_file",
]
