"""Model pages: measured speed, the Artificial Analysis fallback and its source, our runs, corrections."""

from __future__ import annotations

import datetime as dt
import html
import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from engine.core.results import load_run_file
from engine.index.data import entry_to_yaml
from engine.index.index import build_index
from engine.index.schema import AASpeed, Attention, Pricing, SpeedRun
from engine.publish.board import board_from_dir
from engine.publish.site.index_calculator import render_calculator_html
from engine.publish.site.index_charts import render_scatter_svg
from engine.publish.site.index_common import WEEKLY_SYNC
from engine.publish.site.index_macros import IndexSite, define_index_macros
from engine.publish.site.index_model_page import correction_url
from engine.publish.site.index_table import render_table_html, table_rows
from tests.helpers.fleet import make_fleet

from .helpers import entry, score

DAY = dt.date(2026, 12, 6)
REPO = "https://github.com/example/small-llm-bench"


def _site(tmp_path: Path, with_run: bool = False, measured: bool = True) -> IndexSite:
    data = tmp_path / "reported"
    data.mkdir()
    bench_models: list[str] = []
    if with_run:
        (path,) = make_fleet(tmp_path, 1, seed=3)
        bench_models = [load_run_file(path).settings.model]
    run = SpeedRun(
        output_tokens_per_s=187.3,
        ttft_s=0.42,
        runs=5,
        prompt_id="speed-v1",
        prompt_tokens=61,
        prompt_chars=250,
        max_output_tokens=400,
        provider="FastInference",
        endpoint="openrouter.ai/api/v1",
        measured=DAY,
    )
    aa = AASpeed(
        output_tokens_per_s=95.5, ttft_s=0.8, source_url="https://artificialanalysis.ai/models/b", synced=DAY
    )
    entries = [
        entry(f"m{k}", [score("MMLU-Pro", 30 + 6 * k), score("GPQA Diamond", 20 + 6 * k)]) for k in range(6)
    ]
    entries += [
        entry(
            "measured",
            [score("MMLU-Pro", 60), score("GPQA Diamond", 45)],
            speed=run if measured else None,
            aa_speed=aa,
            bench_models=bench_models,
        ),
        entry("aa-only", [score("MMLU-Pro", 50), score("GPQA Diamond", 35)], aa_speed=aa),
        entry("no-speed", [score("MMLU-Pro", 40), score("GPQA Diamond", 30)]),
    ]
    for e in entries:
        (data / f"{e.id}.yaml").write_text(entry_to_yaml(e), encoding="utf-8")
    results, models = tmp_path / "results", tmp_path / "models.yaml"
    board = (lambda: board_from_dir(results, models)) if with_run else None
    return IndexSite(tmp_path, Path("reported"), repo_url=REPO, board=board)


def test_a_measured_model_shows_our_speed_and_one_without_shows_the_fallback(tmp_path):
    site = _site(tmp_path)
    measured = site.model_html("measured")
    assert "187.3 tokens/s" in measured and "0.42 s" in measured
    assert "our measurement: median of 5 streamed runs" in measured and "FastInference" in measured
    assert "95.5" not in measured  # Artificial Analysis's figure is only a fallback
    fallback = site.model_html("aa-only")
    assert "95.5 tokens/s" in fallback and "0.80 s" in fallback
    assert 'Source: <a href="https://artificialanalysis.ai/models/b"' in fallback
    assert "Artificial Analysis, median across the providers" in fallback
    none = site.model_html("no-speed")
    assert "No speed figure yet" in none


def test_speed_chart_appears_only_once_measurements_exist(tmp_path):
    class Env:
        def __init__(self, root: Path) -> None:
            self.project_dir = str(root)
            self.conf = {"repo_url": REPO}
            self.macros: dict = {}
            self.variables: dict = {}

        def macro(self, fn):
            self.macros[fn.__name__] = fn
            return fn

    with_measure = tmp_path / "a"
    with_measure.mkdir()
    _site(with_measure)
    env = Env(with_measure)
    define_index_macros(env, data_dir=Path("reported"))
    assert env.macros["index_has_speed"]() is True
    assert "Measured output speed" in env.macros["index_chart"]("speed")
    assert env.macros["index_counts"]()["with_speed"] == 1
    assert env.macros["index_counts"]()["with_aa_speed"] == 1

    without = tmp_path / "b"
    without.mkdir()
    _site(without, measured=False)
    env = Env(without)
    define_index_macros(env, data_dir=Path("reported"))
    assert env.macros["index_has_speed"]() is False and env.macros["index_chart"]("speed") == ""


