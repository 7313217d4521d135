"""The code module: gold and wrong solutions of every task, the repair loop's feedback, scoring, fail-closed.

Every transcript is replayed through the real runner against the scripted loopback server, and the code
runs in a real bubblewrap sandbox (a missing bwrap fails these tests: CI installs it).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest

from engine.bank.load import load_bank
from engine.core.errors import UserError
from engine.core.schema import Turn
from engine.episodes.base import Env
from engine.episodes.code.module import MODULE, CodeBody, NoSandbox, execute, feedback, harness
from engine.run.plan import select_tasks
from engine.run.request import RunRequest
from engine.run.runner import run_benchmark
from engine.run.sandbox_choice import choose_sandbox
from engine.sandbox import Limits, SandboxHandle, make_backend, sandbox_or_reason
from engine.sandbox.bubblewrap import BubblewrapBackend
from tests.conftest import knowledge_responder
from tests.helpers.replay import ROOT, replay
from tests.helpers.scripted_server import Action, ScriptedServer

_BACKEND: dict[str, object] = {}


@pytest.fixture(scope="module")
def sandbox() -> SandboxHandle:
    if "bwrap" not in _BACKEND:
        backend = make_backend("bubblewrap")
        backend.check()  # fails (not skips) when bubblewrap is missing
        _BACKEND["bwrap"] = SandboxHandle(backend, Limits())
    return _BACKEND["bwrap"]  # type: ignore[return-value]


def fenced(code: str, before: str = "Here is the fixed file.", after: str = "") -> str:
    return f"{before}\n\n```python\n{code.strip()}\n```\n{after}"


TASKS = {t.id: t for t in load_bank(ROOT / "tasks") if t.task.module == "code"}


@pytest.fixture(scope="module")
def small_bank(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Only the code and knowledge tasks: the runner loads the bank several times per run, so runs that are
    not replays of one task's gold or wrong answer use this smaller bank to keep the file quick."""
    root = tmp_path_factory.mktemp("bank")
    for module in ("code", "knowledge"):
        shutil.copytree(ROOT / "tasks" / module, root / module)
    return root

# --------------------------------------------------------------------------------------------------------
# Gold and wrong solutions. Each wrong one says which group of cases must catch it.

SPLIT_GOLD = '''
def split_bill(total_cents, weights):
    if total_cents < 0 or not weights or any(w < 0 for w in weights) or sum(weights) == 0:
        raise ValueError("bad input")
    total_w = sum(weights)
    shares = [total_cents * w // total_w for w in weights]
    rest = [total_cents * w % total_w for w in weights]
    for i in sorted(range(len(weights)), key=lambda i: (-rest[i], i))[: total_cents - sum(shares)]:
        shares[i] += 1
    return shares
'''
SPLIT_ROUNDED = '''
def split_bill(total_cents, weights):
    s = sum(weights)
    return [round(total_cents * w / s) for w in weights]
'''
SPLIT_LAST_WINS_TIES = SPLIT_GOLD.replace("(-rest[i], i)", "(-rest[i], -i)")
# Remainders in floating point: a true tie (three remainders of 2/3) no longer compares equal, so a later
# person can get a cent before an earlier one.
SPLIT_FLOAT_REMAINDERS = SPLIT_GOLD.replace("rest = [total_cents * w % total_w for w in weights]",
                                            "rest = [total_cents * w / total_w - s for w, s in zip(weights, shares)]")

