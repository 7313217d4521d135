"""The pull-request check: changed models.yaml rows and result files are validated and placed on the board."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from engine.cli import main


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(site_fleet: Path, tmp_path: Path) -> tuple[Path, str, list[Path]]:
    """A git repo whose base commit holds all fleet models but two: (repo, base sha, held-back files)."""
    repo = tmp_path / "repo"
    ref = repo / "results" / "reference"
    ref.mkdir(parents=True)
    files = sorted((site_fleet / "results").glob("fleet-*_raw_results.json"))
    held = files[-2:]
    shutil.copy(site_fleet / "results" / "setting.yaml", ref / "setting.yaml")  # the declared reference setting
    for f in files[:-2]:
        shutil.copy(f, ref / f.name)
        judged = f.with_name(f.name.replace("_raw_results.json", "_judged.json"))
        if judged.is_file():
            shutil.copy(judged, ref / judged.name)
    doc = yaml.safe_load((site_fleet / "models.yaml").read_text(encoding="utf-8"))
    held_names = {f.name.removesuffix("_raw_results.json") for f in held}
    base_doc = dict(doc, models=[r for r in doc["models"] if r["name"] not in held_names])
    base_doc["default"] = base_doc["models"][0]["name"]
    (repo / "models.yaml").write_text(yaml.safe_dump(base_doc, sort_keys=False), encoding="utf-8")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    base = _git(repo, "rev-parse", "HEAD")
    # The pull request: the held-back models' rows and result files.
    doc["default"] = base_doc["default"]
    (repo / "models.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    for f in held:
        shutil.copy(f, ref / f.name)
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "add models")
    return repo, base, held


def test_new_models_are_validated_and_placed(repo, capsys) -> None:
    root, base, held = repo
    assert main(["pr-check", "--base", base, "--root", str(root)]) == 0
    out = capsys.readouterr().out
    for f in held:
        name = f.name.removesuffix("_raw_results.json")
        assert f"result file `results/reference/{f.name}` is valid" in out
        assert f"- `{name}`: **" in out and "tier **" in out and "rank " in out
    assert "separable" in out and "models.yaml rows added or changed (valid)" in out


def test_a_broken_result_file_fails_with_its_name(repo, capsys) -> None:
    root, base, held = repo
    (root / "results" / "reference" / held[0].name).write_text('{"schema_version": 1}', encoding="utf-8")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "break it")
    assert main(["pr-check", "--base", base, "--root", str(root)]) == 2
    captured = capsys.readouterr()
    assert held[0].name in captured.err and "not a valid result file" in captured.err
    assert "**Invalid:**" in captured.out


def test_a_bad_models_row_fails_naming_the_field(repo, capsys) -> None:
    root, base, _held = repo
    doc = yaml.safe_load((root / "models.yaml").read_text(encoding="utf-8"))
    doc["models"][-1]["paramz"] = 3
    (root / "models.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "typo")
    assert main(["pr-check", "--base", base, "--root", str(root)]) == 2
    assert "paramz" in capsys.readouterr().err