def test_our_run_appears_beside_the_reported_benchmarks_with_its_settings(tmp_path):
    site = _site(tmp_path, with_run=True)
    data = site.model_data("measured")
    (ours,) = data.own_runs
    assert ours.label == "small-llm-bench pass^3" and 0 <= ours.pass_k <= 100
    assert ours.file.endswith("_raw_results.json") and ours.verdicts == "raw"
    html = site.model_html("measured")
    assert "Our measurement" in html and "3 trials" in html and "profile " in html and "raw verdicts" in html
    assert site.model_data("aa-only").own_runs == ()


def test_our_run_shows_its_board_row_figure(tmp_path):
    site = _site(tmp_path, with_run=True)
    (row,) = board_from_dir(tmp_path / "results", tmp_path / "models.yaml").rows
    (ours,) = site.model_data("measured").own_runs
    assert (ours.run_model, ours.file, ours.pass_k) == (row.model, row.source_file, row.headline)
    assert ours.tasks_scored == row.tasks_scored
    assert f"<td>{row.headline:.1f}</td>" in site.model_html("measured")


def test_without_a_board_no_page_shows_our_runs(tmp_path):
    _site(tmp_path, with_run=True)
    site = IndexSite(tmp_path, Path("reported"), repo_url=REPO)
    assert site.own_runs() == [] and site.model_data("measured").own_runs == ()


def test_model_pages_link_to_the_correction_form_with_the_model_filled_in(tmp_path):
    html = _site(tmp_path).model_html("measured")
    assert "issues/new?template=correction.yml" in html
    query = parse_qs(urlsplit(correction_url(REPO, "measured", "Measured 8B")).query)
    assert query == {
        "template": ["correction.yml"],
        "title": ["Correction: Measured 8B"],
        "model": ["measured"],
    }
    assert correction_url(None, "x", "X") is None


def test_calculator_data_is_an_escaped_attribute_not_a_script():
    evil = '<script>alert("x")</script> & "q"'
    att = Attention(layers=2, full_layers=2, kv_heads=1, head_dim=8, source_url="https://example.org/c")
    entries = [entry("evil", [score("MMLU-Pro", 50)], name=evil, attention=att)]
    page = render_calculator_html(entries)
    # Material's instant navigation re-creates every <script> without its type: no data may live in one.
    assert "<script" not in page
    (attr,) = re.findall(r'<div class="cir-form" id="cir-data" data-cir="([^"]*)">', page)
    data = json.loads(html.unescape(attr))
    assert data["models"][0]["name"] == evil and data["tables"]["quant_bits"]["Q4_K_M"] == 4.85


def test_table_links_follow_the_page_plan():
    result = build_index([entry(f"m{k}", [score("MMLU-Pro", 40 + k), score("GPQA Diamond", 30)]) for k in range(3)])
    page = render_table_html(table_rows(result), {"m1": "m1-run_q4"})
    assert 'href="../models/m1-run_q4/"' in page and 'href="../models/m0/"' in page
    assert 'href="../models/m1/"' not in page


def test_a_column_with_no_data_is_one_line_until_the_sync_fills_it():
    """121 dashes told nothing: with no price yet the table has no price column and one line says when it comes;
    once one model is priced the column is there and the line is gone. A chart with no point says the same."""
    unpriced = [entry(f"m{k}", [score("MMLU-Pro", 40 + k), score("GPQA Diamond", 30)]) for k in range(3)]
    page = render_table_html(table_rows(build_index(unpriced)))
    assert "Price $/M" not in page and page.count('class="sli-pending"') == 1 and WEEKLY_SYNC in page
    price = Pricing(input_per_m=0.1, output_per_m=0.3, blended_per_m=0.15, providers=2, synced=DAY)
    priced = [*unpriced[:2], unpriced[2].model_copy(update={"pricing": price})]
    page = render_table_html(table_rows(build_index(priced)))
    assert "Price $/M" in page and 'class="sli-pending"' not in page and ">0.15<" in page
    assert render_scatter_svg([], "price").count("sli-empty") == 1 and WEEKLY_SYNC in render_scatter_svg([], "x")
