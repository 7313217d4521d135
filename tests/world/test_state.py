"""The seeded state, its canonical hash and its flat path map."""

from __future__ import annotations

from typing import Any

from engine.world import World, flatten_state, state_hash
from engine.world.diff import ABSENT, changed_paths, same_value
from tests.world.conftest import call


def test_hash_is_stable_and_independent_of_key_order(seed: dict[str, Any]) -> None:
    a = World(seed)
    b = World(dict(reversed(list(seed.items()))))
    assert a.state_hash() == b.state_hash() == state_hash(a.state)
    assert len(a.state_hash()) == 64


def test_hash_follows_every_change_even_ungraded_text(world: World) -> None:
    before = world.state_hash()
    call(world, "set_request_status", request_id="R-1", status="applied", note="one")
    after = world.state_hash()
    assert after != before
    call(world, "set_request_status", request_id="R-1", status="applied", note="two")
    assert world.state_hash() != after


def test_defaults_fill_unused_domains() -> None:
    world = World({})
    assert world.state.orders == {} and world.state.account.budget == 0.0
    assert world.snapshot()["kv"] == {"values": {}, "protected": []}


def test_seed_is_copied_not_shared(seed: dict[str, Any]) -> None:
    world = World(seed)
    call(world, "kv_set", key="app.mode", value="x")
    assert seed["kv"]["values"]["app.mode"] == "normal"
    again = World(world.state)
    call(again, "kv_set", key="app.mode", value="y")
    assert world.state.kv.values["app.mode"] == "x"


def test_flat_paths(world: World) -> None:
    flat = flatten_state(world.state)
    assert flat['orders["O-1"].status'] == "pending"
    assert flat['kv.values["app.retries"]'] == 3
    assert flat['files["notes.txt"] line2'] == "second"
    assert 'requests["R-1"].note' not in flat  # free text is not graded
    call(world, "issue_refund", order_id="O-3", amount=10.0, reason="late")
    flat = flatten_state(world.state)
    assert flat['refunds[{"amount":10.0,"order_id":"O-3","reason":"late"}]'] == 1


def test_append_only_lists_compare_as_multisets(world: World, seed: dict[str, Any]) -> None:
    other = World(seed)
    call(world, "issue_refund", order_id="O-3", amount=10.0, reason="late")
    call(world, "send_message", to="ana@example.com", subject="a", body="b")
    call(other, "send_message", to="ana@example.com", subject="different words", body="same recipient")
    call(other, "issue_refund", order_id="O-3", amount=10.0, reason="late")
    assert changed_paths(flatten_state(world.state), flatten_state(other.state)) == set()


def test_same_value_keeps_types_apart() -> None:
    assert same_value(2, 2.0)
    assert not same_value(True, 1)
    assert not same_value("1", 1)
    assert not same_value(None, ABSENT)
    assert same_value(ABSENT, ABSENT)
