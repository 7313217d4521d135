"""The one "cut and add a marker" rule for short text."""

from __future__ import annotations

from engine.core.textclip import shorten


def test_text_that_fits_is_returned_whole():
    assert shorten("abc", 3) == "abc"
    assert shorten("", 0) == ""


def test_cut_text_with_its_marker_is_exactly_the_limit_long():
    assert shorten("abcdefgh", 5) == "abcd…"
    assert shorten("abcdefgh", 5, "...") == "ab..."
    assert len(shorten("x" * 1000, 46)) == 46


def test_a_limit_shorter_than_the_marker_leaves_the_marker_alone():
    assert shorten("abcdefgh", 2, "...") == "..."
