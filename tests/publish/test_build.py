"""`mkdocs build --strict` from the committed results and from a synthetic fleet: pages, assets, nav."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.publish.fleet_site import HOSTILE, HOSTILE_MODEL, JINJA_MODEL

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE = re.compile(r"<(?:script|link|img|iframe|source)\b[^>]*\b(?:src|href)=\"(?:https?:)?//[^>]*>", re.I)


def _pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_committed_results_build_strict(committed_site: Path) -> None:
    for page in (
        "index.html",
        "leaderboard/index.html",
        "separability/index.html",
        "cli/index.html",
        "changelog/index.html",
        "contributing/add-a-model/index.html",
        "leaderboard.json",
    ):
        assert (committed_site / page).is_file(), page
    board = json.loads((committed_site / "leaderboard.json").read_text(encoding="utf-8"))
    committed = sorted((ROOT / "results" / "reference").glob("*_raw_results.json"))
    assert len(board["rows"]) == len(committed)
    # One page per row (the index's model pages are tested in test_index_pages.py).
    assert all((committed_site / "models" / r["slug"] / "index.html").is_file() for r in board["rows"])


def test_the_committed_board_says_what_the_committed_files_say(committed_site: Path) -> None:
    """Every reference row's numbers are the scoring of its result file, recomputed here independently."""
    from engine.analysis.scoring import score_run
    from engine.core.reference_setting import load_reference_setting
    from engine.core.results import load_run_file

    board = json.loads((committed_site / "leaderboard.json").read_text(encoding="utf-8"))
    rows = {r["source_file"]: r for r in board["rows"]}
    runs = {p.name: load_run_file(p) for p in sorted((ROOT / "results" / "reference").glob("*_raw_results.json"))}
    # One k for the whole board: the one the committed reference setting declares.
    k = load_reference_setting(ROOT / "results" / "reference" / "setting.yaml").k
    assert board["k"] == k
    for name, run in runs.items():
        card = score_run(run, k=k)
        row = rows[name]
        assert row["model"] == run.settings.model
        assert row["pass_k"] == pytest.approx(card.headline, abs=1e-6)
        assert row["det"] == pytest.approx(card.det_score, abs=1e-6)
        assert row["tasks_scored"] == card.tasks_scored and row["trials_excluded"] == card.trials_excluded
        assert row["run_time_min"] == pytest.approx(run.provenance.duration_s / 60, abs=0.05)


def _page_url(md: Path) -> str:
    rel = md.relative_to(ROOT / "site_src").with_suffix("")
    return f"{rel.as_posix()}/".replace("/index/", "/")


@pytest.mark.parametrize("folder", ["methodology", "servers"])
def test_every_page_of_a_section_is_in_the_nav(committed_site: Path, folder: str) -> None:
    home = (committed_site / "index.html").read_text(encoding="utf-8")
    pages = sorted((ROOT / "site_src" / folder).rglob("*.md"))
    assert pages
    for md in pages:
        assert f'href="{_page_url(md)}"' in home, f"{md} is missing from the nav"


def test_the_server_pages_are_linked_from_the_home_page_and_the_readme(committed_site: Path) -> None:
    """Not only the nav: the home page's own text and the README's server section name every server page."""
    home = (committed_site / "index.html").read_text(encoding="utf-8")
    article = home[home.index('<article'):]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Running against your own server"):]
    section = section[: section.index("\n## ", 1)]
    for md in sorted((ROOT / "site_src" / "servers").glob("*.md")):
        assert f'href="{_page_url(md)}"' in article, f"the home page does not link {md.name}"
        assert f"(site_src/servers/{md.name})" in section, f"the README's server section does not link {md.name}"


def test_fleet_site_has_a_page_per_model(fleet_site: Path, site_fleet: Path) -> None:
    board = json.loads((fleet_site / "leaderboard.json").read_text(encoding="utf-8"))
    assert len(board["rows"]) == 12
    for row in board["rows"]:
        page = fleet_site / "models" / row["slug"] / "index.html"
        assert page.is_file()
    hostile = next(r for r in board["rows"] if r["model"] == HOSTILE_MODEL)
    text = (fleet_site / "models" / hostile["slug"] / "index.html").read_text(encoding="utf-8")
    assert HOSTILE not in text and "&lt;img src=x onerror=alert(1)&gt;" in text


