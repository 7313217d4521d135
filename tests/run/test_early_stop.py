"""--early-stop: a task's remaining trials are skipped once one has failed (its pass^k is then 0 whatever
they do), the run says so, and the scoring scores such a task on the trials it ran instead of dropping it."""

from __future__ import annotations

from pathlib import Path

from engine.analysis.scoring import score_run
from engine.core.results import load_run_file
from engine.run.runner import run_benchmark
from tests.conftest import KNOWLEDGE_ANSWERS
from tests.helpers.fake_servers import FakeLlamaCpp, Say, prompt_text
from tests.model.servers.conftest import run_request

RIGHT = "bakery"  # the one task this script answers right; the other three get a wrong answer


def _script(body):
    prompt = prompt_text(body)
    for marker, answer in KNOWLEDGE_ANSWERS.items():
        if marker in prompt:
            return Say(text=f"Answer: {answer if marker == RIGHT else '0'}")
    return Say(text="ready")


def _run(tmp_path, early_stop: bool, **kw):
    with FakeLlamaCpp(_script) as srv:
        run_benchmark(run_request(srv, tmp_path / "r.json", trials=3, early_stop=early_stop, warm_up=False, **kw))
        asked = [next(m for m in KNOWLEDGE_ANSWERS if m in prompt_text(b)) for b in srv.chats]
    return load_run_file(tmp_path / "r.json"), asked


def test_a_failed_task_runs_once_and_a_passing_one_runs_every_trial(tmp_path):
    run, asked = _run(tmp_path, True, concurrency=1)
    per_task = {t: sum(r.task_id == t for r in run.trials) for t in {r.task_id for r in run.trials}}
    right = next(t for t in per_task if "bakery" in t)
    assert per_task.pop(right) == 3 and set(per_task.values()) == {1} and len(per_task) == 3
    assert len(asked) == 6 and run.settings.early_stop is True
    assert run.provenance.cost.trials_skipped_as_decided == 6
    card = score_run(run)
    # every task scored: the passing one on its three trials, the failed ones (pass^3 0) on their one
    assert card.tasks_scored == 4 and card.tasks_excluded == 0
    assert card.modules["knowledge"].pass_k == 0.25


def test_without_the_flag_every_trial_runs_and_scores_the_same_pass_k(tmp_path):
    run, asked = _run(tmp_path, False, concurrency=1)
    assert len(asked) == 12 and run.settings.early_stop is False
    assert run.provenance.cost.trials_skipped_as_decided is None
    assert score_run(run).modules["knowledge"].pass_k == 0.25


def test_a_run_without_early_stop_still_drops_a_task_short_of_k(tmp_path):
    run, _ = _run(tmp_path, True, concurrency=1)
    plain = run.model_copy(update={"settings": run.settings.model_copy(update={"early_stop": False})})
    card = score_run(plain)
    assert card.tasks_scored == 1 and card.tasks_excluded == 3
    # nor does a board with a larger k than the run planned count a short task as decided
    assert score_run(run, k=4).tasks_scored == 0


def test_at_concurrency_every_task_runs_once_before_any_runs_twice(tmp_path):
    """Task-major order would start a task's trials together on parallel slots, before one could fail."""
    run, asked = _run(tmp_path, True, concurrency=2)
    assert sorted(asked[:4]) == sorted(KNOWLEDGE_ANSWERS)
    assert asked.count(RIGHT) == 3 and len(asked) < 12
    assert run.provenance.cost.trials_skipped_as_decided == 12 - len(asked)


def test_the_board_flags_a_row_that_used_early_stop(tmp_path):
    from engine.core.reference_setting import load_reference_setting
    from engine.publish.reference import setting_flags

    ref = load_reference_setting(Path(__file__).resolve().parents[2] / "results" / "reference" / "setting.yaml")
    run, _ = _run(tmp_path, True, concurrency=1)
    plain = run.model_copy(update={"settings": run.settings.model_copy(update={"early_stop": False})})
    assert [f for f in setting_flags(plain, ref) if f.field == "early_stop"] == []
    (flag,) = [f for f in setting_flags(run, ref) if f.field == "early_stop"]
    assert (flag.value, flag.reference) == ("on", "off")
