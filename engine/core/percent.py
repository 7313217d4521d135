"""A score's share (0-1) on the 0-100 scale: as a number for the board's data, as text for the terminal and reports.

Two functions because the two users need two outputs: the board keeps a number (rounded to four places, so
``leaderboard.json`` carries no float noise) that its pages format later; the commands print text at once.
"""

from __future__ import annotations


def percent(share: float | None) -> float | None:
    """``share`` on 0-100, rounded to four places; None stays None."""
    return None if share is None else round(share * 100.0, 4)


def percent_text(share: float | None) -> str:
    """``share`` on 0-100 as the terminal shows it, one decimal; "—" for none."""
    return "—" if share is None else f"{share * 100:.1f}"
