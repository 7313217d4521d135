"""One replay per episode: the gold and the model's calls each executed once, handed on as a frozen value."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from engine.world import GradeSpec, WorldSpecError, flatten_state, replay_episode, replay_gold
from tests.world.conftest import executed, record_worlds
from tests.world.test_grading import GOLD, calls


def test_the_gold_and_the_calls_are_each_executed_once(seed: dict[str, Any], monkeypatch) -> None:
    model_calls = calls(GOLD[0], ("get_budget", {}), GOLD[1])
    worlds = record_worlds(monkeypatch)
    replay_episode(seed, GOLD, model_calls, GradeSpec())
    assert executed(worlds) == [["gold-0", "gold-1", "gold-2"], ["c0", "c1", "c2"]]


def test_the_replay_holds_seed_expected_final_and_both_paths(seed: dict[str, Any]) -> None:
    replay = replay_episode(seed, GOLD, calls(GOLD[0], ("get_budget", {})), GradeSpec())
    assert replay.seed_flat == flatten_state(replay.seed) == replay.trajectory.states[0]
    assert replay.expected_flat == flatten_state(replay.expected) == replay.gold.states[-1]
    assert replay.final_flat == flatten_state(replay.final) == replay.trajectory.states[-1]
    assert replay.expected.orders["O-2"].status == "rejected"
    assert replay.final.orders["O-1"].status == "approved" and replay.final.orders["O-2"].status == "pending"
    # The gold makes three writes, each a new state; the model one write and one read.
    assert len(replay.gold.states) == 4 and len(replay.trajectory.states) == 2
    assert [o.name for o in replay.outcomes] == ["approve_order", "get_budget"]
    assert 'kv.values["app.mode"]' in replay.targets
    assert replay.changed == {'orders["O-1"].status', "account.spent"}
    assert replay.changed <= replay.targets


def test_the_replay_is_frozen(seed: dict[str, Any]) -> None:
    replay = replay_episode(seed, GOLD, [], GradeSpec())
    with pytest.raises(dataclasses.FrozenInstanceError):
        replay.final = replay.expected  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        replay.gold.states = ()  # type: ignore[misc]


def test_a_gold_action_may_fail_only_by_injection(seed: dict[str, Any]) -> None:
    retry = GradeSpec(failures=[{"tool": "approve_order", "kind": "first_call", "message": "timeout"}])
    gold = replay_gold(seed, [GOLD[0], GOLD[0]], retry)
    assert [o.injected for o in gold.outcomes] == [True, False]
    with pytest.raises(WorldSpecError, match="gold action 1 \\(approve_order\\) fails"):
        replay_gold(seed, [{"tool": "approve_order", "args": {"order_id": "O-9"}}], GradeSpec())