SHIP_SOURCE = TASKS["code_shipping_tariff"].body.source
SHIP_GOLD = '''
"""Shipping quotes for the checkout page. Prices in cents, weights in grams."""

import math

from constants import EXTRA_KG_CENTS, FREE_SHIPPING_FROM_CENTS, WEIGHT_BANDS


def quote(weight_g, order_cents):
    if weight_g <= 0:
        raise ValueError("weight must be positive")
    if order_cents >= FREE_SHIPPING_FROM_CENTS:
        return 0
    for limit, price in WEIGHT_BANDS:
        if weight_g <= limit:
            return price
    last_limit, last_price = WEIGHT_BANDS[-1]
    return last_price + math.ceil((weight_g - last_limit) / 1000) * EXTRA_KG_CENTS
'''
SHIP_ONE_PRICE = SHIP_SOURCE.replace("(2000, 750)", "(2000, 790)")
SHIP_STRICT_FREE = SHIP_GOLD.replace("order_cents >= FREE", "order_cents > FREE")
# "One more kilogram than the whole kilograms over": right for every weight but a whole number of kilograms
# over the last band, where the tariff's "every started kilogram" charges one kilogram less.
SHIP_FLOOR_PLUS_ONE = SHIP_GOLD.replace("math.ceil((weight_g - last_limit) / 1000)",
                                        "((weight_g - last_limit) // 1000 + 1)")
# The band edges off by one gram: a weight exactly at a band's limit belongs to the next band.
SHIP_EDGE_EXCLUSIVE = SHIP_GOLD.replace("if weight_g <= limit:", "if weight_g < limit:")

EVENT_GOLD = '''
def _seconds(t):
    parts = [int(p) for p in t.split(":")] + [0]
    return parts[0] * 3600 + parts[1] * 60 + parts[2]


def latest_event(events):
    best_name, best = None, None
    for name, t in events:
        if best is None or _seconds(t) > best:
            best_name, best = name, _seconds(t)
    return best_name
'''
EVENT_ZFILL = TASKS["code_latest_event"].body.source.replace(
    "time > best_time", "time.zfill(5) > best_time.zfill(5)")
EVENT_MAX = EVENT_GOLD.split("def latest_event")[0] + '''def latest_event(events):
    return max(events, key=lambda e: _seconds(e[1]))[0]
'''
# Parses hours and minutes and drops the seconds: right on every case where the later of two times that
# differ only in seconds is listed first, which is why the task needs the cases where it comes second.
EVENT_NO_SECONDS = EVENT_GOLD.replace("parts[0] * 3600 + parts[1] * 60 + parts[2]", "parts[0] * 60 + parts[1]")

PAGE_SOURCE = TASKS["code_page_slice"].body.source
PAGE_GOLD = PAGE_SOURCE.replace("start = number * size", "start = (number - 1) * size")
PAGE_SPECIAL_CASE = PAGE_SOURCE.replace("start = number * size",
                                        "start = 0 if number == 1 else number * size")
PAGE_NO_EMPTY_PAGE = PAGE_GOLD.replace("pages = max(1, -(-len(items) // size))",
                                       "pages = -(-len(items) // size)")

SET_SOURCE = TASKS["code_settings_parser"].body.source
SET_GOLD = SET_SOURCE.replace('part.split("=")', 'part.split("=", 1)')
SET_PADDING = SET_SOURCE.replace(
    '        key, value = part.split("=")\n        result[key.strip()] = value.strip()\n',
    '        bare = part.rstrip("=")\n        pad = part[len(bare):]\n        key, value = bare.split("=")\n'
    '        result[key.strip()] = value.strip() + pad\n',
)
SET_PARTITION = SET_SOURCE.replace('key, value = part.split("=")', 'key, _, value = part.partition("=")')
# Strips an inline comment at any "#", so "color=#fff" loses its value: only a part starting with "#" is one.
SET_INLINE_HASH = SET_GOLD.replace('part = part.strip()\n', 'part = part.split("#", 1)[0].strip()\n')

