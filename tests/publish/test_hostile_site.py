"""A real `mkdocs build` of result files whose every shown field is an attack on the site build: template
syntax for the macro engine (Jinja), front matter breakers, markup. Nothing may be evaluated, nothing may run,
and the build must succeed showing each value as text.

A model name cannot carry an attack any more (the schemas refuse any name outside the one pattern of
``engine/core/fieldtypes.py``; ``tests/core/test_fieldtypes.py`` holds those names): the names here are valid
ones that use every punctuation mark the pattern allows, and every other shown field carries the payload."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
import yaml

from engine.core.results import load_run_file, write_run_file
from engine.publish.site.hooks import STUB, plain_title
from tests.helpers.fleet import make_fleet
from tests.publish.conftest import free_port, mkdocs_build, serve

# "zz49zz" appears in a page only if the macro engine evaluated the expression.
EVALUATES = "zz{{ 7*7 }}zz"
# Each would stop or change a Jinja render: an unclosed raw block, a comment eating the rest of the page.
# \u2028 is a line break for YAML and JavaScript but not for JSON.
PAYLOAD = f"😀 {EVALUATES} {{% raw %}} {{# eaten #}} ---\nrender_macros: true\n\"q' \u2028<b>x</b>"
NAMES = ("zz7-7zz-model:q4_K_M", "Org/title.v1+x", "qwen3:8b")


def _hostile_fleet(root: Path) -> Path:
    paths = make_fleet(root, 3, seed=11)
    for path, name in zip(paths, NAMES, strict=True):
        run = load_run_file(path)
        trials = []
        for i, t in enumerate(run.trials):
            if t.infra:
                t = t.model_copy(update={"error": PAYLOAD})
            elif t.grade is not None and not t.grade.passed:
                gate = PAYLOAD if i % 2 else None  # with no gate, the card shows the error
                t = t.model_copy(update={"grade": t.grade.model_copy(update={"hard_gate": gate, "reason": PAYLOAD}),
                                         "error": PAYLOAD})
            trials.append(t)
        trials[0] = trials[0].model_copy(update={"invalid_reason": PAYLOAD})
        settings = run.settings.model_copy(update={"model": name, "filter": PAYLOAD, "sandbox_backend": PAYLOAD})
        provenance = run.provenance.model_copy(update={"bench_version": PAYLOAD, "task_set_hash": PAYLOAD})
        path.unlink()
        write_run_file(path, run.model_copy(update={"settings": settings, "provenance": provenance,
                                                    "trials": trials}))
    models = root / "models.yaml"
    doc = yaml.safe_load(models.read_text(encoding="utf-8"))
    for row, name in zip(doc["models"], NAMES, strict=True):
        row.update(name=name, family=PAYLOAD, quantisation=PAYLOAD)
    doc["default"] = NAMES[0]
    models.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return root / "results"


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    root = tmp_path_factory.mktemp("hostile-fleet")
    results = _hostile_fleet(root)
    port = free_port()
    out = tmp_path_factory.mktemp("hostile-site") / "site"
    done = mkdocs_build(out, port, results, root / "models.yaml")
    assert done.returncode == 0, done.stderr[-4000:]
    assert "Macro" not in done.stderr, done.stderr[-4000:]
    return out, port


def _model_pages(site: Path) -> dict[str, str]:
    board = json.loads((site / "leaderboard.json").read_text(encoding="utf-8"))
    return {r["model"]: (site / "models" / r["slug"] / "index.html").read_text(encoding="utf-8")
            for r in board["rows"]}


def test_nothing_from_a_result_file_is_evaluated_anywhere(hostile_site):
    site, _ = hostile_site
    for path in site.rglob("*"):
        if path.suffix in (".html", ".json", ".xml"):
            text = path.read_text(encoding="utf-8")
            assert "zz49zz" not in text, path


def test_every_hostile_value_is_shown_as_escaped_text_on_its_model_page(hostile_site):
    site, _ = hostile_site
    pages = _model_pages(site)
    assert set(pages) == set(NAMES)
    shown = "zz&#123;&#123; 7*7 &#125;&#125;zz"
    for name, text in pages.items():
        article = text.split('<article class="md-content__inner', 1)[1].split("</article>", 1)[0]
        assert f"<h1>{html.escape(name).replace('{', '&#123;').replace('}', '&#125;')}</h1>" in article
        # The trial notes (gate, error, invalid reason), the settings, the provenance, models.yaml's fields.
        assert article.count(shown) >= 6, name
        assert "{{" not in article and "{%" not in article and "{#" not in article
        assert "<b>x</b>" not in article and "<script>alert" not in text
        # The stub the macro engine saw is gone: the page is the card.
        assert 'class="lb-card"' in article and "see hooks.py" not in text


def test_the_title_is_the_name(hostile_site):
    # Every character a model name may hold is one a title keeps.
    site, _ = hostile_site
    titles = {name: text.split("<title>", 1)[1].split("</title>", 1)[0] for name, text in _model_pages(site).items()}
    assert titles == {name: f"{name} - small-llm-bench" for name in NAMES}


def test_the_title_rule():
    assert plain_title("Qwen3 8B (Q4_K_M)", "x") == "Qwen3 8B (Q4_K_M)"
    assert plain_title("модель-7b हिन्दी", "x") == "модель-7b हिन्दी"
    assert plain_title("a\u202eb\n{{c}}<d>&e;\"'", "x") == "a b c d e;"
    assert plain_title("😀", "fallback") == "fallback"
    assert len(plain_title("a" * 500, "x")) == 120
    assert "---" in STUB and "{" not in STUB and "render_macros: false" in STUB


@pytest.mark.browser
def test_no_script_runs_on_any_page_of_the_hostile_site(hostile_site, page_factory):
    site, port = hostile_site
    server, url = serve(site, port)
    try:
        page, watch = page_factory((url,))
        board = json.loads((site / "leaderboard.json").read_text(encoding="utf-8"))
        for rel in ["", "leaderboard/", "separability/", *(f"models/{r['slug']}/" for r in board["rows"])]:
            page.goto(url + rel, wait_until="load")
            assert not watch.errors, f"{rel}: {watch.errors}"
        page.goto(url + f"models/{board['rows'][0]['slug']}/", wait_until="load")
        assert "zz{{ 7*7 }}zz" in page.inner_text("article")
    finally:
        server.shutdown()
    assert not watch.dialogs, watch.dialogs