def test_jinja_in_a_models_yaml_field_is_never_rendered(fleet_site: Path) -> None:
    board = json.loads((fleet_site / "leaderboard.json").read_text(encoding="utf-8"))
    row = next(r for r in board["rows"] if r["model"] == JINJA_MODEL)
    text = (fleet_site / "models" / row["slug"] / "index.html").read_text(encoding="utf-8")
    assert "&#123;&#123; 7*7 &#125;&#125;-model" in text and "49-model" not in text


def test_no_page_loads_anything_from_outside(fleet_site: Path) -> None:
    for page in _pages(fleet_site):
        text = page.read_text(encoding="utf-8")
        # A canonical link names the page's public address; it is not a request.
        loads = [m for m in OUTSIDE.findall(text) if 'rel="canonical"' not in m]
        assert not loads, f"{page} loads something from outside the site: {loads[:3]}"
        assert "fonts.googleapis" not in text and "fonts.gstatic" not in text


# The bound on one page, everything it loads from the site counted (its assets and, on a task page, its
# trial data).
PAGE_LIMIT = 1_500_000


def test_a_model_card_draws_its_radar_as_svg_and_weighs_under_the_limit(fleet_site: Path) -> None:
    """plotly made a card weigh 5.8 MB for one radar; the card now draws it as the single file does."""
    assert not (fleet_site / "assets" / "plotly.min.js").exists()
    for page in _pages(fleet_site):  # no page loads it (the changelog may still name it in prose)
        assert not re.search(r"<script[^>]*plotly", page.read_text(encoding="utf-8")), page
    for row in json.loads((fleet_site / "leaderboard.json").read_text(encoding="utf-8"))["rows"]:
        page = fleet_site / "models" / row["slug"] / "index.html"
        card = page.read_text(encoding="utf-8")
        assert card.count('<svg class="lb-radar-svg"') == 1
        assets = re.findall(r'(?:src|href)="((?:\.\./)+assets/[^"?#]+)', card)
        weight = page.stat().st_size + sum((page.parent / a).resolve().stat().st_size for a in set(assets))
        assert weight <= PAGE_LIMIT, (row["slug"], weight)


def test_the_404_page_leads_somewhere(committed_site: Path) -> None:
    page = (committed_site / "404.html").read_text(encoding="utf-8")
    assert "Page not found" in page
    for target in ("leaderboard/", "methodology/"):
        assert re.search(rf'<a href="[^"]*/{target}">', page), target
    assert re.search(r'<a href="[^"]*/\.?">Home</a>', page)  # "/." as Material's own logo link


def test_the_reference_readme_quotes_the_boards_run_time(committed_site: Path) -> None:
    """One run time (engine.run.runcost.run_minutes): the README's table, the board's Detailed tab and
    leaderboard.json give the same minutes for every committed file (the README said 23.6, the card 27.6)."""
    from engine.publish.glossary import RUN_TIME

    board = json.loads((committed_site / "leaderboard.json").read_text(encoding="utf-8"))
    readme = (ROOT / "results" / "reference" / "README.md").read_text(encoding="utf-8")
    page = (committed_site / "leaderboard" / "index.html").read_text(encoding="utf-8")
    assert "Run time (min)" in page and "summed over every invocation" in RUN_TIME
    for row in board["rows"]:
        line = next(x for x in readme.splitlines() if f"`{row['source_file']}`" in x and x.startswith("|"))
        quoted = re.search(r"\| ([\d.]+) min\b[^|]*\|\s*$", line)
        assert quoted, line
        shown = f"{row['run_time_min']:.1f}"
        assert quoted.group(1) == shown, (line, shown)
        assert f'data-v="{row["run_time_min"]!r}">{shown}</td>' in page
