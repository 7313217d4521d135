"""Each tool: what it returns, what it changes, and what it refuses."""

from __future__ import annotations

from typing import Any

import pytest

from engine.world import World, WorldSpecError, select_tools
from tests.world.conftest import call

ADDRESS = {
    "name": "Ana Silva",
    "street": "Rua A 1",
    "city": "Lisbon",
    "postal_code": "1000-001",
    "country": "PT",
}


def test_get_budget(world: World) -> None:
    assert call(world, "get_budget") == {
        "budget": 500.0,
        "spent": 100.0,
        "remaining": 400.0,
        "currency": "EUR",
    }


def test_list_and_get_orders(world: World) -> None:
    orders = call(world, "list_orders")
    assert [o["order_id"] for o in orders] == ["O-1", "O-2", "O-3", "O-4"]
    assert orders[0]["total"] == 160.0
    assert [o["order_id"] for o in call(world, "list_orders", status="delivered")] == ["O-3", "O-4"]
    assert call(world, "get_order", order_id="O-2")["priority"] == "high"
    assert "does not exist" in call(world, "get_order", order_id="O-9")


def test_approve_order_charges_the_budget(world: World) -> None:
    assert call(world, "approve_order", order_id="O-1") == {
        "order_id": "O-1",
        "status": "approved",
        "remaining": 240.0,
    }
    assert world.state.account.spent == 260.0
    assert world.state.orders["O-1"].status == "approved"
    assert "only pending" in call(world, "approve_order", order_id="O-1")


def test_approve_order_refuses_to_overspend(world: World) -> None:
    call(world, "approve_order", order_id="O-1")
    message = call(world, "approve_order", order_id="O-2")
    assert message.startswith("!Error:") and "exceed the budget" in message
    assert world.state.orders["O-2"].status == "pending"
    assert world.state.account.spent == 260.0


def test_approve_order_may_overspend_when_the_seed_allows(seed: dict[str, Any]) -> None:
    seed["account"]["allow_overspend"] = True
    world = World(seed)
    call(world, "approve_order", order_id="O-1")
    call(world, "approve_order", order_id="O-2")
    assert world.state.account.spent == 610.0


def test_reject_order(world: World) -> None:
    assert call(world, "reject_order", order_id="O-2", reason="over_budget")["status"] == "rejected"
    assert world.state.orders["O-2"].rejection_reason == "over_budget"
    assert "only pending" in call(world, "reject_order", order_id="O-3", reason="other")
    assert "invalid arguments" in call(world, "reject_order", order_id="O-1", reason="too expensive")


def test_create_shipment(world: World) -> None:
    items = [{"sku": "CH-1", "quantity": 2}]
    assert "only approved" in call(
        world, "create_shipment", order_id="O-1", address=ADDRESS, items=items, service="express"
    )
    call(world, "approve_order", order_id="O-1")
    result = call(
        world,
        "create_shipment",
        order_id="O-1",
        address=ADDRESS,
        items=items,
        service="express",
        insurance={"insured_value": 160.0},
    )
    assert result == {"order_id": "O-1", "status": "shipped", "service": "express"}
    shipment = world.state.shipments["O-1"]
    assert shipment.address.city == "Lisbon" and shipment.insurance is not None
    assert world.state.orders["O-1"].status == "shipped"


def test_create_shipment_checks_nested_arguments(world: World) -> None:
    call(world, "approve_order", order_id="O-1")
    bad_country = {**ADDRESS, "country": "Portugal"}
    assert "two-letter" in call(
        world,
        "create_shipment",
        order_id="O-1",
        address=bad_country,
        items=[{"sku": "A", "quantity": 1}],
        service="standard",
    )
    missing_city = {k: v for k, v in ADDRESS.items() if k != "city"}
    assert "address.city" in call(
        world,
        "create_shipment",
        order_id="O-1",
        address=missing_city,
        items=[{"sku": "A", "quantity": 1}],
        service="standard",
    )
    assert "items.0.quantity" in call(
        world,
        "create_shipment",
        order_id="O-1",
        address=ADDRESS,
        items=[{"sku": "A", "quantity": "1"}],
        service="standard",
    )
    assert "once" in call(
        world,
        "create_shipment",
        order_id="O-1",
        address=ADDRESS,
        items=[{"sku": "A", "quantity": 1}, {"sku": "A", "quantity": 1}],
        service="standard",
    )
    assert world.state.shipments == {}


def test_refund_policy_and_issue_refund(world: World) -> None:
    assert call(world, "get_refund_policy")["max_amount"] == 100.0
    assert (
        call(world, "issue_refund", order_id="O-3", amount=15.0, reason="damaged")["total_refunded"] == 15.0
    )
    assert "at most 25.00" in call(world, "issue_refund", order_id="O-3", amount=30.0, reason="damaged")
    assert "need status delivered" in call(world, "issue_refund", order_id="O-1", amount=5.0, reason="late")
    assert "escalate_refund" in call(world, "issue_refund", order_id="O-4", amount=150.0, reason="damaged")
    assert "positive" in call(world, "issue_refund", order_id="O-3", amount=0, reason="damaged")
    assert [r.amount for r in world.state.refunds] == [15.0]


