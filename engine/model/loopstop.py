"""``--stop-loops``: decide, while a reply streams in, that it is certainly degenerate, so the bench can end it
instead of waiting for the token limit.

A small model that starts looping almost never stops before its budget, and the trial is then recorded as a
degenerate truncation (``engine.model.textcheck``). Ending it early saves the rest of the budget's decode time. The
rule is far stricter than the degenerate class itself, so that it never ends a reply that could still have
become a real answer: the text must end in one exact cycle (a character or n-gram unit) repeated at least
``MIN_REPEATS`` times over at least ``MIN_SPAN`` characters, and the text must already be degenerate by
``textcheck.is_degenerate``, so that the cut reply is classed exactly as a reply cut at the limit would be.
``benchmarks/bench_stop_loops.py`` measures on stored replies how many verdicts the rule would have changed.
"""

from __future__ import annotations

from engine.model.normalise import split_reasoning
from engine.model.textcheck import is_degenerate

MIN_REPEATS = 12
MIN_SPAN = 1200
MAX_PERIOD = 400
# The stream is checked every this many new characters while it is short: a check costs a few milliseconds.
CHECK_EVERY_CHARS = 256
# Once the text is longer, every time it has grown by this share since the last check. A check reads the
# whole text (reasoning split off, the degenerate class), so a fixed step made a long stream quadratic (a
# 46K-character stream took 20 times as long); growing steps keep all the checks of one stream together
# within about nine readings of it, and end a loop at most an eighth later than a check at every step would.
CHECK_GROWTH = 1 / 8


def cycle_span(text: str, max_period: int = MAX_PERIOD) -> tuple[int, int]:
    """The longest exact periodic tail of ``text``: (period, span in characters) for the period whose
    repetition covers the most of the end of the text; (0, 0) when nothing repeats."""
    best = (0, 0)
    for period in range(1, min(max_period, len(text) // 2) + 1):
        unit = text[-period:]
        # Grow the number of whole units the tail holds, doubling, then settle it exactly.
        reps = 1
        while (reps * 2) * period <= len(text) and text[-(reps * 2) * period:] == unit * (reps * 2):
            reps *= 2
        while (reps + 1) * period <= len(text) and text[-(reps + 1) * period:] == unit * (reps + 1):
            reps += 1
        if reps >= 2 and reps * period > best[1]:
            best = (period, reps * period)
    return best


def certainly_degenerate(text: str) -> bool:
    """True when the text ends in an exact cycle repeated far past anything a real answer repeats, and is
    degenerate by the bench's own class (so the cut reply is recorded as degenerate)."""
    period, span = cycle_span(text[-(MIN_SPAN * 4):])
    if period == 0 or span < MIN_SPAN or span // period < MIN_REPEATS:
        return False
    return is_degenerate(text)


def recorded_text(raw_content: str, raw_reasoning: str = "") -> str:
    """The text the truncation class is computed on, as the reply will be stored: inline reasoning split
    off the content, the reasoning used only when there is no content."""
    answer, inline = split_reasoning(raw_content)
    thoughts = "\n\n".join(p for p in (raw_reasoning, inline) if p)
    return answer or thoughts


def next_check(checked_at: int) -> int:
    """The streamed size at which the text is checked next, after a check at ``checked_at`` characters."""
    return checked_at + max(CHECK_EVERY_CHARS, int(checked_at * CHECK_GROWTH))


class LoopWatch:
    """Told the streamed size as it grows; says when the text is due a check (``next_check``)."""

    def __init__(self) -> None:
        self._checked_at = 0

    def due(self, size: int) -> bool:
        if size < next_check(self._checked_at):
            return False
        self._checked_at = size
        return True

    @staticmethod
    def looping(content: str, reasoning: str) -> bool:
        return certainly_degenerate(recorded_text(content, reasoning))
