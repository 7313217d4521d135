"""Gold and near-miss transcripts of the format tasks, replayed through the scripted loopback server.

Each near miss changes the gold reply in the one way the task is about, and the test names the breakdown
entry that must fail, so a grader that fails for some other reason does not pass the test.
"""

from __future__ import annotations

import json

import pytest

import tests.helpers.replay as replay_helper
from tests.helpers.replay import replay
from tests.helpers.scripted_server import Action

INCIDENT = {
    "id": "INC-4471",
    "title": "Checkout and payments failed after config push",
    "severity": "sev1",
    "started_at": "09:47",
    "resolved_at": "11:12",
    "duration_minutes": 85,
    "customer_facing": True,
    "services": ["checkout-api", "payments-gw", "search"],
    "actions": [
        "Add a canary stage for config pushes",
        "Alert when the gateway error rate exceeds 2%",
        "Write a runbook for config rollback",
    ],
}

INVOICE = {
    "invoice_no": "2025/118",
    "issued": "04.02.2025",
    "due": "06.03.2025",
    "currency": "CHF",
    "status": "sent",
    "lines": [
        {"item": "oak shelf brackets", "qty": 12, "unit_price": 18.75},
        {"item": "walnut panels", "qty": 3, "unit_price": 1240.0},
        {"item": "delivery", "qty": 1, "unit_price": 95},
    ],
    "vat_rate": 0.081,
    "total_net": 4040.0,
    "reverse_charge": False,
}

LOANS = [
    {"member_id": "M-031", "tool": "circular_saw", "borrowed": "2025-06-10"},
    {"member_id": "M-052", "tool": "ladder", "borrowed": "2025-06-11"},
    {"member_id": "M-047", "tool": "ladder", "borrowed": "2025-06-12"},
    {"member_id": "M-014", "tool": "cordless_drill", "borrowed": "2025-06-14"},
]

SUMMARY = (
    "Ya está disponible Harbor Sync 3.2: gracias a Ingrid Solberg, las subidas se reanudan tras una conexión "
    "caída y la nueva opción `--dry-run` muestra qué cambiaría sin tocar ningún archivo. El valor por "
    "defecto "
    "de `retry_backoff_ms` pasa de 200 a 750, lo que redujo un 40% los trabajos nocturnos fallidos en "
    "nuestras pruebas. Los equipos con más de 1,500 repositorios deberían actualizar primero."
)

CONFIG = {
    "name": 'Ops "night" shift',
    "log_dir": "C:\\logs\\night\\",
    "match": '^ERR-\\d{4}\\s"[A-Z]+"$',
    "max_lines": 5000,
    "enabled": True,
    "banner": "Shipping started\nDo not stop this process.",
}


