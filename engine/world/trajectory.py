"""The episode as a sequence of states, not only its last one: what every path held along the way.

A world is live while the model works on it: a configuration value set wrong and put back later was wrong
for every client that read it in between, and an email cannot be unsent. So the grader also looks at the
path of states. :func:`replay_trajectory` plays calls on a world and records every outcome and the flat
state after every call that changed it; :func:`off_course` compares the model's trajectory with the gold's:
a path may only ever hold its seed value or a value the gold trajectory gave it. A forbidden write that was
undone, or a superseded value applied before the right one, shows up there although the final state is
right.

:func:`call_counts` is the call ledger for efficiency: reads and writes apart, and calls that the world
answered with an error (a refusal, an injected timeout) left out, because retrying after an error the
world gave is sound. Malformed calls (broken JSON, wrong argument types, an unknown tool) are the model's
own noise and do count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.core.schema import ToolCall
from engine.world.diff import ABSENT, flatten_state, same_value, show
from engine.world.state import WorldState
from engine.world.world import ToolOutcome, World, execute

# Error kinds the world itself gives; a call answered with one of these is not counted against efficiency.
WORLD_ERRORS = frozenset({"tool_error", "injected"})


@dataclass(frozen=True)
class Trajectory:
    """What a sequence of calls did to a world: every call's outcome in order, the flat state after each
    call that changed it (the seed's first), and the state at the end."""

    outcomes: tuple[ToolOutcome, ...]
    states: tuple[dict[str, Any], ...]
    end: WorldState


def replay_trajectory(world: World, calls: Sequence[ToolCall]) -> Trajectory:
    """Execute each call once on ``world``, in order."""
    outcomes: list[ToolOutcome] = []
    states = [flatten_state(world.state)]
    for call in calls:
        outcome = execute(world, call)
        outcomes.append(outcome)
        if outcome.changed:
            states.append(flatten_state(world.state))
    return Trajectory(outcomes=tuple(outcomes), states=tuple(states), end=world.state)


def values_by_path(states: Sequence[dict[str, Any]]) -> dict[str, list[Any]]:
    """Every distinct value each path held over the states, in order (ABSENT where it did not exist)."""
    paths = set().union(*(s.keys() for s in states)) if states else set()
    out: dict[str, list[Any]] = {}
    for p in paths:
        seen: list[Any] = []
        for s in states:
            v = s.get(p, ABSENT)
            if not any(same_value(v, w) for w in seen):
                seen.append(v)
        out[p] = seen
    return out


def off_course(gold: Trajectory, model: Trajectory) -> dict[str, dict[str, Any]]:
    """Paths that held, at some point of the model's episode, a value neither the seed nor the gold
    trajectory ever gave them, with the values they went through."""
    allowed = values_by_path(gold.states)
    held = values_by_path(model.states)
    out: dict[str, dict[str, Any]] = {}
    for path, values in held.items():
        ok = allowed.get(path, [ABSENT])
        strays = [v for v in values if not any(same_value(v, a) for a in ok)]
        if strays:
            out[path] = {"allowed": [show(a) for a in ok], "went_through": [show(v) for v in strays]}
    return out


@dataclass(frozen=True)
class CallCounts:
    reads: int
    writes: int


def call_counts(history: Sequence[ToolOutcome]) -> CallCounts:
    """Reads and writes that count for efficiency: every call except those the world refused or failed."""
    counted = [o for o in history if o.error_kind not in WORLD_ERRORS]
    writes = sum(1 for o in counted if o.tool_kind == "write")
    return CallCounts(reads=len(counted) - writes, writes=writes)


def efficiency(gold: CallCounts, model: CallCounts, slack: int) -> float:
    """Reads and writes budgeted apart: each may exceed the gold's count by ``slack``, and reads by one more
    (a look before acting or a check before answering is never wrong). The lower of the two shares."""
    if model.reads + model.writes == 0:
        return 1.0 if gold.reads + gold.writes == 0 else 0.0
    read_share = min(1.0, (gold.reads + slack + 1) / model.reads) if model.reads else 1.0
    write_share = min(1.0, (gold.writes + slack) / model.writes) if model.writes else 1.0
    return min(read_share, write_share)
