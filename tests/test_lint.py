"""The code base stays ruff-clean (the rules are in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_ruff_is_clean():
    command = [sys.executable, "-m", "ruff", "check", "engine", "tests", "benchmarks", "scripts"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
