"""The shape of a corpus file: one task, and the labelled conversations that exercise its grader."""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from engine.corpus.scripted_server import Action

_CASE_NAME = re.compile(r"^[a-z0-9][a-z0-9_]*$")
# A batch is the set of cases written together, by writers who had not seen the graders' code, and scored once
# before any fix ("first sight"); b0 is the corpus as it stood before batches were recorded.
BATCH = re.compile(r"^b[0-9]{1,3}$")


def batch_number(batch: str) -> int:
    """A batch name's number, for ordering: b10 comes after b9, not between b1 and b2 as text sorts it."""
    return int(batch[1:])


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ScriptedCall(_Strict):
    name: str = Field(min_length=1)
    # An object is sent as its JSON text; a string is sent as written (to script malformed arguments).
    arguments: dict[str, Any] | str = Field(default_factory=dict)


class ScriptedReply(_Strict):
    """One reply of the model: text, optional reasoning (sent as reasoning_content), optional tool calls."""

    text: str = ""
    reasoning: str | None = None
    tool_calls: list[ScriptedCall] = Field(default_factory=list)
    finish_reason: Literal["stop", "length"] = "stop"

    def action(self) -> Action:
        calls = [
            {"name": c.name, "arguments": c.arguments if isinstance(c.arguments, str) else json.dumps(c.arguments)}
            for c in self.tool_calls
        ]
        return Action(text=self.text, reasoning=self.reasoning, tool_calls=calls or None,
                      finish_reason=self.finish_reason)


class Case(_Strict):
    """A labelled conversation: the verdict a careful human gives it, and why, in one line."""

    name: str
    expect: Literal["pass", "fail"]
    why: str = Field(min_length=10, max_length=300)
    # The model family whose style the case imitates (qwen, llama, gemma, mistral, phi, gpt-oss ...).
    style: str | None = None
    replies: list[ScriptedReply] = Field(min_length=1)

    @field_validator("name")
    @classmethod
    def _slug(cls, name: str) -> str:
        if not _CASE_NAME.match(name):
            raise ValueError("use lower-case letters, digits and underscores (e.g. bold_answer_line)")
        return name

    @field_validator("why")
    @classmethod
    def _one_line(cls, why: str) -> str:
        if "\n" in why.strip():
            raise ValueError("keep the reason to one line")
        return why.strip()


class CorpusFile(_Strict):
    task: str = Field(min_length=1)
    # Which batch the file's cases belong to: `<task>.yaml` is b0, `<task>.<batch>.yaml` holds a later batch.
    batch: str = "b0"
    cases: list[Case] = Field(min_length=1)

    @field_validator("batch")
    @classmethod
    def _batch_name(cls, batch: str) -> str:
        if not BATCH.match(batch):
            raise ValueError("name a batch b<number>, e.g. b1")
        return batch

    @model_validator(mode="after")
    def _unique_names(self) -> CorpusFile:
        names = [c.name for c in self.cases]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"case names must be unique within a file; repeated: {', '.join(twice)}")
        return self
