"""The site as a visitor meets it: built from the committed results and served under /small-llm-bench/ (how
GitHub Pages serves a project site), in real headless Chromium at 1400 and 390 pixels, light and dark.

Every same-origin request must succeed, the index's filters must change its rows, estimates must carry their
outline, no page may scroll sideways on a phone, and axe-core (tests/publish/axe, installed by .ci/install) must
find no contrast failure. Screenshots of every main page at both widths and palettes go to artifacts/site/.
"""

from __future__ import annotations

import functools
import http.server
import re
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.publish.conftest import ROOT, free_port, mkdocs_build

pytestmark = pytest.mark.browser

PREFIX = "/small-llm-bench/"
AXE = ROOT / "tests" / "publish" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
# The one board row committed, and an index model with estimates (both exist in the committed data).
BOARD_MODEL = "models/smollm2-135m-instruct/"
MAIN_PAGES = {
    "home": "",
    "leaderboard": "leaderboard/",
    "separability": "separability/",
    "reading": "reading-the-leaderboard/",
    "methodology": "methodology/",
    "scoring": "methodology/scoring/",
    "index": "index/",
    "index-method": "methodology/small-lm-index/",
    "charts": "index/charts/",
    "can-i-run": "index/can-i-run/",
    "board-model": BOARD_MODEL,
    "board-changes": "board-changes/",
}
WIDTHS = (1400, 390)
SCHEMES = ("light", "dark")


class _SubPath(http.server.SimpleHTTPRequestHandler):
    """Serves the site under PREFIX only, as Pages does: anything outside it is a 404."""

    def translate_path(self, path: str) -> str:
        if not path.startswith(PREFIX):
            return str(Path(self.directory) / "__outside_the_prefix__")
        return super().translate_path("/" + path[len(PREFIX) :])

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def deployed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    port = free_port()
    out = tmp_path_factory.mktemp("deployed") / "site"
    done = mkdocs_build(out, port, site_url=f"http://127.0.0.1:{port}{PREFIX}")
    assert done.returncode == 0, done.stderr[-4000:]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(_SubPath, directory=str(out)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield out, f"http://127.0.0.1:{port}{PREFIX}"
    server.shutdown()


def _index_model_with_estimate(site: Path) -> str:
    for page in sorted((site / "models").glob("*/index.html")):
        if 'class="sli-estimated"' in page.read_text(encoding="utf-8"):
            return f"models/{page.parent.name}/"
    raise AssertionError("no index model page lists an estimate")


class Visit:
    """A browser context at one width and palette that records every failed same-origin request."""

    def __init__(self, browser, base: str, width: int, scheme: str) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
        self.context.route(
            "**/*", lambda route: route.continue_() if route.request.url.startswith(base) else route.abort()
        )
        self.page = self.context.new_page()
        self.base, self.failed, self.errors = base, [], []
        origin = re.match(r"https?://[^/]+", base).group(0)
        self.page.on(
            "response",
            lambda r: (
                self.failed.append(f"{r.status} {r.url}") if r.url.startswith(origin) and r.status >= 400 else None
            ),
        )
        # A same-origin request the browser cancelled because the visitor moved on (the favicon still loading
        # when the next page opens) is no failure; an outside request (aborted by the route above, ERR_FAILED)
        # and any other same-origin failure are.
        self.page.on("requestfailed", lambda r: None if r.url.startswith(origin) and r.failure == "net::ERR_ABORTED"
                     else self.failed.append(f"failed {r.url} ({r.failure})"))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def open(self, rel: str) -> None:
        self.page.goto(self.base + rel, wait_until="load")

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def visit(browser, deployed) -> Iterator:
    opened: list[Visit] = []

    def make(width: int = 1400, scheme: str = "light") -> Visit:
        v = Visit(browser, deployed[1], width, scheme)
        opened.append(v)
        return v

    yield make
    for v in opened:
        v.close()


def _axe(page) -> list[dict]:
    page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    return page.evaluate(
        """() => axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa']}}).then(r =>
             r.violations.map(v => ({id: v.id, nodes: v.nodes.map(n => n.target.join(' ') + ': ' +
               ((n.any[0] || {}).message || ''))})))"""
    )


def test_every_main_page_in_both_palettes_and_widths(deployed, visit, artifacts: Path) -> None:
    """No failed request, no script error, no sideways scroll at 390 px, no axe violation; screenshots."""
    site, _ = deployed
    assert AXE.is_file(), "axe-core is missing: run `npm ci --prefix tests/publish/axe` (.ci/install does)"
    pages = dict(MAIN_PAGES, **{"index-model": _index_model_with_estimate(site)})
    shots = artifacts / "site"
    shots.mkdir(exist_ok=True)
    problems = []
    for scheme in SCHEMES:
        for width in WIDTHS:
            v = visit(width, scheme)
            for name, rel in pages.items():
                v.open(rel)
                overflow = v.page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
                if overflow > 0:
                    problems.append(f"{scheme} {width} {rel}: scrolls sideways by {overflow}px")
                for violation in _axe(v.page):
                    problems.append(f"{scheme} {width} {rel}: {violation['id']} {violation['nodes'][:3]}")
                v.page.screenshot(path=str(shots / f"{name}-{width}-{scheme}.png"), full_page=True)
            problems += [f"{scheme} {width}: {f}" for f in v.failed]
            problems += [f"{scheme} {width}: script error {e}" for e in v.errors]
    assert not problems, "\n".join(problems)


def test_the_leaderboard_links_its_changes_read_from_the_repositorys_history(visit) -> None:
    """From the board to its changes: the committed row's file was added once (from this checkout's git
    history) and its entries link back to the model's page."""
    v = visit()
    v.open("leaderboard/")
    v.page.get_by_role("link", name="what changed on the board, and when").click()
    v.page.wait_for_url("**/board-changes/")
    # Instant navigation swaps the content after the address: wait for the new page's heading before reading.
    v.page.get_by_role("heading", name="Board changes", level=1).wait_for()
    shallow = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=ROOT, capture_output=True,
                             text=True, check=False).stdout.strip()
    if shallow == "true":
        # A shallow checkout (CI's default fetch depth) holds no history: the page must say so, not invent one.
        assert "history not available" in v.page.locator("article").inner_text().lower()
        return
    rows = v.page.locator("table.lb-changes tbody tr")
    whats = rows.locator("td:nth-child(3)").all_inner_texts()
    assert whats and whats[-1] == "added", (whats, v.page.locator("article").inner_text()[:1500])
    first = rows.last.locator("td:nth-child(2) a")
    assert first.inner_text() == "smollm2-135m-instruct"
    first.click()
    v.page.wait_for_url("**/" + BOARD_MODEL)
    assert not v.failed and not v.errors


