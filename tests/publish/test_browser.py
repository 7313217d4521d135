"""The built site and the single-file board in real headless Chromium (Debian's, driven by Playwright)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.publish.board import board_from_dir
from engine.publish.html import standalone_html
from tests.publish.fleet_site import HOSTILE, HOSTILE_FAMILY, HOSTILE_MODEL

pytestmark = pytest.mark.browser


def _load(page, url: str) -> None:
    page.goto(url, wait_until="load")


def _site_pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix().removesuffix("index.html") for p in site.rglob("index.html"))


def test_every_fleet_page_loads_clean(fleet_site: Path, fleet_url: str, page_factory) -> None:
    page, watch = page_factory((fleet_url,))
    pages = _site_pages(fleet_site)
    assert len(pages) > 20
    for rel in pages:
        _load(page, fleet_url + rel)
        assert not watch.errors, f"{rel}: {watch.errors}"
    assert not watch.outside, watch.outside
    assert not watch.dialogs


def test_every_committed_page_loads_clean(committed_site: Path, committed_url: str, page_factory) -> None:
    page, watch = page_factory((committed_url,))
    for rel in _site_pages(committed_site):
        _load(page, committed_url + rel)
        assert not watch.errors, f"{rel}: {watch.errors}"
    assert not watch.outside and not watch.dialogs


def test_tabs_switch(site_fleet: Path, fleet_url: str, page_factory) -> None:
    page, watch = page_factory((fleet_url,))
    _load(page, fleet_url + "leaderboard/")
    tiers = page.locator("[data-panel=tiers]")
    detail = page.locator("[data-panel=detail]")
    assert tiers.is_visible() and not detail.is_visible()
    page.click(".lb-tabs [data-tab=detail]")
    assert detail.is_visible() and not tiers.is_visible()
    page.click(".lb-tabs [data-tab=params]")
    assert page.locator("[data-panel=params]").is_visible() and not detail.is_visible()
    # A tier tab shows that tier alone.
    page.click(".lb-tabs [data-only=F]")
    visible = [el.get_attribute("data-tier") for el in page.locator(".lb-tier").all() if el.is_visible()]
    assert visible == ["F"]
    assert page.locator("[data-tier=F] .lb-b").count() >= 1
    page.click(".lb-tabs [data-only='']")
    # Every tier some model reached is shown; a tier no model reached is not drawn at all.
    reached = {r.tier for r in board_from_dir(site_fleet / "results", site_fleet / "models.yaml").rows if r.tier}
    shown = [el.get_attribute("data-tier") for el in page.locator(".lb-tier").all() if el.is_visible()]
    assert set(shown) == reached and len(shown) == len(reached) < 7
    assert not watch.errors


def _column(page, index: int) -> list[str]:
    return page.eval_on_selector_all(
        "[data-panel=detail] tbody tr", f"rows => rows.map(r => r.cells[{index}].dataset.v)"
    )


def test_sorting_a_numeric_column_is_numeric(fleet_url: str, page_factory) -> None:
    page, watch = page_factory((fleet_url,))
    _load(page, fleet_url + "leaderboard/")
    page.click(".lb-tabs [data-tab=detail]")
    heads = page.eval_on_selector_all("[data-panel=detail] thead th", "hs => hs.map(h => h.textContent)")
    for name in ("Run time (min)", "Det score", "Params"):
        index = heads.index(name)
        header = page.locator("[data-panel=detail] thead th").nth(index)
        header.click()
        values = _column(page, index)
        numbers = [float(v) for v in values if v]
        assert numbers == sorted(numbers, reverse=True), name
        assert all(v for v in values[: len(numbers)]), "empty cells sort last"
        header.click()
        numbers = [float(v) for v in _column(page, index) if v]
        assert numbers == sorted(numbers), name
    # Run times are spread over 20-100 minutes, so a text sort would differ from this numeric one somewhere.
    assert not watch.errors


def test_model_card_radar_and_tables_fit_a_laptop_and_a_phone(
    fleet_url: str, page_factory, artifacts: Path
) -> None:
    page, watch = page_factory((fleet_url,))
    _load(page, fleet_url + "leaderboard/")
    page.screenshot(path=str(artifacts / "leaderboard.png"), full_page=True)
    # Instant navigation: follow a link from the board to a card.
    page.locator("[data-panel=tiers] a.lb-b").first.click()
    page.wait_for_selector(".lb-radar svg.lb-radar-svg circle.dot", timeout=20_000)
    card = page.url
    # At 1366 px the modules table is whole: its box does not scroll, its last column is inside the article.
    page.set_viewport_size({"width": 1366, "height": 900})
    modules = page.locator(".lb-cardgrid .lb-scroll").first
    assert modules.evaluate("el => el.scrollWidth <= el.clientWidth + 1")
    page.screenshot(path=str(artifacts / "model-card.png"), full_page=True)
    # At 390 px a task's ✓/✗ marks are on screen without scrolling the table sideways.
    page.set_viewport_size({"width": 390, "height": 844})
    _load(page, card)
    mark = page.locator(".lb-tasks .lb-trial").first
    mark.scroll_into_view_if_needed()
    box = mark.bounding_box()
    assert box is not None and 0 <= box["x"] and box["x"] + box["width"] <= 390, box
    page.screenshot(path=str(artifacts / "model-card-phone.png"), full_page=False)
    assert not any(u.endswith("plotly.min.js") for u in watch.requests)
    assert not watch.errors and not watch.outside


def test_dark_mode(fleet_url: str, page_factory, artifacts: Path) -> None:
    page, watch = page_factory((fleet_url,))
    _load(page, fleet_url + "leaderboard/")
    light = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert page.get_attribute("body", "data-md-color-scheme") == "default"
    page.locator("form[data-md-component=palette] label:visible").first.click()
    page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
    dark = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert dark != light
    rgb = [int(x) for x in dark[dark.index("(") + 1 : dark.index(")")].split(",")[:3]]
    assert sum(rgb) < 200, dark
    page.screenshot(path=str(artifacts / "leaderboard-dark.png"))
    assert not watch.errors


def test_hostile_models_yaml_fields_are_text_everywhere(fleet_site: Path, fleet_url: str, page_factory) -> None:
    page, watch = page_factory((fleet_url,))
    board = json.loads((fleet_site / "leaderboard.json").read_text(encoding="utf-8"))
    slug = next(r["slug"] for r in board["rows"] if r["model"] == HOSTILE_MODEL)
    for rel in ("leaderboard/", "separability/", f"models/{slug}/"):
        _load(page, fleet_url + rel)
        assert page.locator("img[src=x]").count() == 0, rel
    # The model page's card shows the fields as text.
    assert HOSTILE in page.inner_text("article")
    # The search index holds the name too: its results must show it as text.
    page.click(".md-search__input")
    # Material fills the index in a worker; a query typed before it is ready is not re-run.
    page.wait_for_function(
        "(() => { const m = document.querySelector('.md-search-result__meta');"
        " return m && !/Initializing/i.test(m.textContent); })()", timeout=30_000)
    # Typed key by key: Material searches on keyboard input, which fill() does not send.
    page.locator(".md-search__input").press_sequentially("onerror", delay=30)
    page.wait_for_selector(".md-search-result__item", timeout=20_000)
    assert page.locator(".md-search-result img[src=x]").count() == 0
    assert "<img src=x" in page.inner_text(".md-search-result")
    assert page.title()
    assert not watch.dialogs, watch.dialogs
    assert not watch.errors


def test_standalone_file_in_the_browser(
    site_fleet: Path, tmp_path: Path, page_factory, artifacts: Path
) -> None:
    board = board_from_dir(site_fleet / "results", site_fleet / "models.yaml")
    path = tmp_path / "leaderboard.html"
    path.write_text(standalone_html(board), encoding="utf-8")
    page, watch = page_factory((path.as_uri(),))
    _load(page, path.as_uri())
    page.click(".lb-tabs [data-tab=detail]")
    slug = next(r.slug for r in board.rows if r.model == HOSTILE_MODEL)
    page.locator(f"[data-panel=detail] tbody a[href='#m-{slug}']").first.click()
    # The single file's radar is an inline SVG (no chart library), drawn with its module dots.
    page.wait_for_selector(".lb-cardsec:target .lb-radar svg.lb-radar-svg circle.dot", timeout=20_000)
    assert page.locator("img[src=x]").count() == 0
    assert HOSTILE in page.inner_text(f"#m-{slug}")
    page.screenshot(path=str(artifacts / "standalone-card.png"))
    assert not watch.errors, watch.errors
    assert not watch.outside and not watch.dialogs


def test_board_filters_hide_the_rows_they_exclude_in_every_tab(site_fleet: Path, fleet_url: str, page_factory) -> None:
    """On a board of many models: each filter option leaves exactly the models the board model gives that
    value (the hostile family included, as text), in the Detailed table, the tiers and By params alike."""
    page, watch = page_factory((fleet_url,))
    _load(page, fleet_url + "leaderboard/")
    board = board_from_dir(site_fleet / "results", site_fleet / "models.yaml")
    values = {
        "size": lambda r: r.size.bucket,
        "family": lambda r: r.size.family or "",
        "judge": lambda r: r.judge_state,
    }
    for name, of in values.items():
        options = page.eval_on_selector_all(f"[data-lb-filter={name}] option", "os => os.map(o => o.value)")
        assert len(options) > 2, (name, options)
        for value in options[1:]:
            page.select_option(f"[data-lb-filter={name}]", value)
            want = sorted(r.slug for r in board.rows if of(r) == value)
            for panel in ("detail", "tiers", "params"):
                page.click(f".lb-tabs [data-tab={panel}]")
                shown = page.eval_on_selector_all(
                    f"[data-panel={panel}] a[href*='models/']",
                    "as => [...new Set(as.filter(a => a.getClientRects().length)"
                    ".map(a => a.getAttribute('href').split('/').slice(-2)[0]))]",
                )
                assert sorted(shown) == want, (name, value, panel)
            count = page.inner_text(".lb-count")
            assert count == f"Showing {len(want)} of {len(board.rows)} models.", count
        page.select_option(f"[data-lb-filter={name}]", "")
    assert HOSTILE_FAMILY in page.inner_text("[data-lb-filter=family]")
    assert not watch.errors and not watch.dialogs
