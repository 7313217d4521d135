"""Turning a plain Python function into a tool: its JSON schema and its argument validator.

A tool is a function whose first parameter is the :class:`~engine.world.state.WorldState` it acts on and
whose other parameters are what the model passes. The schema the model sees is derived from the type hints
and the Google-style docstring (summary, then an ``Args:`` section with one description per argument), so
the schema cannot drift from the code. Every argument must be annotated and described; a tool that is not
raises :class:`ToolDefinitionError` when it is defined, not when a model first calls it.

Supported annotations: ``str``, ``int``, ``float``, ``bool``, ``None``, ``Literal[...]``, ``list[X]``,
``dict[str, X]``, unions (``X | None``), ``Annotated[X, "description"]`` and pydantic models (inlined, with
their ``Field(description=...)``), nested to any depth.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from engine.world.errors import ToolDefinitionError

ToolKind = Literal["read", "write"]
# The kinds of thing a tool's arguments name: what a report in a final message can be about.
ObjectKind = Literal["order", "key", "file", "request", "person"]
# The kinds of action a write performs; "change" is any write that alters its object.
ActionKind = Literal["change", "send", "refund", "escalate", "approve", "reject", "ship", "delete"]


@dataclass(frozen=True)
class Effect:
    """What a write tool does, declared beside it: the argument that names the object it acts on, what kind
    of object that is, and the kinds of action it performs (``"approve"``, ``"send"`` ...). A write also
    counts as a ``"change"`` of its object unless ``changes`` is false (sending a message to someone does not
    alter them). ``when`` adds an action that depends on an argument's value
    (``("status", "rejected", "reject")``). A reader of reports ties "approved O-7" to a successful call
    whose effect approves the object O-7 (:mod:`engine.world.claims`)."""

    on: str
    object: ObjectKind
    does: tuple[ActionKind, ...] = ()
    when: tuple[tuple[str, str, ActionKind], ...] = ()
    changes: bool = True

    def actions(self, args: Mapping[str, Any]) -> frozenset[str]:
        """The kinds of action one call with these arguments performs."""
        extra = [action for arg, value, action in self.when if str(args.get(arg)) == value]
        return frozenset((*(("change",) if self.changes else ()), *self.does, *extra))

    def all_actions(self) -> frozenset[str]:
        """Every kind of action some call of the tool can perform."""
        return frozenset((*(("change",) if self.changes else ()), *self.does, *(a for _, _, a in self.when)))


_PRIMITIVES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


@dataclass(frozen=True)
class Tool:
    """A function plus what the model needs to call it. Build one with :func:`tool`."""

    name: str
    kind: ToolKind
    description: str
    parameters: dict[str, Any]
    func: Callable[..., Any]
    args_model: type[BaseModel] = field(repr=False)
    # What a write does to which object; None for a read.
    effect: Effect | None = None

    def openai_schema(self) -> dict[str, Any]:
        """The entry for the ``tools`` list of an OpenAI-compatible chat request."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }

    def validate(self, args: dict[str, Any]) -> dict[str, Any]:
        """Check the model's arguments strictly (no "5" for 5) and return them as Python values.

        Raises pydantic's ``ValidationError``; the execute boundary words it for the model.
        """
        parsed = self.args_model.model_validate(args, strict=True)
        return {name: getattr(parsed, name) for name in type(parsed).model_fields}


def tool(
    kind: ToolKind, *, name: str | None = None, effect: Effect | None = None
) -> Callable[[Callable[..., Any]], Tool]:
    """Decorator that turns a function into a :class:`Tool`. It registers nothing anywhere."""

    def wrap(func: Callable[..., Any]) -> Tool:
        return make_tool(func, kind, name=name, effect=effect)

    return wrap


