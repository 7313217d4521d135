"""The bank as shipped: 39 tasks over 7 modules, a 17-task fast profile that fits a small window."""

from __future__ import annotations

from collections import Counter

from engine.bank.load import load_bank, select
from engine.episodes import MODULES
from tests.conftest import ROOT

EXPECTED = {"tools": 13, "code": 5, "format": 5, "long_context": 4, "multi_turn_if": 4, "adversarial": 4,
            "knowledge": 4}


def test_bank_has_39_tasks_in_7_modules_each_documented():
    bank = load_bank(ROOT / "tasks")
    assert Counter(t.task.module for t in bank) == EXPECTED
    for t in bank:
        assert t.task.what_this_tests.strip() and t.task.failure_mode.strip(), t.id


def test_fast_profile_covers_every_module_and_fits_8192_tokens():
    fast = select(load_bank(ROOT / "tasks"), profile="fast")
    assert len(fast) == 17
    assert set(t.task.module for t in fast) == set(EXPECTED)
    for t in fast:
        assert MODULES[t.task.module].required_context(t) <= 8192, t.id


def test_fast_profile_page_lists_exactly_the_fast_tasks():
    page = (ROOT / "site_src/methodology/fast-profile.md").read_text()
    fast = {t.id for t in select(load_bank(ROOT / "tasks"), profile="fast")}
    listed = {line.split("`")[1] for line in page.splitlines() if line.startswith("| `")}
    assert listed == fast


def test_task_hashes_are_stable_and_distinct():
    a = {t.id: t.hash for t in load_bank(ROOT / "tasks")}
    b = {t.id: t.hash for t in load_bank(ROOT / "tasks")}
    assert a == b and len(set(a.values())) == len(a)
