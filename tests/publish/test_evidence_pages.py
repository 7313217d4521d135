"""The task pages: every model's trials of a task, one trial's evidence, two models side by side.

The fleet's hostile model holds, in one trial, a reply, reasoning, a tool call and a tool answer and a grade made
of markup, script, template syntax, emoji and a front-matter fence (``tests/publish/fleet_site.py``): on the
built site it must reach only the task's JSON file, as data, and show on the page as text. The browser tests
serve the site under the Pages sub-path, in real headless Chromium.
"""

from __future__ import annotations

import functools
import http.server
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.publish.evidence import MAX_ITEMS, MAX_TEXT, bounded, task_slug
from tests.publish.conftest import free_port, mkdocs_build
from tests.publish.fleet_site import HOSTILE_MODEL, HOSTILE_REPLY, HOSTILE_TASK
from tests.publish.test_site_visitor import AXE, PREFIX, _axe, _SubPath

PAGE_LIMIT = 1_500_000


def _slug(site: Path, model: str) -> str:
    rows = json.loads((site / "leaderboard.json").read_text(encoding="utf-8"))["rows"]
    return next(r["slug"] for r in rows if r["model"] == model)


def test_a_task_id_becomes_a_safe_path_segment() -> None:
    assert task_slug("tools_01") == "tools_01"
    for hostile in ("../../etc", "<script>", "{{ 7*7 }}", "Tools_01", "a/b", "x" * 200, "🚀"):
        slug = task_slug(hostile)
        assert re.fullmatch(r"task-[0-9a-f]{16}", slug), (hostile, slug)
    assert task_slug("<a>") != task_slug("<b>")


def test_long_text_and_long_lists_are_cut_with_a_marker() -> None:
    data = bounded({"t": "x" * (MAX_TEXT + 5), "l": list(range(MAX_ITEMS + 3)), "n": 1.5, "ok": "short"})
    assert data["t"].startswith("x" * MAX_TEXT) and "cut here: 12,005 characters" in data["t"]
    assert len(data["l"]) == MAX_ITEMS + 1 and data["l"][-1] == "[… 3 more items]"
    assert data["n"] == 1.5 and data["ok"] == "short"


def test_every_task_has_a_page_and_its_trials_as_json(fleet_site: Path) -> None:
    tasks = sorted(p.parent.name for p in (fleet_site / "tasks").glob("*/trials.json"))
    assert len(tasks) == 39 and (fleet_site / "tasks" / "index.html").is_file()
    doc = json.loads((fleet_site / "tasks" / HOSTILE_TASK / "trials.json").read_text(encoding="utf-8"))
    assert doc["task_id"] == HOSTILE_TASK and doc["module"] == "tools"
    assert len(doc["models"]) == 12
    trial = next(m for m in doc["models"] if m["model"] == HOSTILE_MODEL)["trials"][0]
    # Every field the page shows is in the file.
    assert {"turns", "grade", "judge", "truncation", "prompt_tokens", "completion_tokens", "wall_s", "seed",
            "scorable"} <= set(trial)
    assert [t["role"] for t in trial["turns"]] == ["user", "assistant", "tool", "assistant"]
    assert trial["turns"][1]["tool_calls"][0]["arguments"] == HOSTILE_REPLY
    assert trial["turns"][1]["reasoning"] == HOSTILE_REPLY and trial["grade"]["reason"] == HOSTILE_REPLY
    # The injected failure and the world's diff (the task is not in the bank: the grade's paths, said why).
    assert trial["turns"][2]["injected_failure"] is True and trial["injected"] == {"2": "recorded"}
    assert trial["world"]["source"] == "grade" and "not in this bank" in trial["world"]["note"]
    assert {r["finding"] for r in trial["world"]["rows"]} == {"missed", "side effect", "undone"}
    assert trial["world"]["rows"][0]["path"] == HOSTILE_REPLY
    judged = [t for m in doc["models"] for t in m["trials"] if t["judge"]]
    assert judged and all("final_passed" in t["judge"] for t in judged)


def test_hostile_text_never_reaches_a_page_as_html(fleet_site: Path) -> None:
    for page in [*(fleet_site / "tasks").rglob("index.html"), *(fleet_site / "models").rglob("index.html")]:
        text = page.read_text(encoding="utf-8")
        assert "<script>alert" not in text and "<img src=x" not in text, page
        assert "{{ 7*7 }}" not in text and "🚀🧪" not in text, page  # the trial's text is in the JSON only


