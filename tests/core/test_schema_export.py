"""The JSON Schema shipped with the docs is the one the code generates."""

from __future__ import annotations

import json

from engine.cli import main
from engine.commands.schema import DOCS_COPY, schema_text
from tests.conftest import ROOT


def test_docs_copy_matches_the_code():
    committed = (ROOT / DOCS_COPY).read_text()
    assert committed == schema_text(), "regenerate it with: python -m engine schema -o " + str(DOCS_COPY)


def test_schema_command_writes_valid_json(tmp_path):
    out = tmp_path / "s.json"
    assert main(["schema", "--output", str(out)]) == 0
    data = json.loads(out.read_text())
    assert "TrialRecord" in data["$defs"] and "settings" in data["properties"]


def test_files_written_atomically_are_world_readable(tmp_path):
    from engine.core.fileio import atomic_write_text

    target = tmp_path / "out.json"
    atomic_write_text(target, "{}")
    assert target.read_text() == "{}" and (target.stat().st_mode & 0o777) == 0o644
