"""One replay of an episode: the gold and the model's calls, each executed once on a fresh world.

The grader is a pure function of the task and the stored calls, so it rebuilds both worlds from the seed
(failure injections included: they depend only on the order of the calls, so each replay meets the faults
its run met). :func:`replay_episode` does that once and hands every check the same frozen
:class:`Replay`; no check executes a call or flattens a state again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from engine.core.schema import ToolCall
from engine.world.diff import changed_paths, flatten_state
from engine.world.errors import WorldSpecError
from engine.world.spec import GradeSpec
from engine.world.state import WorldState, canonical_json
from engine.world.tools import select_tools
from engine.world.trajectory import Trajectory, replay_trajectory
from engine.world.world import GoldAction, ToolOutcome, World

# What the grader accepts as the model's calls: the calls it sent, or the outcomes a live world recorded.
CallLike = ToolCall | ToolOutcome | Mapping[str, Any]


@dataclass(frozen=True)
class Replay:
    """The seed, the state the gold produces from it (expected), the state the model's calls produce
    (final), both paths of states, and the flat maps and path sets every check compares."""

    seed: WorldState
    expected: WorldState
    final: WorldState
    gold: Trajectory
    trajectory: Trajectory
    seed_flat: dict[str, Any]
    expected_flat: dict[str, Any]
    final_flat: dict[str, Any]
    # The paths the task asks to change: where the expected state differs from the seed.
    targets: frozenset[str]
    # The paths the model changed: where the final state differs from the seed.
    changed: frozenset[str]

    @property
    def outcomes(self) -> tuple[ToolOutcome, ...]:
        """The model's calls as the world answered them, in order."""
        return self.trajectory.outcomes


def fresh_world(seed: Mapping[str, Any] | WorldState, spec: GradeSpec) -> World:
    """A world as a trial starts it: the seed, the offered tools, the failure injections."""
    tools = select_tools(spec.tools) if spec.tools is not None else None
    return World(seed, tools=tools, failures=spec.failures)


def _gold(gold_actions: Sequence[GoldAction | Mapping[str, Any]]) -> list[GoldAction]:
    try:
        return [a if isinstance(a, GoldAction) else GoldAction.model_validate(a) for a in gold_actions]
    except ValidationError as exc:
        raise WorldSpecError(f"invalid gold action: {exc}") from exc


def replay_gold(
    seed: Mapping[str, Any] | WorldState, gold_actions: Sequence[GoldAction | Mapping[str, Any]], spec: GradeSpec
) -> Trajectory:
    """The gold actions played on the seed. A gold action that fails, other than by injection, is a task bug."""
    calls = [a.as_call(i) for i, a in enumerate(_gold(gold_actions))]
    gold = replay_trajectory(fresh_world(seed, spec), calls)
    for i, outcome in enumerate(gold.outcomes):
        if outcome.error and not outcome.injected:
            raise WorldSpecError(f"gold action {i + 1} ({outcome.name}) fails: {outcome.content}")
    return gold


def _as_tool_call(call: CallLike, index: int) -> ToolCall:
    if isinstance(call, ToolCall):
        return call
    if isinstance(call, ToolOutcome):
        return ToolCall(id=call.call_id, name=call.name, arguments=call.arguments)
    raw = call.get("arguments", "")
    if not isinstance(raw, str):
        raw = canonical_json(raw)
    return ToolCall(id=str(call.get("id", f"call-{index}")), name=str(call.get("name", "")), arguments=raw)


def replay_episode(
    seed: Mapping[str, Any] | WorldState,
    gold_actions: Sequence[GoldAction | Mapping[str, Any]],
    calls: Sequence[CallLike],
    spec: GradeSpec,
) -> Replay:
    """Replay the gold once and the model's calls once, each on a fresh world from the seed."""
    # Validated once here (a bad seed is worded for the task author), then copied into each world.
    start = seed if isinstance(seed, WorldState) else World(seed).state
    gold = replay_gold(start, gold_actions, spec)
    model = replay_trajectory(fresh_world(start, spec), [_as_tool_call(c, i) for i, c in enumerate(calls)])
    seed_flat = model.states[0]
    expected_flat, final_flat = flatten_state(gold.end), flatten_state(model.end)
    return Replay(
        seed=start,
        expected=gold.end,
        final=model.end,
        gold=gold,
        trajectory=model,
        seed_flat=seed_flat,
        expected_flat=expected_flat,
        final_flat=final_flat,
        targets=frozenset(changed_paths(seed_flat, expected_flat)),
        changed=frozenset(changed_paths(seed_flat, final_flat)),
    )
