"""Gold and near-miss transcripts of the knowledge tasks, replayed through the scripted server."""

from __future__ import annotations

import pytest

from tests.helpers.replay import replay
from tests.helpers.scripted_server import Action

CASES = {
    "kn_bakery_batches": ("384 loaves, 17 left, 2 boxes.\nAnswer: 369", ["Answer: 367", "Answer: 384"]),
    "kn_rail_pass": ("Singles 181.80, pass 96.00.\nAnswer: 85.80", ["Answer: 102.00", "Answer: 96.00"]),
    "kn_slice_reverse": ("picked = birch, delta, fjord\nAnswer: fdb3", ["Answer: bdf3", "Answer: fdb4"]),
    "kn_dict_counter": ("Answer: `10:3,8:1,4:1,3:1`", ["Answer: 10:3,8:1,7:2,4:1,3:1", "Answer: 3:1,4:1,8:1,10:3"]),
}


@pytest.mark.parametrize("task_id", sorted(CASES))
def test_gold_passes(task_id):
    trial = replay(task_id, [Action(text=CASES[task_id][0])])
    assert trial.passed and trial.grade.score == 1.0


@pytest.mark.parametrize("task_id,wrong", [(t, w) for t, (_, ws) in sorted(CASES.items()) for w in ws])
def test_near_misses_fail(task_id, wrong):
    trial = replay(task_id, [Action(text=wrong)])
    assert not trial.passed and trial.grade.score == 0.0


def test_program_output_without_answer_line_is_not_guessed():
    trial = replay("kn_slice_reverse", [Action(text="It prints fdb3 I think")])
    assert not trial.passed and "no 'Answer:' line" in trial.grade.reason


def test_grading_is_deterministic():
    a = replay("kn_rail_pass", [Action(text="Answer: 85.8")])
    b = replay("kn_rail_pass", [Action(text="Answer: 85.8")])
    assert a.grade == b.grade and a.passed