def test_cards_link_each_task_to_its_page_at_the_model(fleet_site: Path) -> None:
    slug = _slug(fleet_site, HOSTILE_MODEL)
    card = (fleet_site / "models" / slug / "index.html").read_text(encoding="utf-8")
    links = re.findall(r'href="\.\./\.\./tasks/([^/"]+)/#m-([^"]+)"', card)
    assert len(links) == 39 and {m for _, m in links} == {slug}
    for task, _ in links:
        page = (fleet_site / "tasks" / task / "index.html").read_text(encoding="utf-8")
        assert f'id="m-{slug}"' in page


def test_every_page_with_what_it_loads_weighs_at_most_1_5_mb(fleet_site: Path) -> None:
    heaviest = 0
    for page in fleet_site.rglob("index.html"):
        text = page.read_text(encoding="utf-8")
        assets = {a for a in re.findall(r'(?:src|href)="([^"?#]+\.(?:js|css))"', text) if "://" not in a}
        weight = page.stat().st_size + sum((page.parent / a).resolve().stat().st_size for a in assets)
        data = page.parent / "trials.json"
        if data.is_file():
            weight += data.stat().st_size
        heaviest = max(heaviest, weight)
        assert weight <= PAGE_LIMIT, (page, weight)
    assert heaviest > 0


# ------------------------------------------------------------------------------------------------------------
# In the browser, under the Pages sub-path


