"""The execute boundary: malformed calls become error messages, every call is recorded, nothing raises."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.schema import ToolCall
from engine.world import World, WorldSpecError, execute, select_tools
from engine.world.errors import InvalidRequest
from engine.world.state import WorldState
from engine.world.toolkit import make_tool


def _run(world: World, name: str, arguments: str) -> Any:
    return execute(world, ToolCall(id="c1", name=name, arguments=arguments))


def test_unknown_tool(world: World) -> None:
    out = _run(world, "delete_everything", "{}")
    assert out.error and out.error_kind == "unknown_tool"
    assert "available tools" in out.content and "get_budget" in out.content


def test_tool_outside_the_task_set_is_unknown(seed: dict[str, Any]) -> None:
    world = World(seed, tools=select_tools(["kv_get"]))
    out = _run(world, "kv_set", '{"key": "a", "value": 1}')
    assert out.error_kind == "unknown_tool" and "kv_get" in out.content
    assert [t["function"]["name"] for t in world.tool_schemas()] == ["kv_get"]


@pytest.mark.parametrize("raw", ['{"order_id": "O-1"', "order_id=O-1", "{'order_id': 'O-1'}"])
def test_invalid_json(world: World, raw: str) -> None:
    out = _run(world, "get_order", raw)
    assert out.error and out.error_kind == "invalid_json"
    assert "not valid JSON" in out.content
    assert out.args is None


@pytest.mark.parametrize(("raw", "why"), [
    ('{"key": "a", "value": ' + "[" * 1200 + "}", "nested deeper than"),  # RecursionError in json.loads
    ('{"key": "a", "value": ' + "7" * 5000 + "}", "a number of 5000 characters"),  # the int-string limit
    ('{"key": "a", "value": NaN}', "NaN is not a JSON value"),  # no canonical JSON, no state hash
    ('{"key": "a", "value": 1e999}', "out of range"),
])
def test_arguments_no_json_reader_could_hold_are_refused_as_invalid_json(world: World, raw: str, why: str) -> None:
    before = world.state_hash()
    out = _run(world, "kv_set", raw)
    assert out.error_kind == "invalid_json" and why in out.content and len(out.content) < 300
    assert world.state_hash() == before


def test_a_lone_surrogate_in_the_arguments_is_stored_as_a_replacement_character(world: World) -> None:
    out = _run(world, "kv_set", '{"key": "app.mode", "value": "x\\ud800y"}')
    assert not out.error and out.changed
    assert world.state.kv.values["app.mode"] == "x\ufffdy"
    world.state_hash()  # once a UnicodeEncodeError here


def test_a_call_without_a_name_says_so(world: World) -> None:
    out = _run(world, "", "garbage")
    assert out.error_kind == "unknown_tool" and "names no tool" in out.content and "get_budget" in out.content


@pytest.mark.parametrize("raw", ["[]", '"O-1"', "42", "null"])
def test_arguments_must_be_an_object(world: World, raw: str) -> None:
    out = _run(world, "get_order", raw)
    assert out.error_kind == "invalid_json" and "must be a JSON object" in out.content


def test_empty_arguments_mean_no_arguments(world: World) -> None:
    out = _run(world, "get_budget", "")
    assert not out.error and '"remaining": 400.0' in out.content


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ('{"order_id": 7}', "argument 'order_id': input should be a valid string (got 7)"),
        ("{}", "missing required argument 'order_id'"),
        ('{"order_id": "O-1", "force": true}', "unexpected argument 'force'"),
        ('{"order_id": "O-1", "amount": "5", "reason": "late"}', "argument 'amount'"),
        ('{"order_id": "O-3", "amount": 5, "reason": "because"}', "argument 'reason'"),
    ],
)
def test_wrong_argument_types(world: World, raw: str, fragment: str) -> None:
    name = "issue_refund" if "amount" in raw else "get_order"
    out = _run(world, name, raw)
    assert out.error and out.error_kind == "invalid_arguments"
    assert fragment in out.content
    assert out.args is not None


def test_integer_is_accepted_for_a_number(world: World) -> None:
    out = _run(world, "issue_refund", '{"order_id": "O-3", "amount": 5, "reason": "late"}')
    assert not out.error


def test_tool_errors_are_messages_and_change_nothing(world: World) -> None:
    before = world.state_hash()
    out = _run(world, "kv_set", '{"key": "db.url", "value": "x"}')
    assert out.error and out.error_kind == "tool_error" and out.content.startswith("Error: ")
    assert world.state_hash() == before


def test_a_tool_that_fails_half_way_is_rolled_back(seed: dict[str, Any]) -> None:
    def half_way(state: WorldState, key: str) -> None:
        """Write, then refuse.

        Args:
            key: A key.
        """
        state.kv.values[key] = "written"
        raise InvalidRequest("changed my mind")

    world = World(seed, tools={"half_way": make_tool(half_way, "write")})
    before = world.state_hash()
    out = _run(world, "half_way", '{"key": "k"}')
    assert out.error and "changed my mind" in out.content
    assert world.state_hash() == before and "k" not in world.state.kv.values


def test_a_bug_in_a_tool_is_not_swallowed(seed: dict[str, Any]) -> None:
    def buggy(state: WorldState) -> None:
        """Crash."""
        raise ZeroDivisionError

    world = World(seed, tools={"buggy": make_tool(buggy, "read")})
    with pytest.raises(ZeroDivisionError):
        _run(world, "buggy", "{}")


def test_every_call_is_recorded_in_order(world: World) -> None:
    _run(world, "nope", "{}")
    _run(world, "get_order", "{bad")
    _run(world, "approve_order", '{"order_id": "O-1"}')
    kinds = [(o.name, o.error_kind, o.changed, o.tool_kind) for o in world.history]
    assert kinds == [
        ("nope", "unknown_tool", False, None),
        ("get_order", "invalid_json", False, "read"),
        ("approve_order", None, True, "write"),
    ]
    assert world.history[2].arguments == '{"order_id": "O-1"}'
    assert world.history[2].args == {"order_id": "O-1"}


def test_calls_may_be_plain_mappings(world: World) -> None:
    out = world.execute({"id": "x", "name": "get_order", "arguments": {"order_id": "O-1"}})
    assert out.call_id == "x" and not out.error


def test_bad_seed_is_a_spec_error() -> None:
    with pytest.raises(WorldSpecError, match="invalid world seed"):
        World({"ordres": {}})
    with pytest.raises(WorldSpecError):
        World({"orders": {"O-1": {"customer": "a", "item": "b", "unit_price": "free"}}})
