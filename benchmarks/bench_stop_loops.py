"""What ``--stop-loops`` would have done to a finished run, offline, from its stored replies.

For every assistant turn that was streamed (``--stop-loops`` only watches streams: a turn sent with tools is
sent whole, and those are the turns whose system prompt is the tools module's), the reply's text is fed to
the rule prefix by prefix, as the client checks it (at the sizes ``loopstop.next_check`` gives). Where the rule
fires, the reply would have been ended there and the trial recorded as a degenerate truncation. Printed:

- how many trials' verdicts (passed or not) it would have changed: the goal is none;
- how many trials' recorded outcome it would have changed at all (a reply that escaped its loop and ended
  by itself, or one that was classed incomplete at the limit, or a later turn that would not have happened);
- how many replies it would have cut, and the generated tokens and decode seconds it would have saved.

    python benchmarks/bench_stop_loops.py [RESULT_FILE ...]

(default: the committed reference run). Tokens come from the reply's usage where the server reported it,
else the task's token budget for a reply that ran to the limit, else its characters / 4.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.model.loopstop import certainly_degenerate, next_check  # noqa: E402

REFERENCE = ROOT / "results" / "reference" / "smollm2-135m-instruct_raw_results.json"
TOOLS_MARKER = "If your interface has no native tool calling"


@dataclass
class Tally:
    trials: int = 0
    streamed_replies: int = 0
    cut_replies: int = 0
    cut_at_limit_degenerate: int = 0
    verdicts_changed: int = 0
    outcomes_changed: int = 0
    tokens_generated: int = 0
    tokens_saved: int = 0
    seconds_saved: float = 0.0


def first_cut(text: str) -> int | None:
    """Where the client would have ended the stream: the first checked prefix the rule fires on."""
    size = next_check(0)
    while size <= len(text):
        if certainly_degenerate(text[:size]):
            return size
        size = next_check(size)
    return None


def reply_tokens(turn, budget: int | None) -> int:
    if turn.usage and turn.usage.completion_tokens:
        return turn.usage.completion_tokens
    if turn.finish_reason == "length" and budget:
        return budget
    return max(1, len(turn.content or turn.reasoning or "") // 4)


def measure(path: Path) -> Tally:
    from engine.bank.load import load_bank
    from engine.core.results import load_run_file

    run = load_run_file(path)
    budgets = {t.id: t.task.max_tokens for t in load_bank(None)}
    tally = Tally()
    for trial in run.trials:
        tally.trials += 1
        system = next((t.content for t in trial.turns if t.role == "system"), "")
        streamed = TOOLS_MARKER not in system
        replies = [t for t in trial.turns if t.role == "assistant"]
        for index, turn in enumerate(replies):
            budget = run.settings.max_tokens or budgets.get(trial.task_id)
            tokens = reply_tokens(turn, budget)
            tally.tokens_generated += tokens
            if not streamed:
                continue
            tally.streamed_replies += 1
            text = turn.content or turn.reasoning or ""
            cut = first_cut(text)
            if cut is None:
                continue
            tally.cut_replies += 1
            saved = int(tokens * (1 - cut / len(text)))
            tally.tokens_saved += saved
            if turn.timings and turn.timings.decode_tps:
                tally.seconds_saved += saved / turn.timings.decode_tps
            last = index == len(replies) - 1
            same = last and turn.finish_reason == "length" and trial.truncation == "degenerate"
            tally.cut_at_limit_degenerate += same
            if not same:
                tally.outcomes_changed += 1
                tally.verdicts_changed += bool(trial.passed)  # cut means failed: only a pass can flip
            break  # the trial ends at the first cut reply
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path, default=[REFERENCE])
    args = parser.parse_args()
    for path in args.files:
        t = measure(path)
        share = t.tokens_saved / t.tokens_generated * 100 if t.tokens_generated else 0.0
        print(f"{path.name}: {t.trials} trials, {t.streamed_replies} streamed replies")
        print(f"  --stop-loops would have cut {t.cut_replies} replies ({t.cut_at_limit_degenerate} of them stored as "
              f"degenerate at the token limit anyway)")
        print(f"  verdicts changed: {t.verdicts_changed}; recorded outcomes changed: {t.outcomes_changed}")
        print(f"  generated tokens saved: {t.tokens_saved:,} of {t.tokens_generated:,} ({share:.1f}%), "
              f"about {t.seconds_saved:.0f} s of decoding at the replies' own rates")


if __name__ == "__main__":
    main()