def dumps(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def changed(base: dict, **updates: object) -> str:
    return dumps({**base, **updates})


@pytest.fixture(autouse=True, scope="module")
def only_this_module(tmp_path_factory):
    """Replay against a bank of this module's real task files only, so work in progress on another
    module's tasks in a shared tree cannot break these tests (and the bank loads faster)."""
    root = tmp_path_factory.mktemp("bank")
    (root / "tasks").mkdir()
    (root / "tasks" / "format").symlink_to(replay_helper.ROOT / "tasks" / "format")
    real = replay_helper.ROOT
    replay_helper.ROOT = root
    yield
    replay_helper.ROOT = real


GOLD = {
    "fmt_incident_json": dumps(INCIDENT),
    "fmt_typed_invoice": dumps(INVOICE),
    "fmt_loan_notes": dumps(LOANS),
    "fmt_translated_summary": SUMMARY,
    "fmt_escaped_config": dumps(CONFIG),
}

# (task, near-miss reply, breakdown entries that must fail)
NEAR_MISSES = [
    ("fmt_incident_json", "```json\n" + dumps(INCIDENT) + "\n```", ["json_only"]),
    (
        "fmt_incident_json",
        changed(INCIDENT, duration_minutes="85 minutes"),
        ["json_schema", "value_equals:duration_minutes"],
    ),
    (
        "fmt_incident_json",
        changed(INCIDENT, services=["Checkout-API", "payments-gw", "search", "checkout-api"]),
        ["value_equals:services"],
    ),
    (
        "fmt_incident_json",
        changed(INCIDENT, title="Checkout outage", actions=[*INCIDENT["actions"], "Buy cake"]),
        ["title_no_outage", "count:actions", "no_cake"],
    ),
    (
        "fmt_typed_invoice",
        changed(INVOICE, total_net="4,040.00", vat_rate=8.1),
        ["json_schema", "value_equals:total_net", "value_equals:vat_rate"],
    ),
    (
        "fmt_typed_invoice",
        changed(INVOICE, issued="2025-02-04", due="2025-03-06"),
        ["date_format:issued", "date_format:due", "value_equals:issued"],
    ),
    ("fmt_typed_invoice", changed(INVOICE, due="05.03.2025"), ["value_equals:due"]),
    ("fmt_typed_invoice", changed(INVOICE, due="6.3.2025"), ["date_format:due"]),
    (
        "fmt_typed_invoice",
        changed(INVOICE, currency="Swiss francs", status="unpaid"),
        ["value_in:currency", "value_in:status"],
    ),
    (
        "fmt_loan_notes",
        dumps(
            [
                {**LOANS[0]},
                {"member_id": "M-047", "tool": "ladder", "borrowed": "2025-06-10"},
                LOANS[1],
                LOANS[3],
            ]
        ),
        ["open_sam_ladder", "not_struck_out_loan"],
    ),
    (
        "fmt_loan_notes",
        dumps(
            [
                {"member_id": "M-014", "tool": "cordless_drill", "borrowed": "2025-06-09"},
                *LOANS[:3],
                {"member_id": "M-052", "tool": "stud_finder", "borrowed": "2025-06-11"},
            ]
        ),
        ["count", "not_returned_drill", "not_returned_stud_finder", "open_ana_drill"],
    ),
    ("fmt_loan_notes", dumps([LOANS[3], LOANS[0], LOANS[1], LOANS[2]]), ["sorted_by"]),
    (
        "fmt_translated_summary",
        SUMMARY.replace("1,500", "1.500").replace("40%", "40 %"),
        ["figures_kept", "figures_not_localised"],
    ),
    (
        "fmt_translated_summary",
        SUMMARY.replace("Harbor Sync", "Sincronización Harbor").replace("`--dry-run`", "--dry-run"),
        ["names_kept", "code_kept"],
    ),
    (
        "fmt_translated_summary",
        SUMMARY.replace(
            "Los equipos", "Teams with more than 1,500 repositories should upgrade first. Los equipos"
        ),
        ["no_english", "sentence_count"],
    ),
    ("fmt_translated_summary", "- " + SUMMARY.replace(". ", ".\n- "), ["prose_only"]),
    # Content fidelity: the change reversed, a figure invented, the resumed uploads dropped, an English
    # phrase left in place that no word list names.
    ("fmt_translated_summary", SUMMARY.replace("pasa de 200 a 750", "pasa de 750 a 200"), ["backoff_direction"]),
    ("fmt_translated_summary", SUMMARY.replace("un 40%", "un 40% (y un 60% los fines de semana)"),
     ["no_invented_figures"]),
    ("fmt_translated_summary", SUMMARY.replace("las subidas se reanudan tras una conexión caída y ", ""),
     ["resume_kept"]),
    ("fmt_translated_summary", SUMMARY.replace("trabajos nocturnos fallidos", "failed nightly jobs"),
     ["no_untranslated_phrase"]),
    ("fmt_incident_json", changed(INCIDENT, actions=[*INCIDENT["actions"][:2], "Buy bigger servers"]),
     ["agreed_actions"]),
    # The most common failure of all: a regex written into JSON with its backslashes unescaped.
    ("fmt_escaped_config", dumps(CONFIG).replace("\\\\d", "\\d").replace("\\\\s", "\\s"), ["json_only"]),
    (
        "fmt_escaped_config",
        changed(CONFIG, log_dir="C:\\logs\\night", banner="Shipping started\\nDo not stop this process."),
        ["value_equals:log_dir", "value_equals:banner"],
    ),
    (
        "fmt_escaped_config",
        changed(CONFIG, match='^ERR-\\\\d{4}\\\\s"[A-Z]+"$', name="Ops night shift"),
        ["value_equals:match", "value_equals:name"],
    ),
]


@pytest.mark.parametrize("task_id", sorted(GOLD))
def test_gold_passes(task_id):
    trial = replay(task_id, [Action(text=GOLD[task_id])])
    assert trial.grade is not None
    assert trial.passed, trial.grade.reason
    assert trial.grade.score == 1.0
    assert trial.grade.breakdown and set(trial.grade.breakdown.values()) == {1.0}


@pytest.mark.parametrize(
    "task_id,reply,must_fail", NEAR_MISSES, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(NEAR_MISSES)]
)
def test_near_miss_fails_for_its_reason(task_id, reply, must_fail):
    trial = replay(task_id, [Action(text=reply)])
    grade = trial.grade
    assert grade is not None and not trial.passed
    assert grade.score < 0.999
    for label in must_fail:
        assert grade.breakdown[label] == 0.0, (label, grade.reason)
    # Every failure is named in the details with a note.
    assert set(grade.details["failed"]) == {k for k, v in grade.breakdown.items() if v == 0.0}


