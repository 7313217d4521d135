"""One model-name pattern and https-only links, checked whenever a result file, a judged file, models.yaml or an
index data file is read (not only by the pull-request check)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from engine.cli import main
from engine.core.errors import UserError
from engine.core.fieldtypes import https_url_problem, model_name_problem
from engine.core.models_file import load_models
from engine.core.results import load_run_file
from engine.index.data import load_entry
from tests.conftest import ROOT

REFERENCE = ROOT / "results" / "reference" / "smollm2-135m-instruct_raw_results.json"

GOOD_NAMES = ["qwen3:8b", "Qwen/Qwen3-8B", "hf.co/unsloth/Qwen3-8B-GGUF:Q4_K_M", "gemma-3n-E4B+it", "a" * 100]
BAD_NAMES = {
    "backticks": "m`![x](https://e.example/p.png)`",
    "workflow command": "::error::pwned",
    "300 characters": "m" * 300,
    "101 characters": "m" * 101,
    "emoji": "qwen3-🚀",
    "space": "my model",
    "newline": "m\n::warning::x",
    "leading dash": "-rf",
    "html": "<img src=x onerror=alert(1)>",
    "jinja": "{{ 7*7 }}",
    "cyrillic": "модель-7b",
    "empty": "",
}


@pytest.mark.parametrize("name", GOOD_NAMES)
def test_names_servers_use_are_model_names(name: str) -> None:
    assert model_name_problem(name) is None


@pytest.mark.parametrize("name", BAD_NAMES.values(), ids=BAD_NAMES.keys())
def test_other_names_are_refused_with_the_rule(name: str) -> None:
    assert "ASCII letters, digits and . _ : / + -" in (model_name_problem(name) or "")


@pytest.mark.parametrize("name", BAD_NAMES.values(), ids=BAD_NAMES.keys())
def test_a_result_file_with_a_bad_model_name_is_refused_when_read(name: str, tmp_path: Path) -> None:
    doc = json.loads(REFERENCE.read_text(encoding="utf-8"))
    doc["settings"]["model"] = name
    path = tmp_path / "x_raw_results.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(UserError) as exc:
        load_run_file(path)
    message = str(exc.value)
    assert "settings.model" in message and "a model name is" in message and str(path) in message
    # The refused value is not echoed into logs and summaries.
    assert name not in message or name == ""


def _models_file(tmp_path: Path, **row: object) -> Path:
    base = {"name": "qwen3-8b", "total_params_b": 8.2, "card_url": "https://huggingface.co/Qwen/Qwen3-8B"}
    doc = {"schema_version": 1, "default": "qwen3-8b", "models": [dict(base, **row)]}
    path = tmp_path / "models.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def test_models_yaml_refuses_a_bad_name_naming_the_row_and_field(tmp_path: Path) -> None:
    path = _models_file(tmp_path, name="qwen3-🚀")
    with pytest.raises(UserError) as exc:
        load_models(path)
    assert "models.0" in str(exc.value) and "name" in str(exc.value) and "a model name is" in str(exc.value)


@pytest.mark.parametrize("url", ["javascript:alert(3)", "http://example.org/card", "https://", "data:text/html,x",
                                 "https://exa mple.org/", "//example.org/card"])
def test_models_yaml_refuses_a_card_url_that_is_not_https(tmp_path: Path, url: str) -> None:
    path = _models_file(tmp_path, card_url=url)
    with pytest.raises(UserError) as exc:
        load_models(path)
    assert "card_url" in str(exc.value) and "https://" in str(exc.value)


def test_the_committed_models_yaml_and_index_data_are_valid() -> None:
    assert load_models(ROOT / "models.yaml").models
    for path in sorted((ROOT / "results" / "reported").glob("*.yaml")):
        load_entry(path)


def test_index_data_refuses_a_javascript_source_url(tmp_path: Path) -> None:
    source = sorted((ROOT / "results" / "reported").glob("*.yaml"))[0]
    doc = yaml.safe_load(source.read_text(encoding="utf-8"))
    doc["aa_speed"] = {"output_tokens_per_s": 50.0, "source_url": "javascript:alert(3)", "synced": "2026-01-02"}
    path = tmp_path / source.name
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    with pytest.raises(UserError) as exc:
        load_entry(path)
    assert "aa_speed.source_url" in str(exc.value) and "https://" in str(exc.value)


@pytest.mark.parametrize("url", ["https://huggingface.co/Qwen/Qwen3-8B", "HTTPS://example.org/a?b=c#d"])
def test_https_addresses_pass(url: str) -> None:
    assert https_url_problem(url) is None


def test_run_refuses_a_bad_model_name_before_it_starts(capsys) -> None:
    code = main(["run", "--endpoint", "http://127.0.0.1:9/v1", "--model", "qwen3-🚀", "-q"])
    err = capsys.readouterr().err
    assert code == 2 and "--model" in err and "a model name is" in err and "--alias" in err
