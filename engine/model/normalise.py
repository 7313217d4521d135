"""Turn what different servers send into one shape: reasoning apart from the answer, tool calls as calls.

Servers disagree on where reasoning goes (``reasoning_content``, ``reasoning``, inline ``<think>``) and small
models often write tool calls as text. Graders must only ever see the answer, so this runs on every reply.
"""

from __future__ import annotations

import json
import re

from engine.core.schema import ToolCall

_THINK_BLOCK = re.compile(r"<think>(.*?)</think>", re.DOTALL)
_GPT_OSS_FINAL = re.compile(r"^\s*analysis(.*?)assistantfinal", re.DOTALL)
# gpt-oss's harmony format with its special tokens left in (a server with no reasoning parser).
_HARMONY_ANALYSIS = re.compile(
    r"<\|channel\|>\s*analysis\s*<\|message\|>(.*?)(?:<\|end\|>|(?=<\|start\|>)|(?=<\|channel\|>)|$)",
    re.DOTALL,
)
_HARMONY_FINAL = re.compile(
    r"<\|channel\|>\s*final\s*<\|message\|>(.*?)(?:<\|return\|>|<\|end\|>|$)", re.DOTALL
)
_HARMONY_TOKEN = re.compile(r"<\|(?:start|end|return|channel|message)\|>")
_TOOL_CALL_TAG = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FENCED_JSON = re.compile(r"```(?:json)?\s*(\{.*?\}|\[.*?\])\s*```", re.DOTALL)
_MISTRAL_CALLS = re.compile(r"\[TOOL_CALLS\]\s*(\[.*\]|\{.*\})", re.DOTALL)
_PYTHON_TAG = re.compile(r"<\|python_tag\|>\s*(\{.*?\})\s*(?:<\|eom_id\|>|<\|eot_id\|>|$)", re.DOTALL)
_FUNCTION_TAG = re.compile(r"<function=([A-Za-z0-9_.\-]+)>\s*(.*?)\s*</function>", re.DOTALL)


def split_reasoning(content: str) -> tuple[str, str | None]:
    """Return (answer, reasoning) from content that may hold inline reasoning.

    Handles balanced ``<think>…</think>`` blocks, a lone ``</think>`` (the template opened the block for the
    model), an unclosed ``<think>`` (the model never finished thinking: everything after it is reasoning)
    and gpt-oss analysis text leaked by a server without a reasoning parser, either as plain
    ``analysis…assistantfinal`` or with its ``<|channel|>`` tokens still in.
    """
    parts: list[str] = []

    def keep(match: re.Match[str]) -> str:
        parts.append(match.group(1).strip())
        return ""

    if "<|channel|>" in content:
        content = _harmony(content, parts)
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


def _harmony(content: str, parts: list[str]) -> str:
    """Keep the final channel of leaked gpt-oss harmony text as the answer; analysis goes to reasoning."""
    parts.extend(m.group(1).strip() for m in _HARMONY_ANALYSIS.finditer(content))
    finals = [m.group(1) for m in _HARMONY_FINAL.finditer(content)]
    if finals:
        return "".join(finals)
    # Analysis only (the budget ran out before the final channel): no answer at all.
    rest = _HARMONY_TOKEN.sub("", _HARMONY_ANALYSIS.sub("", content)).strip()
    return "" if rest == "assistant" else rest


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


def extract_text_tool_calls(content: str, tool_names: set[str]) -> tuple[list[ToolCall], str]:
    """Recover tool calls that a model wrote as text instead of using the tool_calls field.

    Returns the calls (flagged ``from_text``) and the content with the call markup removed. Recognised:
    ``<tool_call>{json}</tool_call>`` (Hermes, Qwen), ``[TOOL_CALLS] [...]`` (Mistral), ``<|python_tag|>``
    (Llama 3), ``<function=name>{args}</function>`` (Llama 3.1), fenced JSON, and a reply that is one JSON
    object or list. Only calls that name one of the offered tools count, so ordinary JSON in an answer is
    left alone.
    """
    found: list[tuple[str, tuple[int, int]]] = []  # (json text, span to remove)
    for pattern in (_TOOL_CALL_TAG, _MISTRAL_CALLS, _PYTHON_TAG):
        found.extend((m.group(1), m.span()) for m in pattern.finditer(content))
    named: list[tuple[str, str, tuple[int, int]]] = [
        (m.group(1), m.group(2), m.span()) for m in _FUNCTION_TAG.finditer(content)
    ]
    if not found and not named:
        found = [(m.group(1), m.span()) for m in _FENCED_JSON.finditer(content)]
    stripped = content.strip()
    if not found and not named and stripped.startswith(("{", "[")):
        found = [(stripped, (0, len(content)))]
    calls: list[ToolCall] = []
    spans: list[tuple[int, int]] = []
    for raw, span in found:
        parsed = _loads(raw)
        if parsed is None:
            continue
        before = len(calls)
        for obj in parsed if isinstance(parsed, list) else [parsed]:
            call = _call_from_object(obj, len(calls))
            if call is not None and call.name in tool_names:
                calls.append(call)
        if len(calls) > before:
            spans.append(span)
    for name, raw, span in named:
        if name in tool_names and _loads(raw) is not None:
            call_id = f"text_call_{len(calls)}"
            calls.append(ToolCall(id=call_id, name=name, arguments=raw.strip(), from_text=True))
            spans.append(span)
    remaining = content
    for start, end in sorted(spans, reverse=True):
        remaining = remaining[:start] + remaining[end:]
    return calls, remaining.strip()


def _loads(raw: str) -> object | None:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return None


def tool_calls_from_text(content: str, tool_names: set[str]) -> list[ToolCall]:
    """The calls of ``extract_text_tool_calls`` alone."""
    return extract_text_tool_calls(content, tool_names)[0]
