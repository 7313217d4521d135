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
