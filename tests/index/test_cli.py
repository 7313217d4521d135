"""The index commands through argparse, as engine.cli will call them, on the committed data."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from engine.commands import index as index_command
from engine.core.errors import UserError
from engine.index.data import entry_to_yaml
from engine.index.validate import validation_table_markdown

from .helpers import entry, score

REPO = Path(__file__).resolve().parents[2]


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="sllmb")
    sub = parser.add_subparsers(dest="command", required=True)
    index_command.register(sub)
    args = parser.parse_args(argv)
    return args.func(args)


@pytest.fixture(scope="module")
def printed_table(committed_report) -> str:
    """What `python -m engine index validate --markdown` prints on the committed data (from the session's
    one leave-one-out run; test_validate_markdown_flag checks the flag prints this function's table)."""
    return validation_table_markdown(committed_report).strip()


def _row(table: str, label: str) -> list[str]:
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] == label:
            return cells
    raise AssertionError(f"no row {label!r} in the printed table")


def test_validate_on_committed_data_beats_the_baseline(printed_table):
    cells = _row(printed_table, "**All estimated core**")
    assert int(cells[1]) >= 150
    one_mean = float(cells[2].split("/")[0])
    base_mean = float(cells[4].split("/")[0])
    assert one_mean < base_mean / 2


def test_methodology_page_shows_the_table_validate_prints(printed_table):
    page = (REPO / "site_src" / "methodology" / "small-lm-index.md").read_text(encoding="utf-8")
    assert printed_table.startswith("| Benchmark |")
    assert printed_table in page
    # The page names the command that reproduces it.
    assert "python -m engine index validate --markdown" in page


