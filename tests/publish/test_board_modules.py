"""The board's module columns, labels and radar spokes come from the module specs of the registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.episodes import MODULE_NAMES, SPECS
from engine.publish.board import board_from_dir
from engine.publish.html import Links, detail_panel


def test_a_changed_label_in_a_spec_shows_up_on_the_board(site_fleet: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(SPECS, "format", SPECS["format"].model_copy(update={"label": "Layout"}))
    board = board_from_dir(site_fleet / "results", site_fleet / "models.yaml")
    assert board.module_labels["format"] == "Layout"
    assert board.modules == [m for m in MODULE_NAMES if m in board.modules], "columns in the registry's order"
    assert {c.label for r in board.rows for c in r.modules if c.module == "format"} == {"Layout"}
    assert any("Layout" in r.radar.labels for r in board.rows)
    header = '<th data-sort="num" data-key="format" title="raw det score, format">Layout</th>'
    assert header in detail_panel(board, Links())