def make_tool(
    func: Callable[..., Any], kind: ToolKind, *, name: str | None = None, effect: Effect | None = None
) -> Tool:
    tool_name = name or func.__name__
    if effect is not None and kind != "write":
        raise ToolDefinitionError(f"tool {tool_name}: only a write tool has an effect")
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", tool_name):
        raise ToolDefinitionError(f"tool name {tool_name!r} must be 1-64 letters, digits, '_' or '-'")
    summary, arg_docs = parse_docstring(inspect.getdoc(func) or "")
    if not summary:
        raise ToolDefinitionError(f"tool {tool_name}: the docstring needs a summary, which the model reads")
    hints = typing.get_type_hints(func, include_extras=True)
    params = list(inspect.signature(func).parameters.values())
    if not params:
        raise ToolDefinitionError(f"tool {tool_name}: the first parameter must be the world state")
    properties: dict[str, Any] = {}
    required: list[str] = []
    model_fields: dict[str, Any] = {}
    for param in params[1:]:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolDefinitionError(f"tool {tool_name}: *args and **kwargs cannot be described to a model")
        if param.name not in hints:
            raise ToolDefinitionError(f"tool {tool_name}: argument {param.name!r} has no type annotation")
        annotation = hints[param.name]
        description = arg_docs.get(param.name) or _annotated_description(annotation)
        if not description:
            raise ToolDefinitionError(
                f"tool {tool_name}: argument {param.name!r} has no description; add it under 'Args:'"
            )
        prop = json_schema_for(annotation, where=f"{tool_name}.{param.name}")
        prop = {"description": description, **prop}
        if param.default is param.empty:
            required.append(param.name)
            model_fields[param.name] = (annotation, ...)
        else:
            if param.default is not None:
                prop["default"] = param.default
            model_fields[param.name] = (annotation, param.default)
        properties[param.name] = prop
    if effect is not None and (effect.on not in properties or {arg for arg, _, _ in effect.when} - set(properties)):
        raise ToolDefinitionError(f"tool {tool_name}: its effect names an argument it does not have")
    unknown = set(arg_docs) - {p.name for p in params[1:]}
    if unknown:
        raise ToolDefinitionError(
            f"tool {tool_name}: docstring describes unknown arguments {sorted(unknown)}"
        )
    parameters: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
    parameters["additionalProperties"] = False
    args_model = create_model(  # type: ignore[call-overload]
        f"{tool_name}_arguments", __config__=ConfigDict(extra="forbid"), **model_fields
    )
    return Tool(tool_name, kind, summary, parameters, func, args_model, effect)


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into its description and its per-argument descriptions.

    Everything before ``Args:`` is the description (paragraphs joined by a blank line). Under ``Args:`` each
    ``name: text`` line starts an argument; more-indented lines continue it. Another section header
    (``Returns:``, ``Raises:``) ends the arguments and is not shown to the model.
    """
    lines = inspect.cleandoc(doc).splitlines()
    description: list[str] = []
    args: dict[str, str] = {}
    section = "description"
    current: str | None = None
    arg_indent: int | None = None
    for raw in lines:
        stripped = raw.strip()
        header = re.fullmatch(r"([A-Z][A-Za-z ]*):", stripped)
        if header and len(raw) - len(raw.lstrip()) == 0:
            section = "args" if header.group(1) in ("Args", "Arguments", "Parameters") else "other"
            current, arg_indent = None, None
            continue
        if section == "description":
            description.append(stripped)
        elif section == "args" and stripped:
            indent = len(raw) - len(raw.lstrip())
            match = re.fullmatch(r"(\w+)\s*(?:\([^)]*\))?:\s*(.*)", stripped)
            if match and (arg_indent is None or indent <= arg_indent):
                arg_indent = indent
                current = match.group(1)
                args[current] = match.group(2)
            elif current is not None:
                args[current] = f"{args[current]} {stripped}".strip()
    paragraphs: list[list[str]] = [[]]
    for line in description:
        if line:
            paragraphs[-1].append(line)
        elif paragraphs[-1]:
            paragraphs.append([])
    summary = "\n\n".join(" ".join(p) for p in paragraphs if p)
    return summary, args


def _annotated_description(annotation: Any) -> str | None:
    if typing.get_origin(annotation) is typing.Annotated:
        for meta in typing.get_args(annotation)[1:]:
            if isinstance(meta, str):
                return meta
    return None


def json_schema_for(annotation: Any, *, where: str = "") -> dict[str, Any]:
    """The JSON schema of one annotation, inlined (no ``$ref``: small models and grammar engines cope
    better with a flat schema)."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        inner = json_schema_for(args[0], where=where)
        desc = _annotated_description(annotation)
        return {"description": desc, **inner} if desc else inner
    if annotation is None or annotation is type(None):
        return {"type": "null"}
    if annotation in _PRIMITIVES:
        return {"type": _PRIMITIVES[annotation]}
    if origin is Literal:
        kinds = {_PRIMITIVES.get(type(v)) for v in args}
        schema: dict[str, Any] = {"enum": list(args)}
        if len(kinds) == 1 and None not in kinds:
            schema = {"type": kinds.pop(), **schema}
        return schema
    if origin in (Union, types.UnionType):
        members = [a for a in args if a is not type(None)]
        simple = [a for a in members if a in _PRIMITIVES]
        if len(simple) == len(members):
            names = [_PRIMITIVES[a] for a in members]
            if len(members) < len(args):
                names.append("null")
            return {"type": names[0] if len(names) == 1 else names}
        options = [json_schema_for(a, where=where) for a in members]
        if len(members) < len(args):
            options.append({"type": "null"})
        return {"anyOf": options}
    if origin in (list, typing.List, tuple) or annotation is list:  # noqa: UP006
        item = args[0] if args else Any
        return {"type": "array", "items": json_schema_for(item, where=where) if item is not Any else {}}
    if origin is dict or annotation is dict:
        if args and args[0] is not str:
            raise ToolDefinitionError(f"{where}: JSON object keys are strings; use dict[str, ...]")
        value = args[1] if len(args) == 2 else Any
        extra = json_schema_for(value, where=where) if value is not Any else True
        return {"type": "object", "additionalProperties": extra}
    if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
        return _model_schema(annotation, where)
    raise ToolDefinitionError(f"{where}: cannot describe type {annotation!r} to a model")


def _model_schema(model: type[BaseModel], where: str) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    hints = typing.get_type_hints(model, include_extras=True)
    for name, info in model.model_fields.items():
        annotation = hints.get(name, info.annotation)
        prop = json_schema_for(annotation, where=f"{where}.{name}")
        if info.description:
            prop = {"description": info.description, **prop}
        if info.is_required():
            required.append(name)
        elif info.default is not None and not callable(info.default):
            prop["default"] = info.default
        properties[name] = prop
    schema: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
    schema["additionalProperties"] = False
    return schema


def describe_validation_error(exc: ValidationError) -> str:
    """Word pydantic's errors the way an API would: the argument path, what was wrong, what came in."""
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        if err["type"] == "missing":
            parts.append(f"missing required argument '{loc}'")
        elif err["type"] == "extra_forbidden":
            parts.append(f"unexpected argument '{loc}'")
        else:
            got = err.get("input")
            shown = repr(got) if not isinstance(got, (dict, list)) else type(got).__name__
            parts.append(f"argument '{loc}': {err['msg'].lower()} (got {shown})")
    return "; ".join(parts)
