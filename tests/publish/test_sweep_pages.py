"""The site's sweep pages, from a real `mkdocs build --strict`: a page per committed sweep report, an index of
them, a link from the swept model's page, and every value of a hostile report shown as escaped text, never
evaluated by the macro engine (Jinja) nor read as markup."""

from __future__ import annotations

import html
import json
import logging
from pathlib import Path

import pytest

from engine.analysis.sweep_report import build_report
from engine.core.results import load_run_file
from engine.publish.site.sweep_pages import load_sweeps
from tests.helpers.fleet import make_fleet
from tests.publish.conftest import free_port, mkdocs_build

# "zz49zz" appears in a page only if the macro engine evaluated the expression.
PAYLOAD = "zz{{ 7*7 }}zz {% raw %} {# eaten #} ---\nrender_macros: true\n\"q' <b>x</b><script>alert(1)</script>"
SHOWN = "zz&#123;&#123; 7*7 &#125;&#125;zz"


def _report(paths: list[Path], model: str) -> dict:
    named = [(name, path, load_run_file(path), False) for name, path in zip(("q4", "q8"), paths, strict=True)]
    return json.loads(build_report(Path("plan.yaml"), model, named).model_dump_json())


def _write(folder: Path, doc: dict) -> None:
    folder.mkdir(parents=True)
    (folder / "sweep_report.json").write_text(json.dumps(doc), encoding="utf-8")


def _hostile(doc: dict) -> dict:
    """Every string a page shows replaced by the payload: names, settings, verdicts, the plan and the model."""
    doc = json.loads(json.dumps(doc))
    doc.update(model=PAYLOAD, plan=f"/x/{PAYLOAD}", weights=PAYLOAD, baseline=PAYLOAD, verdicts=[PAYLOAD])
    for c in doc["configurations"]:
        c["name"] = PAYLOAD
        c["settings"] = {k: PAYLOAD for k in c["settings"]}
    for scope in doc["scopes"]:
        scope["scope"] = PAYLOAD
        for row in scope["rows"]:
            row["configuration"] = PAYLOAD
    return doc


@pytest.fixture(scope="module")
def sweep_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("sweep-fleet")
    paths = make_fleet(root, 2, seed=5)
    model = load_run_file(paths[0]).settings.model
    sweeps = root / "sweeps"
    good = _report(paths, model)
    _write(sweeps / "q4-vs-q8", good)
    _write(sweeps / "hostile", _hostile(good))
    out = tmp_path_factory.mktemp("sweep-site") / "site"
    mp = pytest.MonkeyPatch()
    mp.setenv("SLLMB_SITE_SWEEPS", str(sweeps))
    try:
        done = mkdocs_build(out, free_port(), root / "results", root / "models.yaml")
    finally:
        mp.undo()
    assert done.returncode == 0, done.stderr[-4000:]
    return out, model


def _article(page: Path) -> str:
    return page.read_text(encoding="utf-8").split('<article class="md-content__inner', 1)[1].split("</article>")[0]


def test_a_sweep_has_a_page_linked_from_its_models_page(sweep_site) -> None:
    site, model = sweep_site
    page = _article(site / "sweeps" / "q4-vs-q8" / "index.html")
    assert f"<h1>Sweep of {html.escape(model)}: q4-vs-q8</h1>" in page
    assert "<td>q4</td>" in page and "<td>q8</td>" in page and "against the baseline" in page
    board = json.loads((site / "leaderboard.json").read_text(encoding="utf-8"))
    slug = next(r["slug"] for r in board["rows"] if r["model"] == model)
    assert f'href="../../models/{slug}/"' in page
    card = _article(site / "models" / slug / "index.html")
    assert 'id="sweeps"' in card and 'href="../../sweeps/q4-vs-q8/"' in card
    index = _article(site / "sweeps" / "index.html")
    assert 'href="q4-vs-q8/"' in index and 'href="hostile/"' in index


def test_every_value_of_a_hostile_report_is_escaped_text(sweep_site) -> None:
    site, _ = sweep_site
    for path in site.rglob("*.html"):
        assert "zz49zz" not in path.read_text(encoding="utf-8"), path
    text = (site / "sweeps" / "hostile" / "index.html").read_text(encoding="utf-8")
    page = _article(site / "sweeps" / "hostile" / "index.html")
    # The model, the plan, the weights, the baseline, the verdict, each configuration's name and settings,
    # the scope and its rows: all there, all as text.
    assert page.count(SHOWN) >= 12
    assert "<script>alert" not in text and "<b>x</b>" not in page and "{{" not in page and "{%" not in page
    assert "see hooks.py" not in text, "the stub the macro engine saw is replaced whole"
    title = text.split("<title>", 1)[1].split("</title>", 1)[0]
    assert "<" not in title.replace("&lt;", "") and "{" not in title


@pytest.mark.parametrize(("name", "content", "said"), [
    ("bad name!", "{}", "folder name"),
    ("broken", "{not json", "field '(top level)'"),
    ("extra", json.dumps({"plan": "p"}), "field 'model'"),
    ("huge", " " * (4 * 1024 * 1024 + 1), "at most"),
])
def test_a_report_that_cannot_be_shown_is_a_warning_naming_it_not_a_page(tmp_path, caplog, name, content,
                                                                          said) -> None:
    (tmp_path / name).mkdir()
    (tmp_path / name / "sweep_report.json").write_text(content, encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="mkdocs.plugins.small_llm_bench"):
        assert load_sweeps(tmp_path) == []
    (record,) = caplog.records
    assert name in record.getMessage() and said in record.getMessage()
