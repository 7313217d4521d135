"""The one reader of hand-written YAML files: each way a file can be unusable names the file and the fix."""

from __future__ import annotations

import pytest

from engine.core.errors import UserError
from engine.core.models_file import load_models
from engine.core.yamlfile import read_mapping


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
