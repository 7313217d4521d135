"""What every Small LM Index page shares: the words for where a figure came from, the sync that fills the
columns still empty, and how a missing number is shown.
"""

from __future__ import annotations

LABELS = {
    "lab": "Lab-reported",
    "other_lab": "Other lab",
    "independent": "Independent",
    "estimated": "Estimated",
}
# What fills the columns and charts that are empty until then (.github/workflows/index-sync.yml).
WEEKLY_SYNC = "the weekly index sync (Mondays, 05:17 UTC)"


def num_text(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value:.{digits}f}"
