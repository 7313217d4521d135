"""``sllmb fleet FLEET.yaml`` against a real loopback scripted server: each model into the file ``sllmb run``
names, one job at a time as the fleet workflow runs them, resumable, the collecting job's check, and lists that
are refused with the file, the field and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from engine.cli import main
from engine.core.results import load_run_file
from tests.commands.test_sweep import _responder
from tests.helpers.honest_run import small_bank
from tests.helpers.scripted_server import ScriptedServer


def _fleet(tmp_path: Path, url: str, **overrides: object) -> Path:
    doc = {"modules": ["knowledge"], "tasks_dir": str(small_bank(tmp_path / "bank")), "trials": 2, "output": "out",
           "models": [{"name": "scripted:a", "endpoint": url}, {"name": "scripted-b", "endpoint": url}], **overrides}
    path = tmp_path / "fleet.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def test_each_model_runs_into_its_run_named_file_one_job_at_a_time(tmp_path: Path, capsys) -> None:
    with ScriptedServer(_responder) as srv:
        fleet = _fleet(tmp_path, srv.url)
        assert main(["fleet", str(fleet), "--no-warm-up", "--quiet", "--only", "scripted:a"]) == 0
        out = tmp_path / "out"
        a = out / "scripted_a_raw_results.json"
        assert a.is_file() and not (out / "scripted-b_raw_results.json").exists()
        assert {r["model"] for r in srv.requests if "messages" in r} == {"scripted:a"}
        # The collecting job before every file is there names the missing model and runs nothing.
        sent = len(srv.requests)
        assert main(["fleet", str(fleet), "--report-only"]) == 2
        assert "model 'scripted-b'" in capsys.readouterr().err and len(srv.requests) == sent
        # The whole list: the finished model is not run again, the other is.
        before = a.read_bytes()
        assert main(["fleet", str(fleet), "--no-warm-up", "--quiet"]) == 0
        assert a.read_bytes() == before
        assert {r["model"] for r in srv.requests[sent:] if "messages" in r} == {"scripted-b"}
        sent = len(srv.requests)
        assert main(["fleet", str(fleet), "--report-only", "--rederive"]) == 0
        assert len(srv.requests) == sent, "--report-only sent a request"
    err = capsys.readouterr().err
    assert "scripted_a_raw_results.json: re-derived" in err and "sllmb leaderboard --results-dir" in err
    b = load_run_file(out / "scripted-b_raw_results.json")
    assert (b.settings.model, b.settings.trials, b.settings.profile) == ("scripted-b", 2, "full")


@pytest.mark.parametrize(("change", "field", "fix"), [
    ({"models": [{"name": "m", "endpoint": "http://127.0.0.1:1/v1", "served_model": "x"}]}, "models.0",
     "remove served_model"),
    ({"models": [{"name": "m", "embedded": {"model": "other"}}]}, "models.0", "remove embedded.model"),
    ({"models": [{"name": "qwen3:8b"}, {"name": "qwen3_8b"}]}, "models", "share a result file"),
    ({"models": []}, "models", "at least 1"),
    ({"models": [{"name": "m", "tags": ["x"]}]}, "models.0.tags", "unknown key"),
    ({"models": [{"name": "m", "runs_on": ["gpu; rm -rf /"]}]}, "models.0.runs_on.0", "pattern"),
    ({"models": [{"name": "../m"}]}, "models.0.name", ""),
])
def test_a_bad_fleet_list_names_the_file_the_field_and_the_fix(tmp_path: Path, capsys, change, field, fix) -> None:
    fleet = _fleet(tmp_path, "http://127.0.0.1:1/v1", **change)
    assert main(["fleet", str(fleet), "--matrix"]) == 2
    err = capsys.readouterr().err
    assert str(fleet) in err and f"field '{field}'" in err and fix in err
    assert not (tmp_path / "out").exists()


def test_an_oversized_fleet_list_is_refused_unread(tmp_path: Path, capsys) -> None:
    big = tmp_path / "fleet.yaml"
    big.write_text("models: []\n" + "#" * (300 * 1024), encoding="utf-8")
    assert main(["fleet", str(big)]) == 2
    assert "is not a fleet list" in capsys.readouterr().err
