"""One definition per short label (Det, the index's size classes, AA): the definitions follow the code that
makes the labels, and the built site shows them where the labels are and on "Reading the leaderboard"."""

from __future__ import annotations

import html
import math
from pathlib import Path

from engine.index.schema import SIZE_CLASS_LIMITS, size_class
from engine.publish.glossary import AA, DET, JUDGED_DET, aa_title, size_class_definitions


def test_each_size_class_definition_says_what_size_class_does() -> None:
    defs = size_class_definitions()
    assert list(defs) == [label for label, _ in SIZE_CLASS_LIMITS]
    low = 0.0
    for label, below in SIZE_CLASS_LIMITS:
        text = defs[label]
        if low:
            assert f"{low:g}B" in text and size_class(low) == label, text
        if math.isfinite(below):
            assert f"under {below:g}B" in text, text
            assert size_class(below - 0.01) == label and size_class(below) != label, text
        else:
            assert "and above" in text and size_class(10_000) == label, text
        low = below


def test_aa_is_explained_only_where_it_is_used() -> None:
    assert aa_title("AIME 2025; AA implementation") and aa_title("AA-LCR") and aa_title("Telecom (AA)")
    assert aa_title("") == "" and aa_title("AAA") == "" and aa_title("thinking") == ""
    assert "Artificial Analysis" in AA


def _text(page: Path) -> str:
    return html.unescape(page.read_text(encoding="utf-8"))


def test_the_glossary_and_the_labels_say_the_same(committed_site: Path) -> None:
    reading = _text(committed_site / "reading-the-leaderboard" / "index.html")
    assert 'id="glossary"' in reading
    for text in (DET, JUDGED_DET, AA, *size_class_definitions().values()):
        assert text.split(": ", 1)[1] in reading, text
    # The board shows 0–100, and the page says so.
    assert "(0–1)" not in reading and "(0–100)" in reading
    board = _text(committed_site / "leaderboard" / "index.html")
    assert f'title="{DET}">Det score' in board and f'title="{JUDGED_DET}">Judged det' in board
    card = next(p for p in sorted((committed_site / "models").glob("*/index.html")) if "lb-tasks" in p.read_text())
    assert f'<abbr title="{DET}">Det</abbr>' in _text(card)

