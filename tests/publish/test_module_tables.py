"""The methodology's weight and judge tables are rendered from the module specs, not written by hand."""

from __future__ import annotations

import pytest

from engine.episodes import MODULE_NAMES, SPECS
from engine.publish.site.module_tables import judge_table_markdown, weights_table_markdown
from tests.conftest import ROOT


def _rows(table: str) -> dict[str, list[str]]:
    lines = table.splitlines()[2:]  # past the header and the alignment row
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
    return {row[0]: row[1:] for row in cells}


def test_the_weights_table_has_each_spec_s_shares_and_bank_count() -> None:
    rows = _rows(weights_table_markdown())
    assert list(rows) == list(MODULE_NAMES)
    assert rows["tools"] == ["0.30", "0.38", "0.28", "13"]
    assert rows["knowledge"] == ["0.07", "0.06", "0.06", "4"]


def test_the_judge_table_follows_each_spec_s_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = _rows(judge_table_markdown())
    assert set(rows) == set(MODULE_NAMES)
    assert rows["multi_turn_if"] == ["yes", "yes, under the thresholds below"]
    assert rows["code"][0] == "yes" and rows["code"][1].startswith("no")
    assert rows["format"] == ["never", "—"]
    monkeypatch.setitem(SPECS, "format", SPECS["format"].model_copy(update={"judge": "advisory"}))
    assert _rows(judge_table_markdown())["format"][0] == "yes"


@pytest.mark.parametrize(("page", "macro"), [("scoring.md", "module_weights_table"), ("judge.md", "judge_rules_table")])
def test_the_methodology_pages_place_the_tables_by_macro(page: str, macro: str) -> None:
    text = (ROOT / "site_src" / "methodology" / page).read_text(encoding="utf-8")
    assert f"{{{{ {macro}() }}}}" in text