GOLD = {
    "code_split_bill": SPLIT_GOLD,
    "code_shipping_tariff": SHIP_GOLD,
    "code_latest_event": EVENT_GOLD,
    "code_page_slice": PAGE_GOLD,
    "code_settings_parser": SET_GOLD,
}
# (task, code, group that must fail while the examples still pass)
WRONG = [
    ("code_split_bill", SPLIT_ROUNDED, "hidden"),
    ("code_split_bill", SPLIT_LAST_WINS_TIES, "hidden"),
    ("code_split_bill", SPLIT_FLOAT_REMAINDERS, "hidden"),
    ("code_shipping_tariff", SHIP_ONE_PRICE, "hidden"),
    ("code_shipping_tariff", SHIP_FLOOR_PLUS_ONE, "hidden"),
    ("code_shipping_tariff", SHIP_EDGE_EXCLUSIVE, "hidden"),
    ("code_shipping_tariff", SHIP_STRICT_FREE, "regression"),
    ("code_latest_event", EVENT_ZFILL, "hidden"),
    ("code_latest_event", EVENT_MAX, "regression"),
    ("code_latest_event", EVENT_NO_SECONDS, "regression"),
    ("code_page_slice", PAGE_SPECIAL_CASE, "hidden"),
    ("code_page_slice", PAGE_NO_EMPTY_PAGE, "regression"),
    ("code_settings_parser", SET_PADDING, "hidden"),
    ("code_settings_parser", SET_PARTITION, "regression"),
    ("code_settings_parser", SET_INLINE_HASH, "regression"),
]


def test_the_bank_has_five_code_tasks_two_fast_one_single_attempt():
    assert len(TASKS) == 5
    assert sum(t.task.fast for t in TASKS.values()) == 2
    assert [t.body.kind for t in TASKS.values()].count("write") == 1
    assert [tid for tid, t in TASKS.items() if t.body.max_attempts == 1] == ["code_page_slice"]
    assert [tid for tid, t in TASKS.items() if t.body.context_files] == ["code_shipping_tariff"]
    for t in TASKS.values():
        assert t.task.what_this_tests and t.task.failure_mode
        if t.body.kind == "repair":
            assert t.body.regression, f"{t.id} has no regression cases"


@pytest.mark.parametrize("task_id", sorted(GOLD))
def test_gold_passes_first_try(task_id, sandbox):
    trial = replay(task_id, [Action(text=fenced(GOLD[task_id]))], sandbox=sandbox)
    assert trial.passed and trial.grade.score == 1.0, trial.grade
    assert trial.grade.details["first_try_pass"] is True
    assert trial.grade.details["sandbox_backend"] == "bubblewrap"
    assert len([t for t in trial.turns if t.role == "assistant"]) == 1


@pytest.mark.parametrize("task_id", [t for t in sorted(TASKS) if TASKS[t].body.kind == "repair"])
def test_the_code_as_shipped_fails_its_hidden_tests_but_passes_its_regression_cases(task_id, sandbox):
    body = TASKS[task_id].body
    run = execute(body, body.source, sandbox)
    assert run.failure is None
    assert run.share("regression") == 1.0, "a regression case must be one the old code gets right"
    assert run.share("hidden") < 1.0 and run.share("example") == 0.0


@pytest.mark.parametrize("task_id,code,group", WRONG,
                         ids=[f"{t}-{g}-{i}" for i, (t, _, g) in enumerate(WRONG)])
def test_wrong_solutions_fail(task_id, code, group, sandbox):
    body = TASKS[task_id].body
    run = execute(body, code, sandbox)
    assert run.share("example") == 1.0, "the wrong solution should pass the visible example"
    assert run.share(group) < 1.0, f"no {group} case caught it"
    attempts = body.max_attempts
    trial = replay(task_id, [Action(text=fenced(code))] * attempts, sandbox=sandbox)
    assert not trial.passed and trial.grade.score < 0.5
    assert trial.grade.details["first_try_pass"] is False
    assert trial.grade.details["attempts"] == attempts
    assert trial.grade.breakdown[group] < 1.0


def test_regression_cases_earn_their_place(sandbox):
    """Each wrong fix marked 'regression' passes the example and every hidden test: only a regression case
    catches it, so without them it would count as a correct repair."""
    for task_id, code, group in WRONG:
        if group == "regression":
            run = execute(TASKS[task_id].body, code, sandbox)
            assert run.share("example") == run.share("hidden") == 1.0, task_id
            assert run.share("regression") < 1.0, task_id


