"""Nothing clipped, as a visitor meets it: the site built from the committed results, served under
/small-llm-bench/, in real headless Chromium at 1366×900 and 390×844, light and dark (issue #30).

Measured in the page, not read from the HTML: a box that hides what it holds (overflow hidden or clip, its
content wider than it), a table or code block that needs sideways scrolling on a laptop, a chart label's size
on screen (its computed font size times the scale its SVG is drawn at), and what a phone shows without hover.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.publish.test_site_visitor import (
    BOARD_MODEL,
    SCHEMES,
    Visit,
    _index_model_with_estimate,
    deployed,  # noqa: F401 - the fixture, shared with the visitor tests
)

pytestmark = pytest.mark.browser

LAPTOP, PHONE = (1366, 900), (390, 844)

# Every element of the article whose box cuts off its own content (text-overflow: ellipsis included).
CUT = """() => [...document.querySelectorAll('article *')].filter(el => {
    if (!el.clientWidth || !el.getClientRects().length) return false;
    const s = getComputedStyle(el);
    return ['hidden', 'clip'].includes(s.overflowX) && el.scrollWidth > el.clientWidth + 1;
  }).map(el => el.tagName.toLowerCase() + '.' + el.className + ' "' + el.textContent.trim().slice(0, 40) + '" '
         + el.scrollWidth + ' > ' + el.clientWidth)"""

# Boxes matching a selector that need scrolling sideways to show what they hold.
SCROLLS = """sel => [...document.querySelectorAll(sel)].filter(el => el.getClientRects().length
    && el.scrollWidth > el.clientWidth + 1).map(el => sel + ' "' + el.textContent.trim().slice(0, 40) + '" '
    + el.scrollWidth + ' > ' + el.clientWidth)"""

# Every chart label smaller than 11 px on screen, or drawn outside its chart.
SMALL_TEXT = """() => [...document.querySelectorAll('svg.sli-chart text, svg.lb-radar-svg text')].flatMap(t => {
    const m = t.getScreenCTM(), size = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
    const r = t.getBoundingClientRect(), box = t.ownerSVGElement.getBoundingClientRect();
    const out = [];
    if (size < 11) out.push(`"${t.textContent}" is ${size.toFixed(1)} px`);
    if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
      out.push(`"${t.textContent}" is drawn outside its chart`);
    return out; })"""


@pytest.fixture
def visit_at(browser, deployed) -> Iterator:  # noqa: F811 - the imported fixture
    opened: list[Visit] = []

    def make(size: tuple[int, int], scheme: str = "light") -> Visit:
        v = Visit(browser, deployed[1], size[0], scheme)
        v.page.set_viewport_size({"width": size[0], "height": size[1]})
        opened.append(v)
        return v

    yield make
    for v in opened:
        v.close()


def _board_states(v: Visit) -> Iterator[str]:
    """The leaderboard page with each of its panels shown in turn."""
    v.open("leaderboard/")
    for tab in v.page.locator(".lb-tabs [data-tab]:not([data-only])").all():
        tab.click()
        yield f"leaderboard/ {tab.get_attribute('data-tab')}"


def _pages(v: Visit, site) -> Iterator[str]:
    yield from _board_states(v)
    for rel in ("index/", "cli/", "index/charts/", BOARD_MODEL, "board-changes/", _index_model_with_estimate(site)):
        v.open(rel)
        yield rel


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("size", (LAPTOP, PHONE), ids=("1366", "390"))
def test_nothing_is_cut_off(deployed, visit_at, size: tuple[int, int], scheme: str) -> None:  # noqa: F811
    """No box cuts its content off; on a laptop the Index table, the Detailed tab and the CLI reference's code
    blocks show every column without scrolling; a board name is whole on a phone; chart labels are 11 px."""
    v = visit_at(size, scheme)
    problems = []
    for where in _pages(v, deployed[0]):
        problems += [f"{where}: cut {c}" for c in v.page.evaluate(CUT)]
        problems += [f"{where}: {c}" for c in v.page.evaluate(SMALL_TEXT)]
        names = v.page.evaluate(SCROLLS, ".lb-b .n")
        problems += [f"{where}: a name runs past its column: {c}" for c in names]
        if size == LAPTOP:
            for sel in (".sli-scroll", ".lb-scroll", "article pre > code"):
                problems += [f"{where}: scrolls sideways at 1366 px: {c}" for c in v.page.evaluate(SCROLLS, sel)]
    assert not v.errors
    assert not problems, "\n".join(problems)


def test_a_phone_shows_the_ranges_and_a_tap_shows_the_variant(visit_at) -> None:
    """The index's likely range is text in its cell (a hover title was all there was, and a phone has none);
    a figure's variant and evaluator, or an estimate's range, open with a tap on the figure."""
    v = visit_at(PHONE)
    v.open("index/")
    first = v.page.locator("table.sli-table tbody tr").first
    index_cell = first.locator("td").nth(2)
    assert re.search(r"likely \d+\.\d–\d+\.\d", index_cell.inner_text()), index_cell.inner_text()
    figure = v.page.locator("table.sli-table td.sli-lab details.sli-note").first
    note = figure.locator("small")
    title = figure.locator("xpath=..").get_attribute("title")
    assert not note.is_visible()
    figure.locator("summary").click()  # what a tap on a phone fires
    assert note.is_visible(), "a tap on the figure did not show its note"
    assert note.inner_text() and note.inner_text() in title
    box = note.bounding_box()
    assert box is not None and box["width"] <= PHONE[0]
    estimate = v.page.locator("table.sli-table td.sli-estimated details.sli-note").first
    estimate.locator("summary").click()
    assert re.fullmatch(r"likely \d+\.\d–\d+\.\d", estimate.locator("small").inner_text())
    assert not v.errors and not v.failed