def test_assets_are_linked_relative_to_each_page(deployed) -> None:
    """No page names an asset by a path that only works at the domain's root, or one folder too deep."""
    site, _ = deployed
    for page in sorted(site.rglob("*.html")):
        if page.name == "404.html":  # Material writes it with root-relative links by design
            continue
        text = page.read_text(encoding="utf-8")
        depth = len(page.relative_to(site).parts) - 1
        for src in re.findall(r'<(?:script|link)\b[^>]*\b(?:src|href)="([^"#?]+\.(?:js|css))"', text):
            assert not src.startswith("/"), f"{page}: {src}"
            if src.startswith(".."):
                assert src.count("../") <= depth, f"{page}: {src} climbs above the site"
            assert (page.parent / src).resolve().is_file(), f"{page}: {src} does not exist"
    index = (site / "index" / "index.html").read_text(encoding="utf-8")
    assert "assets/index/index.css" in index and "assets/index/index-table.js" in index


def test_index_filters_change_the_rows_and_estimates_are_outlined(deployed, visit) -> None:
    v = visit()
    v.open("index/")
    rows = v.page.locator("table.sli-table tbody tr")
    total = rows.count()
    assert total > 50
    v.page.select_option("[data-filter=size]", "Tiny")
    visible = v.page.eval_on_selector_all("table.sli-table tbody tr", "rs => rs.filter(r => !r.hidden).length")
    sizes = v.page.eval_on_selector_all(
        "table.sli-table tbody tr", "rs => rs.filter(r => !r.hidden).map(r => r.dataset.size)"
    )
    assert 0 < visible < total and set(sizes) == {"Tiny"}
    assert v.page.inner_text(".sli-count") == f"Showing {visible} of {total} models."
    v.page.select_option("[data-filter=size]", "")
    # Sorting by a header, from the keyboard.
    header = v.page.locator("table.sli-table th", has_text="Params (B)")
    header.focus()
    assert v.page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
    v.page.keyboard.press("Enter")
    values = v.page.eval_on_selector_all(
        "table.sli-table tbody tr",
        f"rs => rs.map(r => Number(r.cells[{header.evaluate('h => h.cellIndex')}].dataset.value))",
    )
    assert values == sorted(values, reverse=True)
    estimate = v.page.locator("table.sli-table td.sli-estimated").first
    style = estimate.evaluate("e => getComputedStyle(e).outlineStyle + ' ' + getComputedStyle(e).fontStyle")
    reported = v.page.locator("table.sli-table td.sli-lab").first
    assert style == "dashed italic"
    assert reported.evaluate("e => getComputedStyle(e).outlineStyle") == "none"
    assert not v.failed and not v.errors