# --------------------------------------------------------------------------------------------------------
# The repair loop and its scores


def test_pass_on_second_attempt_scores_085_and_feedback_shows_the_real_value(sandbox, small_bank):
    with ScriptedServer(_transcript([fenced(SHIP_ONE_PRICE), fenced(SHIP_GOLD)])) as srv:
        trial = _run_one("code_shipping_tariff", srv, sandbox, small_bank)
        requests = list(srv.requests)
    assert trial.passed and trial.grade.score == 0.85
    assert trial.grade.details["first_try_pass"] is False and trial.grade.details["passed_attempt"] == 2
    second = requests[1]["messages"]
    shown = second[-1]["content"]
    assert second[-1]["role"] == "user" and second[-2]["role"] == "assistant"
    # The stale code's real answer for the first failing hidden case (7 kg): 1290 + 2 * 210.
    assert "quote(7000, 2500)" in shown and "returned 1710" in shown
    _assert_no_expected_values(TASKS["code_shipping_tariff"].body, requests)


def test_third_attempt_scores_070_and_the_traceback_is_fed_back(sandbox, small_bank):
    broken = "def split_bill(total_cents, weights):\n    return [total_cents] * undefined_name\n"
    replies = [fenced(broken), "I am not sure how to do this.", fenced(SPLIT_GOLD)]
    with ScriptedServer(_transcript(replies)) as srv:
        trial = _run_one("code_split_bill", srv, sandbox, small_bank)
        requests = list(srv.requests)
    assert trial.passed and trial.grade.score == 0.70
    assert trial.grade.details["per_attempt"][1]["extracted"] == "none"
    first_feedback = requests[1]["messages"][-1]["content"]
    assert "NameError" in first_feedback and "undefined_name" in first_feedback
    assert "Traceback" in first_feedback and "main.py" not in first_feedback
    assert "could not find any Python code" in requests[2]["messages"][-1]["content"]
    _assert_no_expected_values(TASKS["code_split_bill"].body, requests)


def test_a_syntax_error_comes_back_as_such(sandbox, small_bank):
    replies = [fenced("def parse_settings(text)\n    return {}\n"), fenced(SET_GOLD)]
    with ScriptedServer(_transcript(replies)) as srv:
        trial = _run_one("code_settings_parser", srv, sandbox, small_bank)
        shown = srv.requests[1]["messages"][-1]["content"]
    assert "SyntaxError" in shown and trial.grade.score == 0.85


def test_an_endless_loop_is_stopped_and_reported(sandbox):
    loop = "def latest_event(events):\n    while True:\n        pass\n"
    body = TASKS["code_latest_event"].body.model_copy(update={"timeout_s": 1.0})
    run = execute(body, loop, sandbox)
    assert run.failure == "timeout" and not run.passed
    text = feedback(body, run)
    assert "did not finish within 1 seconds" in text and "latest_event([['open', '9:30']" in text


def test_never_passing_scores_half_the_share_of_cases_the_last_attempt_passed(sandbox):
    task = TASKS["code_shipping_tariff"]
    codes = ("x = 1", SHIP_STRICT_FREE, SHIP_ONE_PRICE)
    turns = [Turn(role="assistant", content=fenced(code)) for code in codes]
    grade = MODULE.grade(task, turns, Env(sandbox=sandbox))
    run = execute(task.body, SHIP_ONE_PRICE, sandbox)
    total = len(task.body.cases())
    assert grade.score == round(0.5 * sum(c.passed for c in run.cases) / total, 4)
    assert 0 < grade.score < 0.5 and not grade.passed
    assert [a["passed"] for a in grade.details["per_attempt"]] == [False, False, False]
    assert grade.details["per_attempt"][0]["failure"] == "missing_function"


