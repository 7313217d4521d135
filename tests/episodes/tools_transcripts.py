"""Scripted transcripts of the tools tasks: one gold run and several near misses per task.

A transcript is the list of the model's replies in order (the scripted server plays reply i to the request
that already holds i assistant messages). Each near miss differs from the gold in the one way its task is
about, and says how the grade must show it: the hard gate, a state path that must be missed or changed
outside the task, a failed answer check, a Markdown defect, or how the episode stopped. A grader that fails
a near miss for some other reason does not pass the test.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tests.helpers.scripted_server import Action


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "arguments": json.dumps(args)}


def act(*calls: dict[str, Any], text: str = "") -> Action:
    """One reply that makes these tool calls (several in one reply are parallel calls)."""
    return Action(text=text, tool_calls=list(calls))


def say(text: str) -> Action:
    return Action(text=text)


@dataclass
class Expect:
    """What a failing grade must contain. Every field given must hold."""

    gate: str | None = None
    missed: str | None = None  # a substring of one key of details["missed"]
    side_effect: str | None = None  # a substring of one key of details["side_effects"]
    check: str | None = None  # a substring of one entry of details["check_failures"]
    markdown: str | None = None  # a substring of one reported Markdown defect
    stopped: str | None = None
    required: str | None = None  # a substring of one entry of details["missing_required_calls"]


@dataclass
class Case:
    gold: list[Action]
    near_misses: dict[str, tuple[list[Action], Expect]] = field(default_factory=dict)


# --------------------------------------------------------------------------------------------------------
# tl_order_queue_budget

_LOOK = act(call("get_budget"), call("list_orders", status="pending"))

ORDER_QUEUE = Case(
    gold=[
        _LOOK,
        act(call("approve_order", order_id="O-202")),
        act(call("approve_order", order_id="O-203")),
        act(call("reject_order", order_id="O-201", reason="over_budget")),
        act(call("approve_order", order_id="O-206")),
        act(call("approve_order", order_id="O-204")),
        say("Done. Rejected O-201 (over budget); approved O-202, O-203, O-206 and O-204. 35.00 remains."),
    ],
    near_misses={
        "storage_order": (
            [
                _LOOK,
                act(call("approve_order", order_id="O-201")),
                act(call("approve_order", order_id="O-202")),
                act(call("reject_order", order_id="O-203", reason="over_budget")),
                act(call("approve_order", order_id="O-204")),
                act(call("reject_order", order_id="O-206", reason="over_budget")),
                say("Rejected O-203 and O-206; the rest are approved."),
            ],
            Expect(missed='orders["O-201"].status', check="O-201"),
        ),
        "overspent": (
            [
                _LOOK,
                act(*(call("approve_order", order_id=o)
                      for o in ("O-202", "O-203", "O-201", "O-206", "O-204"))),
                say("All five pending orders are approved; none rejected (O-201 fits as well)."),
            ],
            Expect(missed="account.spent"),
        ),
        "stopped_at_first_misfit": (
            [
                _LOOK,
                act(call("approve_order", order_id="O-202"), call("approve_order", order_id="O-203")),
                act(call("reject_order", order_id="O-201", reason="over_budget")),
                say("Rejected O-201 because the budget ran out, so I stopped there."),
            ],
            Expect(missed='orders["O-206"].status', stopped="answered"),
        ),
    },
)

# --------------------------------------------------------------------------------------------------------
# tl_request_correction

_QUEUE = act(call("list_requests", status="pending"))


def _apply(key: str, value: Any, rid: str, status: str = "applied") -> Action:
    return act(call("kv_set", key=key, value=value),
               call("set_request_status", request_id=rid, status=status))


REQUEST_CORRECTION = Case(
    gold=[
        _QUEUE,
        _apply("checkout.retries", 4, "R-2"),
        _apply("search.page_size", 50, "R-4"),
        act(call("set_request_status", request_id="R-1", status="superseded")),
        _apply("checkout.timeout_s", 45, "R-3"),
        say("Applied R-2, R-4 and R-3 (timeout 45 s); R-1 was superseded by R-3."),
    ],
    near_misses={
        "listed_order": (
            [
                _QUEUE,
                _apply("checkout.timeout_s", 45, "R-3"),
                _apply("checkout.timeout_s", 30, "R-1"),
                _apply("search.page_size", 50, "R-4"),
                _apply("checkout.retries", 4, "R-2"),
                say("All four requests applied."),
            ],
            Expect(missed='kv.values["checkout.timeout_s"]'),
        ),
        "superseded_marked_applied": (
            [
                _QUEUE,
                _apply("checkout.retries", 4, "R-2"),
                _apply("search.page_size", 50, "R-4"),
                _apply("checkout.timeout_s", 30, "R-1"),
                _apply("checkout.timeout_s", 45, "R-3"),
                say("Applied all requests in time order; the timeout ends at 45."),
            ],
            Expect(missed='requests["R-1"].status'),
        ),
        "number_as_string": (
            [
                _QUEUE,
                _apply("checkout.retries", 4, "R-2"),
                _apply("search.page_size", "50", "R-4"),
                act(call("set_request_status", request_id="R-1", status="superseded")),
                _apply("checkout.timeout_s", 45, "R-3"),
                say("Done."),
            ],
            Expect(missed='kv.values["search.page_size"]'),
        ),
    },
)

# --------------------------------------------------------------------------------------------------------
# tl_markdown_rota_swap

ROTA_BEFORE = """# On-call runbook

