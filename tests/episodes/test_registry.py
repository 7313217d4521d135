"""The registry: one spec per module, declared beside its implementation, agreeing with the folders and the bank."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from engine.commands.schema import schema_text
from engine.core.errors import UserError
from engine.core.results import load_run_file
from engine.core.schema import Task, TrialRecord, module_context
from engine.episodes import MODULE_NAMES, MODULES, SPECS
from engine.episodes.spec import ModuleSpec, ModuleWeights
from tests.conftest import ROOT


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_each_spec_is_named_after_its_implementation_folder_and_its_task_folder(name: str) -> None:
    module = MODULES[name]
    assert module.spec is SPECS[name]
    assert module.spec.name == name
    assert type(module).__module__ == f"engine.episodes.{name}.module"
    tasks = sorted((ROOT / "tasks" / name).glob("*.yaml"))
    assert tasks, f"tasks/{name}/ holds no task"
    assert module.spec.bank_tasks == len(tasks), "bank_tasks is the count the weight caps are measured against"


def test_every_task_folder_is_a_registered_module() -> None:
    folders = {p.name for p in (ROOT / "tasks").iterdir() if p.is_dir()}
    assert folders == set(MODULE_NAMES)


@pytest.mark.parametrize("preset", list(ModuleWeights.model_fields))
def test_the_weight_shares_of_each_preset_sum_to_one(preset: str) -> None:
    total = sum(spec.weights.model_dump()[preset] for spec in SPECS.values())
    assert total == pytest.approx(1.0)


def test_labels_are_distinct() -> None:
    labels = [spec.label for spec in SPECS.values()]
    assert len(set(labels)) == len(labels)


def test_a_spec_is_frozen_and_refuses_unknown_keys() -> None:
    spec = SPECS["tools"]
    with pytest.raises(ValidationError):
        spec.label = "Agents"  # type: ignore[misc]
    with pytest.raises(ValidationError, match="extra"):
        ModuleSpec.model_validate({**spec.model_dump(), "colour": "red"})


def test_only_registered_names_are_module_names_of_task_and_result_files() -> None:
    fields = {"title": "t", "what_this_tests": "w", "failure_mode": "f", "body": {}}
    known = module_context(MODULE_NAMES)
    assert Task.model_validate({"id": "a", "module": "knowledge", **fields}, context=known).module == "knowledge"
    with pytest.raises(ValidationError, match="Input should be 'tools', 'code'.* or 'knowledge'"):
        Task.model_validate({"id": "a", "module": "poetry", **fields}, context=known)
    with pytest.raises(ValidationError, match="literal_error"):
        TrialRecord.model_validate({"task_id": "a", "task_hash": "h", "module": "poetry", "trial": 0}, context=known)


def test_without_the_registry_a_module_name_is_held_to_its_shape() -> None:
    # core knows no module by name (it comes before the registry): a well-formed unknown name passes there,
    # a malformed one does not; the loaders, which have the registry, pass its names.
    trial = {"task_id": "a", "task_hash": "h", "trial": 0}
    assert TrialRecord.model_validate({**trial, "module": "poetry"}).module == "poetry"
    with pytest.raises(ValidationError, match="module_name"):
        TrialRecord.model_validate({**trial, "module": "Poetry; rm -rf"})


def test_a_result_file_with_an_unregistered_module_is_refused_naming_the_field(tmp_path: Path) -> None:
    path = ROOT / "results" / "reference" / "smollm2-135m-instruct_raw_results.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["trials"][0]["module"] = "poetry"
    (tmp_path / "r.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(UserError, match=r"trials\.0\.module: Input should be 'tools'"):
        load_run_file(tmp_path / "r.json", MODULE_NAMES)


def test_the_result_schema_lists_the_registry_names() -> None:
    schema = json.loads(schema_text())
    assert schema["$defs"]["TrialRecord"]["properties"]["module"]["enum"] == list(MODULE_NAMES)