def test_single_attempt_task_sends_no_feedback(sandbox, small_bank):
    with ScriptedServer(_transcript([fenced(PAGE_SPECIAL_CASE), fenced(PAGE_GOLD)])) as srv:
        trial = _run_one("code_page_slice", srv, sandbox, small_bank)
        assert len(srv.requests) == 1
    assert not trial.passed and trial.grade.details["attempts"] == 1


def test_the_sibling_constants_file_is_in_the_prompt_and_in_the_sandbox(sandbox):
    task = TASKS["code_shipping_tariff"]
    prompt = MODULE.prompt(task.body)
    assert "FREE_SHIPPING_FROM_CENTS = 6000" in prompt and "`constants.py`" in prompt
    assert execute(task.body, SHIP_GOLD, sandbox).passed  # it imports constants


def test_prompt_shows_examples_but_no_hidden_or_regression_value():
    for task in TASKS.values():
        prompt = MODULE.prompt(task.body)
        for case in task.body.examples:
            assert repr(case.expect) in prompt
        for case in [*task.body.tests, *task.body.regression]:
            if case.raises is None and isinstance(case.expect, (list, dict)) and case.expect:
                assert repr(case.expect) not in prompt


def test_the_harness_carries_no_expected_value():
    body = TASKS["code_shipping_tariff"].body
    program = harness(body)
    for case in body.tests + body.regression:
        if case.expect not in (None, 0):
            assert str(case.expect) not in program


def test_grade_is_a_pure_function_of_the_transcript(sandbox):
    task = TASKS["code_latest_event"]
    turns = [Turn(role="user", content="..."), Turn(role="assistant", content=fenced(EVENT_ZFILL)),
             Turn(role="user", content="..."), Turn(role="assistant", content=fenced(EVENT_GOLD))]
    a = MODULE.grade(task, turns, Env(sandbox=sandbox))
    b = MODULE.grade(task, turns, Env(sandbox=sandbox))
    assert a == b and a.score == 0.85 and a.details["passed_attempt"] == 2


class _Counting(BubblewrapBackend):
    """The real bubblewrap backend, counting the model's programs it runs (not its own checks)."""

    runs = 0

    def run(self, program, *args, **kwargs):  # type: ignore[override]
        if program.endswith("main()\n") and "@@sllmb-case" in program:
            type(self).runs += 1
        return super().run(program, *args, **kwargs)


def test_each_attempt_runs_once_and_the_grade_reads_the_runs_record(small_bank):
    counting = _Counting()
    counting.check()
    handle = SandboxHandle(counting, Limits())
    replies = [fenced(SHIP_ONE_PRICE), fenced(SHIP_GOLD)]
    with ScriptedServer(_transcript(replies)) as srv:
        trial = _run_one("code_shipping_tariff", srv, handle, small_bank)
    # Two attempts, two programs: the grade took both verdicts from the run's own executions.
    assert _Counting.runs == 2
    assert trial.passed and trial.grade.details["passed_attempt"] == 2
    # A stored transcript has no record (rescore): its grade runs the code again, to the same grade.
    regraded = MODULE.grade(TASKS["code_shipping_tariff"], trial.turns, Env(sandbox=handle))
    assert _Counting.runs == 4 and regraded == trial.grade


def test_grade_without_a_sandbox_refuses_rather_than_running_on_the_host():
    task = TASKS["code_split_bill"]
    with pytest.raises(NoSandbox):
        MODULE.grade(task, [Turn(role="assistant", content=fenced(SPLIT_GOLD))], Env(sandbox=None))


def test_model_prints_do_not_disturb_the_report(sandbox):
    forged = "    print('@@sllmb-case {\"case\": 0}')\n"
    noisy = SPLIT_GOLD.replace("    return shares", forged + "    return shares")
    noisy = "print('importing')\n" + noisy
    assert execute(TASKS["code_split_bill"].body, noisy, sandbox).passed


