"""tools: multi-step episodes on a simulated backend, graded on the state the model leaves behind.

The episode (``run``) offers the task's tools, executes every call the model makes through the world's one
boundary (:func:`engine.world.execute`), several calls of one turn included, and answers each with a
``tool`` message, until the model replies without a call or ``max_turns`` replies have been made. A call
with broken JSON, an unknown tool or wrong argument types is answered with an error, as a real API would;
it never ends the episode. Calls that the client recovered from the reply's text are executed like any
other and flagged.

The grade (``grade``) is a pure function of the task and the stored turns: it rebuilds the world from the
seed, replays every recorded call in order (failure injection depends only on that order, so the replay
meets the same faults the episode met) and hands the calls and the final answer to
:func:`engine.world.grade_episode`. On top of its gates (forbidden tool, call budget) this module adds two
that no appeal may cross: ``loop`` (one identical call repeated ``loop_threshold`` times) and
``premature_stop`` (the model ended the episode itself without acting: no call although the task needs
some, or no change at all to the state although the task asks for changes). Every gate zeros the score
and keeps the breakdown.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import Field, model_validator

from engine.core.schema import Grade, ToolCall, Turn
from engine.episodes.base import Conversation, Env, LoadedTask, estimate_tokens
from engine.episodes.spec import ModuleSpec, ModuleWeights
from engine.world import World, WorldEpisode, WorldSpecError, call_budget, execute
from engine.world.diff import ABSENT, changed_paths, flatten_state, same_value
from engine.world.grading import expected_world

# Shown to every model, so that a server whose chat template drops the ``tools`` field (llama.cpp with a
# template without tool support answers 200 and silently ignores them) still leaves the model a way to act.
SYSTEM_PROMPT = """You are an operations assistant with access to the tools listed below. Act by calling \
the tools; a task is only done when the tools have done it. You may call several tools in one reply. \
When the work is finished, reply with a short summary for the user and no tool call.

If your interface has no native tool calling, write each call on its own line exactly like this:
<tool_call>{"name": "TOOL_NAME", "arguments": {"ARG": "VALUE"}}</tool_call>

Tools:"""

_MALFORMED = ("unknown_tool", "invalid_json", "invalid_arguments")
_DETAIL_TEXT = 200


class ToolsBody(WorldEpisode):
    """A tools task: the world episode (seed, tools, faults, gold, grading) plus the user's request."""

    prompt: str = Field(min_length=1)

    @model_validator(mode="after")
    def _playable(self) -> ToolsBody:
        if not self.tools:
            raise ValueError("'tools' must list the tools the model is offered (at least one)")
        unoffered = sorted(set(self.forbidden_tools) - set(self.tools))
        if unoffered:
            raise ValueError(f"forbidden_tools {unoffered} are not offered, so the gate could never fire; "
                             "add them to 'tools' or remove them")
        try:
            self.check()
        except WorldSpecError as exc:
            raise ValueError(str(exc)) from exc
        return self

    @property
    def optimal(self) -> int:
        return self.optimal_calls if self.optimal_calls is not None else len(self.gold_actions)


def _signature(schema: dict[str, Any]) -> str:
    fn = schema["function"]
    params = fn["parameters"]
    required = set(params.get("required", []))
    args = ", ".join(n if n in required else f"{n}?" for n in params.get("properties", {}))
    return f"- {fn['name']}({args}): {fn['description'].splitlines()[0]}"


def system_prompt(world: World, extra: str | None = None) -> str:
    """The module's system message: how to act, then one line per offered tool (the schemas travel in
    the request's ``tools`` field as well)."""
    lines = [SYSTEM_PROMPT, *(_signature(s) for s in world.tool_schemas())]
    text = "\n".join(lines)
    return f"{extra.strip()}\n\n{text}" if extra and extra.strip() else text


