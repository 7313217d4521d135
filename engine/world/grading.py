"""Grading an episode on its outcome: the final state, compared with the state the gold actions produce.

The grader is a pure function of its inputs: the seed, the gold actions, the model's calls, the grading
spec and the final words. :func:`grade_episode` replays the episode once (:mod:`engine.world.replay`), runs
the world's checks over that replay (:mod:`engine.world.gates`) and builds the ``Grade`` from what they
found (:func:`build_grade`), once. A module that adds checks of its own (the tools module's loop and
premature-stop gates) adds their findings to the same call.

The weighted sum of the scored checks (``WEIGHTS``) is multiplied by the share of final-answer checks passed
and by the share of required calls made (each 1 when the task has none). A hard gate overrides everything:
it fails the trial and zeros the score; the breakdown is kept. A trial passes when the score is at least
0.999.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from engine.core.schema import Grade
from engine.readers.rendered import rendered
from engine.world.errors import WorldSpecError
from engine.world.gates import (
    Finding,
    answer_checks,
    efficiency_share,
    forbidden_calls,
    goal_match,
    markdown_defects,
    repeated_calls,
    replay_facts,
    reported_actions,
    required_calls,
    side_effects,
    stated_facts,
    within_budget,
)
from engine.world.replay import CallLike, Replay, replay_episode
from engine.world.spec import GradeSpec
from engine.world.state import WorldState
from engine.world.world import GoldAction

WEIGHTS: dict[str, float] = {"goal_match": 0.60, "no_side_effects": 0.20, "efficiency": 0.10, "no_loop": 0.10}
PASS_THRESHOLD = 0.999
# When no gate fires, the reason names what cost points in this order (a loop before the cost of the calls).
_REASON_ORDER = ("goal_match", "required_calls", "no_side_effects", "no_loop", "efficiency", "answer_checks")
# Scored checks that multiply the weighted sum instead of adding to it: each must be whole for a pass.
_MULTIPLIERS = ("answer_checks", "required_calls")


def world_findings(replay: Replay, spec: GradeSpec, final_text: str, request: str = "",
                   extra_checks: tuple[int, Sequence[str]] = (0, ())) -> dict[str, Finding]:
    """Every check of the world over one replay, by name, in the order the grade's details list them.
    A scored check's name is its breakdown key; the gates come first, the first to fire decides.
    ``request``: what the model was told before it acted (system message and prompt), which the fact check
    counts as shown to it. ``extra_checks``: (number, failures) of a module's own checks on the final
    answer, counted with the answer checks. The final words are read as they render
    (:func:`engine.readers.rendered.rendered`: ``config\\_version`` is ``config_version``, ``O\\u2011201``
    is ``O-201``), once, for every check that reads them."""
    final_text = rendered(final_text)
    return {
        "forbidden_tool": forbidden_calls(replay, spec),
        "call_budget": within_budget(replay, spec),
        "unbacked_claim": reported_actions(replay, spec, final_text),
        "invented_fact": stated_facts(replay, spec, final_text, request),
        "goal_match": goal_match(replay),
        "no_side_effects": side_effects(replay),
        "efficiency": efficiency_share(replay, spec),
        "no_loop": repeated_calls(replay, spec),
        "answer_checks": answer_checks(replay, spec, final_text, extra_checks, request),
        "required_calls": required_calls(replay, spec),
        "replay": replay_facts(replay),
        "markdown": markdown_defects(replay),
    }


def first_gate(found: Mapping[str, Finding]) -> Finding | None:
    """The hard gate that fails the trial: the first finding, in order, that fires one."""
    return next((f for f in found.values() if f.gate is not None), None)


def build_grade(found: Mapping[str, Finding], notes: Sequence[str] = ()) -> Grade:
    """The one ``Grade`` of an episode from its findings; ``notes`` are appended to the reason whatever the
    verdict (what a reader should know, e.g. that calls were malformed)."""
    breakdown = {name: f.score for name, f in found.items() if f.score is not None}
    weighted = sum(WEIGHTS[k] * breakdown[k] for k in WEIGHTS)
    for name in _MULTIPLIERS:
        if name in breakdown:
            weighted *= breakdown[name]
    gate = first_gate(found)
    score = 0.0 if gate is not None else round(weighted, 6)
    if gate is not None:
        reason = gate.reason
    else:
        parts = [found[name].reason for name in _REASON_ORDER if name in found and found[name].reason]
        reason = "; ".join(parts) or "final state matches the expected state"
    if notes:
        reason = f"{reason}; {'; '.join(notes)}"
    details: dict[str, Any] = {}
    for f in found.values():
        details.update(f.details)
    passed = gate is None and score >= PASS_THRESHOLD
    # Only a pass can rest on a reading that could not decide (the rule every module's grade follows).
    unsure = "; ".join(f"{name}: {f.unsure}" for name, f in found.items() if f.unsure) or None
    return Grade(
        score=score,
        passed=passed,
        breakdown={k: round(v, 6) for k, v in breakdown.items()},
        reason=reason,
        hard_gate=gate.gate if gate is not None else None,
        details=details,
        unsure=unsure if passed else None,
    )


def grade_episode(
    seed_state: Mapping[str, Any] | WorldState,
    gold_actions: Sequence[GoldAction | Mapping[str, Any]],
    executed_calls: Sequence[CallLike],
    spec: GradeSpec | Mapping[str, Any] | None = None,
    *,
    final_text: str = "",
    request: str = "",
) -> Grade:
    """Grade one episode from the seed, the gold actions, the model's calls in order, its final words and
    what it was told before it acted (``request``)."""
    if spec is None:
        spec = GradeSpec()
    elif not isinstance(spec, GradeSpec):
        try:
            spec = GradeSpec.model_validate(spec)
        except ValidationError as exc:
            raise WorldSpecError(f"invalid grading spec: {exc}") from exc
    replay = replay_episode(seed_state, gold_actions, executed_calls, spec)
    return build_grade(world_findings(replay, spec, final_text, request))
