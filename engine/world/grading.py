"""Grading an episode on its outcome: the final state, compared with the state the gold actions produce.

The grader is a pure function of its inputs. It rebuilds both worlds from the seed, replays the gold actions
on one and the model's calls on the other (failure injections included, so both meet the same faults), and
compares the flat state maps of seed, expected and final state:

- target paths T: the paths where the expected state differs from the seed (what the task asks to change);
- goal_match (.60): the share of T where the final state holds the expected value. Doing nothing scores 0.
  A task whose gold is to change nothing (a conditional that must not fire) has an empty T and scores 1 here;
  any change it makes is then a side effect;
- no_side_effects (.20): 1 when no path outside T differs from the seed, else 0;
- efficiency (.10): (optimal calls + efficiency_slack) / calls made, capped at 1 (every call counts:
  reads, errors, malformed ones); 0 when the model made no call although the task needs some;
- no_loop (.10): 0 when one identical call (same tool, same arguments) was made ``loop_threshold`` times.

The weighted sum is multiplied by the share of final-answer checks passed (1 when the task has none). Hard
gates override everything: a forbidden tool (or forbidden call pattern), or more calls than
max(2 x optimal, optimal + 3), set ``hard_gate``, fail the trial and zero the score; the breakdown is kept.
A trial passes when the score is at least 0.999.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from engine.core.schema import Grade, ToolCall
from engine.world.answers import answer_failures
from engine.world.diff import ABSENT, changed_paths, flatten_state, same_value, show
from engine.world.errors import WorldSpecError
from engine.world.markdown import markdown_problems
from engine.world.spec import CallPattern, GradeSpec, call_budget
from engine.world.state import WorldState, canonical_json
from engine.world.tools import select_tools
from engine.world.trajectory import call_counts, efficiency, off_course, replay_trajectory
from engine.world.world import GoldAction, ToolOutcome, World, execute

WEIGHTS: dict[str, float] = {"goal_match": 0.60, "no_side_effects": 0.20, "efficiency": 0.10, "no_loop": 0.10}
PASS_THRESHOLD = 0.999
_DETAIL_LIMIT = 20


def _call_key(call: ToolCall) -> str:
    try:
        args = canonical_json(json.loads(call.arguments or "{}"))
    except ValueError:
        args = call.arguments.strip()
    return f"{call.name}({args})"


def _matches(pattern: CallPattern, outcome: ToolOutcome) -> bool:
    if outcome.name != pattern.tool:
        return False
    args = outcome.args or {}
    return all(k in args and same_value(args[k], v) for k, v in pattern.args.items())


def _fresh(seed: WorldState, spec: GradeSpec) -> World:
    tools = select_tools(spec.tools) if spec.tools is not None else None
    return World(seed, tools=tools, failures=spec.failures)


def _replay(seed: WorldState, spec: GradeSpec, calls: Sequence[ToolCall]) -> World:
    world = _fresh(seed, spec)
    for call in calls:
        execute(world, call)
    return world


def _as_tool_call(call: ToolCall | ToolOutcome | Mapping[str, Any], index: int) -> ToolCall:
    if isinstance(call, ToolCall):
        return call
    if isinstance(call, ToolOutcome):
        return ToolCall(id=call.call_id, name=call.name, arguments=call.arguments)
    raw = call.get("arguments", "")
    if not isinstance(raw, str):
        raw = canonical_json(raw)
    return ToolCall(id=str(call.get("id", f"call-{index}")), name=str(call.get("name", "")), arguments=raw)


def _gold(gold_actions: Sequence[GoldAction | Mapping[str, Any]]) -> list[GoldAction]:
    try:
        return [a if isinstance(a, GoldAction) else GoldAction.model_validate(a) for a in gold_actions]
    except ValidationError as exc:
        raise WorldSpecError(f"invalid gold action: {exc}") from exc


def expected_world(
    seed_state: Mapping[str, Any] | WorldState,
    gold_actions: Sequence[GoldAction | Mapping[str, Any]],
    spec: GradeSpec,
) -> World:
    """The world after the gold actions. A gold action that fails, other than by injection, is a task bug."""
    seed = seed_state if isinstance(seed_state, WorldState) else World(seed_state).state
    gold = _gold(gold_actions)
    world = _replay(seed, spec, [a.as_call(i) for i, a in enumerate(gold)])
    for i, outcome in enumerate(world.history):
        if outcome.error and not outcome.injected:
            raise WorldSpecError(f"gold action {i + 1} ({outcome.name}) fails: {outcome.content}")
    return world


def grade_episode(
    seed_state: Mapping[str, Any] | WorldState,
    gold_actions: Sequence[GoldAction | Mapping[str, Any]],
    executed_calls: Sequence[ToolCall | ToolOutcome | Mapping[str, Any]],
    spec: GradeSpec | Mapping[str, Any] | None = None,
    *,
    final_text: str = "",
) -> Grade:
    """Grade one episode from the seed, the gold actions, the model's calls in order, and its final words."""
    if spec is None:
        spec = GradeSpec()
    elif not isinstance(spec, GradeSpec):
        try:
            spec = GradeSpec.model_validate(spec)
        except ValidationError as exc:
            raise WorldSpecError(f"invalid grading spec: {exc}") from exc
    seed = seed_state if isinstance(seed_state, WorldState) else World(seed_state).state
    expected = expected_world(seed, gold_actions, spec)
    gold_path = replay_trajectory(_fresh(seed, spec), [a.as_call(i) for i, a in enumerate(_gold(gold_actions))])
    calls = [_as_tool_call(c, i) for i, c in enumerate(executed_calls)]
    model_path = replay_trajectory(_fresh(seed, spec), calls)
    final = model_path.world

    seed_flat = flatten_state(seed)
    exp_flat, fin_flat = flatten_state(expected.state), flatten_state(final.state)
    targets = changed_paths(seed_flat, exp_flat)
    reached = {p for p in targets if same_value(fin_flat.get(p, ABSENT), exp_flat.get(p, ABSENT))}
    missed = sorted(targets - reached)
    side_effects = sorted(changed_paths(seed_flat, fin_flat) - targets)
    # Trajectory constraint: a value the task never asks for, held for a while and then undone, is still a
    # change outside the task (paths already missed or changed at the end are reported there, not twice).
    undone = {p: v for p, v in off_course(gold_path, model_path).items() if p not in missed and p not in side_effects}

    optimal = spec.optimal_calls if spec.optimal_calls is not None else len(gold_actions)
    n_calls = len(calls)
    counts = call_counts(final.history)
    repeats = Counter(_call_key(c) for c in calls)
    loops = sorted(k for k, n in repeats.items() if n >= spec.loop_threshold)

    breakdown = {
        "goal_match": len(reached) / len(targets) if targets else 1.0,
        "no_side_effects": 0.0 if side_effects or undone else 1.0,
        "efficiency": efficiency(call_counts(gold_path.world.history), counts, spec.efficiency_slack),
        "no_loop": 0.0 if loops else 1.0,
    }
    weighted = sum(WEIGHTS[k] * v for k, v in breakdown.items())
    n_checks, check_failures = answer_failures(spec.checks, final_text, final.state.outbox)
    if n_checks:
        breakdown["answer_checks"] = (n_checks - len(check_failures)) / n_checks
        weighted *= breakdown["answer_checks"]
    score = round(weighted, 6)

    hard_gate: str | None = None
    gate_reason = ""
    forbidden = [o.name for o in final.history if o.name in spec.forbidden_tools]
    forbidden += [o.name for o in final.history if any(_matches(p, o) for p in spec.forbidden_calls)]
    budget = call_budget(optimal)
    if forbidden:
        hard_gate, gate_reason = "forbidden_tool", f"called forbidden tool {forbidden[0]}"
    elif n_calls > budget:
        hard_gate, gate_reason = "call_budget", f"made {n_calls} calls; the budget is {budget}"
    if hard_gate:
        score = 0.0
    passed = hard_gate is None and score >= PASS_THRESHOLD

    written_md = sorted(
        p
        for p in final.state.files
        if p.lower().endswith((".md", ".markdown")) and final.state.files[p] != seed.files.get(p)
    )
    md_problems = {
        p: probs
        for p in written_md
        if (
            probs := [
                x
                for x in markdown_problems(final.state.files[p])
                if x not in markdown_problems(seed.files.get(p, ""))
            ]
        )
    }
    details: dict[str, Any] = {
        "calls": n_calls,
        "optimal_calls": optimal,
        "call_budget": budget,
        "target_paths": len(targets),
        "reached_paths": len(reached),
        "missed": {
            p: {"expected": show(exp_flat.get(p, ABSENT)), "got": show(fin_flat.get(p, ABSENT))}
            for p in missed[:_DETAIL_LIMIT]
        },
        "side_effects": {
            p: {"seed": show(seed_flat.get(p, ABSENT)), "got": show(fin_flat.get(p, ABSENT))}
            for p in side_effects[:_DETAIL_LIMIT]
        },
        "undone_changes": dict(sorted(undone.items())[:_DETAIL_LIMIT]),
        "counted_calls": {"reads": counts.reads, "writes": counts.writes},
        "loops": loops,
        "check_failures": check_failures,
        "error_calls": sum(1 for o in final.history if o.error),
        "expected_hash": expected.state_hash(),
        "final_hash": final.state_hash(),
    }
    if md_problems:
        details["markdown_problems"] = md_problems
    return Grade(
        score=score,
        passed=passed,
        breakdown={k: round(v, 6) for k, v in breakdown.items()},
        reason=gate_reason
        or _reason(breakdown, missed, side_effects, sorted(undone), loops, check_failures,
                   n_calls, optimal),
        hard_gate=hard_gate,
        details=details,
    )


def _reason(
    breakdown: dict[str, float],
    missed: list[str],
    side_effects: list[str],
    undone: list[str],
    loops: list[str],
    check_failures: list[str],
    n_calls: int,
    optimal: int,
) -> str:
    parts = []
    if missed:
        parts.append(f"{len(missed)} expected change(s) missing, e.g. {missed[0]}")
    if side_effects:
        parts.append(f"{len(side_effects)} change(s) outside the task, e.g. {side_effects[0]}")
    if undone:
        parts.append(f"{len(undone)} change(s) outside the task made and later undone, e.g. {undone[0]}")
    if loops:
        parts.append(f"repeated call {loops[0]}")
    if breakdown["efficiency"] < 1.0:
        parts.append(f"{n_calls} calls for an optimum of {optimal} (reads and writes counted apart)")
    parts.extend(check_failures)
    return "; ".join(parts) or "final state matches the expected state"
