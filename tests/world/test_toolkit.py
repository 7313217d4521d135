"""Schema derivation from signatures and docstrings, and strict argument validation."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field, ValidationError

from engine.world.state import WorldState
from engine.world.toolkit import Effect, ToolDefinitionError, json_schema_for, make_tool, parse_docstring, tool
from engine.world.tools import TOOLS


class Point(BaseModel):
    x: int = Field(description="Horizontal position.")
    label: str | None = None


def test_primitives_and_literals() -> None:
    assert json_schema_for(str) == {"type": "string"}
    assert json_schema_for(int) == {"type": "integer"}
    assert json_schema_for(float) == {"type": "number"}
    assert json_schema_for(bool) == {"type": "boolean"}
    assert json_schema_for(Literal["a", "b"]) == {"type": "string", "enum": ["a", "b"]}
    assert json_schema_for(Literal[1, "a"]) == {"enum": [1, "a"]}


def test_optional_and_unions() -> None:
    assert json_schema_for(str | None) == {"type": ["string", "null"]}
    assert json_schema_for(int | str) == {"type": ["integer", "string"]}
    schema = json_schema_for(Literal["x"] | None)
    assert schema == {"anyOf": [{"type": "string", "enum": ["x"]}, {"type": "null"}]}


def test_containers_and_nested_models() -> None:
    assert json_schema_for(list[int]) == {"type": "array", "items": {"type": "integer"}}
    assert json_schema_for(dict[str, float]) == {"type": "object", "additionalProperties": {"type": "number"}}
    schema = json_schema_for(list[Point])
    item = schema["items"]
    assert item["type"] == "object"
    assert item["required"] == ["x"]
    assert item["additionalProperties"] is False
    assert item["properties"]["x"] == {"description": "Horizontal position.", "type": "integer"}
    assert item["properties"]["label"] == {"type": ["string", "null"]}


def test_annotated_description() -> None:
    assert json_schema_for(Annotated[int, "How many."]) == {"description": "How many.", "type": "integer"}


def test_non_string_dict_keys_and_unknown_types_are_refused() -> None:
    with pytest.raises(ToolDefinitionError):
        json_schema_for(dict[int, str])
    with pytest.raises(ToolDefinitionError):
        json_schema_for(set[int])


def test_docstring_parsing() -> None:
    summary, args = parse_docstring(
        """Do a thing.

        Longer text that
        wraps.

        Args:
            a: First argument,
                continued here.
            b (int): Second.

        Returns:
            nothing: this is not an argument.
        """
    )
    assert summary == "Do a thing.\n\nLonger text that wraps."
    assert args == {"a": "First argument, continued here.", "b": "Second."}


def _sample(
    state: WorldState,
    name: str,
    points: list[Point],
    mode: Literal["fast", "slow"] = "fast",
    limit: int | None = None,
) -> dict[str, Any]:
    """Sample tool.

    Args:
        name: A name.
        points: Some points.
        mode: How.
        limit: At most this many.
    """
    return {"name": name, "n": len(points), "mode": mode, "limit": limit}


def test_tool_schema_from_signature() -> None:
    t = make_tool(_sample, "read")
    schema = t.openai_schema()
    assert schema["type"] == "function"
    fn = schema["function"]
    assert fn["name"] == "_sample"
    assert fn["description"] == "Sample tool."
    params = fn["parameters"]
    assert params["required"] == ["name", "points"]
    assert params["additionalProperties"] is False
    assert "state" not in params["properties"]
    assert params["properties"]["mode"] == {
        "description": "How.",
        "type": "string",
        "enum": ["fast", "slow"],
        "default": "fast",
    }
    assert params["properties"]["limit"]["type"] == ["integer", "null"]
    assert "default" not in params["properties"]["limit"]


def test_validation_is_strict_and_returns_python_values() -> None:
    t = make_tool(_sample, "read")
    values = t.validate({"name": "n", "points": [{"x": 1}]})
    assert isinstance(values["points"][0], Point)
    assert values["mode"] == "fast"
    bad: dict[str, Any]
    for bad in (
        {"name": 1, "points": []},
        {"name": "n", "points": [{"x": "1"}]},
        {"name": "n", "points": [], "mode": "medium"},
        {"name": "n", "points": [], "extra": True},
        {"points": []},
    ):
        with pytest.raises(ValidationError):
            t.validate(bad)


def test_missing_description_is_a_definition_error() -> None:
    def undocumented(state: WorldState, x: int) -> int:
        """Has a summary but no Args."""
        return x

    with pytest.raises(ToolDefinitionError, match="'x' has no description"):
        make_tool(undocumented, "read")


def test_missing_annotation_and_summary_are_definition_errors() -> None:
    def no_hint(state: WorldState, x) -> int:  # type: ignore[no-untyped-def]
        """Summary.

        Args:
            x: Something.
        """
        return 1

    def no_doc(state: WorldState) -> int:
        return 1

    with pytest.raises(ToolDefinitionError, match="no type annotation"):
        make_tool(no_hint, "read")
    with pytest.raises(ToolDefinitionError, match="summary"):
        make_tool(no_doc, "read")


def test_docstring_naming_an_unknown_argument_is_a_definition_error() -> None:
    def stale(state: WorldState, x: int) -> int:
        """Summary.

        Args:
            x: Something.
            y: Removed long ago.
        """
        return x

    with pytest.raises(ToolDefinitionError, match="unknown arguments"):
        make_tool(stale, "read")


def test_decorator_keeps_kind_and_name() -> None:
    @tool("write", name="renamed")
    def f(state: WorldState) -> None:
        """Summary."""

    assert f.name == "renamed" and f.kind == "write"


def test_every_library_tool_has_a_complete_schema() -> None:
    for name, t in TOOLS.items():
        assert t.name == name
        assert t.kind in ("read", "write")
        params = t.parameters
        for arg, prop in params["properties"].items():
            assert prop.get("description"), f"{name}.{arg} lacks a description"
        assert set(params["required"]) <= set(params["properties"])


def test_every_write_declares_what_it_does_to_which_argument_and_no_read_does() -> None:
    for name, t in TOOLS.items():
        assert (t.effect is not None) is (t.kind == "write"), name
        if t.effect is not None:
            assert t.effect.on in t.parameters["properties"], name


def test_an_effect_reads_its_actions_from_the_arguments() -> None:
    effect = Effect(on="request_id", object="request", when=(("status", "rejected", "reject"),))
    assert effect.actions({"request_id": "R-1", "status": "rejected"}) == {"change", "reject"}
    assert effect.actions({"request_id": "R-1", "status": "applied"}) == {"change"}
    assert effect.all_actions() == {"change", "reject"}


def test_an_effect_on_a_read_or_on_a_missing_argument_is_a_definition_error() -> None:
    def f(state: WorldState, key: str) -> None:
        """Summary.

        Args:
            key: A key.
        """

    with pytest.raises(ToolDefinitionError, match="only a write"):
        make_tool(f, "read", effect=Effect(on="key", object="key"))
    with pytest.raises(ToolDefinitionError, match="argument it does not have"):
        make_tool(f, "write", effect=Effect(on="path", object="file"))
    with pytest.raises(ToolDefinitionError, match="argument it does not have"):
        make_tool(f, "write", effect=Effect(on="key", object="key", when=(("status", "x", "reject"),)))
