"""Failure injection: a task declares, as data, how one of its tools misbehaves.

Three kinds, each with the message the model sees:

- ``always_fail``: every call of the tool answers with the error; the model must find another way (or say it
  cannot) instead of retrying forever.
- ``first_call``: the first well-formed call of the tool fails (``mode: error``) or comes back empty
  (``mode: empty``, answering ``empty_result``); the calls after it work. The model must retry or re-check
  rather than give up or trust the empty answer.
- ``require_args``: a call must carry the listed arguments with the listed values; any other call answers
  with the error (which should hint at what is missing, as a real API's message would).

An injected answer never runs the tool, so it never changes the state. Injections are checked after the
arguments pass validation: a malformed call is answered as malformed and does not use up a ``first_call``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class FailureInjection(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str
    kind: Literal["always_fail", "first_call", "require_args"]
    message: str = Field(min_length=1)
    # first_call only: answer with an error, or with an empty result that is not marked as an error.
    mode: Literal["error", "empty"] = "error"
    # first_call with mode "empty": the JSON value returned instead of the real result.
    empty_result: Any = Field(default_factory=list)
    # require_args only: argument name -> the value it must have.
    args: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _fits_kind(self) -> FailureInjection:
        if self.kind == "require_args" and not self.args:
            raise ValueError("require_args needs 'args': the arguments (and values) a call must carry")
        if self.kind != "require_args" and self.args:
            raise ValueError(f"'args' only applies to require_args, not {self.kind}")
        if self.kind != "first_call" and self.mode != "error":
            raise ValueError(f"'mode' only applies to first_call, not {self.kind}")
        return self


class InjectedAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    content: Any
    error: bool


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, BaseModel):
        a = a.model_dump(mode="json")
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


def injected_answer(
    injections: list[FailureInjection], tool: str, args: dict[str, Any], prior_calls: int
) -> InjectedAnswer | None:
    """What an injection answers instead of the tool, or None to let the tool run.

    ``prior_calls`` counts the earlier well-formed calls of this tool in the episode.
    """
    for inj in injections:
        if inj.tool != tool:
            continue
        if inj.kind == "always_fail":
            return InjectedAnswer(content=inj.message, error=True)
        if inj.kind == "first_call" and prior_calls == 0:
            if inj.mode == "empty":
                return InjectedAnswer(content=inj.empty_result, error=False)
            return InjectedAnswer(content=inj.message, error=True)
        if inj.kind == "require_args":
            if not all(name in args and _same(args[name], want) for name, want in inj.args.items()):
                return InjectedAnswer(content=inj.message, error=True)
    return None