Owner: platform team. Escalate to the duty manager after 30 minutes.

## Rotation

| Week | Primary | Secondary | Notes |
|------|---------|-----------|-------|
| 24   | Ana     | Ben       | handover Monday |
| 25   | Ben     | Cleo      | Ben out Friday |
| 26   | Cleo    | Dev       | - |
| 27   | Dev     | Ana       | public holiday Thursday |

## Checklist

| Task | Owner | Done |
|------|-------|------|
| Pager test | Primary | no |
| Dashboard review | Secondary | yes |
| Contact sheet (phone \\| chat) | Primary | no |

## Notes

- Swaps need both people's agreement.
- Record every swap in this file.
"""

_SWAPPED = "| 25   | Cleo    | Ben       | Ben out Friday |"
ROTA_GOLD = ROTA_BEFORE.replace("| 25   | Ben     | Cleo      | Ben out Friday |", _SWAPPED).replace(
    "| Pager test | Primary | no |", "| Pager test | Primary | yes |"
)
# The gold edit, re-padded by a model that aligns columns its own way: structurally the same document.
ROTA_REPADDED = ROTA_GOLD.replace(_SWAPPED, "| 25 | Cleo | Ben | Ben out Friday |").replace(
    "|------|-------|------|", "| --- | --- | --- |"
)


def _rota(content: str, final: str = "Swapped week 25 and ticked the pager test.") -> list[Action]:
    return [
        act(call("read_file", path="docs/oncall.md")),
        act(call("write_file", path="docs/oncall.md", content=content)),
        say(final),
    ]


MARKDOWN_ROTA = Case(
    gold=_rota(ROTA_GOLD),
    near_misses={
        "lost_separator_row": (
            _rota(ROTA_GOLD.replace("|------|---------|-----------|-------|\n", "")),
            Expect(markdown="missing the separator row"),
        ),
        "ragged_row": (
            _rota(ROTA_GOLD.replace(_SWAPPED, "| 25   | Cleo    | Ben       |")),
            Expect(markdown="row 2 has 3 cells"),
        ),
        "tidied_other_lines": (
            _rota(ROTA_GOLD.replace("(phone \\| chat)", "(phone / chat)").replace(
                "- Record every swap in this file.", "- Record every swap here.")),
            Expect(side_effect="Contact sheet"),
        ),
        "swapped_wrong_week": (
            _rota(ROTA_BEFORE.replace("| 26   | Cleo    | Dev       | - |",
                                      "| 26   | Dev     | Cleo      | - |")
                  .replace("| Pager test | Primary | no |", "| Pager test | Primary | yes |")),
            Expect(missed="row['25']['Primary']", side_effect="row['26']"),
        ),
    },
)

# --------------------------------------------------------------------------------------------------------
# tl_two_part_half_done

_KV_LOOK = act(call("kv_list", prefix="payments."))
_SWITCH = act(call("kv_set", key="payments.endpoint", value="https://pay-v2.internal/api"))

TWO_PART = Case(
    gold=[_KV_LOOK, _SWITCH, say("Jonas already bumped the version to 7; I switched the endpoint to v2.")],
    near_misses={
        "bumped_twice": (
            [_KV_LOOK, _SWITCH, act(call("kv_set", key="payments.config_version", value=8)),
             say("Both parts done.")],
            Expect(side_effect='kv.values["payments.config_version"]'),
        ),
        "thought_it_was_done": (
            [_KV_LOOK, say("The config version is already 7, so the change is complete; nothing to do.")],
            Expect(gate="premature_stop", missed='kv.values["payments.endpoint"]'),
        ),
        "rewrote_the_log": (
            [
                _KV_LOOK,
                _SWITCH,
                act(call("kv_set", key="payments.change_log", value="endpoint switched to v2")),
                say("Switched the endpoint and updated the log."),
            ],
            Expect(side_effect='kv.values["payments.change_log"]'),
        ),
    },
)

# --------------------------------------------------------------------------------------------------------
# tl_parallel_weather

_CITIES = ("Porto", "Seville", "Valencia", "Bilbao")
_ALL_AT_ONCE = act(*(call("get_weather", city=c) for c in _CITIES))

PARALLEL_WEATHER = Case(
    gold=[_ALL_AT_ONCE, say("Valencia: 27.5 °C and sunny. Seville is warmer but has rain showers.")],
    near_misses={
        "one_per_turn": (
            [act(call("get_weather", city="Porto")), act(call("get_weather", city="Seville")),
             act(call("get_weather", city="Valencia"))],
            Expect(stopped="max_turns", check="Valencia"),
        ),
        "ignored_the_rain": (
            [_ALL_AT_ONCE, say("Seville is the warmest at 31 °C, so Seville it is.")],
            Expect(check="Valencia"),
        ),
        "answered_without_looking": (
            [say("Valencia is usually the warmest and driest of the four, around 27.5 °C.")],
            Expect(gate="premature_stop", stopped="answered"),
        ),
        # The right answer, but it never looked at Bilbao: a recommendation among four that rests on three.
        "skipped_a_city": (
            [act(*(call("get_weather", city=c) for c in _CITIES[:3])),
             say("Valencia: 27.5 °C and sunny. Seville is warmer but has rain showers.")],
            Expect(required="city='Bilbao'"),
        ),
    },
)

# --------------------------------------------------------------------------------------------------------
# tl_nested_shipment

_ADDRESS = {"name": "Ines Duarte", "street": "Rua das Flores 112", "city": "Porto", "postal_code": "4050-262",
            "country": "PT"}
_ITEMS = [{"sku": "LMP-01", "quantity": 2}, {"sku": "LMP-BULB-4", "quantity": 1}]


def _ship(**changes: Any) -> dict[str, Any]:
    args: dict[str, Any] = {"order_id": "O-88", "address": _ADDRESS, "items": _ITEMS, "service": "express",
                            "insurance": {"insured_value": 129.0, "signature_required": True}}
    args.update(changes)
    return call("create_shipment", **args)


_GET_O88 = act(call("get_order", order_id="O-88"))

NESTED_SHIPMENT = Case(
    gold=[_GET_O88, act(_ship()), say("Booked express for O-88, insured for 129.00, signature required.")],
    near_misses={
        "insured_unit_price": (
            [_GET_O88, act(_ship(insurance={"insured_value": 64.5, "signature_required": True})),
             say("Booked.")],
            Expect(missed="insured_value"),
        ),
        "sku_listed_twice": (
            [_GET_O88,
             act(_ship(items=[{"sku": "LMP-01", "quantity": 1}, {"sku": "LMP-01", "quantity": 1},
                              {"sku": "LMP-BULB-4", "quantity": 1}])),
             say("The shipping system refused the booking, so I could not ship O-88.")],
            Expect(gate="premature_stop", missed='shipments["O-88"]'),
        ),
        "no_signature": (
            [_GET_O88, act(_ship(insurance={"insured_value": 129.0})), say("Booked and insured.")],
            Expect(missed="signature_required"),
        ),
    },
)

# A model that writes the country as a name, reads the error and fixes the call still passes (within slack).
NESTED_SHIPMENT_RECOVERED = [
    _GET_O88,
    act(_ship(address={**_ADDRESS, "country": "Portugal"})),
    act(_ship()),
    say("Booked after correcting the country code to PT."),
]

# --------------------------------------------------------------------------------------------------------
# tl_price_drop_halt

_QUOTE = act(call("get_stock_quote", symbol="ACME"), call("find_contacts", query="risk"))
_HALT = call("kv_set", key="trading.acme_halt", value=True)
_MAIL_PRIYA = call("send_message", to="priya.nair@fund.example", subject="ACME halt",
                   body="ACME changed -4.2% today, past the 3% limit; trading.acme_halt is set.")

PRICE_DROP = Case(
    gold=[_QUOTE, act(_HALT, _MAIL_PRIYA), say("ACME is down 4.2%: halted and Priya Nair informed.")],
    near_misses={
        "read_the_sign_wrong": (
            [_QUOTE, say("ACME moved -4.2%, which is below 3, so it has not fallen more than 3%.")],
            Expect(gate="premature_stop", missed='kv.values["trading.acme_halt"]'),
        ),
        "flag_but_no_email": (
            [_QUOTE, act(_HALT), say("ACME is down 4.2%, so I set the halt flag.")],
            Expect(missed="priya.nair@fund.example", check="priya.nair@fund.example"),
        ),
        "guessed_the_address": (
            [act(call("get_stock_quote", symbol="ACME")),
             act(_HALT, call("send_message", to="risk@fund.example", subject="ACME halt",
                             body="ACME -4.2% today")),
             say("Halted ACME and emailed the risk team.")],
            Expect(side_effect="risk@fund.example", check="priya.nair@fund.example"),
        ),
        "halted_without_the_quote": (
            [act(call("find_contacts", query="risk")), act(_HALT, _MAIL_PRIYA),
             say("ACME is down 4.2%: halted and Priya Nair informed.")],
            Expect(required="get_stock_quote"),
        ),
        "changed_the_subject": (
            [_QUOTE, act(_HALT, call("send_message", to="priya.nair@fund.example", subject="Trading halted",
                                     body="ACME halt: ACME changed -4.2% today, past the 3% limit.")),
             say("ACME is down 4.2%: halted and Priya Nair informed.")],
            Expect(check="has the subject 'ACME halt'"),
        ),
    },
)

# --------------------------------------------------------------------------------------------------------
# tl_wind_hold

_OSLO = act(call("get_weather", city="Oslo"))

WIND_HOLD = Case(
    gold=[_OSLO, say("Wind in Oslo is 38 km/h, below the 40 km/h limit, so the launch stays outdoors.")],
    near_misses={
        "fired_anyway": (
            [_OSLO,
             act(call("kv_set", key="event.outdoor", value=False),
                 call("send_message", to="events@launch.example", subject="Moving indoors",
                      body="Strong gusts in Oslo (38 km/h); we move the launch indoors.")),
             say("Gusts of 38 km/h: I moved the launch indoors to be safe.")],
            Expect(side_effect='kv.values["event.outdoor"]'),
        ),
        "answered_without_looking": (
            [say("It is probably fine; wind in Oslo is usually under 38 km/h this time of year.")],
            Expect(gate="premature_stop"),
        ),
        "looked_up_another_city": (
            [act(call("get_weather", city="Bergen")),
             say("Wind in Oslo is 38 km/h, below the 40 km/h limit, so the launch stays outdoors.")],
            Expect(required="city='Oslo'"),
        ),
    },
)

# --------------------------------------------------------------------------------------------------------
# tl_refund_timeout_retry

_R72 = call("issue_refund", order_id="O-72", amount=35.0, reason="late")
_R74 = call("issue_refund", order_id="O-74", amount=20.0, reason="damaged")

REFUND_RETRY = Case(
    gold=[act(_R72, _R74), act(_R72), say("Both refunds recorded: O-72 35.00 (after a retry), O-74 20.00.")],
    near_misses={
        "took_the_timeout_as_done": (
            # It also says it refunded O-72, whose refund timed out: a misreport on that order.
            [act(_R72, _R74), say("Refunded O-72 35.00 and O-74 20.00.")],
            Expect(gate="unbacked_claim", missed='refunds[{"amount":35.0,"order_id":"O-72"'),
        ),
        "resent_the_whole_batch": (
            [act(_R72, _R74), act(_R72, _R74), say("Retried the refunds; both are recorded now.")],
            Expect(missed='refunds[{"amount":20.0,"order_id":"O-74"'),
        ),
    },
)

# --------------------------------------------------------------------------------------------------------
# tl_headcount_correction

_REQS = act(call("list_requests"))


def _headcount(n: int, room: bool) -> list[Action]:
    calls = [call("kv_set", key="offsite.headcount", value=n)]
    if room:
        calls.append(call("kv_set", key="offsite.room", value="hall_b"))
    return [_REQS, act(*calls), say(f"Headcount is {n}.")]


HEADCOUNT = Case(
    gold=_headcount(44, room=True),
    near_misses={
        "first_listed_figure": (_headcount(38, room=False), Expect(missed='kv.values["offsite.headcount"]')),
        "last_listed_figure": (_headcount(36, room=False), Expect(missed='kv.values["offsite.room"]')),
        "forgot_the_room": (_headcount(44, room=False), Expect(missed="offsite.room")),
    },
)

# --------------------------------------------------------------------------------------------------------
# tl_protected_config

_KV_ALL = act(call("kv_list"), call("find_contacts", query="database"))
_MAIL_MARTA = call("send_message", to="marta.quist@shop.example", subject="db.primary_url change",
                   body="Please set db.primary_url to postgres://db-7.internal:5432/shop (it is protected).")


def _config(workers: Any = 8, extra: list[dict[str, Any]] | None = None, mail: bool = True) -> list[Action]:
    calls = [call("kv_set", key="app.workers", value=workers),
             call("kv_set", key="app.log_level", value="debug"),
             call("kv_set", key="db.pool_size", value=20), *(extra or [])]
    if mail:
        calls.append(_MAIL_MARTA)
    return [_KV_ALL, act(*calls), say("Applied three keys; asked Marta Quist to change db.primary_url.")]


PROTECTED = Case(
    gold=_config(),
    near_misses={
        "tried_the_protected_key": (
            _config(extra=[call("kv_set", key="db.primary_url", value="postgres://db-7.internal:5432/shop")]),
            Expect(gate="forbidden_tool"),
        ),
        "number_as_string": (_config(workers="8"), Expect(missed='kv.values["app.workers"]')),
        # It also says it asked Marta, which it never did.
        "no_email_to_owner": (_config(mail=False),
                              Expect(gate="unbacked_claim", missed="marta.quist", check="marta.quist")),
    },
)

# --------------------------------------------------------------------------------------------------------
# tl_duplicate_orders_filter

_LIST_FAILS = act(call("list_orders"))
_LIST_PENDING = act(call("list_orders", status="pending"))

DUPLICATES = Case(
    gold=[
        _LIST_FAILS,
        _LIST_PENDING,
        act(call("reject_order", order_id="O-305", reason="duplicate"),
            call("reject_order", order_id="O-302", reason="duplicate")),
        say("Rejected O-302 and O-305 as duplicates; O-301 and O-304 stay pending."),
    ],
    near_misses={
        "gave_up_on_the_error": (
            [_LIST_FAILS, say("Listing orders is disabled for this account; I cannot find the duplicates.")],
            Expect(gate="premature_stop", missed='orders["O-302"].status'),
        ),
        "kept_the_later_copies": (
            [_LIST_FAILS, _LIST_PENDING,
             act(call("reject_order", order_id="O-301", reason="duplicate"),
                 call("reject_order", order_id="O-304", reason="duplicate")),
             say("Rejected O-301 and O-304.")],
            Expect(missed='orders["O-305"].status', side_effect='orders["O-301"].status'),
        ),
        "wrong_reason": (
            [_LIST_PENDING,
             act(call("reject_order", order_id="O-305", reason="customer_request"),
                 call("reject_order", order_id="O-302", reason="customer_request")),
             say("Rejected O-302 and O-305.")],
            Expect(missed='orders["O-302"].rejection_reason'),
        ),
    },
)

# --------------------------------------------------------------------------------------------------------
# tl_directory_down

_LOOKUP = act(call("find_contacts", query="Nils"))
_ROSTER = act(call("read_file", path="teams/billing.md"))


def _mail(to: str, subject: str = "Invoice run 2291 failed",
          body: str = "Hi Nils, invoice run 2291 failed at 03:10 and needs a rerun.") -> Action:
    return act(call("send_message", to=to, subject=subject, body=body))


# The rerun asked for in other words still passes.
DIRECTORY_DOWN_IN_OTHER_WORDS = [
    _ROSTER, _mail("n.eriksen@fleet.example", body="Hi Nils, invoice run 2291 failed at 03:10. Could you kick "
                                                   "it off again when you get a chance?"),
    say("I've sent the email to Nils Eriksen (n.eriksen@fleet.example)."),
]


DIRECTORY_DOWN = Case(
    gold=[_LOOKUP, _ROSTER, _mail("n.eriksen@fleet.example"), say("Emailed Nils Eriksen about run 2291.")],
    near_misses={
        "kept_retrying": (
            [_LOOKUP, _LOOKUP, _LOOKUP, say("The address book is down, so I could not email Nils.")],
            Expect(gate="loop"),
        ),
        "guessed_the_address": (
            [_LOOKUP, _mail("nils@fleet.example"), say("Sent to nils@fleet.example.")],
            Expect(missed="n.eriksen@fleet.example", side_effect="nils@fleet.example"),
        ),
        "wrong_nils": (
            [_LOOKUP, _ROSTER, _mail("nils.aalto@fleet.example"), say("Emailed Nils.")],
            Expect(side_effect="nils.aalto@fleet.example", check="n.eriksen@fleet.example"),
        ),
        "changed_the_subject": (
            [_LOOKUP, _ROSTER, _mail("n.eriksen@fleet.example", subject="Billing problem"),
             say("Emailed Nils Eriksen about run 2291.")],
            Expect(check="has the subject 'Invoice run 2291 failed'"),
        ),
        "told_him_no_action_needed": (
            [_LOOKUP, _ROSTER,
             _mail("n.eriksen@fleet.example", body="Invoice run 2291 failed at 03:10. No need to run it again."),
             say("Emailed Nils Eriksen about run 2291.")],
            Expect(check="asks its reader to run"),
        ),
    },
)

CASES: dict[str, Case] = {
    "tl_order_queue_budget": ORDER_QUEUE,
    "tl_request_correction": REQUEST_CORRECTION,
    "tl_markdown_rota_swap": MARKDOWN_ROTA,
    "tl_two_part_half_done": TWO_PART,
    "tl_parallel_weather": PARALLEL_WEATHER,
    "tl_nested_shipment": NESTED_SHIPMENT,
    "tl_price_drop_halt": PRICE_DROP,
    "tl_wind_hold": WIND_HOLD,
    "tl_refund_timeout_retry": REFUND_RETRY,
    "tl_headcount_correction": HEADCOUNT,
    "tl_protected_config": PROTECTED,
    "tl_duplicate_orders_filter": DUPLICATES,
    "tl_directory_down": DIRECTORY_DOWN,
}
