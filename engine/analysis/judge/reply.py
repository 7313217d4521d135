"""What the judge must answer: one JSON object of a fixed schema, and the parser that holds it to it."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.analysis.judge.prompt import clip
from engine.core.errors import BenchError


class JudgeReply(BaseModel):
    """The only reply a judge may give. Extra keys, missing keys or wrong types fail the call; strict mode
    refuses coercions such as "yes" for true."""

    model_config = ConfigDict(extra="forbid", strict=True)

    passed: bool
    score: float = Field(ge=0.0, le=1.0)
    reason: str = Field(min_length=1, max_length=2_000)


class JudgeOutputError(BenchError):
    """The judge answered, but not with one valid JSON object of the schema."""


_FENCE = re.compile(r"^```(?:json)?\s*\n(.*)\n```$", re.DOTALL)


def parse_judge_reply(text: str) -> JudgeReply:
    """One JSON object, optionally inside a single ```json fence, and nothing else around it."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    if not body.startswith("{") or not body.endswith("}"):
        raise JudgeOutputError(f"the judge did not answer with one JSON object: {clip(text, 120)!r}")
    try:
        return JudgeReply.model_validate_json(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise JudgeOutputError(
            f"the judge's JSON does not match the schema ({where}: {first['msg']})"
        ) from exc

