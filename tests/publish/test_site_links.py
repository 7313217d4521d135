"""Links that keep their view, as a visitor meets them on the site served under /small-llm-bench/ in headless
Chromium: the board's tab, sort and filters, the Index table's filters and sort, and the calculator's choices
live in the query string. A click changes the URL; reloading that URL opens the same view; Back restores the
view before; a hostile query string is ignored and runs nothing; axe finds nothing on a filtered view."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from tests.publish.test_site_visitor import _axe, deployed, visit  # noqa: F401 - fixtures shared with it

pytestmark = pytest.mark.browser

HOSTILE = "%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E"
HOSTILE_QUERY = (
    f"?tab={HOSTILE}&sort=constructor&dir=__proto__&size={HOSTILE}&family=%3Cscript%3Ealert(2)%3C/script%3E"
    f"&judge=toString&region={HOSTILE}&open=javascript:alert(3)&model={HOSTILE}&device=__proto__"
    f"&quant=toString&context=1e9&{'x' * 300}=1"
)


def _query(page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def _board_view(page) -> dict:
    return page.evaluate(
        """() => ({
          tab: document.querySelector('.lb-tabs [aria-selected=true]').dataset.key,
          sorted: [...document.querySelectorAll('#lb-panel-detail th[aria-sort]')].map(
            h => h.dataset.key + ' ' + h.getAttribute('aria-sort')),
          filters: [...document.querySelectorAll('[data-lb-filter]')].map(f => f.value),
          count: document.querySelector('.lb-count').textContent,
          empty: document.querySelector('.lb-filtered-out').hidden ? '' :
            document.querySelector('.lb-filtered-out').textContent,
          shownRows: [...document.querySelectorAll('#lb-panel-detail tbody tr')].filter(r => !r.hidden).length,
        })"""
    )


def test_board_view_is_in_the_url_and_back_restores_it(deployed, visit) -> None:  # noqa: F811
    v = visit()
    v.open("")
    # In-site, as a visitor arrives: Material's instant navigation swaps the page in (document$).
    v.page.click("a.md-tabs__link[href$='leaderboard/'], nav a[href$='leaderboard/']")
    v.page.wait_for_selector("[data-lb] [data-lb-filter=size]")
    start = _board_view(v.page)
    total = start["shownRows"]
    assert start["tab"] == "tiers" and start["sorted"] == [] and start["filters"] == ["", "", ""]
    noun = "model" if total == 1 else "models"
    assert start["count"] == f"Showing {total} of {total} {noun}." and not start["empty"]

    v.page.click(".lb-tabs [data-key=detail]")
    assert _query(v.page) == {"tab": ["detail"]}
    v.page.click("#lb-panel-detail th[data-key=det]")
    assert _query(v.page) == {"tab": ["detail"], "sort": ["det"], "dir": ["desc"]}
    # The committed board has no model of 24B and above: the filter empties it and the page says which one.
    v.page.select_option("[data-lb-filter=size]", "24B and above")
    filtered = _board_view(v.page)
    assert _query(v.page)["size"] == ["24B and above"]
    assert filtered["shownRows"] == 0 and filtered["count"] == f"Showing 0 of {total} {noun}."
    assert "Size “24B and above”" in filtered["empty"] and v.page.locator(".lb-filtered-out").is_visible()
    assert not _axe(v.page), _axe(v.page)
    # The tiers tab hides the same rows: no bar, no tier heading left over.
    v.page.click(".lb-tabs [data-key=tiers]")
    assert v.page.locator("#lb-panel-tiers .lb-b:visible, #lb-panel-tiers .lb-tier:visible").count() == 0
    v.page.go_back()
    assert _board_view(v.page) == filtered

    # A shared link opens the same view.
    shared = v.page.url
    v.page.reload()
    assert _board_view(v.page) == filtered and v.page.url == shared

    # Back, one choice at a time, to where the visitor began; then to the page before.
    v.page.go_back()
    assert _board_view(v.page)["sorted"] == ["det descending"] and _board_view(v.page)["filters"] == ["", "", ""]
    assert _board_view(v.page)["shownRows"] == total
    v.page.go_back()
    assert _board_view(v.page)["sorted"] == [] and _board_view(v.page)["tab"] == "detail"
    v.page.go_back()
    assert _board_view(v.page) == start
    v.page.go_back()
    v.page.wait_for_function("!document.querySelector('[data-lb]')")
    assert urlsplit(v.page.url).path.endswith("/small-llm-bench/")
    assert not v.failed and not v.errors


def test_filters_show_the_rows_they_match(deployed, visit) -> None:  # noqa: F811
    """Each option of each filter shows exactly the rows whose written value it is, and says how many."""
    v = visit()
    v.open("leaderboard/")
    rows = v.page.eval_on_selector_all(
        "#lb-panel-detail tbody tr", "rs => rs.map(r => [r.dataset.size, r.dataset.family, r.dataset.judge])"
    )
    for i, name in enumerate(("size", "family", "judge")):
        for value in v.page.eval_on_selector_all(f"[data-lb-filter={name}] option", "os => os.map(o => o.value)"):
            v.page.select_option(f"[data-lb-filter={name}]", value)
            expected = sum(1 for r in rows if not value or r[i] == value)
            assert _board_view(v.page)["shownRows"] == expected, (name, value)
            assert (v.page.locator(".lb-filtered-out").is_visible()) == (expected == 0)
        v.page.select_option(f"[data-lb-filter={name}]", "")
    assert not v.errors


def test_index_table_filters_and_sort_are_in_the_url(deployed, visit) -> None:  # noqa: F811
    v = visit()
    v.open("index/")

    def view() -> dict:
        return v.page.evaluate(
            """() => ({
              size: document.querySelector('[data-filter=size]').value,
              open: document.querySelector('[data-filter=open]').checked,
              sorted: [...document.querySelectorAll('table.sli-table th[aria-sort]')].map(
                h => h.dataset.key + ' ' + h.getAttribute('aria-sort')),
              order: [...document.querySelectorAll('table.sli-table tbody tr')].filter(r => !r.hidden).map(
                r => r.cells[1].dataset.value),
              count: document.querySelector('.sli-count').textContent,
            })"""
        )

    start = view()
    v.page.select_option("[data-filter=size]", "Small")
    v.page.check("[data-filter=open]")
    v.page.click("table.sli-table th[data-key=params]")
    v.page.click("table.sli-table th[data-key=params]")
    assert _query(v.page) == {"size": ["Small"], "open": ["1"], "sort": ["params"], "dir": ["asc"]}
    chosen = view()
    assert chosen["sorted"] == ["params ascending"] and 0 < len(chosen["order"]) < len(start["order"])
    v.page.reload()
    assert view() == chosen
    v.page.go_back()
    assert view()["sorted"] == ["params descending"]
    for _ in range(3):
        v.page.go_back()
    assert view() == start
    assert not v.failed and not v.errors


def test_calculator_choices_are_in_the_url(deployed, visit) -> None:  # noqa: F811
    v = visit()
    v.open("index/can-i-run/")
    v.page.wait_for_function("document.getElementById('cir-fits').textContent !== ''")

    def answer() -> dict:
        return v.page.evaluate(
            """() => Object.fromEntries(['cir-model', 'cir-device', 'cir-quant', 'cir-context', 'cir-total',
              'cir-fits', 'cir-speed'].map(id => { const e = document.getElementById(id);
              return [id, 'value' in e && e.tagName !== 'TD' ? e.value : e.textContent]; }))"""
        )

    start = answer()
    v.page.select_option("#cir-device", index=2)
    v.page.select_option("#cir-quant", "Q8_0")
    v.page.fill("#cir-context", "32768")
    v.page.press("#cir-context", "Tab")  # leaving the field commits it (change)
    chosen = answer()
    q = _query(v.page)
    assert q["quant"] == ["Q8_0"] and q["context"] == ["32768"] and q["device"][0].startswith("Apple M3 Pro")
    assert chosen["cir-total"] != start["cir-total"]
    v.page.reload()
    v.page.wait_for_function("document.getElementById('cir-fits').textContent !== ''")
    assert answer() == chosen
    v.page.go_back()
    assert answer()["cir-context"] == start["cir-context"] and answer()["cir-quant"] == "Q8_0"
    v.page.go_back()
    v.page.go_back()
    assert answer() == start
    assert not v.failed and not v.errors


@pytest.mark.parametrize("page", ["leaderboard/", "index/", "index/can-i-run/"])
def test_a_hostile_query_string_changes_nothing(deployed, visit, page: str) -> None:  # noqa: F811
    v = visit()
    dialogs: list[str] = []
    v.page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    v.open(page)
    v.page.wait_for_load_state("networkidle")  # the search index and icon, before the next page starts
    default = v.page.evaluate("document.querySelector('article').innerText")
    v.open(page + HOSTILE_QUERY)
    v.page.wait_for_timeout(300)
    assert v.page.evaluate("document.querySelector('article').innerText") == default
    assert v.page.evaluate("document.querySelectorAll('img[src=x], [onerror]').length") == 0
    assert not dialogs and not v.errors and not v.failed
    assert not _axe(v.page)
