"""The HTML renderers and the leaderboard command: escaping, links, the single file and its JSON."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from engine.cli import build_parser, main
from engine.core.results import load_run_file
from engine.publish.board import Board, board_from_dir
from engine.publish.evidence import ModelRun, task_evidence
from engine.publish.html import Links, card_html, leaderboard_html, safe_json, separability_html, standalone_html
from engine.publish.site.macros import cli_reference_markdown
from engine.publish.task_page import tasks_index_html
from tests.publish.fleet_site import HOSTILE, HOSTILE_FAMILY


@pytest.fixture(scope="module")
def board(site_fleet: Path) -> Board:
    return board_from_dir(site_fleet / "results", site_fleet / "models.yaml")


def _no_live_markup(text: str) -> None:
    assert HOSTILE not in text
    assert HOSTILE_FAMILY not in text
    assert "javascript:alert" not in text
    assert "onerror=alert" not in text.replace("onerror=alert(1)&gt;", "")


def test_everything_from_a_result_file_is_escaped(board: Board) -> None:
    links = Links(root="../")
    parts = [leaderboard_html(board, links), separability_html(board, links)]
    parts += [card_html(board, r, links) for r in board.rows]
    text = "".join(parts)
    _no_live_markup(text)
    assert "&lt;img src=x onerror=alert(1)&gt;" in text
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in text


def test_json_in_a_page_cannot_close_its_script() -> None:
    text = safe_json({"x": "</script><script>alert(1)</script>", "y": "a&b"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"x": "</script><script>alert(1)</script>", "y": "a&b"}


def test_links_follow_the_mode(board: Board) -> None:
    slug = board.rows[0].slug
    assert f'href="../models/{slug}/"' in leaderboard_html(board, Links(root="../"))
    assert f'href="#m-{slug}"' in leaderboard_html(board, Links(mode="anchor"))


def test_each_module_score_opens_its_tasks_at_that_model_and_the_single_file_has_no_such_link(board: Board
                                                                                              ) -> None:
    site = leaderboard_html(board, Links(root="../"))
    links = re.findall(r'href="\.\./tasks/\?a=([^"#]+)#mod-([a-z_]+)"', site)
    scored = {(r.slug, c.module) for r in board.rows for c in r.modules if c.det is not None}
    assert set(links) == scored and len(links) == len(scored)
    assert "tasks/" not in leaderboard_html(board, Links(mode="anchor"))


def test_the_task_list_has_a_section_per_module_each_task_marked_for_the_script(site_fleet: Path) -> None:
    path = next((site_fleet / "results").glob("*_raw_results.json"))
    run = load_run_file(path)
    tasks = task_evidence([ModelRun(slug="m", model=run.settings.model, run=run, verdicts={})])
    text = tasks_index_html(tasks)
    modules = list(dict.fromkeys(t.module for t in tasks))
    assert re.findall(r'<h2 id="mod-([a-z_]+)">', text) == modules and len(modules) == 7
    assert re.findall(r'data-ev-task="([^"]+)"', text) == [t.slug for t in sorted(
        tasks, key=lambda t: modules.index(t.module))]
    assert "data-ev-index" in text and "data-ev-for hidden" in text


def test_standalone_file_is_self_contained(board: Board) -> None:
    text = standalone_html(board)
    _no_live_markup(text)
    assert not re.search(r"<(script|link|img|iframe)[^>]+(src|href)=", text), "the file must load nothing"
    assert "Content-Security-Policy" in text and "sha256-" in text
    for row in board.rows:
        assert f'id="m-{row.slug}"' in text


def test_standalone_radar_is_svg_without_a_chart_library(board: Board) -> None:
    """The single file once inlined plotly (4.85 MB for one model) for its radars: now each is an SVG whose
    dots sit at the module scores, and the file stays small."""
    text = standalone_html(board)
    assert "Plotly.newPlot" not in text and "plotly.js" not in text.lower()
    assert len(text.encode()) < 400_000, len(text.encode())
    scored = [r for r in board.rows if r.radar.labels]
    assert scored
    assert text.count('<svg class="lb-radar-svg"') == len(scored)
    row = scored[0]
    section = text.split(f'id="m-{row.slug}"', 1)[1]
    dots = re.findall(r"<title>([^<]+): ([0-9.]+)</title>", section.split("</svg>", 1)[0])
    assert [float(v) for _, v in dots] == [round(v, 1) for v in row.radar.values]


def test_leaderboard_command_writes_html_and_json(site_fleet: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "board" / "leaderboard.html"
    code = main(
        [
            "leaderboard",
            "--results-dir",
            str(site_fleet / "results"),
            "--models",
            str(site_fleet / "models.yaml"),
            "--output",
            str(out),
        ]
    )
    assert code == 0
    data = json.loads((out.parent / "leaderboard.json").read_text(encoding="utf-8"))
    assert len(data["rows"]) == 12 and data["k"] == 3
    assert data["separability"]["pair_count"] == 66
    assert "12 models" in capsys.readouterr().out
    assert out.read_text(encoding="utf-8").startswith("<!doctype html>")


def test_leaderboard_command_refuses_an_empty_folder(tmp_path: Path, capsys) -> None:
    assert main(["leaderboard", "--results-dir", str(tmp_path)]) == 2
    assert "no result files" in capsys.readouterr().err
    assert main(["leaderboard", "--results-dir", str(tmp_path / "missing")]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_cli_reference_has_every_command() -> None:
    text = cli_reference_markdown()
    parser = build_parser()
    names = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices
    for name in names:
        assert f"## sllmb {name}\n" in text
    assert "--results-dir" in text and "leaderboard.json" in text


def test_one_model_says_what_fills_the_pair_tables(capsys, tmp_path: Path) -> None:
    """The committed board has one row: no "0 of 0 pairs separable", no empty table beside a "none" row; the
    chip, the separability page and `sllmb leaderboard` say a second model makes the first pair."""
    from engine.core.results import FLEET_DIR
    from engine.publish.html import NO_PAIRS

    root = Path(__file__).resolve().parents[2]
    one = board_from_dir(root / FLEET_DIR, root / "models.yaml")
    assert len(one.rows) == 1 and one.separability.pair_count == 0
    links = Links(root="../")
    page = html.unescape(separability_html(one, links))
    assert NO_PAIRS in page and "<table" not in page and "0 of 0" not in page
    assert one.rows[0].model in page
    board_text = html.unescape(leaderboard_html(one, links))
    assert NO_PAIRS in board_text and "0 of 0" not in board_text and "1 models" not in board_text
    out = tmp_path / "lb.html"
    assert main(["leaderboard", "--results-dir", str(root / FLEET_DIR), "--output", str(out)]) == 0
    printed = capsys.readouterr().out
    assert NO_PAIRS in printed and "1 model," in printed and "0 of 0" not in printed


def test_board_rows_carry_their_filter_values_escaped(board: Board) -> None:
    """Each model's bar, params row and detailed row holds the bucket, family and judge state the board model
    gave it (the page's script only compares them), escaped; the filters offer every bucket and judge state."""
    text = leaderboard_html(board, Links(root="../"))
    _no_live_markup(text)
    for row in board.rows:
        attrs = (
            f'data-size="{html.escape(row.size.bucket)}" data-family="{html.escape(row.size.family or "")}" '
            f'data-judge="{row.judge_state}"'
        ).replace("{", "&#123;").replace("}", "&#125;")
        # the bar (or the not-ranked line), the By params row and the Detailed row
        assert text.count(attrs) >= 3, (row.model, attrs)
    assert {o.value for o in board.filters.judge} == {"judged", "partial", "fallback"}
    assert [o.value for o in board.filters.buckets][:5] == ["Under 2B", "2B to 5B", "5B to 10B", "10B to 24B",
                                                            "24B and above"]
    assert sum(o.count for o in board.filters.buckets) == len(board.rows)
    assert HOSTILE_FAMILY in {o.value for o in board.filters.families}
    assert f"Showing {len(board.rows)} of {len(board.rows)} models." in text
    for name in ("size", "family", "judge"):
        assert f'data-lb-filter="{name}"' in text
