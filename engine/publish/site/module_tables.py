"""The methodology's per-module tables (weights, the judge's rules), rendered from the module specs.

The pages used to spell each module's weights and judge policy by hand beside the code's own copy; now the
registry (``engine.episodes.SPECS``) is the one source and the pages only format it.
"""

from __future__ import annotations

from engine.analysis.scoring import PRESETS
from engine.episodes import SPECS
from engine.episodes.spec import JudgePolicy

# What each judge policy means in the table's two columns: sent to the judge, and may the verdict move.
_JUDGE_CELLS: dict[JudgePolicy, tuple[str, str]] = {
    "movable": ("yes", "yes, under the thresholds below"),
    "advisory": ("yes", "no: the judge's opinion is recorded, the verdict stands"),
    "never_sent": ("never", "—"),
}
# Rows go from what the judge may change most to what it never sees.
_JUDGE_ORDER: tuple[JudgePolicy, ...] = ("movable", "advisory", "never_sent")


def weights_table_markdown() -> str:
    rows = ["| module | " + " | ".join(PRESETS) + " | tasks in the bank |",
            "| --- | " + " | ".join("---:" for _ in PRESETS) + " | ---: |"]
    for spec in SPECS.values():
        shares = spec.weights.model_dump()
        rows.append(f"| {spec.name} | " + " | ".join(f"{shares[p]:.2f}" for p in PRESETS) + f" | {spec.bank_tasks} |")
    return "\n".join(rows)


def judge_table_markdown() -> str:
    rows = ["| module | sent to the judge | may the verdict move? |", "| --- | --- | --- |"]
    for policy in _JUDGE_ORDER:
        sent, moves = _JUDGE_CELLS[policy]
        rows += [f"| {spec.name} | {sent} | {moves} |" for spec in SPECS.values() if spec.judge == policy]
    return "\n".join(rows)
