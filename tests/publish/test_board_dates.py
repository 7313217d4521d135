"""When each row was run and when the board last changed: only the dates the files record, one way of
writing them, shown on the card, the Detailed table, the board's heading line and the CSV."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.core.results import load_run_file, write_run_file
from engine.publish.board import Board, board_from_dir
from engine.publish.dates import NOT_RECORDED, date_text, newest
from engine.publish.html import Links, card_html, leaderboard_html
from engine.publish.site.downloads import board_csv

LATE = "2026-03-04T23:30:00-02:00"  # 2026-03-05 in UTC: the day is the UTC day
HOSTILE_STAMP = "<script>alert(1)</script>"


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("2026-01-01T01:00:00+00:00", "2026-01-01"),
        (LATE, "2026-03-05"),
        ("2026-01-01T01:00:00", "2026-01-01"),  # no offset: the bench writes UTC
        (None, NOT_RECORDED),
        ("", NOT_RECORDED),
        (HOSTILE_STAMP, NOT_RECORDED),
        ("2026-01-01T01:00:00+00:00" + " " * 100, NOT_RECORDED),
    ],
)
def test_a_board_date_is_the_utc_day_or_not_recorded(text: str | None, day: str) -> None:
    assert date_text(text) == day


def test_newest_compares_instants_not_text() -> None:
    # As text "2026-03-05T00:10:00+03:00" sorts after LATE; as an instant it is hours before it.
    assert newest(["2026-03-05T00:10:00+03:00", LATE, None, HOSTILE_STAMP]) == LATE
    assert newest([None, HOSTILE_STAMP]) is None


@pytest.fixture(scope="module")
def dated(site_fleet: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Board, str, str]:
    """The fleet with one unjudged row's run finishing later than everything else, and another's finished_at
    replaced by markup: (the board, the late row's model, the hostile row's model)."""
    root = tmp_path_factory.mktemp("dated")
    shutil.copytree(site_fleet / "results", root / "results")
    unjudged = [p for p in sorted((root / "results").glob("*_raw_results.json"))
                if not p.with_name(p.name.replace("_raw_results.json", "_judged.json")).exists()]
    assert len(unjudged) >= 2, "the fleet needs two unjudged rows (rewriting a judged row's file breaks its hash)"
    models = []
    for path, stamp in zip(unjudged[:2], (LATE, HOSTILE_STAMP), strict=True):
        run = load_run_file(path)
        run = run.model_copy(update={"provenance": run.provenance.model_copy(update={"finished_at": stamp})})
        path.unlink()
        write_run_file(path, run)
        models.append(run.settings.model)
    return board_from_dir(root / "results", site_fleet / "models.yaml"), models[0], models[1]


def test_rows_carry_the_files_dates_and_the_board_the_newest(dated) -> None:
    board, late, hostile = dated
    by_model = {r.model: r for r in board.rows}
    assert by_model[late].finished_at == LATE
    assert by_model[hostile].finished_at == HOSTILE_STAMP  # kept as data; never shown as it is
    judged = [r for r in board.rows if r.judged_at]
    assert judged and all(r.judge_state != "fallback" for r in judged)
    assert board.last_changed == LATE


def test_the_card_the_table_the_heading_and_the_csv_show_the_day(dated) -> None:
    board, late, hostile = dated
    links = Links()
    page = leaderboard_html(board, links)
    assert "last changed 2026-03-05: the newest day (UTC) a row's run finished or its judged file was written" in page
    assert '<small class="lb-when">run finished 2026-03-05</small>' in page
    assert HOSTILE_STAMP not in page and "alert(1)" not in page
    by_model = {r.model: r for r in board.rows}
    card = card_html(board, by_model[late], links)
    assert "<dt>Run finished</dt><dd>2026-03-05</dd>" in card
    hostile_card = card_html(board, by_model[hostile], links)
    assert f"<dt>Run finished</dt><dd>{NOT_RECORDED}</dd>" in hostile_card and "alert(1)" not in hostile_card
    judged_row = next(r for r in board.rows if r.judged_at)
    assert "<dt>Judged</dt><dd>2026-01-02</dd>" in card_html(board, judged_row, links)
    csv_text = board_csv(board)
    assert csv_text.splitlines()[0].split(",")[-2:] == ["run_finished", "result_file"]
    assert ",2026-03-05," in csv_text and "alert(1)" not in csv_text


def test_a_board_whose_files_record_no_date_says_so(dated) -> None:
    board, _, _ = dated
    undated = board.model_copy(update={"last_changed": None})
    assert "last changed: not recorded" in leaderboard_html(undated, Links())