def test_refund_reasons_can_be_restricted(seed: dict[str, Any]) -> None:
    seed["refund_policy"]["allowed_reasons"] = ["damaged"]
    world = World(seed)
    assert "not covered" in call(world, "issue_refund", order_id="O-3", amount=5.0, reason="late")


def test_escalate_refund(world: World) -> None:
    call(world, "escalate_refund", order_id="O-4", amount=150.0, reason="damaged", note="arrived broken")
    assert world.state.escalations[0].amount == 150.0
    assert "does not exist" in call(
        world, "escalate_refund", order_id="X", amount=1.0, reason="late", note=""
    )


def test_kv_get_and_list(world: World) -> None:
    assert call(world, "kv_get", key="app.retries") == {"key": "app.retries", "value": 3, "protected": False}
    assert "not set" in call(world, "kv_get", key="nope")
    assert [e["key"] for e in call(world, "kv_list", prefix="app.")] == ["app.mode", "app.retries"]
    assert call(world, "kv_list")[-1] == {"key": "db.url", "value": "postgres://prod", "protected": True}


def test_kv_set_and_delete(world: World) -> None:
    assert call(world, "kv_set", key="app.retries", value=5)["previous"] == 3
    call(world, "kv_set", key="app.debug", value=True)
    assert world.state.kv.values["app.debug"] is True
    assert call(world, "kv_delete", key="app.mode") == {"deleted": "app.mode"}
    assert "not set" in call(world, "kv_delete", key="app.mode")
    assert "invalid arguments" in call(world, "kv_set", key="x", value=[1, 2])


def test_protected_keys_cannot_be_touched(world: World) -> None:
    assert "protected" in call(world, "kv_set", key="db.url", value="sqlite://")
    assert "protected" in call(world, "kv_delete", key="db.url")
    assert world.state.kv.values["db.url"] == "postgres://prod"


def test_files(world: World) -> None:
    assert [f["path"] for f in call(world, "list_files")] == ["notes.txt", "plan.md"]
    assert call(world, "read_file", path="notes.txt")["content"] == "first\nsecond\n"
    assert "no file" in call(world, "read_file", path="missing.md")
    assert call(world, "write_file", path="new.txt", content="hi")["created"] is True
    assert world.state.files["new.txt"] == "hi"
    assert "not a file path" in call(world, "write_file", path="dir/", content="")


def test_replace_in_file(world: World) -> None:
    call(
        world,
        "replace_in_file",
        path="plan.md",
        old="| Beta      | Ben   | open   |",
        new="| Beta      | Ben   | done   |",
    )
    assert "| Beta      | Ben   | done   |" in world.state.files["plan.md"]
    assert "occurs 2 times" in call(world, "replace_in_file", path="plan.md", old="done", new="x")
    assert "does not occur" in call(world, "replace_in_file", path="plan.md", old="zzz", new="x")
    assert "must not be empty" in call(world, "replace_in_file", path="plan.md", old="", new="x")


def test_requests(world: World) -> None:
    listed = call(world, "list_requests")
    assert [r["request_id"] for r in listed] == ["R-2", "R-1"]
    assert listed[1]["received_at"] == "2024-05-01T09:00:00Z"
    call(world, "set_request_status", request_id="R-1", status="superseded", note="R-2 corrects it")
    assert [r["request_id"] for r in call(world, "list_requests", status="pending")] == ["R-2"]
    assert "does not exist" in call(world, "set_request_status", request_id="R-9", status="applied")
    assert "invalid arguments" in call(world, "set_request_status", request_id="R-2", status="pending")


def test_lookups(world: World) -> None:
    assert [c["contact_id"] for c in call(world, "find_contacts", query="FINANCE")] == ["c2"]
    assert "must not be empty" in call(world, "find_contacts", query=" ")
    assert call(world, "get_weather", city="lisbon") == {
        "city": "Lisbon",
        "temp_c": 21.5,
        "condition": "sunny",
        "wind_kph": 0.0,
    }
    assert "no weather" in call(world, "get_weather", city="Oslo")
    assert call(world, "get_stock_quote", symbol="acme")["price"] == 12.5
    assert "unknown symbol" in call(world, "get_stock_quote", symbol="XYZ")


def test_send_message(world: World) -> None:
    assert call(world, "send_message", to="Ana@Example.com", subject="Hi", body="Done.") == {
        "sent": True,
        "to": "ana@example.com",
    }
    assert world.state.outbox[0].to == "ana@example.com"
    assert "not an email" in call(world, "send_message", to="Ana Silva", subject="Hi", body="x")


def test_read_tools_never_change_the_state(world: World) -> None:
    before = world.state_hash()
    for name, args in [
        ("get_budget", {}),
        ("list_orders", {}),
        ("kv_list", {}),
        ("list_files", {}),
        ("list_requests", {}),
        ("get_refund_policy", {}),
        ("find_contacts", {"query": "a"}),
    ]:
        call(world, name, **args)
    assert world.state_hash() == before
    assert all(not o.changed for o in world.history)


def test_select_tools_keeps_order_and_rejects_unknown_names() -> None:
    chosen = select_tools(["kv_set", "kv_get"])
    assert list(chosen) == ["kv_set", "kv_get"]
    with pytest.raises(WorldSpecError, match="unknown tool 'kv_sett'"):
        select_tools(["kv_sett"])
    with pytest.raises(WorldSpecError, match="twice"):
        select_tools(["kv_get", "kv_get"])
