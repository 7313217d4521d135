"""One definition per term the board and the index show in short: the card's and the Detailed tab's "Det",
the index's size classes, "AA", and the run time every surface quotes. The labels' titles (``title_attr``)
and the glossary on "Reading the leaderboard" (``glossary_markdown``) both read them from here, so a hover
and the page never disagree."""

from __future__ import annotations

import math
import re

from engine.index.aa import EVALUATOR
from engine.index.schema import SIZE_CLASS_LIMITS
from engine.publish.board import SIZE_BUCKETS
from engine.publish.escape import esc

DET = (
    "Det (det score): the deterministic score, 0-100: like pass^k a weighted mean over modules, but of each task's "
    "mean graded score over its trials, so it gives partial credit (how near the misses were); before the judge"
)
JUDGED_DET = "Judged det: the Det score after the optional judge's allowed changes; empty for an unjudged row"
RUN_TIME = (
    "Run time: the wall time of a run's trials, in minutes, summed over every invocation that wrote its result "
    "file (a resumed run counts each attempt, not the pause between); a property of the machine and the "
    "concurrency as much as the model"
)
AA = f"AA: {EVALUATOR}, an independent evaluator that runs the public benchmarks itself"
_AA_WORD = re.compile(r"\bAA\b")


def _billions(value: float) -> str:
    return f"{value:g}B"


def size_class_definitions() -> dict[str, str]:
    """Each Small LM Index size class and the total parameters it covers, from the index's own table."""
    out: dict[str, str] = {}
    low = 0.0
    for label, below in SIZE_CLASS_LIMITS:
        span = f"{_billions(low)} and above" if math.isinf(below) else (
            f"under {_billions(below)}" if low == 0 else f"{_billions(low)} to under {_billions(below)}"
        )
        out[label] = f"{label}: {span} total parameters (Small LM Index size class)"
        low = below
    return out


def title_attr(definition: str) -> str:
    """A ``title="..."`` attribute holding ``definition``, escaped."""
    return f' title="{esc(definition)}"'


def abbr(label: str, definition: str) -> str:
    return f"<abbr{title_attr(definition)}>{esc(label)}</abbr>"


def aa_title(text: str) -> str:
    """The title attribute for a text that uses "AA" (an index score's variant), else nothing."""
    return title_attr(AA) if _AA_WORD.search(text) else ""


def glossary_markdown() -> str:
    """The glossary section of "Reading the leaderboard": every term above, and how the index's size classes
    relate to the board's By params buckets (they are cut for different questions)."""
    rows = [DET, JUDGED_DET, RUN_TIME, *size_class_definitions().values(), AA]
    lines = ["| term | meaning |", "| --- | --- |"]
    for text in rows:
        term, meaning = text.split(": ", 1)
        lines.append(f"| **{term}** | {meaning.replace('|', '&#124;')} |")
    buckets = ", ".join(label for label, _, _ in SIZE_BUCKETS)
    lines += [
        "",
        f"The index's four size classes are not the board's *By params* buckets ({buckets}): the classes "
        "group the index's many models coarsely for its filter; the buckets cut the board finer, where a few "
        "billion parameters decide what fits on a machine.",
    ]
    return "\n".join(lines)
