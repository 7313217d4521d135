"""A whole episode as task data: YAML in, a world to play and a grade out."""

from __future__ import annotations

import pytest
import yaml

from engine.world import WorldSpecError, execute, load_episode

EPISODE = """
world:
  account: {budget: 200}
  orders:
    O-1: {customer: Ana, item: chair, unit_price: 80}
    O-2: {customer: Ben, item: desk, unit_price: 350}
  kv: {values: {db.url: "postgres://prod"}, protected: [db.url]}
tools: [list_orders, approve_order, reject_order, kv_delete]
failures:
  - {tool: approve_order, kind: first_call, message: "timeout contacting payments; retry"}
gold_actions:
  - {tool: approve_order, args: {order_id: O-1}}
  - {tool: approve_order, args: {order_id: O-1}}
  - {tool: reject_order, args: {order_id: O-2, reason: over_budget}}
forbidden_tools: [kv_delete]
checks: {must_mention: [O-2]}
"""


def test_episode_from_yaml_plays_and_grades() -> None:
    episode = load_episode(yaml.safe_load(EPISODE))
    world = episode.new_world()
    assert [t["function"]["name"] for t in world.tool_schemas()] == [
        "list_orders",
        "approve_order",
        "reject_order",
        "kv_delete",
    ]
    for action in episode.gold_actions:
        execute(world, action.as_call(0))
    grade = episode.grade(world.history, final_text="Approved O-1, rejected O-2 (over budget).")
    assert grade.passed, grade.reason


def test_episode_forbidden_tool_fails() -> None:
    episode = load_episode(yaml.safe_load(EPISODE))
    calls = [a.as_call(i) for i, a in enumerate(episode.gold_actions)]
    calls.append(calls[0].model_copy(update={"name": "kv_delete", "arguments": '{"key": "db.url"}'}))
    grade = episode.grade(calls, final_text="O-2 rejected")
    assert grade.hard_gate == "forbidden_tool"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"tools": ["list_orders", "approve_ordr"]}, "unknown tool 'approve_ordr'"),
        ({"world": {"orders": {"O-1": {"customer": "a"}}}}, "invalid tool episode"),
        (
            {"gold_actions": [{"tool": "reject_order", "args": {"order_id": "O-9", "reason": "other"}}]},
            "gold action 1",
        ),
        ({"tools": ["list_orders"], "failures": []}, "does not offer"),
        ({"required_calls": [{"tool": "list_orders", "args": {"status": "pending"}}]}, "never make the required"),
        ({"surprise": 1}, "invalid tool episode"),
    ],
)
def test_broken_episodes_are_task_errors(change: dict, message: str) -> None:
    data = {**yaml.safe_load(EPISODE), **change}
    with pytest.raises(WorldSpecError, match=message):
        load_episode(data)
