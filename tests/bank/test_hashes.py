"""tasks/HASHES.yaml holds every hash each task has had, today's included; `sllmb tasks --record-hashes` adds
today's."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from engine.bank.hashes import known_hashes, load_hash_record
from engine.bank.load import load_bank
from engine.cli import main
from tests.conftest import ROOT

TASKS = ROOT / "tasks"


def test_the_record_holds_todays_hash_of_every_task() -> None:
    record = load_hash_record(TASKS).tasks
    missing = [f"{t.id}: {t.hash}" for t in load_bank(TASKS) if t.hash not in record.get(t.id, [])]
    assert not missing, f"run `sllmb tasks --record-hashes` and commit tasks/HASHES.yaml; missing: {missing}"


def test_the_record_lists_each_hash_once_and_todays_last() -> None:
    record = load_hash_record(TASKS).tasks
    for task in load_bank(TASKS):
        hashes = record[task.id]
        assert len(hashes) == len(set(hashes)), task.id
        assert hashes[-1] == task.hash, task.id


def test_record_hashes_adds_a_changed_task_and_keeps_the_old_hash(tmp_path: Path, capsys) -> None:
    tasks = tmp_path / "tasks"
    shutil.copytree(TASKS, tasks)
    path = tasks / "knowledge" / "kn_bakery_batches.yaml"
    before = load_hash_record(tasks).tasks["kn_bakery_batches"]
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc["title"] += " (reworded)"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    new = next(t for t in load_bank(tasks) if t.id == "kn_bakery_batches").hash
    assert new not in load_hash_record(tasks).tasks["kn_bakery_batches"]

    assert main(["tasks", "--tasks-dir", str(tasks), "--record-hashes"]) == 0
    assert f"recorded kn_bakery_batches: {new}" in capsys.readouterr().out
    assert load_hash_record(tasks).tasks["kn_bakery_batches"] == [*before, new]
    assert known_hashes(tasks, load_bank(tasks))["kn_bakery_batches"] == {*before, new}
    # Running it again changes nothing.
    text = (tasks / "HASHES.yaml").read_text(encoding="utf-8")
    assert main(["tasks", "--tasks-dir", str(tasks), "--record-hashes"]) == 0
    assert "already recorded" in capsys.readouterr().out
    assert (tasks / "HASHES.yaml").read_text(encoding="utf-8") == text
