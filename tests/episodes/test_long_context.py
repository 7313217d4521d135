"""long_context: gold and near-miss transcripts replayed through the runner, the context check, hygiene."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.bank.load import load_task
from engine.core.errors import UserError
from engine.episodes.base import estimate_tokens
from engine.episodes.long_context.module import MODULE, prompt, traps
from tests.helpers.replay import replay
from tests.helpers.scripted_server import Action

ROOT = Path(__file__).resolve().parent.parent.parent
TASKS = ROOT / "tasks" / "long_context"


def _task(task_id: str):
    return load_task(TASKS / f"{task_id}.yaml")


def _twin_decoy_root() -> str:
    """The chain's most tempting wrong answer: the root of the decoy ending in the asked variable's twin."""
    chain = MODULE_CHAIN.chain
    twin = chain.final[:-2] + chain.final[-1] + chain.final[-2]
    return next(root for root, last in chain.decoy_roots.items() if last == twin)


MODULE_CHAIN = __import__("engine.episodes.long_context.module", fromlist=["haystack"]).haystack(
    _task("lc_variable_chain").body)

CASES = {
    "lc_stale_code": (
        "The notes first give 4471, but the office later retired it; the door now takes 9082.\nAnswer: 9082",
        ["Answer: 4471", "Answer: 5530", "Answer: 9082 (or 4471)", "Answer: 9082 or 9028"],
    ),
    "lc_no_overlap": (
        "The Atomium is in Brussels, so Tomasz was there.\nAnswer: Tomasz",
        ["Odile is the one linked to Belgium.\nAnswer: Odile", "Answer: Ines", "Answer: **Henrik**"],
    ),
    "lc_variable_chain": (
        f"Tracing {MODULE_CHAIN.chain.final} back through twelve copies reaches the root.\n"
        f"Answer: {MODULE_CHAIN.chain.value}",
        [f"Answer: {_twin_decoy_root()}",
         f"Answer: {sorted(set(MODULE_CHAIN.chain.decoy_roots) - {_twin_decoy_root()})[0]}",
         f"Answer: {MODULE_CHAIN.chain.names[-2]}"],
    ),
    "lc_meeting_owner": (
        "Priya took it first, but Dana took it over later in the meeting.\nAnswer: Dana",
        ["Answer: Priya", "Answer: Luis", "Answer: Dana and Priya"],
    ),
}


@pytest.mark.parametrize("task_id", sorted(CASES))
def test_gold_passes(task_id):
    trial = replay(task_id, [Action(text=CASES[task_id][0])])
    assert trial.passed and trial.grade.score == 1.0, trial.grade.reason
    # The model was sent exactly the generated document and question.
    assert trial.turns[0].role == "user" and trial.turns[0].content == prompt(_task(task_id).body)


@pytest.mark.parametrize("task_id,wrong", [(t, w) for t, (_, ws) in sorted(CASES.items()) for w in ws])
def test_near_misses_fail(task_id, wrong):
    trial = replay(task_id, [Action(text=wrong)])
    assert not trial.passed and trial.grade.score == 0.0


def test_a_trap_is_named_in_the_reason():
    trial = replay("lc_stale_code", [Action(text="Answer: 4471")])
    assert "stale code" in trial.grade.reason
    trial = replay("lc_variable_chain", [Action(text=f"Answer: {_twin_decoy_root()}")])
    assert "decoy chain" in trial.grade.reason
    trial = replay("lc_meeting_owner", [Action(text="Answer: Priya, not Dana")])
    assert not trial.passed and "first owner" in trial.grade.reason


@pytest.mark.parametrize("text", ["Answer: Dana, not Priya", "Answer: Dana (she took it over from Priya)",
                                  "Answer: **Dana**"])
def test_a_trap_the_line_rejects_does_not_fail_the_answer(text):
    # Naming the trap to set it aside is not a hedge: the line commits to one owner.
    assert replay("lc_meeting_owner", [Action(text=text)]).passed


def test_answer_inside_a_sentence_counts_when_no_trap_is_named():
    trial = replay("lc_stale_code", [Action(text="Answer: the east door code is now 9082.")])
    assert trial.passed


def test_no_answer_line_is_not_guessed():
    trial = replay("lc_stale_code", [Action(text="The east door opens with 9082.")])
    assert not trial.passed and "no 'Answer:' line" in trial.grade.reason


def test_reasoning_is_stripped_before_grading():
    # The right answer inside a think block, a wrong one outside: the wrong one is graded.
    trial = replay("lc_meeting_owner", [Action(text="<think>Answer: Dana</think>\nAnswer: Priya")])
    assert not trial.passed
    # An unclosed think block after the answer is reasoning, not the answer.
    trial = replay("lc_meeting_owner", [Action(text="Answer: Dana\n<think>or was it Answer: Priya")])
    assert trial.passed
    trial = replay("lc_meeting_owner", [Action(text="Answer: Dana", reasoning="Answer: Priya")])
    assert trial.passed


def test_truncated_replies_fail_and_are_classed():
    trial = replay("lc_stale_code", [Action(text="The code is", finish_reason="length")])
    assert not trial.passed and trial.truncation == "incomplete"
    loop = "the east cold store door code is the east cold store door code " * 40
    trial = replay("lc_stale_code", [Action(text=loop + "Answer: 9082", finish_reason="length")])
    assert not trial.passed and trial.truncation == "degenerate" and trial.grade.hard_gate == "degenerate"


def test_required_context_is_the_exact_prompt_plus_the_reply_budget():
    for path in sorted(TASKS.glob("*.yaml")):
        task = load_task(path)
        need = MODULE.required_context(task)
        assert need == estimate_tokens(prompt(task.body)) + task.task.max_tokens * task.task.max_turns + 64
        if task.task.fast:
            assert need <= 7000, f"{task.id} is fast and must fit the bundled model's 8192 tokens"


def test_chain_fills_a_32k_window_and_the_others_fit_8k():
    needs = {p.stem: MODULE.required_context(load_task(p)) for p in TASKS.glob("*.yaml")}
    assert 30_000 <= needs["lc_variable_chain"] <= 32_768
    assert all(n <= 7000 for tid, n in needs.items() if tid != "lc_variable_chain")
    fast = [p.stem for p in TASKS.glob("*.yaml") if load_task(p).task.fast]
    assert len(fast) == 2 and "lc_variable_chain" not in fast


def test_served_context_check_refuses_the_chain_on_8k_unless_allowed():
    gold = CASES["lc_variable_chain"][0]
    with pytest.raises(UserError, match="lc_variable_chain"):
        replay("lc_variable_chain", [Action(text=gold)], window=8192)
    # allowed, it runs; a server that then counts more prompt tokens than its 8k window overflowed
    trial = replay("lc_variable_chain", [Action(text=gold)], window=8192,
                   allow_undersized_context=True)
    assert trial.grade is not None and trial.grade.reason == "context_overflow" and not trial.infra
    trial = replay("lc_meeting_owner", [Action(text="Answer: Dana")], window=8192)
    assert trial.passed


def test_a_silently_truncated_document_is_invalid_not_a_wrong_answer():
    # A server that dropped the front of the document reports far fewer prompt tokens than were sent.
    trial = replay("lc_stale_code", [Action(text="Answer: 4471", prompt_tokens=900)])
    assert trial.invalid_reason == "silent_truncation" and not trial.scorable


def test_every_task_declares_traps_that_occur_in_its_document():
    for path in sorted(TASKS.glob("*.yaml")):
        body = load_task(path).body
        assert len(traps(body)) >= 2
        text = prompt(body)
        assert all(answer in text for answer in traps(body))


def test_question_shares_no_word_with_the_needle_it_is_about():
    body = _task("lc_no_overlap").body
    needle = next(n.text for n in body.needles if body.answer in n.text)

    def words(text: str) -> set[str]:
        return {w.strip(".,?'").lower() for w in text.split()} - {""}

    question = body.question.split("?")[0]
    assert words(question) & words(needle) == set()


def test_grading_is_deterministic():
    a = replay("lc_no_overlap", [Action(text="Answer: Tomasz")])
    b = replay("lc_no_overlap", [Action(text="Answer: Tomasz")])
    assert a.grade == b.grade and a.passed


def test_a_wrong_answer_in_the_yaml_is_a_clear_load_error(tmp_path):
    source = (TASKS / "lc_variable_chain.yaml").read_text()
    bad_dir = tmp_path / "long_context"
    bad_dir.mkdir()
    bad = bad_dir / "lc_variable_chain.yaml"
    bad.write_text(source.replace(f'answer: "{MODULE_CHAIN.chain.value}"', 'answer: "12345"'))
    with pytest.raises(UserError, match=r"chain.yaml.*\n.*body.*not what the generated chain holds"):
        load_task(bad)


# The stance reader at work (engine/readers/stance.py): each case beside its near miss.
@pytest.mark.parametrize(("task_id", "right", "wrong"), [
    # a trap said of its own subject is no second answer; a bare one is
    ("lc_stale_code", "Answer: 9082 (the west store uses 5530)", "Answer: 9082 (5530)"),
    ("lc_stale_code", "Answer: 9082, while the west door uses 5530", "Answer: 9082, 5530"),
    ("lc_meeting_owner", "Answer: Dana (Priya is on leave)", "Answer: Dana, with Priya"),
    # a negation after the verb
    ("lc_meeting_owner", "Answer: Priya isn't the owner any more; Dana is.", "Answer: Dana isn't the owner; Priya is."),
    # prose after the line: an explanation changes nothing, a hedge or a revision does
    ("lc_stale_code", "Answer: 9082\n\nThe old code 4471 was retired; 5530 is the west store's.",
     "Answer: 9082\nOr possibly 4471 if the notice was not yet in force."),
    ("lc_meeting_owner", "Answer: Dana\n\nPriya might still be involved, since she is forwarding her notes.",
     "Answer: Dana\n\nThough Priya might still be the owner, since she spoke last."),
    ("lc_stale_code", "Answer: 4471\n\nWait, no: 4471 was retired. The correct answer is 9082.",
     "Answer: 9082\n\nActually, wait: the notice may not apply yet, so the answer is 4471."),
])
def test_the_stance_reader_passes_the_answer_and_fails_the_near_miss(task_id, right, wrong):
    assert replay(task_id, [Action(text=right)]).passed, right
    assert not replay(task_id, [Action(text=wrong)]).passed, wrong


def test_a_trap_read_as_said_of_something_else_marks_the_grade_unsure():
    trial = replay("lc_stale_code", [Action(text="Answer: 9082 (the west store uses 5530)")])
    assert trial.passed and trial.grade.unsure and "5530" in trial.grade.unsure
    assert replay("lc_stale_code", [Action(text="Answer: 9082 (4471 was retired)")]).grade.unsure is None