def test_five_tasks_two_fast_every_check_named_once():
    from engine.bank.load import load_task

    tasks = [load_task(p) for p in sorted((replay_helper.ROOT / "tasks" / "format").glob("*.yaml"))]
    assert sorted(t.id for t in tasks) == sorted(GOLD)
    assert sum(t.task.fast for t in tasks) == 2
    for t in tasks:
        assert t.task.max_turns == 1
        assert t.task.what_this_tests.strip() and t.task.failure_mode.strip()


def test_unparseable_reply_fails_every_json_check():
    trial = replay("fmt_escaped_config", [Action(text="Sure! Here is the config you asked for.")])
    assert trial.grade is not None and trial.grade.score == 0.0
    assert "not valid JSON" in trial.grade.details["failed"]["json_only"]


@pytest.mark.parametrize(("text", "why"), [
    ("[" * 1200, "nested deeper than"),  # was a RecursionError that ended the run
    ('{"service": "api", "replicas": ' + "7" * 5000 + "}", "a number of 5000 characters"),  # was a ValueError
    ('{"service": "\\ud800"}', None),  # a lone surrogate: read, and the result file still written
])
def test_an_answer_no_json_reader_could_hold_is_a_failed_trial_not_a_crash(text, why):
    trial = replay("fmt_escaped_config", [Action(text=text)])
    assert trial.error is None and trial.grade is not None and not trial.passed
    if why is not None:
        assert why in trial.grade.details["failed"]["json_only"]


def test_fenced_reply_still_scores_its_content():
    trial = replay("fmt_incident_json", [Action(text="```json\n" + dumps(INCIDENT) + "\n```")])
    assert trial.grade is not None
    assert trial.grade.breakdown["json_only"] == 0.0
    assert trial.grade.score == pytest.approx(14 / 15)


def test_think_block_is_not_graded():
    text = "<think>Maybe wrap it in ```json? No.</think>" + dumps(CONFIG)
    trial = replay("fmt_escaped_config", [Action(text=text)])
    assert trial.passed


def test_unclosed_think_block_is_not_graded():
    trial = replay("fmt_escaped_config", [Action(text=dumps(CONFIG) + "\n<think>was that right? {broken")])
    assert trial.passed


def test_reasoning_field_is_not_graded():
    trial = replay("fmt_escaped_config", [Action(text=dumps(CONFIG), reasoning="The answer is {broken")])
    assert trial.passed


def test_truncated_reply_scores_zero():
    trial = replay(
        "fmt_incident_json", [Action(text=GOLD["fmt_incident_json"][:200], finish_reason="length")]
    )
    assert trial.grade is not None and trial.grade.score == 0.0 and not trial.passed
    assert trial.truncation == "incomplete"


def test_looping_truncated_reply_is_degenerate():
    loop = '{"name": "Ops", "tags": [' + '"night", ' * 300
    trial = replay("fmt_escaped_config", [Action(text=loop, finish_reason="length")])
    assert trial.grade is not None and trial.grade.score == 0.0
    assert trial.truncation == "degenerate" and trial.grade.hard_gate == "degenerate"


def test_grading_twice_gives_the_same_grade():
    reply = changed(INVOICE, due="05.03.2025", vat_rate=8.1)
    a = replay("fmt_typed_invoice", [Action(text=reply)])
    b = replay("fmt_typed_invoice", [Action(text=reply)])
    assert a.grade == b.grade


def test_hostile_output_is_escaped_in_notes():
    bad = changed(INCIDENT, id="\x1b[31mINC\x07")
    trial = replay("fmt_incident_json", [Action(text=bad)])
    assert trial.grade is not None
    note = trial.grade.details["failed"]["value_equals:id"]
    assert "\x1b" not in note and "\x07" not in note and "\\u001b" in note


def test_bad_check_in_a_task_file_names_the_field(tmp_path):
    from engine.bank.load import load_task
    from engine.core.errors import UserError

    folder = tmp_path / "format"
    folder.mkdir()
    path = folder / "fmt_bad.yaml"
    path.write_text(
        "id: fmt_bad\nmodule: format\ntitle: t\nwhat_this_tests: w\nfailure_mode: f\nbody:\n  prompt: p\n"
        "  checks:\n    - {check: json_only}\n    - {check: regex, pattern: '[a-'}\n",
        encoding="utf-8",
    )
    with pytest.raises(UserError) as err:
        load_task(path)
    assert "fmt_bad.yaml" in str(err.value) and "body.checks.1" in str(err.value)
    assert "not a valid regular expression" in str(err.value)