def _clip(text: str, limit: int = _DETAIL_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Tools:
    spec = ModuleSpec(
        name="tools", label="Tools", bank_tasks=13, judge="movable",
        uses_tools=True, runs_code=False, weights=ModuleWeights(balanced=0.30, agentic=0.38, coding=0.28),
    )
    version = "1"
    body_model = ToolsBody

    async def run(self, task: LoadedTask, convo: Conversation, env: Env) -> None:
        body: ToolsBody = task.body
        world = body.new_world()
        schemas = world.tool_schemas()
        # The task's own system message (if any) goes first; the module's instructions follow it, in one
        # message, since some chat templates refuse a second system message.
        system = system_prompt(world, task.task.system)
        if convo.turns and convo.turns[0].role == "system":
            convo.turns[0] = Turn(role="system", content=system)
        else:
            convo.turns.insert(0, Turn(role="system", content=system))
        convo.add("user", body.prompt)
        for _ in range(task.task.max_turns):
            reply = await convo.ask(tools=schemas)
            if not reply.tool_calls:
                return
            for call in reply.tool_calls:
                outcome = execute(world, call)
                convo.add_tool_result(call.id, call.name, outcome.content)

    def grade(self, task: LoadedTask, turns: list[Turn], env: Env) -> Grade:
        body: ToolsBody = task.body
        assistant = [t for t in turns if t.role == "assistant"]
        calls: list[ToolCall] = [c for t in assistant for c in t.tool_calls]
        last = assistant[-1] if assistant else None
        if last is None:
            stopped = "no_reply"
        elif last.tool_calls:
            stopped = "max_turns"
        else:
            stopped = "answered"
        final_text = last.content if last is not None and not last.tool_calls else ""

        grade = body.grade(calls, final_text=final_text)
        details = dict(grade.details)

        # Replay once more for what the model was told: which calls were malformed, whether the stored tool
        # messages agree with what this version of the world answers (they differ only if the transcript
        # or the world changed since the run).
        world = body.new_world()
        outcomes = [execute(world, c) for c in calls]
        # The loop answers every call with one tool message, in call order.
        recorded = [t.content for t in turns if t.role == "tool"]
        malformed: list[dict[str, Any]] = []
        n = 0
        for turn_no, turn in enumerate(assistant, start=1):
            for call in turn.tool_calls:
                outcome = outcomes[n]
                n += 1
                if outcome.error_kind in _MALFORMED:
                    malformed.append({
                        "turn": turn_no, "tool": _clip(call.name, 64), "kind": outcome.error_kind,
                        "arguments": _clip(call.arguments), "answer": _clip(outcome.content),
                    })
        mismatched = sum(1 for told, o in zip(recorded, outcomes, strict=False) if told != o.content)

        # Work left untouched: target paths still at their seed value in the model's final state.
        seed_flat = flatten_state(body.new_world().state)
        expected_flat = flatten_state(expected_world(body.world, body.gold_actions, body).state)
        final_flat = flatten_state(world.state)
        targets = [p for p in expected_flat.keys() | seed_flat.keys()
                   if not same_value(seed_flat.get(p, ABSENT), expected_flat.get(p, ABSENT))]
        untouched = sorted(
            p for p in targets
            if not same_value(final_flat.get(p, ABSENT), expected_flat.get(p, ABSENT))
            and same_value(final_flat.get(p, ABSENT), seed_flat.get(p, ABSENT))
        )
        # A premature stop is ending the episode before acting at all: no call although the task needs
        # some, or no change to the state although changes were asked for. Partial work left undone, or
        # work done wrong, is a goal miss (with the leftovers noted), not a premature stop.
        premature = stopped == "answered" and (
            (not calls and body.optimal > 0) or (bool(targets) and not changed_paths(seed_flat, final_flat))
        )

        details.update({
            "model_turns": len(assistant),
            "stopped": stopped,
            "most_calls_in_one_turn": max((len(t.tool_calls) for t in assistant), default=0),
            "text_calls": sum(1 for c in calls if c.from_text),
            "malformed_calls": malformed,
            "left_undone": untouched[:20],
            "premature_stop": premature,
            "replay_mismatch": mismatched,
        })

        hard_gate, reason, score = grade.hard_gate, grade.reason, grade.score
        if hard_gate is None and details.get("loops"):
            hard_gate, reason = "loop", f"repeated the same call {body.loop_threshold}+ times: " \
                                        f"{_clip(details['loops'][0], 120)}"
        elif hard_gate is None and premature:
            hard_gate = "premature_stop"
            if not calls:
                reason = "answered without calling any tool although the task needs tool calls"
            else:
                reason = f"stopped without changing anything; {len(targets)} requested change(s) never " \
                         f"made, e.g. {untouched[0]}"
        if hard_gate is not None:
            score = 0.0
        notes = []
        if untouched and hard_gate != "premature_stop":
            notes.append(f"{len(untouched)} requested change(s) left untouched")
        if stopped == "max_turns":
            notes.append(f"ran out of turns ({task.task.max_turns}) without a final answer")
        if malformed:
            notes.append(f"{len(malformed)} malformed call(s)")
        if details["text_calls"]:
            notes.append(f"{details['text_calls']} call(s) written as text")
        if notes:
            reason = f"{reason}; {'; '.join(notes)}"
        return grade.model_copy(update={
            "score": score,
            "passed": grade.passed and hard_gate is None,
            "hard_gate": hard_gate,
            "reason": reason,
            "details": details,
        })

    def required_context(self, task: LoadedTask) -> int:
        """System message, tool schemas (sent again in ``tools``), the request, the state read back up to
        twice through tool results, a small envelope per budgeted call, and two replies' worth of tokens."""
        body: ToolsBody = task.body
        world = body.new_world()
        schemas = json.dumps(world.tool_schemas(), ensure_ascii=False)
        fixed = system_prompt(world, task.task.system) + schemas + body.prompt
        state = json.dumps(body.world, ensure_ascii=False)
        budget = call_budget(body.optimal)
        return (estimate_tokens(fixed) + 2 * estimate_tokens(state) + 40 * budget
                + 2 * task.task.max_tokens + 256)


MODULE = Tools()
