"""The GitHub Actions workflows pass actionlint (syntax, expressions, shell) and zizmor (security)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.conftest import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def test_there_are_workflows_for_tests_pages_and_model_prs():
    names = {p.name for p in WORKFLOWS}
    assert {"ci.yml", "pages.yml", "pr-model.yml"} <= names


def test_actionlint_is_clean():
    exe = shutil.which("actionlint")
    assert exe, "actionlint missing: pip install -e '.[test]' installs it"
    done = subprocess.run([exe, *map(str, WORKFLOWS)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_zizmor_finds_nothing():
    exe = shutil.which("zizmor")
    assert exe, "zizmor missing: pip install -e '.[test]' installs it"
    done = subprocess.run([exe, "--offline", str(ROOT / ".github" / "workflows")], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr


# The regression-gate recipe of the guide: the page is its one copy, so the test lints what a reader copies.
GATE_GUIDE = ROOT / "site_src" / "guides" / "regression-gate.md"


def _gate_recipe(tmp_path) -> tuple[Path, dict]:
    import re

    import yaml

    text = GATE_GUIDE.read_text(encoding="utf-8")
    found = re.search(r"<!-- regression-gate recipe[^>]*-->\n```yaml\n(.*?)```", text, re.S)
    assert found, f"{GATE_GUIDE}: the marked yaml block of the recipe is missing"
    folder = tmp_path / ".github" / "workflows"
    folder.mkdir(parents=True)
    path = folder / "model-regression-gate.yml"
    path.write_text(found.group(1), encoding="utf-8")
    return path, yaml.safe_load(found.group(1))


def test_the_regression_gate_recipe_passes_actionlint_and_zizmor(tmp_path) -> None:
    path, _ = _gate_recipe(tmp_path)
    lint = subprocess.run([shutil.which("actionlint") or "actionlint", str(path)], cwd=tmp_path,
                          capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    audit = subprocess.run([shutil.which("zizmor") or "zizmor", "--offline", str(path.parent)], cwd=tmp_path,
                           capture_output=True, text=True)
    assert audit.returncode == 0, audit.stdout + audit.stderr


def test_the_regression_gate_recipe_runs_the_fast_profile_and_gates_on_compare(tmp_path) -> None:
    _, doc = _gate_recipe(tmp_path)
    (job,) = doc["jobs"].values()
    assert doc["permissions"] == {} and job["permissions"] == {"contents": "read"}
    runs = [s["run"] for s in job["steps"] if "run" in s]
    assert any("sllmb run --profile fast" in r for r in runs)
    (gate,) = [r for r in runs if "sllmb compare" in r]
    assert "--fail-on-regression" in gate and "bench/baseline_raw_results.json" in gate
    # Values of variables and secrets reach the bench through the environment, never pasted into a shell line.
    assert not any("${{" in r for r in runs)


def _pr_model() -> dict:
    import yaml

    return yaml.safe_load((ROOT / ".github" / "workflows" / "pr-model.yml").read_text(encoding="utf-8"))


def test_the_model_check_runs_the_base_commits_code_on_the_pull_requests_data():
    text = (ROOT / ".github" / "workflows" / "pr-model.yml").read_text(encoding="utf-8")
    assert "secrets." not in text
    doc = _pr_model()
    # pull_request, never pull_request_target: a read-only token and no secrets for a fork's pull request.
    assert list(doc[True]) == ["pull_request"]
    assert doc["permissions"] == {}
    (job,) = doc["jobs"].values()
    assert job["permissions"] == {"contents": "read"}
    checkouts = [s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/checkout@")]
    assert all(s["with"]["persist-credentials"] is False for s in checkouts)
    checker, pr = checkouts
    # The checker is the base commit; the pull request's checkout holds its data files and nothing else.
    assert checker["with"]["ref"] == "${{ github.event.pull_request.base.sha }}"
    assert checker["with"]["path"] == "checker"
    assert pr["with"]["path"] == "pr" and "ref" not in pr["with"]
    assert pr["with"]["sparse-checkout"].split() == ["/models.yaml", "/results/"]
    assert pr["with"]["sparse-checkout-cone-mode"] is False
    runs = [s for s in job["steps"] if "run" in s]
    # Installed: the checker and bubblewrap (code trials are regraded in the sandbox); run: the checker's script.
    assert "pip install --quiet ./checker" in runs[0]["run"] and "install -y -qq bubblewrap" in runs[0]["run"]
    assert runs[1]["working-directory"] == "checker" and runs[1]["run"] == 'bash .ci/pr-check ../pr "$BASE_SHA"'
    assert not any("pr/" in s["run"].replace("../pr ", "") for s in runs), "nothing in the pull request's checkout runs"