def test_validate_command_prints_table_and_json(capsys, tmp_path):
    for k in range(8):
        level = 20 + 8 * k
        e = entry(
            f"m{k}", [score("MMLU-Pro", level + 10), score("GPQA Diamond", level), score("AIME", level - 10)]
        )
        (tmp_path / f"{e.id}.yaml").write_text(entry_to_yaml(e), encoding="utf-8")
    assert _run(["index", "validate", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Leave-one-out on 24 reported core scores of 8 models" in out and "baseline" in out
    assert _run(["index", "validate", "--data-dir", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scores"] == 24


def test_validate_markdown_flag(capsys, tmp_path):
    for k in range(8):
        level = 20 + 8 * k
        e = entry(f"m{k}", [score("MMLU-Pro", level + 10), score("GPQA Diamond", level)])
        (tmp_path / f"{e.id}.yaml").write_text(entry_to_yaml(e), encoding="utf-8")
    assert _run(["index", "validate", "--data-dir", str(tmp_path), "--markdown"]) == 0
    out = capsys.readouterr().out.strip()
    from engine.index.data import load_entries
    from engine.index.validate import leave_one_out

    assert out == validation_table_markdown(leave_one_out(load_entries(tmp_path)))


def test_stats_prints_the_verified_share(capsys):
    assert _run(["index", "stats"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"core figures the index uses: \d+; cite a primary document \d+ .*checked against it \d+", out)
    # Lab by lab, with the figures whose primary document cannot be read from here.
    assert re.search(r"core figures per lab: checked / all", out)
    assert re.search(r"\n  Tencent\s+\d+ / \d+\s+\(\d+\)", out)


def test_show_json_labels_reported_and_estimated(capsys):
    assert _run(["index", "show", "gemma-3-27b-it", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["model"] in ("1-factor", "2-factor")
    for b in data["benchmarks"]:
        if b["label"] == "estimated":
            assert b["low"] <= b["value"] <= b["high"]
        else:
            assert b["source_url"] or b["secondary_url"]
    labels = {b["benchmark"]: b["label"] for b in data["benchmarks"]}
    # Gemma 3's own checked MMLU-Pro outranks the unchecked snapshot copy of an independent figure.
    mmlu_pro = next(b for b in data["benchmarks"] if b["benchmark"] == "MMLU-Pro")
    assert labels["MMLU-Pro"] == "lab" and mmlu_pro["checked"]
    # A core benchmark leave-one-out left out is never estimated, and the reason comes with it.
    assert "SWE-bench Verified" not in labels and "held-out error" in data["not_estimated"]["SWE-bench Verified"]
    assert data["index_low"] <= data["index"] <= data["index_high"]


def test_show_text_and_unknown_model(capsys):
    assert _run(["index", "show", "qwen3-32b-thinking"]) == 0
    assert "Small LM Index" in capsys.readouterr().out
    with pytest.raises(UserError, match="no model 'nope'"):
        _run(["index", "show", "nope"])


def test_show_prints_the_numbers_the_site_shows(capsys):
    # Qwen2.5-3B's index is 19.54...: the CLI used to round it to 19.55 and then print 19.6 while the page said
    # 19.5. Both now read one view, rounded once.
    from engine.index.data import DEFAULT_DATA_DIR, load_entries
    from engine.index.published import published_index
    from engine.publish.site.index_model_page import model_page_data, render_model_html

    model = "qwen2.5-3b-instruct"
    assert _run(["index", "show", model]) == 0
    out = capsys.readouterr().out
    page = model_page_data(published_index(load_entries(REPO / DEFAULT_DATA_DIR))[0], model)
    assert page.view.index_text == "19.5"
    assert f"Small LM Index: {page.view.index_text}  (95% range {page.view.range_text})" in out
    assert f"<strong>{page.view.index_text}</strong>" in render_model_html(page)
    for fig in page.estimated:
        line = rf"\n{re.escape(fig.benchmark)}\b.*{re.escape(fig.text)}\s+Estimated\s+{fig.range_text}\n"
        assert re.search(line, out)
    # The marks are the site's: ★ a core benchmark, * a figure from another lab's comparison.
    assert "\nMMLU-Pro ★" in out and "★ core benchmark;" in out and "* from another lab's comparison" in out
    assert _run(["index", "show", model, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["index"], data["index_low"], data["index_high"]) == (
        page.view.index, page.view.index_low, page.view.index_high
    )


def test_can_i_run(capsys):
    assert (
        _run(
            [
                "index",
                "can-i-run",
                "gemma-3-27b-it",
                "--context",
                "32768",
                "--device",
                "NVIDIA RTX 4090, 24 GB",
            ]
        )
        == 0
    )
    assert "20.32 GB" in capsys.readouterr().out


def test_can_i_run_says_no_speed_when_it_does_not_fit(capsys):
    """The page shows no speed for a model that does not fit; the CLI said "does not fit; about 84 tokens/s"."""
    from engine.index.hardware import NO_FIT_SPEED

    argv = ["index", "can-i-run", "gemma-3-27b-it", "--quant", "F16", "--device", "NVIDIA RTX 3060, 12 GB"]
    assert _run(argv) == 0
    out = capsys.readouterr().out
    assert "does not fit" in out and NO_FIT_SPEED in out and "tokens/s" not in out


def _sized(model_id: str, **extra):
    from engine.index.schema import Attention

    layout = Attention(layers=8, full_layers=8, kv_heads=2, head_dim=64, source_url="https://example.org/config")
    return entry(model_id, [score("MMLU-Pro", 40.0)], total=1.0, attention=layout, **extra)


def test_can_i_run_caps_the_context_at_the_models_maximum_with_its_source(tmp_path, capsys):
    """A million tokens of a 32K model was sized as asked (and could say "fits"): now it is sized at the
    maximum, and the answer names the maximum and where it is written."""
    from engine.index.schema import MaxContext

    source = "https://example.org/card#context"
    capped = _sized("short-window", max_context=MaxContext(tokens=32768, source_url=source))
    (tmp_path / "short-window.yaml").write_text(entry_to_yaml(capped), encoding="utf-8")
    argv = ["index", "can-i-run", "short-window", "--data-dir", str(tmp_path), "--device", "NVIDIA H100 SXM, 80 GB"]
    assert _run([*argv, "--context", "32768"]) == 0
    at_max = capsys.readouterr().out
    assert "capped" not in at_max and "not recorded" not in at_max
    assert _run([*argv, "--context", "1000000"]) == 0
    out = capsys.readouterr().out
    assert f"Context capped at 32,768 tokens, the model's maximum context (source: {source})" in out
    # Sized at the maximum: the same figures as asking for the maximum itself.
    assert out.splitlines()[-1] == at_max.splitlines()[-1]


def test_can_i_run_without_a_recorded_maximum_is_not_capped_and_says_so(tmp_path, capsys):
    (tmp_path / "open-window.yaml").write_text(entry_to_yaml(_sized("open-window")), encoding="utf-8")
    argv = ["index", "can-i-run", "open-window", "--data-dir", str(tmp_path), "--device", "NVIDIA H100 SXM, 80 GB"]
    assert _run([*argv, "--context", "1000000"]) == 0
    out = capsys.readouterr().out
    assert "Maximum context not recorded" in out and "capped at" not in out
    # Sized as asked: the cache of a million tokens.
    from engine.index.hardware import Layout, kv_cache_gb

    million = kv_cache_gb(Layout.of(_sized("open-window")), 1_000_000)
    assert f"context cache {million:.2f} GB" in out
