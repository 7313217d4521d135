"""A seed that touches every domain of the world, built in code."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.world import World, execute

TABLE_DOC = """# Release plan

Owner: platform team.

## Milestones

| Milestone | Owner | Status |
|-----------|-------|--------|
| Alpha     | Ana   | done   |
| Beta      | Ben   | open   |
| GA        | Cleo  | open   |

## Notes

- keep the changelog current
- tag every release
"""


def seed_state() -> dict[str, Any]:
    return {
        "account": {"budget": 500.0, "spent": 100.0, "currency": "EUR"},
        "orders": {
            "O-1": {"customer": "Ana", "item": "chair", "quantity": 2, "unit_price": 80.0},
            "O-2": {"customer": "Ben", "item": "desk", "unit_price": 350.0, "priority": "high"},
            "O-3": {"customer": "Cleo", "item": "lamp", "unit_price": 40.0, "status": "delivered"},
            "O-4": {"customer": "Dan", "item": "sofa", "unit_price": 900.0, "status": "delivered"},
        },
        "refund_policy": {"max_amount": 100.0, "refundable_statuses": ["delivered"]},
        "kv": {
            "values": {"app.mode": "normal", "app.retries": 3, "db.url": "postgres://prod"},
            "protected": ["db.url"],
        },
        "files": {"plan.md": TABLE_DOC, "notes.txt": "first\nsecond\n"},
        "requests": {
            "R-2": {
                "received_at": "2024-05-01T10:05:00Z",
                "sender": "ana@example.com",
                "subject": "retries",
                "body": "Set app.retries to 7",
            },
            "R-1": {
                "received_at": "2024-05-01T09:00:00Z",
                "sender": "ana@example.com",
                "subject": "retries",
                "body": "Set app.retries to 5",
            },
        },
        "contacts": {
            "c1": {"name": "Ana Silva", "email": "ana@example.com", "team": "platform"},
            "c2": {"name": "Ben Okafor", "email": "ben@example.com", "team": "finance"},
        },
        "weather": {"Lisbon": {"temp_c": 21.5, "condition": "sunny"}},
        "quotes": {"ACME": {"price": 12.5, "change_pct": -3.2}},
    }


@pytest.fixture
def seed() -> dict[str, Any]:
    return seed_state()


@pytest.fixture
def world(seed: dict[str, Any]) -> World:
    return World(seed)


def call(world: World, name: str, **args: Any) -> Any:
    """Call a tool through the boundary; return the parsed result, or the error text prefixed by '!'."""
    outcome = execute(world, {"id": f"t{len(world.history)}", "name": name, "arguments": json.dumps(args)})
    if outcome.error:
        return "!" + outcome.content
    return json.loads(outcome.content)


def record_worlds(monkeypatch: pytest.MonkeyPatch) -> list[World]:
    """Every world built from now on, in order, so that a test can count the calls each one executed (a
    world records every call that reaches it through ``execute`` in its ``history``)."""
    built: list[World] = []
    init = World.__init__

    def recording(self: World, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        built.append(self)

    monkeypatch.setattr(World, "__init__", recording)
    return built


def executed(worlds: list[World]) -> list[list[str]]:
    """The call ids each world executed, for the worlds that executed any."""
    return [[o.call_id for o in w.history] for w in worlds if w.history]