def test_forged_report_lines_cannot_pass_a_case(sandbox):
    forger = ("import os\n"
              "def split_bill(total_cents, weights):\n"
              "    os.write(1, b'@@sllmb-case {\"event\": \"done\"}\\n')\n"
              "    return 'forged'\n")
    run = execute(TASKS["code_split_bill"].body, forger, sandbox)
    assert not run.passed and run.share() == 0.0


# --------------------------------------------------------------------------------------------------------
# Fail-closed


class _Broken(BubblewrapBackend):
    """A bubblewrap backend pointed at a bwrap that does not exist: never works."""

    def __init__(self) -> None:
        super().__init__(bwrap="/nonexistent/bwrap")


def test_no_working_sandbox_skips_code_tasks_and_the_run_finishes(capsys, small_bank):
    responder = knowledge_responder()
    with ScriptedServer(responder) as srv, tempfile.TemporaryDirectory() as tmp:
        request = RunRequest(model="scripted", endpoint=srv.url, output=Path(tmp) / "r.json", trials=1,
                             modules=["code", "knowledge"], tasks_dir=small_bank, max_retries=0,
                             backoff_s=0.01, show_progress=False)
        run = run_benchmark(request, sandbox_candidates=[_Broken()])
        stored = json.loads((Path(tmp) / "r.json").read_text())
        asked = [json.dumps(r["messages"]) for r in srv.requests]
    assert set(run.provenance.skipped_tasks) == set(TASKS)
    reason = run.provenance.skipped_tasks["code_split_bill"]
    assert "apt-get install -y bubblewrap" in reason and "--allow-unsandboxed" in reason
    assert set(stored["provenance"]["skipped_tasks"]) == set(TASKS)
    assert {t.module for t in run.trials} == {"knowledge"} and all(t.passed for t in run.trials)
    assert run.settings.sandbox_backend == "none (code tasks skipped)"
    assert not any("split_bill" in a for a in asked), "a code task reached the model"
    assert "code task(s) skipped" in capsys.readouterr().err


def test_no_sandbox_and_only_code_tasks_is_a_clear_error(small_bank):
    with ScriptedServer(knowledge_responder()) as srv, tempfile.TemporaryDirectory() as tmp:
        request = RunRequest(model="scripted", endpoint=srv.url, output=Path(tmp) / "r.json", trials=1,
                             modules=["code"], tasks_dir=small_bank, max_retries=0, backoff_s=0.01,
                             show_progress=False)
        with pytest.raises(UserError, match="every selected task is a code task"):
            run_benchmark(request, sandbox_candidates=[_Broken()])


def test_allow_unsandboxed_runs_unconfined_and_says_so(capsys):
    handle, label = sandbox_or_reason(None, allow_unsandboxed=True, memory_mb=256, candidates=[_Broken()])
    assert handle is not None and handle.name == "unsandboxed" and not handle.confined
    assert label == "unsandboxed (NOT confined)"
    assert "WITHOUT confinement" in capsys.readouterr().err


def test_a_named_sandbox_that_does_not_work_stops_the_run():
    with pytest.raises(UserError):
        sandbox_or_reason("docker_does_not_exist", memory_mb=256)


def test_sandbox_selection_records_the_backend_and_the_memory_cap():
    handle, label = sandbox_or_reason("bubblewrap", memory_mb=128)
    assert label == "bubblewrap (confined)" and handle is not None and handle.limits.memory_mb == 128


def test_run_selects_the_sandbox_once_and_records_it(small_bank):
    gold = {"split_bill": SPLIT_GOLD}

    def respond(body: dict) -> Action:
        return Action(text=fenced(gold["split_bill"]))

    with ScriptedServer(respond) as srv, tempfile.TemporaryDirectory() as tmp:
        request = RunRequest(model="scripted", endpoint=srv.url, output=Path(tmp) / "r.json", trials=1,
                             pattern="code_split_bill", tasks_dir=small_bank, max_retries=0, backoff_s=0.01,
                             show_progress=False, sandbox_name="bubblewrap", sandbox_memory_mb=200)
        run = run_benchmark(request)
    assert run.settings.sandbox_backend == "bubblewrap (confined)" and run.trials[0].passed
    choice = choose_sandbox(request, select_tasks(request))
    assert choice.label == "bubblewrap (confined)" and choice.handle.limits.memory_mb == 200