def test_chart_dots_are_coloured_by_region_in_both_palettes(deployed, visit) -> None:
    colours = {}
    for scheme in SCHEMES:
        v = visit(1400, scheme)
        v.open("index/charts/")
        fills = v.page.eval_on_selector_all(
            "svg.sli-chart circle", "cs => [...new Set(cs.map(c => c.dataset.region + '=' + getComputedStyle(c).fill))]"
        )
        by_region = dict(f.split("=") for f in fills)
        assert len(set(by_region.values())) == len(by_region) >= 3, by_region
        assert "rgb(0, 0, 0)" not in by_region.values()
        colours[scheme] = by_region
        assert v.page.locator(".sli-chart-legend .sli-dot").count() == len(by_region)
    assert colours["light"] != colours["dark"]


def test_leaderboard_tabs_have_roles_and_arrow_keys(deployed, visit) -> None:
    v = visit()
    v.open("leaderboard/")
    tabs = v.page.locator("[role=tablist] [role=tab]")
    assert tabs.count() >= 3
    first = tabs.first
    panel = v.page.locator(f"#{first.get_attribute('aria-controls')}")
    assert panel.get_attribute("role") == "tabpanel" and panel.is_visible()
    assert [t.get_attribute("tabindex") for t in tabs.all()].count("0") == 1
    first.focus()
    v.page.keyboard.press("End")
    last = tabs.last
    assert last.get_attribute("aria-selected") == "true"
    assert v.page.evaluate("document.activeElement.id") == last.get_attribute("id")
    assert v.page.locator("#lb-panel-detail").is_visible() and not panel.is_visible()
    v.page.keyboard.press("ArrowRight")  # wraps to the first tab
    assert first.get_attribute("aria-selected") == "true" and panel.is_visible()
    v.page.keyboard.press("ArrowLeft")
    assert last.get_attribute("aria-selected") == "true"
    # The marks are explained on the page itself.
    v.page.click(".lb-legend summary")
    legend = v.page.inner_text(".lb-legend ul")
    for mark in ("⚠", "⚑", "*", "unjudged"):
        assert mark in legend
    assert not v.failed and not v.errors


def test_calculator_opens_on_a_fitting_model_and_rejects_impossible_context(deployed, visit) -> None:
    v = visit()
    v.open("index/can-i-run/")
    v.page.wait_for_function("document.getElementById('cir-fits').textContent !== ''")
    assert v.page.inner_text("#cir-fits") == "Fits"
    assert v.page.locator("#cir-device").evaluate("s => s.selectedIndex") == 0
    assert v.page.evaluate("getComputedStyle(document.getElementById('cir-fits')).fontWeight") == "700"
    for bad, message in (("-5", "at least 1"), ("1.5", "whole number"), ("99999999999", "at most")):
        v.page.fill("#cir-context", bad)
        v.page.dispatch_event("#cir-context", "input")
        assert v.page.locator("#cir-error").is_visible() and message in v.page.inner_text("#cir-error"), bad
        assert v.page.inner_text("#cir-total") == "—"
    v.page.fill("#cir-context", "4096")
    v.page.dispatch_event("#cir-context", "input")
    assert not v.page.locator("#cir-error").is_visible()
    assert re.fullmatch(r"\d+\.\d\d GB of \d+(\.\d+)? GB \(\d+(\.\d+)? GB usable\)", v.page.inner_text("#cir-total"))
    assert not v.failed and not v.errors