@pytest.fixture(scope="module")
def fleet_deployed(site_fleet: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    port = free_port()
    out = tmp_path_factory.mktemp("fleet-deployed") / "site"
    done = mkdocs_build(
        out, port, site_fleet / "results", site_fleet / "models.yaml", site_url=f"http://127.0.0.1:{port}{PREFIX}"
    )
    assert done.returncode == 0, done.stderr[-4000:]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(_SubPath, directory=str(out)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield out, f"http://127.0.0.1:{port}{PREFIX}"
    server.shutdown()


class _Tab:
    """One browser context: failed same-origin requests, script errors, dialogs (an executed alert)."""

    def __init__(self, browser, base: str, width: int, scheme: str) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
        self.context.route(
            "**/*", lambda route: route.continue_() if route.request.url.startswith(base) else route.abort()
        )
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self.page.on("response", lambda r: self.problems.append(f"{r.status} {r.url}") if r.status >= 400 else None)
        self.page.on("requestfailed", lambda r: self.problems.append(f"failed {r.url}"))
        self.page.on("pageerror", lambda e: self.problems.append(f"script error {e}"))
        self.page.on("dialog", lambda d: (self.problems.append(f"dialog {d.message}"), d.dismiss()))


@pytest.mark.browser
def test_from_a_card_to_a_trial_and_a_side_by_side(fleet_deployed, browser, artifacts: Path) -> None:
    site, base = fleet_deployed
    slug = _slug(site, HOSTILE_MODEL)
    tab = _Tab(browser, base, 1400, "light")
    page = tab.page
    page.goto(base + f"models/{slug}/", wait_until="load")
    # A real click on the task's row of the card (Material's instant navigation follows it).
    page.locator(f".lb-tasks a[href*='tasks/{HOSTILE_TASK}/']").first.click()
    page.wait_for_selector(".ev-col .ev-turn", timeout=20_000)
    assert f"tasks/{HOSTILE_TASK}/" in page.url
    view = page.inner_text("[data-ev]")
    assert HOSTILE_MODEL in view and "<script>alert(3)</script>" in view and "{{ 7*7 }}" in view
    assert "🚀🧪" in view and "onerror=alert(5)" in view
    # Shown as text: no element came out of the reply, and nothing ran.
    assert page.locator("[data-ev] img, [data-ev] script").count() == 0
    page.click(".ev-reasoning summary")
    assert "<script>alert(3)</script>" in page.inner_text(".ev-reasoning")
    # The tool's answer is marked as the task's injected failure, and only that turn.
    assert page.locator(".ev-col .ev-turn.ev-injected").count() == 1
    mark = page.inner_text(".ev-turn.ev-injected .ev-injected-mark")
    assert "Injected failure" in mark and "did not run" in mark
    assert "injected failure" in page.inner_text(".ev-turn.ev-injected .ev-turn-head")
    # The world as a diff: each path the grade found, labelled, every hostile value as text.
    world = page.inner_text(".ev-col .ev-world")
    assert "The world: expected and final state (3 paths)" in world and "not in this bank" in world
    assert page.locator(".ev-world .ev-diff tbody tr").count() == 3
    for shown in ("missed: asked for, not made", "side effect: not asked for", "undone: changed outside the task",
                  "<script>alert(3)</script>", "{{ 7*7 }}", "onerror=alert(6)", '"<b>seed</b>"', "🚀🧪"):
        assert shown in world, shown
    assert page.locator("[data-ev] b, [data-ev] img, [data-ev] script").count() == 0
    page.screenshot(path=str(artifacts / "task-trial.png"), full_page=True)

    # Side by side: pick two models and a trial, then a real click on Show.
    other = page.locator("[data-ev-pick] select[name=a] option").nth(0).get_attribute("value")
    page.select_option("[data-ev-pick] select[name=a]", other)
    page.select_option("[data-ev-pick] select[name=b]", slug)
    page.select_option("[data-ev-pick] select[name=trial]", "0")
    page.click("[data-ev-pick] button[type=submit]")
    page.wait_for_function("document.querySelectorAll('.ev-grid.ev-two .ev-col').length === 2")
    heads = page.locator(".ev-col .ev-head").all_inner_texts()
    assert other in heads[0] and HOSTILE_MODEL in heads[1]
    boxes = [c.bounding_box() for c in page.locator(".ev-col").all()]
    assert boxes[0]["x"] < boxes[1]["x"] and abs(boxes[0]["y"] - boxes[1]["y"]) < 2, boxes  # columns, not rows
    url = page.url
    assert f"a={other}" in url and f"b={slug}" in url and "trial=0" in url
    page.screenshot(path=str(artifacts / "task-side-by-side.png"), full_page=True)

    # The address alone brings the same view back.
    fresh = _Tab(browser, base, 1400, "dark")
    fresh.page.goto(url, wait_until="load")
    fresh.page.wait_for_function("document.querySelectorAll('.ev-grid.ev-two .ev-col').length === 2")
    assert fresh.page.locator(".ev-col .ev-head").all_inner_texts() == heads
    assert fresh.page.input_value("[data-ev-pick] select[name=b]") == slug
    assert not tab.problems and not fresh.problems, tab.problems + fresh.problems
    for t in (tab, fresh):
        t.context.close()


@pytest.mark.browser
def test_a_trial_page_is_accessible_and_fits_a_phone(fleet_deployed, browser, artifacts: Path) -> None:
    site, base = fleet_deployed
    assert AXE.is_file(), "axe-core is missing: run `npm ci --prefix tests/publish/axe` (.ci/install does)"
    slug = _slug(site, HOSTILE_MODEL)
    problems = []
    for width in (1400, 390):
        for scheme in ("light", "dark"):
            tab = _Tab(browser, base, width, scheme)
            tab.page.goto(base + f"tasks/{HOSTILE_TASK}/?a={slug}&trial=0", wait_until="load")
            tab.page.wait_for_selector(".ev-col .ev-turn", timeout=20_000)
            overflow = tab.page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            if overflow > 0:
                problems.append(f"{width} {scheme}: scrolls sideways by {overflow}px")
            problems += [f"{width} {scheme}: {v['id']} {v['nodes'][:3]}" for v in _axe(tab.page)]
            tab.page.screenshot(path=str(artifacts / f"task-{width}-{scheme}.png"), full_page=True)
            problems += [f"{width} {scheme}: {p}" for p in tab.problems]
            tab.context.close()
    assert not problems, "\n".join(problems)


@pytest.mark.browser
def test_from_a_module_score_on_the_board_to_that_models_trial(fleet_deployed, browser, artifacts: Path) -> None:
    site, base = fleet_deployed
    slug = _slug(site, HOSTILE_MODEL)
    tab = _Tab(browser, base, 1400, "light")
    page = tab.page
    page.goto(base + "leaderboard/", wait_until="load")
    page.click("[role=tablist] [role=tab][aria-controls='lb-panel-detail']")
    # A real click on the hostile model's tools score in the Detailed table.
    page.locator(f"#lb-panel-detail a[href*='tasks/?a={slug}#mod-tools']").first.click()
    page.wait_for_selector("[data-ev-index] [data-ev-for]:not([hidden])", timeout=20_000)
    assert "#mod-tools" in page.url
    assert HOSTILE_MODEL in page.inner_text("[data-ev-for]")
    # Each task's link now opens that model's trials; a real click on the hostile task's.
    page.locator(f"#mod-tools ~ div a[data-ev-task='{HOSTILE_TASK}']").first.click()
    page.wait_for_selector(".ev-col .ev-turn", timeout=20_000)
    assert f"tasks/{HOSTILE_TASK}/" in page.url
    assert HOSTILE_MODEL in page.inner_text(".ev-col .ev-head")
    assert page.locator(".ev-turn.ev-injected").count() == 1 and page.locator(".ev-world").count() == 1
    page.screenshot(path=str(artifacts / "board-to-trial.png"), full_page=True)
    assert not tab.problems, tab.problems
    tab.context.close()
