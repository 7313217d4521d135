"""Gold and near-miss transcripts of the knowledge tasks, replayed through the scripted server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.replay import replay
from tests.helpers.scripted_server import Action

ROOT = Path(__file__).resolve().parent.parent.parent

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


# The readers at work (engine/readers): each case beside its near miss.
@pytest.mark.parametrize(("task_id", "right", "wrong"), [
    ("kn_bakery_batches", "Answer: three hundred sixty-nine", "Answer: three hundred sixty"),
    ("kn_rail_pass", "Answer: eighty-five dollars and eighty cents", "Answer: eighty-five dollars"),
    # the last committed stance wins, not the last label
    ("kn_bakery_batches", "Answer: 367\n\nWait, I forgot the boxes. The correct answer is 367 + 2 = 369.",
     "Answer: 369\n\nActually, wait: boxes are not loaves, so the answer should be 367."),
    ("kn_bakery_batches", "Answer: 369\n\nThat is 367 loaves sold plus 2 full boxes.",
     "Answer: 369\n(or 402 if the partial batch counts)"),
    ("kn_bakery_batches", "Answer: 369\n\nLet me check: 16 x 24 = 384, yes.", "Answer: 369\n\nWait, that's wrong."),
    # text answers: after "=" of working, before the explanation after a comma
    ("kn_slice_reverse", "Answer: initials + str(len(picked)) = fdb3", "Answer: initials + str(len(picked)) = bdf3"),
    ("kn_slice_reverse", "Answer: fdb3, since the initials are reversed", "Answer: fdb3, or maybe bdf3"),
    ("kn_slice_reverse", "**Final Answer**\n\n\\[\n\\boxed{fdb3}\n\\]", "**Final Answer**\n\n\\[\n\\boxed{bdf3}\n\\]"),
])
def test_the_readers_pass_the_answer_and_fail_the_near_miss(task_id, right, wrong):
    assert replay(task_id, [Action(text=right)]).passed, right
    assert not replay(task_id, [Action(text=wrong)]).passed, wrong


@pytest.mark.parametrize("reply", [
    "It sold 367 loaves and packed 2 boxes, so 369 in total (5 loaves stay loose).",
    "She would save 85.80.",
    "16 batches, 384 loaves, 367 sold.\n\n**Total: 367 + 2 = 369**\n\nLet me know if you would like more detail.",
    '```json\n{"sold": 367, "boxes": 2, "answer": 369}\n```',
])
def test_a_right_value_without_the_answer_line_asked_for_fails(reply):
    # The request asks for the line; picking a concluding number, a bold total or a JSON field out of the
    # reply is a guess made for the model.
    task = "kn_rail_pass" if "85.80" in reply else "kn_bakery_batches"
    trial = replay(task, [Action(text=reply)])
    assert not trial.passed and "no 'Answer:' line" in trial.grade.reason


def test_a_label_in_the_replys_own_language_is_an_answer_and_says_so():
    reply = "Die Bäckerei backt 16 Chargen, also 384 Brote; verkauft werden 367, dazu 2 volle Kisten.\n\nAntwort: 369"
    trial = replay("kn_bakery_batches", [Action(text=reply)])
    assert trial.passed and trial.grade.unsure and "Antwort" in trial.grade.unsure
    trial = replay("kn_bakery_batches", [Action(text="Answer: 369\nI'm not completely sure about the boxes.")])
    assert trial.passed and trial.grade.unsure and "doubt" in trial.grade.unsure
    assert replay("kn_bakery_batches", [Action(text="Answer: 369")]).grade.unsure is None


def test_an_arithmetic_answer_the_reader_cannot_read_is_a_load_error(tmp_path):
    from engine.bank.load import load_task
    from engine.core.errors import UserError

    source = (ROOT / "tasks" / "knowledge" / "kn_rail_pass.yaml").read_text()
    bad = tmp_path / "knowledge" / "kn_rail_pass.yaml"
    bad.parent.mkdir()
    bad.write_text(source.replace('answer: "85.80"', 'answer: "about 86"'))
    with pytest.raises(UserError, match="not a number"):
        load_task(bad)


@pytest.mark.parametrize("text", ["10:3,8:1,4:1,3:1", "Die Schleife zählt jede Zahl.\n\nAntwort: 10:3,8:1,4:1,3:1",
                                  "<answer>10:3,8:1,4:1,3:1</answer>", "Answer: 10:3,8:1,4:1,3:1<end_of_turn>"])
def test_a_bare_labelled_or_wrapped_printed_line_is_an_answer(text):
    trial = replay("kn_dict_counter", [Action(text=text)])
    assert trial.passed
    # Only the readings that are not an English label say so (the answer block holds a bare value).
    assert bool(trial.grade.unsure) == (not text.startswith("Answer"))


@pytest.mark.parametrize("text", ["10:3,8:1,4:1", "The loop counts every number and prints them sorted.",
                                  "Antwort: 10:3,8:1,4:1"])
def test_a_bare_or_foreign_labelled_wrong_line_fails(text):
    assert not replay("kn_dict_counter", [Action(text=text)]).passed
