"""The committed data loads and meets the issue's bar; bad files fail with the file and the field named."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.errors import UserError
from engine.index.data import DEFAULT_DATA_DIR, chosen_scores, entry_to_yaml, load_entries, load_entry
from engine.index.schema import CORE_BENCHMARKS

from .helpers import entry, score

REPO = Path(__file__).resolve().parents[2]


def test_committed_data_has_40_sourced_open_models_under_100b():
    entries = load_entries(REPO / DEFAULT_DATA_DIR)
    indexed = [e for e in entries if sum(b in chosen_scores(e) for b in CORE_BENCHMARKS) >= 2]
    assert len(indexed) >= 40
    assert all(e.total_params_b < 100 for e in entries)
    # Hybrid models are split by mode into separate entries.
    ids = {e.id for e in entries}
    assert {"qwen3-32b-thinking", "qwen3-32b-non-thinking"} <= ids


def _write(tmp_path: Path, text: str, name: str = "m.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _good_yaml() -> str:
    return entry_to_yaml(entry("m", [score("MMLU-Pro", 50)]))


def test_round_trip(tmp_path):
    path = _write(tmp_path, _good_yaml())
    assert load_entry(path).scores[0].value == 50


def test_unknown_key_names_file_and_field(tmp_path):
    path = _write(tmp_path, _good_yaml() + "colour: blue\n")
    with pytest.raises(UserError) as exc:
        load_entry(path)
    assert "m.yaml" in str(exc.value) and "colour" in str(exc.value)


def test_bad_score_value_names_the_nested_field(tmp_path):
    path = _write(tmp_path, _good_yaml().replace("value: 50.0", "value: 150.0"))
    with pytest.raises(UserError) as exc:
        load_entry(path)
    assert "m.yaml" in str(exc.value) and "scores.0.value" in str(exc.value)


def test_unknown_benchmark_is_rejected(tmp_path):
    path = _write(
        tmp_path, _good_yaml().replace("benchmark: MMLU-Pro", "benchmark: GPQA (subset not stated)")
    )
    with pytest.raises(UserError) as exc:
        load_entry(path)
    assert "scores.0.benchmark" in str(exc.value)


def test_id_must_match_file_name(tmp_path):
    path = _write(tmp_path, _good_yaml(), name="other.yaml")
    with pytest.raises(UserError) as exc:
        load_entry(path)
    assert "field 'id'" in str(exc.value) and "other.yaml" in str(exc.value)


def test_wrong_schema_version_and_broken_yaml(tmp_path):
    path = _write(tmp_path, _good_yaml().replace("schema_version: 1", "schema_version: 7"))
    with pytest.raises(UserError, match="schema_version"):
        load_entry(path)
    path = _write(tmp_path, "schema_version: 1\nscores: [\n")
    with pytest.raises(UserError, match="not valid YAML"):
        load_entry(path)


def test_independent_score_without_evaluator_is_rejected(tmp_path):
    text = _good_yaml().replace("measured_by: lab", "measured_by: independent")
    with pytest.raises(UserError) as exc:
        load_entry(_write(tmp_path, text))
    assert "evaluator" in str(exc.value)


def test_attention_layers_must_add_up(tmp_path):
    text = _good_yaml() + (
        "attention:\n  layers: 4\n  full_layers: 4\n  sliding_layers: 2\n  sliding_window: 512\n"
        "  kv_heads: 8\n  head_dim: 64\n  source_url: https://example.org/config.json\n"
    )
    with pytest.raises(UserError) as exc:
        load_entry(_write(tmp_path, text))
    assert "attention" in str(exc.value)