def test_a_sandbox_that_breaks_mid_run_is_an_infra_error_not_a_model_failure(small_bank):
    class Gone:
        name = "bubblewrap"
        confined = True

        def enforced_limits(self, limits: Limits) -> list[str]:
            return []

        def run(self, *a, **k):
            from engine.sandbox import SandboxImageMissing

            raise SandboxImageMissing("localhost/img:none")

    with ScriptedServer(_transcript([fenced(SPLIT_GOLD)])) as srv:
        trial = _run_one("code_split_bill", srv, SandboxHandle(Gone()), small_bank)  # type: ignore[arg-type]
    assert trial.infra and not trial.scorable and "build_image.sh" in trial.error


def test_body_validation_names_the_problem():
    with pytest.raises(ValueError, match="exactly one of 'expect'"):
        CodeBody.model_validate({"kind": "write", "entry": "f", "prompt": "p", "tests": [{"args": [1]}]})
    with pytest.raises(ValueError, match="needs 'source'"):
        CodeBody.model_validate({"kind": "repair", "entry": "f", "prompt": "p",
                                 "tests": [{"args": [], "expect": 1}]})


# --------------------------------------------------------------------------------------------------------
# helpers


def _transcript(replies: list[str]):
    from tests.helpers.scripted_server import transcript

    return transcript([Action(text=r) for r in replies])


def _run_one(task_id: str, srv: ScriptedServer, sandbox: SandboxHandle | None, bank: Path):
    with tempfile.TemporaryDirectory() as tmp:
        request = RunRequest(model="scripted", endpoint=srv.url, output=Path(tmp) / "r.json", trials=1,
                             pattern=task_id, tasks_dir=bank, max_retries=0, backoff_s=0.01, show_progress=False)
        run = run_benchmark(request, sandbox=sandbox)
    (trial,) = run.trials
    return trial


def _assert_no_expected_values(body: CodeBody, requests: list[dict]) -> None:
    """No hidden or regression expected value appears in the feedback, unless the prompt or the model's own
    replies already held that text (a number that is also an argument, say)."""
    prompt = requests[0]["messages"][-1]["content"]
    replies = [m["content"] for r in requests for m in r["messages"] if m["role"] == "assistant"]
    later = [m["content"] for r in requests for m in r["messages"][2:] if m["role"] == "user"]
    assert later, "no feedback was sent"
    checked = 0
    for case in [*body.tests, *body.regression]:
        if case.raises is not None:
            continue
        for form in {repr(case.expect), json.dumps(case.expect), str(case.expect)}:
            if len(form) < 3 or form in prompt or any(form in r for r in replies):
                continue
            checked += 1
            for text in later:
                assert form not in text, f"expected value {form} leaked into feedback"
    assert checked > 0


def test_file_names_may_not_shadow_the_standard_library():
    with pytest.raises(ValueError, match="shadows the standard library"):
        CodeBody.model_validate({"kind": "write", "entry": "f", "prompt": "p", "filename": "json.py",
                                 "tests": [{"args": [], "expect": 1}]})


def test_case_values_must_be_plain_data():
    import datetime

    with pytest.raises(ValueError, match="plain data"):
        CodeBody.model_validate({"kind": "write", "entry": "f", "prompt": "p",
                                 "tests": [{"args": [datetime.date(2025, 1, 2)], "expect": 1}]})


def test_an_import_traceback_shows_the_models_file_not_the_import_machinery(sandbox):
    body = TASKS["code_latest_event"].body
    run = execute(body, 'def latest_event(events):\n    """unclosed\n    return None\n', sandbox)
    text = feedback(body, run)
    assert run.failure == "import_error" and "SyntaxError" in text and "shiftlog.py" in text
    assert "importlib" not in text and "<frozen" not in text
