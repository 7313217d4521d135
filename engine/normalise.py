"""Turn what different servers send into one shape: reasoning apart from the answer, tool calls as calls.

Servers disagree on where reasoning goes (``reasoning_content``, ``reasoning``, inline ``<think>``) and small
models often write tool calls as text. Graders must only ever see the answer, so this runs on every reply.
"""

from __future__ import annotations

import json
import re

from engine.schema import ToolCall

_THINK_BLOCK = re.compile(r"<think>(.*?)</think>", re.DOTALL)
_GPT_OSS_FINAL = re.compile(r"^\s*analysis(.*?)assistantfinal", re.DOTALL)
_TOOL_CALL_TAG = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FENCED_JSON = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL)


def split_reasoning(content: str) -> tuple[str, str | None]:
    """Return (answer, reasoning) from content that may hold inline reasoning.

    Handles balanced ``<think>…</think>`` blocks, a lone ``</think>`` (the template opened the block for the
    model), an unclosed ``<think>`` (the model never finished thinking: everything after it is reasoning)
    and gpt-oss ``analysis…assistantfinal`` text leaked by a server without a reasoning parser.
    """
    parts: list[str] = []

    def keep(match: re.Match[str]) -> str:
        parts.append(match.group(1).strip())
        return ""

    text = _THINK_BLOCK.sub(keep, content)
    if "</think>" in text:
        before, _, text = text.rpartition("</think>")
        parts.append(before.replace("<think>", "").strip())
    if "<think>" in text:
        text, _, after = text.partition("<think>")
        parts.append(after.strip())
    oss = _GPT_OSS_FINAL.match(text)
    if oss:
        parts.append(oss.group(1).strip())
        text = text[oss.end():]
    reasoning = "\n\n".join(p for p in parts if p) or None
    return text.strip(), reasoning


def _call_from_object(obj: object, index: int) -> ToolCall | None:
    if not isinstance(obj, dict):
        return None
    name = obj.get("name")
    args = obj.get("arguments", obj.get("parameters", {}))
    if "function" in obj and isinstance(obj["function"], dict):
        name = obj["function"].get("name")
        args = obj["function"].get("arguments", {})
    if not isinstance(name, str) or not name:
        return None
    arguments = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    return ToolCall(id=f"text_call_{index}", name=name, arguments=arguments, from_text=True)


def tool_calls_from_text(content: str, tool_names: set[str]) -> list[ToolCall]:
    """Recover tool calls that a model wrote as text instead of using the tool_calls field.

    Only calls that name one of the offered tools count, so ordinary JSON in an answer is left alone.
    """
    candidates: list[str] = _TOOL_CALL_TAG.findall(content) or _FENCED_JSON.findall(content)
    stripped = content.strip()
    if not candidates and stripped.startswith(("{", "[")):
        candidates = [stripped]
    calls: list[ToolCall] = []
    for raw in candidates:
        try:
            parsed = json.loads(raw)
        except json.JSONDecodeError:
            continue
        for obj in parsed if isinstance(parsed, list) else [parsed]:
            call = _call_from_object(obj, len(calls))
            if call is not None and call.name in tool_names:
                calls.append(call)
    return calls
