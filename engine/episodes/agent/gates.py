"""The agent's own checks (every module whose model acts through tools), over the same replay as the
world's (:mod:`engine.world.gates`) and the transcript: two gates no appeal may cross (``loop``,
``premature_stop``) and what the model was told.

- loop: one identical call repeated ``loop_threshold`` times (the world only scores it; here it fails);
- premature_stop: the model ended the episode itself without acting: no call although the task needs some,
  or no change at all to the state although the task asks for changes. Partial work left undone, or work
  done wrong, is a goal miss (with the leftovers noted), not a premature stop;
- malformed calls, and whether the stored tool messages agree with what this version of the world answers
  (they differ only if the transcript or the world changed since the run).
"""

from __future__ import annotations

from typing import Any

from engine.core.textclip import shorten
from engine.episodes.agent.transcript import Transcript
from engine.world import Finding, Replay
from engine.world.diff import ABSENT, same_value
from engine.world.gates import DETAIL_LIMIT

_MALFORMED = ("unknown_tool", "invalid_json", "invalid_arguments")
_DETAIL_TEXT = 200


def clip(text: str, limit: int = _DETAIL_TEXT) -> str:
    return shorten(text, limit, "...")


def transcript_facts(seen: Transcript) -> Finding:
    return Finding(details={
        "model_turns": len(seen.assistant),
        "stopped": seen.stopped,
        "most_calls_in_one_turn": max((len(t.tool_calls) for t in seen.assistant), default=0),
        "text_calls": seen.text_calls,
    })


def malformed_calls(seen: Transcript, replay: Replay) -> list[dict[str, Any]]:
    """The calls the world answered as malformed, with the turn they were made in."""
    outcomes = iter(replay.outcomes)  # one per call, in call order
    malformed: list[dict[str, Any]] = []
    for turn_no, turn in enumerate(seen.assistant, start=1):
        for call in turn.tool_calls:
            outcome = next(outcomes)
            if outcome.error_kind in _MALFORMED:
                malformed.append({
                    "turn": turn_no, "tool": clip(call.name, 64), "kind": outcome.error_kind,
                    "arguments": clip(call.arguments), "answer": clip(outcome.content),
                })
    return malformed


def loop_gate(repeats: Finding, threshold: int) -> Finding:
    """The world's repeated-call finding turned into a gate."""
    loops = repeats.details["loops"]
    if not loops:
        return Finding()
    return Finding(gate="loop", reason=f"repeated the same call {threshold}+ times: {clip(loops[0], 120)}")


def left_undone(replay: Replay) -> list[str]:
    """Target paths still at their seed value in the model's final state."""
    seed, expected, final = replay.seed_flat, replay.expected_flat, replay.final_flat
    return sorted(
        p for p in replay.targets
        if not same_value(final.get(p, ABSENT), expected.get(p, ABSENT))
        and same_value(final.get(p, ABSENT), seed.get(p, ABSENT))
    )


def premature_stop(seen: Transcript, replay: Replay, untouched: list[str], optimal: int) -> Finding:
    premature = seen.stopped == "answered" and (
        (not seen.calls and optimal > 0) or (bool(replay.targets) and not replay.changed)
    )
    details = {"left_undone": untouched[:DETAIL_LIMIT], "premature_stop": premature}
    if not premature:
        return Finding(details=details)
    if not seen.calls:
        reason = "answered without calling any tool although the task needs tool calls"
    else:
        reason = (f"stopped without changing anything; {len(replay.targets)} requested change(s) never made, "
                  f"e.g. {untouched[0]}")
    return Finding(gate="premature_stop", reason=reason, details=details)


def replay_mismatch(seen: Transcript, replay: Replay) -> Finding:
    told = sum(1 for message, o in zip(seen.tool_messages, replay.outcomes, strict=False) if message != o.content)
    return Finding(details={"replay_mismatch": told})