def test_calculator_caps_the_context_at_the_models_maximum_and_names_its_source(deployed, visit) -> None:
    """A million tokens of Gemma 3 1B (32K maximum, from its technical report) was sized as asked; now it is
    sized at 32,768 with a note naming the maximum and its source, and the input's max follows the model. A
    model whose file records no maximum is sized as asked and the page says so. The link keeps the number
    asked for, so a shared link gives the same capped answer."""
    v = visit(390)

    def ask(context: str) -> None:
        v.page.fill("#cir-context", context)
        v.page.dispatch_event("#cir-context", "input")

    v.open("index/can-i-run/")
    v.page.wait_for_function("document.getElementById('cir-fits').textContent !== ''")
    v.page.select_option("#cir-model", label="Gemma 3 1B IT")
    v.page.dispatch_event("#cir-model", "input")
    ask("32768")
    at_max = v.page.inner_text("#cir-total")
    assert v.page.inner_text("#cir-context-note") == ""
    assert v.page.get_attribute("#cir-context", "max") == "32768"
    ask("1000000")
    note = v.page.inner_text("#cir-context-note")
    assert v.page.locator("#cir-context-note").is_visible()
    assert note.startswith("Context capped at 32,768 tokens, the model's maximum context (source: https://"), note
    assert v.page.get_attribute("#cir-context-note a", "href").endswith("2503.19786.pdf")
    assert v.page.inner_text("#cir-total") == at_max and not v.page.locator("#cir-error").is_visible()
    v.page.dispatch_event("#cir-context", "change")  # the choice is saved in the address
    assert "model=gemma-3-1b-it" in v.page.url and "context=1000000" in v.page.url
    assert _axe(v.page) == []
    # The model has no room to scroll sideways for: the source's long address wraps.
    assert v.page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    v.page.reload(wait_until="load")
    v.page.wait_for_function("document.getElementById('cir-fits').textContent !== ''")
    assert v.page.input_value("#cir-context") == "1000000"
    assert v.page.inner_text("#cir-context-note").startswith("Context capped at 32,768 tokens")
    assert v.page.inner_text("#cir-total") == at_max

    v.page.select_option("#cir-model", label="Apertus-8B-Instruct")
    v.page.dispatch_event("#cir-model", "input")
    assert v.page.inner_text("#cir-context-note") == (
        "Maximum context not recorded for this model, so the context is not capped"
    )
    assert v.page.get_attribute("#cir-context", "max") == "10000000"
    cache = float(v.page.inner_text("#cir-cache").split()[0])
    assert cache > 100  # a million tokens of a full-attention 8B model, sized as asked
    assert not v.failed and not v.errors


def test_the_board_says_when_it_last_changed_and_the_card_when_its_run_finished(deployed, visit) -> None:
    """The committed row's run finished on 2026-12-03 (its result file's provenance.finished_at): the board's
    line says so and what the date means, and the card gives the same day."""
    from engine.core.results import load_run_file
    from engine.publish.dates import date_text

    run = load_run_file(ROOT / "results" / "reference" / "smollm2-135m-instruct_raw_results.json")
    day = date_text(run.provenance.finished_at)
    v = visit(390)
    v.open("leaderboard/")
    meta = v.page.inner_text(".lb-meta")
    assert f"last changed {day}: the newest day (UTC) a row's run finished" in meta
    v.open(BOARD_MODEL)
    assert v.page.locator("dl.lb-facts div", has_text="Run finished").inner_text().split() == ["Run", "finished", day]
    assert not v.failed and not v.errors


def test_search_finds_the_metric_names(deployed, visit) -> None:
    v = visit()
    v.open("")
    v.page.click(".md-search__input")
    v.page.wait_for_function(
        "(() => { const m = document.querySelector('.md-search-result__meta');"
        " return m && !/Initializing/i.test(m.textContent); })()",
        timeout=30_000,
    )
    v.page.locator(".md-search__input").press_sequentially("pass^k", delay=30)
    v.page.wait_for_selector(".md-search-result__item", timeout=20_000)
    links = v.page.eval_on_selector_all(".md-search-result__link", "ls => ls.map(l => l.href)")
    assert any("methodology/scoring/" in h for h in links), links[:10]
    assert not v.errors


def test_model_pages_link_their_correction_form(deployed) -> None:
    site, _ = deployed
    index_model = _index_model_with_estimate(site)
    text = (site / index_model / "index.html").read_text(encoding="utf-8")
    assert "/issues/new?template=correction.yml&amp;title=Correction" in text
    assert 'id="earlier-version"' in text
    board = (site / BOARD_MODEL / "index.html").read_text(encoding="utf-8")
    assert "/issues/new?title=Run" in board
    for page in ("index", "index/charts", "index/can-i-run"):
        assert "issues/new?template=correction.yml" in (site / page / "index.html").read_text(encoding="utf-8")
