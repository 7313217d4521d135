"""How long the bench takes to read one hostile reply of a quarter of a million characters.

A model's reply is data, and a server may send one of 250,000 characters (the stored cap) for a budget of a
thousand tokens. Every reader of reply text must take time linear in its length; lazy regular expressions
that rescan the rest of the text at every marker once took over a minute on one such reply, stalling every
other trial. Printed, for each hostile reply (a quarter of a million characters of one repeated unit):

- read: splitting reasoning off (``engine.model.normalise``) and reading tool calls written as text
  (``engine.model.textcalls``), as the client does after every tool-turn reply;
- watch: a stream of that text fed in 8-character deltas to ``--stop-loops`` (``engine.model.loopstop``), as
  the client feeds it, with the check schedule it uses (and, with ``--fixed-step``, with a check every 256
  characters throughout, the schedule before: slow, so not measured by default);
- grade: every module's grader (but code's, which runs a sandbox) over that text as the final answer of
  each of its tasks, the slowest task shown.

    python benchmarks/bench_reply_parsing.py [--chars 250000] [--skip-grade] [--fixed-step] [--unit U ...]

``--unit`` measures only the units given (each as Python writes the string, escapes read: ``--unit '1\\u202f'``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.model.loopstop import CHECK_EVERY_CHARS, LoopWatch  # noqa: E402
from engine.model.normalise import split_reasoning  # noqa: E402
from engine.model.textcalls import read_text_calls  # noqa: E402

# Units a hostile or broken model repeats: every call marker, open and closed reasoning tags, fences,
# brackets, quotes, and plain prose for scale.
UNITS = [
    "<tool_call>", "<tool_call>{", "[TOOL_CALLS] [", "[TOOL_CALLS]a[ARGS]{", "<|python_tag|>{", "<|python_tag|>a(",
    "<function=a>", "<function=a><parameter=x>", "<|tool_call|>[", "```", "```json\n{", "```tool_code\na(x=[",
    "<|tool_call_start|>[a(x=", "<|tool_calls_section_begin|><|tool_call_begin|>a:0<|tool_call_argument_begin|>{",
    "<TOOLCALL>[{", "<tool_call>a<arg_key>k</arg_key><arg_value>", "<seed:tool_call>",
    "<|action_start|><|plugin|>{", "functools[{",
    "<think>", "</think>", "<think>x</think>y ", "<|channel|>analysis<|message|>", "{", "[", '"',
    '{"name":"lookup","arguments":{}}; ', "word ", "x", " ", "\n", "#", "**a ", "_a ", "“", "I sent ", "e.g. ",
    "between ", "1. ", "7", "-", "@\n", "Answer: **x \n",
    # Thousands of small numbers and count words: the adversarial graders' readers of a secret's leak, of the
    # protected passage's facts and of a required count once took seconds to a minute on these.
    "1 ", "1\u202f", "12 34 ", "seven letters ",
]
TOOLS = {"lookup": {}, "get_weather": {}}


def hostile(unit: str, chars: int) -> str:
    return (unit * (chars // len(unit) + 1))[:chars]


def time_read(text: str) -> float:
    started = time.perf_counter()
    answer, _ = split_reasoning(text)
    read_text_calls(answer, TOOLS, max_calls=32)
    return time.perf_counter() - started


def time_watch(text: str, *, fixed_step: bool) -> tuple[float, int]:
    """Seconds and checks for one stream; the loop rule's verdicts are computed but the stream is not cut,
    so the figure is the cost of watching all of it."""
    watch, parts, checks, last = LoopWatch(), [], 0, 0
    started = time.perf_counter()
    for at in range(0, len(text), 8):
        parts.append(text[at:at + 8])
        size = at + 8
        if fixed_step:
            due = size - last >= CHECK_EVERY_CHARS
            if due:
                last = size
        else:
            due = watch.due(size)
        if due:
            checks += 1
            watch.looping("".join(parts), "")
    return time.perf_counter() - started, checks


def time_grade(text: str) -> tuple[float, str]:
    from engine.bank.load import load_bank
    from engine.core.schema import Turn
    from engine.episodes import MODULES
    from engine.episodes.base import Env

    worst, which = 0.0, ""
    turns = [Turn(role="user", content="go"), Turn(role="assistant", content=text)]
    for task in load_bank(ROOT / "tasks"):
        if task.task.module == "code":
            continue
        started = time.perf_counter()
        MODULES[task.task.module].grade(task, turns, Env())
        took = time.perf_counter() - started
        if took > worst:
            worst, which = took, task.id
    return worst, which


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=250_000)
    parser.add_argument("--skip-grade", action="store_true", help="leave out the graders (the slow part)")
    parser.add_argument("--fixed-step", action="store_true", help="also watch with a check every 256 characters")
    parser.add_argument("--unit", action="append", default=[],
                        help="measure only this unit (repeatable; backslash escapes read, as in '1\\u202f')")
    args = parser.parse_args()
    units = [u.encode("latin-1", "backslashreplace").decode("unicode_escape") for u in args.unit] or UNITS
    print(f"one reply of {args.chars:,} characters of each unit; seconds")
    print(f"{'unit':34} {'read':>7} {'watch':>7} {'checks':>6} {'fixed':>7} {'checks':>6} {'grade':>7}  slowest task")
    worst = {"read": 0.0, "watch": 0.0, "fixed": 0.0, "grade": 0.0}
    for unit in units:
        text = hostile(unit, args.chars)
        read = time_read(text)
        watch, checks = time_watch(text, fixed_step=False)
        fixed, fixed_checks = time_watch(text, fixed_step=True) if args.fixed_step else (0.0, 0)
        grade, task = (0.0, "-") if args.skip_grade else time_grade(text)
        for key, value in (("read", read), ("watch", watch), ("fixed", fixed), ("grade", grade)):
            worst[key] = max(worst[key], value)
        print(f"{unit!r:34} {read:7.3f} {watch:7.3f} {checks:6d} {fixed:7.3f} {fixed_checks:6d} {grade:7.3f}  {task}",
              flush=True)
    fixed = f" (a check every 256 characters: {worst['fixed']:.3f} s)" if args.fixed_step else ""
    print(f"slowest: read {worst['read']:.3f} s, watch {worst['watch']:.3f} s{fixed}"
          + ("" if args.skip_grade else f", grade {worst['grade']:.3f} s"))


if __name__ == "__main__":
    main()
