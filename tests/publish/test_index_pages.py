"""The Small LM Index's model pages in the site: where each page lives, one page for a model that is both on the
board and in the index, a strict build whose every link resolves, and the calculator reached by Material's
instant navigation in real headless Chromium."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from engine.analysis.judge import judged_path_for
from engine.core.results import load_run_file, write_run_file
from engine.index.data import entry_to_yaml
from engine.index.hardware import NO_FIT_SPEED
from engine.publish.board import board_from_dir
from engine.publish.site.hooks import index_model_page, model_page
from engine.publish.site.index_macros import IndexSite
from engine.publish.site.index_page_plan import plan_model_pages
from tests.helpers.fleet import make_fleet
from tests.index.helpers import entry, score
from tests.publish.conftest import free_port, mkdocs_build, serve
from tests.publish.fleet_site import HOSTILE_MODEL, build_site_fleet

ROOT = Path(__file__).resolve().parents[2]
EVIL = '<script>alert("x")</script> & "q"'
HREF = re.compile(r'\bhref="([^"]*)"')


def _entries(ids_and_bench: dict[str, list[str]]):
    return [
        entry(i, [score("MMLU-Pro", 40 + k), score("GPQA Diamond", 30 + k)], bench_models=bench)
        for k, (i, bench) in enumerate(ids_and_bench.items())
    ]


# ------------------------------------------------------------------------------------------------ the plan


def test_a_row_whose_run_is_an_index_model_shares_its_page():
    pages = plan_model_pages([("qwen-8b", "qwen-8b"), ("other", "other")], _entries({"qwen-8b": [], "b": []}))
    assert pages.merged == {"qwen-8b": "qwen-8b"} and pages.also == {}
    assert pages.index_page == {"b": "b", "qwen-8b": "qwen-8b"}
    assert pages.index_only() == ["b"]


def test_bench_models_maps_a_run_name_to_an_index_model_and_the_id_wins():
    rows = [("Qwen3:8B-Q4", "qwen3_8b-q4"), ("a", "a"), ("Qwen3:8B-Q8", "qwen3_8b-q8")]
    entries = _entries({"a": ["Qwen3:8B-Q4"], "qwen3-8b": ["Qwen3:8B-Q4", "Qwen3:8B-Q8", "a"], "z": ["a"]})
    pages = plan_model_pages(rows, entries)
    # "a" is an id, so the row named "a" is that model, not the one listing "a" under bench_models.
    assert pages.merged["a"] == "a"
    # The Q4 run is listed by two models: the first by id ("a") already has a page, so Q4 joins it.
    assert pages.also == {"qwen3_8b-q4": "a"}
    # One model, several runs: the page is the first row's; the others link to it.
    assert pages.merged["qwen3_8b-q8"] == "qwen3-8b" and pages.index_page["qwen3-8b"] == "qwen3_8b-q8"
    assert pages.index_only() == ["z"]


def test_a_board_slug_never_collides_with_an_index_page():
    # A run named "Foo" slugs to "foo" but is not the index's "foo"; "foo-index" is taken by another id.
    rows = [("Foo", "foo"), ("x", "index")]
    pages = plan_model_pages(rows, _entries({"foo": [], "foo-index": [], "index": []}))
    assert pages.merged == {}
    assert pages.index_page == {"foo": "foo-index-2", "foo-index": "foo-index", "index": "index-index"}
    folders = list(pages.index_page.values()) + [slug for _, slug in rows]
    assert len(folders) == len(set(folders))


# ------------------------------------------------------------------------------------------------ the pages


@pytest.fixture
def hostile_index(tmp_path: Path) -> tuple[object, IndexSite]:
    paths = make_fleet(tmp_path, 3, seed=5)
    names = [load_run_file(p).settings.model for p in paths]
    data = tmp_path / "reported"
    data.mkdir()
    entries = _entries({"evil": [names[0], names[1]], "plain": []})
    entries[0] = entries[0].model_copy(update={"name": EVIL})
    for e in entries:
        (data / f"{e.id}.yaml").write_text(entry_to_yaml(e), encoding="utf-8")
    board = board_from_dir(tmp_path / "results", tmp_path / "models.yaml")
    return board, IndexSite(tmp_path, Path("reported"), board=lambda: board)


def test_merged_page_shows_the_card_and_the_index_section_all_escaped(hostile_index):
    board, site = hostile_index
    pages = plan_model_pages([(r.model, r.slug) for r in board.rows], site.entries())
    first, second = sorted(pages.merged) + sorted(pages.also)
    merged = model_page(board, first, site, pages)
    text = merged.html
    assert 'class="lb-card"' in text and 'class="sli-model"' in text and "<h2" in text
    assert "<script>" not in text and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in text
    assert "<" not in merged.title and "script" in merged.title
    # The model's other run keeps its own card and links to the shared page.
    other = model_page(board, second, site, pages).html
    assert f'href="../{first}/"' in other and 'class="sli-model"' not in other and "<script>" not in other
    # The third run belongs to no index model: a plain card, as before.
    (third,) = [r.slug for r in board.rows if r.slug not in (first, second)]
    assert model_page(board, third, site, pages) == model_page(board, third)
    only = index_model_page(site, "plain").html
    assert 'class="sli-model"' in only and 'class="lb-card"' not in only


def test_an_index_page_shows_the_board_figure_of_our_judged_run(site_fleet: Path, tmp_path: Path):
    board = board_from_dir(site_fleet / "results", site_fleet / "models.yaml")
    # A judged run whose judge moved its headline: the raw file alone would give another figure.
    row = next(
        r
        for r in board.rows
        if r.judge_state == "judged" and r.model.startswith("fleet-") and r.headline != _pct(r.pass_k)
    )
    data = tmp_path / "reported"
    data.mkdir()
    for e in _entries({"ours": [row.model], "other": []}):
        (data / f"{e.id}.yaml").write_text(entry_to_yaml(e), encoding="utf-8")
    site = IndexSite(tmp_path, Path("reported"), board=lambda: board)
    (ours,) = site.model_data("ours").own_runs
    assert (ours.pass_k, ours.k, ours.verdicts) == (row.headline, board.k, "judged")
    page = site.model_html("ours")
    assert f"<td>{row.headline:.1f}</td>" in page and "judged verdicts" in page
    assert site.model_data("other").own_runs == ()


def _pct(share: float | None) -> float | None:
    return None if share is None else round(share * 100, 4)


# ------------------------------------------------------------------------------------------------ the build


class Built:
    def __init__(self, out: Path, port: int, merged_id: str, collided_id: str, board_rows: int) -> None:
        self.out, self.port = out, port
        self.merged_id, self.collided_id, self.board_rows = merged_id, collided_id, board_rows


@pytest.fixture(scope="module")
def index_build(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The fleet with one unjudged run renamed to an index id (one page for both) and one to an id in capitals
    (it slugs to the id's folder without being that model)."""
    root = tmp_path_factory.mktemp("index-fleet")
    results = build_site_fleet(root)
    ids = IndexSite(ROOT).model_ids
    merged_id, collided_id = ids[0], ids[1]
    unjudged = [
        p
        for p in sorted(results.glob("*_raw_results.json"))
        if not judged_path_for(p).exists() and load_run_file(p).settings.model != HOSTILE_MODEL
    ]
    models_path = root / "models.yaml"
    doc = yaml.safe_load(models_path.read_text(encoding="utf-8"))
    for path, new in zip(unjudged[:2], (merged_id, collided_id.upper()), strict=True):
        run = load_run_file(path)
        for row in doc["models"]:
            if row["name"] == run.settings.model:
                row["name"] = new
        if doc["default"] == run.settings.model:
            doc["default"] = new
        path.unlink()
        write_run_file(path, run.model_copy(update={"settings": run.settings.model_copy(update={"model": new})}))
    models_path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    port = free_port()
    out = root / "site"
    done = mkdocs_build(out, port, results, models_path)
    assert done.returncode == 0, done.stderr[-4000:]
    return Built(out, port, merged_id, collided_id, len(list(results.glob("*_raw_results.json"))))


