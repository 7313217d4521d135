"""The GitHub Actions workflows pass actionlint (syntax, expressions, shell) and zizmor (security)."""

from __future__ import annotations

import shutil
import subprocess

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
