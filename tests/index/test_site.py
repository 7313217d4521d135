"""What the pages get: rows, marks, escaped HTML, calculator data safe to embed, the macros registered."""

from __future__ import annotations

import json
from pathlib import Path

from engine.index.data import entry_to_yaml
from engine.index.index import build_index
from engine.index.schema import Attention, Pricing
from engine.publish.index_view import index_view
from engine.publish.site.index_calculator import calculator_json
from engine.publish.site.index_charts import chart_points, render_scatter_svg
from engine.publish.site.index_macros import define_index_macros
from engine.publish.site.index_model_page import model_page_data, render_model_html
from engine.publish.site.index_table import render_table_html, table_rows

from .helpers import DAY, entry, score

EVIL = '<script>alert("x")</script> & "quoted"'


def _population():
    entries = []
    for k in range(10):
        level = 25 + 6 * k
        entries.append(
            entry(
                f"m{k}",
                [
                    score("MMLU-Pro", level + 10),
                    score("GPQA Diamond", level),
                    score("AIME", max(2, level - 15)),
                ],
                total=1 + 9 * k,
            )
        )
    att = Attention(layers=2, full_layers=2, kv_heads=1, head_dim=8, source_url="https://example.org/c")
    entries.append(
        entry(
            "evil",
            [
                score("MMLU-Pro", 55, "independent", evaluator=EVIL),
                score("GPQA Diamond", 40, "other_lab", variant=EVIL),
                score("MMLU-Pro", 70, "lab"),
            ],
            name=EVIL,
            fine_tune_of="m1",
            attention=att,
            pricing=Pricing(input_per_m=0.1, output_per_m=0.3, blended_per_m=0.15, providers=2, synced=DAY),
        )
    )
    entries.append(entry("lonely", [score("MMLU-Pro", 40)]))
    return entries


def test_rows_marks_and_core_count():
    rows = {r.id: r for r in table_rows(build_index(_population()))}
    evil = rows["evil"]
    assert evil.view.core_text == "2/6" and evil.independent and evil.fine_tune
    texts = [c.text for c in evil.cells]
    assert texts[0] == "55.0✓" and texts[1] == "40.0*"  # independent replaces the lab's 70
    assert rows["lonely"].view.index_text == "—" and rows["lonely"].rank is None
    assert rows["m9"].rank == 1
    assert rows["m9"].size_class == "Large" and rows["m0"].size_class == "Tiny"


def test_every_string_is_escaped_in_html():
    result = build_index(_population())
    table = render_table_html(table_rows(result))
    page = render_model_html(model_page_data(result, "evil"))
    svg = render_scatter_svg(chart_points(result, "params"), EVIL)
    for html in (table, page, svg):
        assert "<script>" not in html
        assert "&lt;script&gt;" in html


def test_model_page_keeps_the_labs_figure_and_lists_estimates():
    data = model_page_data(build_index(_population()), "evil")
    mmlu = next(s for s in data.reported if s.benchmark == "MMLU-Pro")
    assert mmlu.value == 55 and mmlu.lab_value == 70 and mmlu.label == "Independent"
    assert any(e.benchmark == "AIME" for e in data.estimated)


def test_chart_points_need_an_index_and_a_price():
    result = build_index(_population())
    assert {p.id for p in chart_points(result, "price")} == {"evil"}
    assert "lonely" not in {p.id for p in chart_points(result, "params")}


def test_calculator_json_cannot_close_its_script_tag():
    text = calculator_json(_population())
    assert "</script" not in text and "<" not in text
    data = json.loads(text)
    assert [m["id"] for m in data["models"]] == ["evil"]
    assert data["tables"]["quant_bits"]["Q4_K_M"] == 4.85


def test_define_index_macros_registers_callables(tmp_path: Path):
    for e in _population():
        (tmp_path / f"{e.id}.yaml").write_text(entry_to_yaml(e), encoding="utf-8")

    class Env:
        def __init__(self) -> None:
            self.macros: dict = {}
            self.variables: dict = {}

        def macro(self, fn):
            self.macros[fn.__name__] = fn
            return fn

    env = Env()
    define_index_macros(env, data_dir=tmp_path)
    assert {
        "index_table",
        "index_chart",
        "index_model",
        "can_i_run",
        "index_validation_table",
        "index_counts",
    } <= set(env.macros)
    assert "evil" in env.variables["index_model_ids"]
    assert "sli-table" in env.macros["index_table"]()
    assert env.macros["index_counts"]()["with_index"] == 11
    counts = env.macros["index_counts"]()
    assert 0 <= counts["cannot_check"] <= counts["figures"] - counts["verified"]


def test_an_excluded_benchmark_is_never_estimated_and_the_page_says_so():
    from engine.publish.site.index_model_page import model_page_data, render_model_html
    from engine.publish.site.index_table import cell

    entries = [
        entry(
            f"m{k}",
            [score("MMLU-Pro", 30 + 5 * k), score("GPQA Diamond", 20 + 5 * k), score("SWE-bench Verified", 10 + k)],
        )
        for k in range(6)
    ]
    entries.append(entry("q", [score("MMLU-Pro", 50), score("GPQA Diamond", 40)]))
    result = build_index(entries, excluded={"SWE-bench Verified": "no better than its average"})
    row = result.row("q")
    assert "SWE-bench Verified" not in row.estimates and result.index_benchmarks == ("MMLU-Pro", "GPQA Diamond")
    shown = cell(index_view(result, row), "SWE-bench Verified", result.excluded)
    assert shown.text == "—" and "not estimated" in shown.title
    html = render_model_html(model_page_data(result, "q"))
    assert "Not reported and not estimated: SWE-bench Verified" in html
    # A model that reports it shows its figure as usual.
    assert cell(index_view(result, result.row("m3")), "SWE-bench Verified", result.excluded).text == "13.0"
