"""The one reader of hand-written YAML files: each way a file can be unusable names the file and the fix."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from engine.core.errors import UserError
from engine.core.models_file import load_models
from engine.core.yamlfile import read_mapping
from tests.conftest import ROOT


def test_a_mapping_is_returned(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("id: x\nitems: [1, 2]\n")
    assert read_mapping(path, "task file") == {"id": "x", "items": [1, 2]}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("id: [unclosed\n", "not valid YAML"),
        ("- just\n- a list\n", "the task file must be a mapping of keys to values at the top level"),
        ("", "the task file must be a mapping"),
    ],
)
def test_unusable_files_name_the_file_and_what_is_wrong(tmp_path, text, message):
    path = tmp_path / "t.yaml"
    path.write_text(text)
    with pytest.raises(UserError, match=message) as info:
        read_mapping(path, "task file")
    assert str(path) in str(info.value)


def test_a_missing_file_says_which_kind_it_was(tmp_path):
    with pytest.raises(UserError, match="cannot read the models file"):
        load_models(tmp_path / "absent.yaml")


def test_a_models_file_that_is_a_list_is_refused_before_validation(tmp_path):
    path = tmp_path / "models.yaml"
    path.write_text("- name: a\n")
    with pytest.raises(UserError, match="models file must be a mapping"):
        load_models(path)


def _bomb(levels: int) -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_is_refused_naming_the_file_and_costs_nothing(tmp_path):
    path = tmp_path / "tasks" / "knowledge" / "kn_bomb.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("id: kn_bomb\nmodule: knowledge\ntitle: t\nwhat_this_tests: x\nfailure_mode: y\n"
                    "body:\n  " + _bomb(10).replace("\n", "\n  ").rstrip() + "\n")
    started = time.perf_counter()
    with pytest.raises(UserError, match=r"kn_bomb\.yaml: the task file stands for more than 100,000 values"):
        read_mapping(path, "task file")
    assert time.perf_counter() - started < 2
    # Through the command line: a message and exit 2, not a MemoryError traceback.
    done = subprocess.run([sys.executable, "-m", "engine", "tasks", "--tasks-dir", str(tmp_path / "tasks")],
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and "kn_bomb.yaml" in done.stderr and "Traceback" not in done.stderr


def test_an_alias_inside_its_own_anchor_is_refused(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("id: x\nloop: &l\n  - 1\n  - *l\n")
    with pytest.raises(UserError, match="an alias contains itself"):
        read_mapping(path, "task file")


def test_a_few_aliases_and_deep_nesting_still_read(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(_bomb(3) + "deep: " + "[" * 2000 + "]" * 2000 + "\n")
    data = read_mapping(path, "task file")
    assert len(data["a2"]) == 9 and data["a2"][0] is data["a1"]


def test_the_judge_reads_task_files_through_the_same_bound(tmp_path):
    from engine.analysis.judge.context import load_task_contexts

    bank = tmp_path / "knowledge"
    bank.mkdir()
    (bank / "kn_bomb.yaml").write_text("id: kn_bomb\n" + _bomb(10) + "title: *a9\n")
    real = (ROOT / "tasks" / "knowledge" / "kn_rail_pass.yaml").read_text(encoding="utf-8")
    (bank / "kn_ok.yaml").write_text(real.replace("id: kn_rail_pass", "id: kn_ok"), encoding="utf-8")
    started = time.perf_counter()
    contexts = load_task_contexts(tmp_path, ["kn_bomb", "kn_ok"])
    assert time.perf_counter() - started < 2
    assert set(contexts) == {"kn_ok"} and contexts["kn_ok"].title == "Rail pass or single tickets"
