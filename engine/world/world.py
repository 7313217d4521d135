"""A world instance and the one boundary through which tool calls reach it.

:func:`execute` is the only place where a model's tool call touches the state. Whatever the model sends
(broken JSON, an unknown tool, a wrong type, a call the state refuses), it answers with a :class:`ToolOutcome`
whose ``content`` is the text of the ``tool`` message, records the outcome on the world, and never raises for
the model's mistakes. Only a bug in a tool (any exception that is not a ``ToolError``) propagates.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.core import modeljson
from engine.core.schema import ToolCall
from engine.world.errors import ToolError, WorldSpecError
from engine.world.failures import FailureInjection, injected_answer
from engine.world.state import WorldState, canonical_json, state_hash
from engine.world.toolkit import Tool, ToolKind, describe_validation_error
from engine.world.tools import TOOLS

ErrorKind = Literal["unknown_tool", "invalid_json", "invalid_arguments", "tool_error", "injected"]


class ToolOutcome(BaseModel):
    """What one tool call produced: the message for the model, and the facts the grader needs."""

    model_config = ConfigDict(extra="forbid")

    call_id: str
    name: str
    # The arguments exactly as the model wrote them.
    arguments: str
    # The arguments as parsed JSON, when they parsed to an object; None otherwise.
    args: dict[str, Any] | None = None
    content: str
    error: bool = False
    error_kind: ErrorKind | None = None
    # True when a failure injection answered instead of the tool.
    injected: bool = False
    tool_kind: ToolKind | None = None
    # True when the call changed the state.
    changed: bool = False


class World:
    """A seeded state, the tools a task exposes, its failure injections, and the history of calls."""

    def __init__(
        self,
        seed: Mapping[str, Any] | WorldState,
        *,
        tools: Mapping[str, Tool] | None = None,
        failures: Sequence[FailureInjection | Mapping[str, Any]] = (),
    ) -> None:
        try:
            if isinstance(seed, WorldState):
                self.state = seed.model_copy(deep=True)
            else:
                self.state = WorldState.model_validate(dict(seed))
        except ValidationError as exc:
            raise WorldSpecError(f"invalid world seed: {exc}") from exc
        self.tools: dict[str, Tool] = dict(TOOLS if tools is None else tools)
        try:
            self.failures = [FailureInjection.model_validate(f) for f in failures]
        except ValidationError as exc:
            raise WorldSpecError(f"invalid failure injection: {exc}") from exc
        for inj in self.failures:
            if inj.tool not in self.tools:
                raise WorldSpecError(
                    f"failure injection names tool {inj.tool!r}, which the task does not offer"
                )
            if inj.kind == "require_args":
                props = self.tools[inj.tool].parameters["properties"]
                unknown = set(inj.args) - set(props)
                if unknown:
                    raise WorldSpecError(
                        f"require_args for {inj.tool} names unknown arguments {sorted(unknown)}"
                    )
        self.history: list[ToolOutcome] = []
        self._valid_calls: dict[str, int] = {}

    def tool_schemas(self) -> list[dict[str, Any]]:
        """The ``tools`` list of a chat request, in the task's order."""
        return [t.openai_schema() for t in self.tools.values()]

    def state_hash(self) -> str:
        return state_hash(self.state)

    def snapshot(self) -> dict[str, Any]:
        """The state as plain JSON-able data."""
        return self.state.model_dump(mode="json")

    def execute(self, call: ToolCall | Mapping[str, Any]) -> ToolOutcome:
        return execute(self, call)


def _error(message: str) -> str:
    return f"Error: {message}"


def _as_call(call: ToolCall | Mapping[str, Any]) -> ToolCall:
    if isinstance(call, ToolCall):
        return call
    raw = call.get("arguments", "")
    if not isinstance(raw, str):
        raw = json.dumps(raw)
    return ToolCall(id=str(call.get("id", "")), name=str(call.get("name", "")), arguments=raw)


def execute(world: World, call: ToolCall | Mapping[str, Any]) -> ToolOutcome:
    """Run one tool call on ``world`` and return what the model is told. Records the outcome."""
    call = _as_call(call)
    outcome = _run(world, call)
    world.history.append(outcome)
    return outcome


def _run(world: World, call: ToolCall) -> ToolOutcome:
    base: dict[str, Any] = {"call_id": call.id, "name": call.name, "arguments": call.arguments}
    tool = world.tools.get(call.name)
    if tool is None:
        names = ", ".join(world.tools) or "none"
        # A call with no name is one written as text that could not be read (engine/model/textcalls.py).
        what = f"unknown tool {call.name!r}" if call.name else "the call names no tool (it could not be read)"
        return ToolOutcome(
            **base,
            error=True,
            error_kind="unknown_tool",
            content=_error(f"{what}; available tools: {names}"),
        )
    # Some servers send "" for a call without arguments; an API accepts that as {}.
    text = call.arguments.strip() or "{}"
    try:
        parsed = modeljson.loads(text)  # bounded: deep nesting, huge numbers, NaN and lone surrogates refused
    except json.JSONDecodeError as exc:
        return ToolOutcome(
            **base,
            error=True,
            error_kind="invalid_json",
            tool_kind=tool.kind,
            content=_error(f"the arguments of {call.name} are not valid JSON ({exc.msg} at char {exc.pos})"),
        )
    if not isinstance(parsed, dict):
        return ToolOutcome(
            **base,
            error=True,
            error_kind="invalid_json",
            tool_kind=tool.kind,
            content=_error(
                f"the arguments of {call.name} must be a JSON object, got {type(parsed).__name__}"
            ),
        )
    base["args"] = parsed
    try:
        values = tool.validate(parsed)
    except ValidationError as exc:
        return ToolOutcome(
            **base,
            error=True,
            error_kind="invalid_arguments",
            tool_kind=tool.kind,
            content=_error(f"invalid arguments for {call.name}: {describe_validation_error(exc)}"),
        )
    prior = world._valid_calls.get(tool.name, 0)
    world._valid_calls[tool.name] = prior + 1
    injected = injected_answer(world.failures, tool.name, values, prior)
    if injected is not None:
        content = injected.content
        text_out = (
            _error(content)
            if injected.error
            else (content if isinstance(content, str) else canonical_json(content))
        )
        return ToolOutcome(
            **base,
            error=injected.error,
            error_kind="injected" if injected.error else None,
            injected=True,
            tool_kind=tool.kind,
            content=text_out,
        )
    before = world.state_hash() if tool.kind == "write" else None
    backup = world.state.model_copy(deep=True) if tool.kind == "write" else None
    try:
        result = tool.func(world.state, **values)
    except ToolError as exc:
        if backup is not None:
            world.state = backup
        return ToolOutcome(
            **base,
            error=True,
            error_kind="tool_error",
            tool_kind=tool.kind,
            content=_error(str(exc)),
        )
    changed = before is not None and world.state_hash() != before
    return ToolOutcome(
        **base,
        tool_kind=tool.kind,
        changed=changed,
        content=json.dumps(result, ensure_ascii=False),
    )


class GoldAction(BaseModel):
    """One step of a task's reference solution: a tool and its arguments, as data."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)

    def as_call(self, index: int) -> ToolCall:
        return ToolCall(id=f"gold-{index}", name=self.tool, arguments=json.dumps(self.args))
