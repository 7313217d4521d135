"""The board and the Index table as CSV: written at build beside the pages, linked from them, and saying what
the pages say (the same figures, formatted by the same functions)."""

from __future__ import annotations

import csv
import html
import io
import json
import re
from pathlib import Path

from engine.core.results import FLEET_DIR
from engine.publish.board import board_from_dir
from engine.publish.site.downloads import BOARD_CSV, INDEX_CSV, INDEX_JSON, board_csv

ROOT = Path(__file__).resolve().parents[2]


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_a_formula_in_a_name_stays_text(site_fleet: Path) -> None:
    board = board_from_dir(site_fleet / "results", site_fleet / "models.yaml")
    rows = _rows(board_csv(board))
    assert len(rows) == len(board.rows)
    assert all(not r["model"].startswith(("=", "+", "@")) for r in rows)
    assert not any(v.startswith("=") for r in rows for v in r.values())


def test_the_downloads_are_linked_and_match_the_pages(committed_site: Path) -> None:
    board_page = (committed_site / "leaderboard" / "index.html").read_text(encoding="utf-8")
    index_page = (committed_site / "index" / "index.html").read_text(encoding="utf-8")
    assert 'href="../leaderboard.csv"' in board_page and 'href="../leaderboard.json"' in board_page
    assert 'href="small-lm-index.csv"' in index_page
    board = json.loads((committed_site / "leaderboard.json").read_text(encoding="utf-8"))
    rows = _rows((committed_site / BOARD_CSV).read_text(encoding="utf-8"))
    assert [r["model"] for r in rows] == [r["model"] for r in board["rows"]]
    for row in rows:
        # The Detailed tab's cells for this model hold the CSV's figures.
        assert f'>{row["det"]}</td>' in board_page and f'>{row["run_time_min"]}</td>' in board_page
    index_rows = _rows((committed_site / INDEX_CSV).read_text(encoding="utf-8"))
    text = html.unescape(index_page)
    assert len(index_rows) > 100
    for r in index_rows[:20]:
        if r["index"]:
            cell = re.search(rf'{re.escape(r["model"])}</a>.*?<td[^>]*><strong>([\d.]+)</strong>', text, re.S)
            assert cell and cell.group(1) == r["index"], r["model"]
            assert f'likely {r["likely_low"]}–{r["likely_high"]}' in text


def test_the_committed_board_csv_is_the_committed_board() -> None:
    board = board_from_dir(ROOT / FLEET_DIR, ROOT / "models.yaml")
    rows = _rows(board_csv(board))
    assert rows[0]["model"] == board.rows[0].model and rows[0]["run_time_min"] == f"{board.rows[0].run_time_min:.1f}"


def test_the_index_json_gives_every_figure_its_source(committed_site: Path) -> None:
    """The Index as JSON: linked from its page, the same rows and figures as the CSV, and every reported figure
    naming where it was read (an estimate its likely range instead)."""
    index_page = (committed_site / "index" / "index.html").read_text(encoding="utf-8")
    assert 'href="small-lm-index.json"' in index_page
    doc = json.loads((committed_site / INDEX_JSON).read_text(encoding="utf-8"))
    csv_rows = {r["id"]: r for r in _rows((committed_site / INDEX_CSV).read_text(encoding="utf-8"))}
    assert [m["id"] for m in doc["models"]] == list(csv_rows)
    reported = estimated = 0
    for m in doc["models"]:
        row = csv_rows[m["id"]]
        assert (f"{m['index']:.1f}" if m["index"] is not None else "") == row["index"], m["id"]
        for f in m["figures"]:
            if f["benchmark"] in doc["core_benchmarks"]:
                assert f"{f['value']:.1f}" == row[f["benchmark"]] and f["kind"] == row[f"{f['benchmark']} kind"]
            if f["kind"] == "estimated":
                estimated += 1
                assert f["likely_low"] <= f["value"] <= f["likely_high"], (m["id"], f)
            else:
                reported += 1
                assert (f["source_url"] or f["secondary_url"] or "").startswith("https://"), (m["id"], f)
    assert reported > 300 and estimated > 50
