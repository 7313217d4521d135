"""The index commands through argparse, as engine.cli will call them, on the committed data."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from engine.commands import index as index_command
from engine.errors import UserError
from engine.index.data import DEFAULT_DATA_DIR, entry_to_yaml, load_entries
from engine.index.validate import leave_one_out
from engine.site.index_macros import validation_table_markdown

from .helpers import entry, score

REPO = Path(__file__).resolve().parents[2]


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="sllmb")
    sub = parser.add_subparsers(dest="command", required=True)
    index_command.register(sub)
    args = parser.parse_args(argv)
    return args.func(args)


@pytest.fixture(scope="module")
def committed_report():
    return leave_one_out(load_entries(REPO / DEFAULT_DATA_DIR))


def test_validate_on_committed_data_beats_the_baseline(committed_report):
    report = committed_report.to_dict()
    assert report["models"] >= 40 and report["scores"] >= 150
    one, base = report["methods"]["1-factor"]["all"], report["methods"]["baseline"]["all"]
    assert one["mean"] < base["mean"] / 2
    assert report["methods"]["2-factor"]["all"]["count"] == one["count"] == report["scores"]


def test_methodology_page_shows_the_table_validate_prints(committed_report):
    page = (REPO / "site_src" / "methodology" / "small-lm-index.md").read_text(encoding="utf-8")
    assert validation_table_markdown(committed_report) in page


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


def test_show_json_labels_reported_and_estimated(capsys):
    assert _run(["index", "show", "gemma-3-27b-it", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    labels = {b["benchmark"]: b["label"] for b in data["benchmarks"]}
    assert labels["SWE-bench Verified"] == "estimated" and labels["MMLU-Pro"] == "independent"
    assert data["index_low"] <= data["index"] <= data["index_high"]


def test_show_text_and_unknown_model(capsys):
    assert _run(["index", "show", "qwen3-32b-thinking"]) == 0
    assert "Small LM Index" in capsys.readouterr().out
    with pytest.raises(UserError, match="no model 'nope'"):
        _run(["index", "show", "nope"])


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
