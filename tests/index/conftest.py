"""One leave-one-out run on the committed data per test session: it refits the index once per held-out figure."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.index.data import DEFAULT_DATA_DIR, load_entries
from engine.index.validate import ValidationReport, leave_one_out

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def committed_report() -> ValidationReport:
    return leave_one_out(load_entries(REPO / DEFAULT_DATA_DIR))
