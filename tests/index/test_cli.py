"""The index commands through argparse, as engine.cli will call them, on the committed data."""

from __future__ import annotations

import argparse
import json

import pytest

from engine.commands import index as index_command
from engine.errors import UserError


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="sllmb")
    sub = parser.add_subparsers(dest="command", required=True)
    index_command.register(sub)
    args = parser.parse_args(argv)
    return args.func(args)


def test_validate_prints_the_table_and_beats_the_baseline(capsys):
    assert _run(["index", "validate", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["models"] >= 40 and report["scores"] >= 150
    one, base = report["methods"]["1-factor"]["all"], report["methods"]["baseline"]["all"]
    assert one["mean"] < base["mean"] / 2
    assert report["methods"]["2-factor"]["all"]["count"] == one["count"] == report["scores"]


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
    assert _run(["index", "can-i-run", "gemma-3-27b-it", "--context", "32768",
                 "--device", "NVIDIA RTX 4090, 24 GB"]) == 0
    assert "20.32 GB" in capsys.readouterr().out