def _target(page: Path, href: str, site: Path) -> Path | None:
    """The file a relative link on ``page`` points to; None for an outside or in-page link."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or not parts.path:
        return None
    # A root-relative link (404.html has them) is read against the site's root.
    base = site if parts.path.startswith("/") else page.parent
    target = (base / parts.path.lstrip("/")).resolve()
    assert target.is_relative_to(site.resolve()), f"{page}: {href} leaves the site"
    return target / "index.html" if parts.path.endswith("/") else target


def test_strict_build_has_a_page_per_index_model_and_no_dead_link(index_build: Built) -> None:
    site = index_build.out
    index_site = IndexSite(ROOT)
    table = (site / "index" / "index.html").read_text(encoding="utf-8")
    linked = re.findall(r'href="\.\./models/([^"/]+)/"', table)
    assert len(linked) == len(index_site.model_ids) == len(set(linked))
    for model_id in index_site.model_ids:
        page = site / "models" / (model_id if model_id != index_build.collided_id else f"{model_id}-index")
        assert (page / "index.html").is_file(), model_id
        assert f'data-model="{model_id}"' in (page / "index.html").read_text(encoding="utf-8")
    # Board rows plus index models, less the one they share.
    pages = list((site / "models").glob("*/index.html"))
    assert len(pages) == index_build.board_rows + len(index_site.model_ids) - 1
    dead = []
    for page in sorted(site.rglob("*.html")):
        for href in HREF.findall(page.read_text(encoding="utf-8")):
            target = _target(page, href.replace("&amp;", "&"), site)
            if target is not None and not target.exists():
                dead.append(f"{page.relative_to(site)} -> {href}")
    assert not dead, dead[:10]


def test_a_benchmarked_index_model_has_one_page_with_both_parts(index_build: Built) -> None:
    site = index_build.out
    name = IndexSite(ROOT).result().row(index_build.merged_id).entry.name
    text = (site / "models" / index_build.merged_id / "index.html").read_text(encoding="utf-8")
    assert 'class="lb-card"' in text and 'class="lb-radar-svg"' in text
    assert f'data-model="{index_build.merged_id}"' in text and "Small LM Index</h2>" in text
    assert f"<h1>{name}</h1>" in text
    # The board links to that page, and so does the index table.
    board = (site / "leaderboard" / "index.html").read_text(encoding="utf-8")
    assert f'models/{index_build.merged_id}/"' in board
    table = (site / "index" / "index.html").read_text(encoding="utf-8")
    assert f'href="../models/{index_build.merged_id}/"' in table
    # A run whose name only slugs like an index id keeps its card; the index model moves aside.
    collided = (site / "models" / index_build.collided_id / "index.html").read_text(encoding="utf-8")
    assert 'class="lb-card"' in collided and 'class="sli-model"' not in collided
    assert f'href="../models/{index_build.collided_id}-index/"' in table


@pytest.fixture(scope="module")
def index_url(index_build: Built) -> Iterator[str]:
    server, url = serve(index_build.out, index_build.port)
    yield url
    server.shutdown()


@pytest.mark.browser
def test_calculator_works_after_instant_navigation(index_url: str, page_factory, artifacts: Path) -> None:
    page, watch = page_factory((index_url,))
    # Material takes over in-site links only once it has fetched sitemap.xml: a click before that is an ordinary
    # page load, so wait until the network is quiet.
    page.goto(index_url + "leaderboard/", wait_until="networkidle")
    page.evaluate("window.__sameDocument = true")
    page.locator(".md-nav__link[href$='index/can-i-run/']").first.click()
    page.wait_for_function("document.getElementById('cir-total') && document.getElementById('cir-total').textContent")
    # Material swapped the content in place: the same document, so this was an instant navigation.
    assert page.evaluate("window.__sameDocument === true")
    options = page.locator("#cir-model option")
    count = options.count()
    assert count >= 2
    labels = options.all_text_contents()
    totals = []
    for label in (labels[0], labels[-1]):
        page.select_option("#cir-model", label=label)
        page.dispatch_event("#cir-model", "input")
        totals.append(page.inner_text("#cir-total"))
        verdict = page.inner_text("#cir-fits")
        assert verdict in ("Fits", "Does not fit")
        # The total against the device's memory and the share "Fits" may use (FIT_SHARE: the headroom).
        found = re.fullmatch(r"(\d+\.\d\d) GB of \d+(\.\d+)? GB \((\d+\.\d) GB usable\)", totals[-1])
        assert found, totals[-1]
        assert (verdict == "Fits") == (float(found.group(1)) <= float(found.group(3)) + 0.05), totals[-1]
        speed = page.inner_text("#cir-speed")
        assert speed == NO_FIT_SPEED if verdict == "Does not fit" else re.fullmatch(r"about \d+ tokens/s", speed)
    assert totals[0] != totals[1]
    page.screenshot(path=str(artifacts / "can-i-run.png"), full_page=True)
    # Away and back again, in-site: filled once, not twice.
    page.locator(".md-nav__link[href$='index/charts/']").first.click()
    page.wait_for_selector("svg.sli-chart")
    page.locator(".md-nav__link[href$='index/can-i-run/']").first.click()
    page.wait_for_function("document.getElementById('cir-total') && document.getElementById('cir-total').textContent")
    assert page.locator("#cir-model option").count() == count
    assert page.evaluate("window.__sameDocument === true")
    assert not watch.errors, watch.errors
    assert not watch.outside and not watch.dialogs


@pytest.mark.browser
def test_index_table_link_opens_the_shared_page(index_build: Built, index_url: str, page_factory) -> None:
    page, watch = page_factory((index_url,))
    page.goto(index_url + "index/", wait_until="load")
    # Material's instant navigation rewrites in-site links to absolute addresses.
    page.locator(f"table.sli-table a[href$='/models/{index_build.merged_id}/']").click()
    page.wait_for_selector(".lb-radar svg.lb-radar-svg", timeout=20_000)
    assert page.locator(f"[data-model='{index_build.merged_id}'] table.sli-scores").is_visible()
    assert not watch.errors, watch.errors
    assert not watch.outside and not watch.dialogs
