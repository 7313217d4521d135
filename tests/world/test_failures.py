"""Failure injection: each kind answers as declared and leaves the state alone."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.world import FailureInjection, World, WorldSpecError
from tests.world.conftest import call


def test_always_fail(seed: dict[str, Any]) -> None:
    world = World(
        seed,
        failures=[
            {"tool": "get_weather", "kind": "always_fail", "message": "503 weather service unavailable"}
        ],
    )
    for _ in range(3):
        assert call(world, "get_weather", city="Lisbon") == "!Error: 503 weather service unavailable"
    assert all(o.injected and o.error_kind == "injected" for o in world.history)
    # Other tools are untouched.
    assert call(world, "get_stock_quote", symbol="ACME")["price"] == 12.5


def test_always_fail_never_runs_a_write(seed: dict[str, Any]) -> None:
    world = World(seed, failures=[{"tool": "kv_set", "kind": "always_fail", "message": "read-only mode"}])
    before = world.state_hash()
    assert "read-only" in call(world, "kv_set", key="app.mode", value="safe")
    assert world.state_hash() == before


def test_first_call_error_then_works(seed: dict[str, Any]) -> None:
    world = World(
        seed,
        failures=[
            {
                "tool": "approve_order",
                "kind": "first_call",
                "message": "timeout talking to the payment service; retry",
            }
        ],
    )
    assert "retry" in call(world, "approve_order", order_id="O-1")
    assert world.state.orders["O-1"].status == "pending"
    assert call(world, "approve_order", order_id="O-1")["status"] == "approved"


def test_first_call_empty_result_is_not_an_error(seed: dict[str, Any]) -> None:
    world = World(
        seed,
        failures=[
            {
                "tool": "list_orders",
                "kind": "first_call",
                "mode": "empty",
                "message": "index still warming up",
            }
        ],
    )
    assert call(world, "list_orders") == []
    first = world.history[0]
    assert first.injected and not first.error and first.content == "[]"
    assert len(call(world, "list_orders")) == 4


def test_first_call_empty_result_can_be_any_json(seed: dict[str, Any]) -> None:
    world = World(
        seed,
        failures=[
            {
                "tool": "kv_list",
                "kind": "first_call",
                "mode": "empty",
                "empty_result": {"items": []},
                "message": "cold cache",
            }
        ],
    )
    assert json.loads(world.execute({"name": "kv_list", "arguments": "{}"}).content) == {"items": []}


def test_first_call_is_spent_only_by_a_well_formed_call(seed: dict[str, Any]) -> None:
    world = World(seed, failures=[{"tool": "get_order", "kind": "first_call", "message": "flaky"}])
    assert "invalid arguments" in call(world, "get_order", order_id=1)
    assert "flaky" in call(world, "get_order", order_id="O-1")
    assert call(world, "get_order", order_id="O-1")["order_id"] == "O-1"


def test_require_args(seed: dict[str, Any]) -> None:
    world = World(
        seed,
        failures=[
            {
                "tool": "list_orders",
                "kind": "require_args",
                "args": {"status": "pending"},
                "message": "400: this endpoint needs status='pending' (full listings are disabled)",
            }
        ],
    )
    assert "needs status='pending'" in call(world, "list_orders")
    assert "needs status='pending'" in call(world, "list_orders", status="delivered")
    assert [o["order_id"] for o in call(world, "list_orders", status="pending")] == ["O-1", "O-2"]


def test_require_args_compares_types_strictly(seed: dict[str, Any]) -> None:
    world = World(
        seed,
        failures=[
            {"tool": "kv_set", "kind": "require_args", "args": {"value": 1}, "message": "value must be 1"}
        ],
    )
    assert "value must be 1" in call(world, "kv_set", key="a", value=True)
    assert call(world, "kv_set", key="a", value=1)["value"] == 1


@pytest.mark.parametrize(
    "bad",
    [
        {"tool": "kv_get", "kind": "require_args", "message": "m"},
        {"tool": "kv_get", "kind": "always_fail", "message": "m", "args": {"key": "a"}},
        {"tool": "kv_get", "kind": "always_fail", "message": "m", "mode": "empty"},
        {"tool": "kv_get", "kind": "always_fail", "message": ""},
        {"tool": "kv_get", "kind": "sometimes", "message": "m"},
    ],
)
def test_malformed_injections_are_rejected(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        FailureInjection.model_validate(bad)


def test_injection_must_name_an_offered_tool_and_real_arguments(seed: dict[str, Any]) -> None:
    with pytest.raises(WorldSpecError, match="does not offer"):
        World(seed, tools={}, failures=[{"tool": "kv_get", "kind": "always_fail", "message": "m"}])
    with pytest.raises(WorldSpecError, match="unknown arguments"):
        World(
            seed, failures=[{"tool": "kv_get", "kind": "require_args", "args": {"name": "a"}, "message": "m"}]
        )
