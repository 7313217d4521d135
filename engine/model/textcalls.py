"""Tool calls a model wrote in its reply's text because the server did not parse them: the one reader.

Small models behind a server without a tool parser for their family (or with a chat template that drops the
``tools`` field) write their calls as text, each family in its own format. Read here (each checked against the
family's chat template or the reference parser named beside its reader):

- ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``, as many tags as the reply holds (Hermes, Qwen,
  Granite 4; what the tools module's system prompt asks for when there is no native calling);
- ``<tool_call>name<arg_key>key</arg_key><arg_value>value</arg_value>...</tool_call>`` (GLM-4.5 to 4.7; a
  value is typed by the tool's schema) and ``<tool_call>name\n{...}</tool_call>`` (GLM-4);
- ``<TOOLCALL>[{...}, ...]</TOOLCALL>`` (Nemotron);
- ``<|tool_call|>[{...}, ...]`` (Granite 3);
- ``<|tool_call_start|>[name(key=value, ...), ...]<|tool_call_end|>`` (LFM2, Python-style; or JSON);
- ``<|tool_calls_section_begin|><|tool_call_begin|>functions.name:0<|tool_call_argument_begin|>{...}
  <|tool_call_end|>...<|tool_calls_section_end|>`` (Kimi K2);
- ``[TOOL_CALLS] [{...}, ...]`` (Mistral before v11) and ``[TOOL_CALLS]name[ARGS]{...}``, one marker per call,
  with or without ``[CALL_ID]id`` and with ``[ARGS]`` dropped by a server that strips special tokens (v11+);
- ``<|python_tag|>{"name": ..., "parameters": {...}}``, several calls separated by ``;`` (Llama 3.x), and a
  Python-style call after the tag;
- ``<function=name>{...}</function>`` (Llama 3.1) and ``<function=name><parameter=key>value</parameter>...
  </function>`` (Qwen3-Coder, and Seed-OSS inside ``<seed:tool_call>``; a value is typed by the tool's schema:
  text for a string parameter, JSON else);
- a fenced ``tool_code`` block of Python-style calls, ``get_weather(city="Porto")`` (Gemma), read with
  ``ast``: keyword arguments whose values are literals, nothing evaluated; a list of such calls is read too
  (LFM2, Llama's pythonic form);
- ``<|action_start|><|plugin|>{"name": ..., "parameters": {...}}<|action_end|>``, one call per action
  (InternLM2 and 2.5);
- ``functools[{"name": ..., "arguments": {...}}, ...]``, one JSON list and no closing marker (Phi-4-mini);
- with none of those markers: fenced JSON, or a reply that is nothing but JSON values (Llama without its
  tag, ``;``-separated), counted only when every value is a call of an offered tool, so ordinary JSON in
  an answer is left alone.

A wrapper token (``<tool_call>`` around Qwen3-Coder's ``<function=...>``, ``<seed:tool_call>``, Kimi's section
tokens) is taken out with the call it wraps; one with no call after it is a call that cannot be read.

Arguments may be an object or a JSON string holding one (escaped once or twice). A marker whose call cannot be
read (broken JSON, a positional or computed Python argument, no name) is not dropped: it becomes a call with
the name if one was read (else ``""``) and the raw text as its arguments, clipped, so the world answers it
with an error as it answers any malformed call, the model may try again, and the grade lists it.

Every step is a forward scan (``str.find`` and anchored matches), each marker's text is read once, and JSON
goes through :mod:`engine.core.modeljson`, so a 250,000-character reply is read in milliseconds whatever it
holds.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.core import modeljson
from engine.core.schema import ToolCall

#: The markers that open a call (or a wrapper around calls) in each format; a marker's text runs to the next.
_MARKER = re.compile(
    r"<tool_call>|<TOOLCALL>|<\|tool_call\|>|<\|tool_call_start\|>|<\|tool_calls?_section_begin\|>"
    r"|<\|tool_call_begin\|>|\[TOOL_CALLS\]|<\|python_tag\|>|<seed:tool_call>|<function=|```tool_code"
    r"|<\|action_start\|>|(?<![A-Za-z0-9_.])functools(?=[ \t\r\n]{0,16}\[)")
#: Markers that only wrap the calls after them, and their closing tokens; one that wraps nothing is a call that
#: cannot be read. Seed-OSS's chat template writes ``<seed:tool_call>\n<function=name>\n<parameter=key>value
#: </parameter>\n</function>\n</seed:tool_call>`` (vLLM's seed_oss tool parser reads it so), Kimi K2 a section.
_WRAPPERS = ("<seed:tool_call>", "<|tool_calls_section_begin|>", "<|tool_call_section_begin|>")
_WRAPPER_ENDS = ("</seed:tool_call>", "<|tool_calls_section_end|>", "<|tool_call_section_end|>")
#: Kimi K2 closes a call and its section with these (the singular spelling is the one some of its templates use).
_KIMI_END = ("<|tool_call_end|>", "<|tool_calls_section_end|>", "<|tool_call_section_end|>")
#: Tokens that close a call (or the wrapper around one) and go with it when the call is taken out of the text.
_CLOSERS = ("</tool_call>", "</TOOLCALL>", "</function>", "</seed:tool_call>", *_KIMI_END, "<|action_end|>",
            "<|eom_id|>", "<|eot_id|>", "<|end_of_text|>", "</s>")
_FENCE = "```"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{0,127}")
_CALL_ID = re.compile(r"\[CALL_ID\][A-Za-z0-9_\-]{0,64}")
_FUNCTION_NAME = re.compile(r"([^>\s]{1,128})>")
_PARAMETER = re.compile(r"<parameter=([^>\s]{1,128})>")
_SEPARATORS = " \t\r\n;,"
_SPACE = re.compile(r"[ \t\r\n]*")
_SEPARATED = re.compile(r"[ \t\r\n;,]*")
#: Raw text kept as the arguments of a call that could not be read.
RAW_CHARS = 2000
#: The longest block of Python-style calls read; the parser's own limits are far above any real call.
MAX_SOURCE_CHARS = 16_000

Schemas = Mapping[str, Mapping[str, Any]]  # tool name -> its JSON-schema ``parameters``


@dataclass(frozen=True)
class TextCalls:
    """What the reader found: the calls in order (at most ``max_calls``), the text with the markup of every
    call taken out, how many of the calls could not be read (their arguments hold the raw text), and how many
    calls past ``max_calls`` were left out."""

    calls: tuple[ToolCall, ...]
    rest: str
    unread: int = 0
    refused: int = 0


@dataclass
class _Found:
    name: str
    arguments: str
    read: bool = True


class _Unreadable(ValueError):
    """A marker whose call cannot be read; ``end`` is where its own markup ends in the marker's text (its
    closing tag), when it has one, so the text after that stays in the answer."""

    def __init__(self, why: str, name: str = "", end: int | None = None):
        super().__init__(why)
        self.name = name
        self.end = end

    def closed_at(self, end: int) -> _Unreadable:
        if self.end is None:
            self.end = end
        return self


def opens_call(content: str) -> bool:
    """Whether ``content`` holds a marker that opens a call written as text in any format read here (a reply
    cut inside such a call was acting, not reporting)."""
    return _MARKER.search(content) is not None


def read_text_calls(content: str, tools: Schemas | set[str], *, max_calls: int = 1000) -> TextCalls:
    """The tool calls written in ``content``; ``tools`` are the offered tools (names, or names with their
    parameter schemas, which type ``<parameter=...>`` values). At most ``max_calls`` are returned."""
    schemas: Schemas = tools if isinstance(tools, Mapping) else {name: {} for name in tools}
    markers = list(_MARKER.finditer(content))
    past_cap = 0
    if markers:
        found, spans, past_cap = _marked(content, markers, schemas, max_calls)
    else:
        found, spans = _unmarked(content, schemas)
    calls = tuple(
        ToolCall(id=f"text_call_{i}", name=modeljson.clean(f.name)[:200], arguments=f.arguments, from_text=True)
        for i, f in enumerate(found[:max_calls])
    )
    pieces, at = [], 0
    for start, end in spans:
        pieces.append(content[at:start])
        at = end
    pieces.append(content[at:])
    return TextCalls(calls=calls, rest="".join(pieces).strip(), unread=sum(not f.read for f in found[:max_calls]),
                     refused=max(0, len(found) - max_calls) + past_cap)


# --------------------------------------------------------------------------------------------------------
# Marked formats


def _marked(content: str, markers: list[re.Match[str]], schemas: Schemas,
            max_calls: int) -> tuple[list[_Found], list[tuple[int, int]], int]:
    """The calls of every marker up to ``max_calls``; the markers after that are counted, not read, and their
    text stays in the answer (the third value: how many)."""
    found: list[_Found] = []
    spans: list[tuple[int, int]] = []
    past_cap = 0
    for k, marker in enumerate(markers):
        limit = markers[k + 1].start() if k + 1 < len(markers) else len(content)
        body = content[marker.end():limit]
        kind = marker.group(0)
        followed = k + 1 < len(markers)
        # A wrapper closed before the next marker wraps nothing; its reader makes it a call that cannot be read.
        wrapper = followed and ((kind in _WRAPPERS and not any(end in body for end in _WRAPPER_ENDS))
                                or (kind == "<tool_call>" and not body.strip()))
        if len(found) >= max_calls:
            past_cap += not wrapper
            continue
        if wrapper:
            # The token around the next marker's call (Qwen3-Coder's <tool_call>, Seed-OSS, Kimi's section): it
            # goes, with the blank text after it; any other text between it and the call stays in the answer.
            spans.append((marker.start(), limit if not body.strip() else marker.end()))
            continue
        try:
            calls, used = _READERS[kind](body, schemas)
        except _Unreadable as exc:
            end = len(body) if exc.end is None else exc.end
            found.append(_Found(exc.name, _raw(body[:end]), read=False))
            fence = len(_FENCE) if kind == "```tool_code" and body.startswith(_FENCE, end) else 0
            spans.append((marker.start(), marker.end() + _eat_closers(body, end + fence)))
            continue
        found.extend(calls)
        spans.append((marker.start(), marker.end() + _eat_closers(body, used)))
    return found, spans, past_cap


def _tool_call_tag(body: str, schemas: Schemas) -> tuple[list[_Found], int]:
    """``<tool_call>`` ... ``</tool_call>``: JSON (one object, a list, or several objects in one tag), or a
    tool name first, then GLM's ``<arg_key>``/``<arg_value>`` pairs, a JSON object (GLM-4) or nothing."""
    close = body.find("</tool_call>")
    used = len(body) if close < 0 else close
    try:
        inner = body[:used]
        start = _skip(inner, 0)
        name = None if inner.startswith(("{", "["), start) else _GLM_NAME.match(inner, start)
        if name is None:
            return _json_calls(inner, explicit=True), used
        if close < 0 and not inner.startswith("{", name.end()):
            # Pairs are not closed as JSON is: without </tool_call> the call may have been cut between two.
            raise _Unreadable("no </tool_call>: the call may be cut off", name.group(1))
        return [_Found(name.group(1), _glm_arguments(inner, name.end(), name.group(1), schemas))], used
    except _Unreadable as exc:
        raise exc.closed_at(used) from None


#: GLM-4.5's call: the name, then its pairs (``<tool_call>name\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>
#: \n</tool_call>``; 4.7 drops the newline, a call without arguments is the name alone) as its chat template
#: writes them and vLLM's glm4_moe / glm47_moe tool parsers read them; GLM-4 put a JSON object after the name.
_GLM_NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_.\-]{0,127})[ \t\r\n]*(?=<arg_key>|\{|$)")


def _glm_arguments(inner: str, at: int, name: str, schemas: Schemas) -> str:
    if inner.startswith("{", at):
        try:
            return _arguments(modeljson.loads(inner[at:]))
        except json.JSONDecodeError as exc:
            raise _Unreadable(f"arguments: {exc.msg}", name) from None
    props = _properties(schemas.get(name, {}))
    args: dict[str, Any] = {}
    while (key_at := inner.find("<arg_key>", at)) >= 0:
        key_end = inner.find("</arg_key>", key_at)
        if key_end < 0:
            raise _Unreadable("<arg_key> is never closed", name)
        key = inner[key_at + len("<arg_key>"):key_end].strip()
        if not key or len(key) > 128:
            raise _Unreadable("an empty or overlong <arg_key>", name)
        value_at = _skip(inner, key_end + len("</arg_key>"))
        if not inner.startswith("<arg_value>", value_at):
            raise _Unreadable(f"<arg_key>{key[:40]}</arg_key> has no <arg_value>", name)
        value_end = inner.find("</arg_value>", value_at)
        if value_end < 0:
            raise _Unreadable(f"the <arg_value> of {key[:40]} is never closed", name)
        # GLM's template writes a string as it is and anything else as JSON, with no newline around either.
        args[key] = _typed(inner[value_at + len("<arg_value>"):value_end], props.get(key))
        at = value_end + len("</arg_value>")
    return json.dumps(modeljson.cleaned(args), ensure_ascii=False)


def _nemotron(body: str, schemas: Schemas) -> tuple[list[_Found], int]:
    """``<TOOLCALL>[{"name": ..., "arguments": {...}}, ...]</TOOLCALL>`` (Nemotron Nano; the format of vLLM's
    nemotron_json tool parser and of the parser NVIDIA ships with NVIDIA-Nemotron-Nano-9B-v2)."""
    close = body.find("</TOOLCALL>")
    used = len(body) if close < 0 else close
    try:
        return _json_calls(body[:used], explicit=True), used
    except _Unreadable as exc:
        raise exc.closed_at(used) from None


def _json_after_marker(body: str, schemas: Schemas) -> tuple[list[_Found], int]:
    """``<|tool_call|>``, ``<|python_tag|>`` and ``<|tool_call_start|>``: JSON call objects (or lists of them)
    separated by ``;``, or Python-style calls read like a ``tool_code`` block, a list of them included. LFM2
    writes ``<|tool_call_start|>[get_weather(location="Paris")]<|tool_call_end|>`` (its chat template; vLLM's
    lfm2 tool parser), or JSON when its system prompt asks for JSON (llama.cpp's "LFM2 with JSON tools")."""
    start = _skip(body, 0)
    end = min((i for i in (body.find(c) for c in _CLOSERS) if i >= 0), default=len(body))
    try:
        if _json_follows(body, start):
            values, used = _json_values(body, start)
            return _calls_of(values, explicit=True), used
        return _python_calls(body[:end]), end
    except _Unreadable as exc:
        raise exc.closed_at(end) from None


def _json_follows(body: str, start: int) -> bool:
    """JSON starts here: an object, or a list of objects (``[get_weather(...)]`` is a list of Python calls)."""
    if body.startswith("{", start):
        return True
    return body.startswith("[", start) and body.startswith(("{", "]"), _skip(body, start + 1))


#: Kimi K2's call after ``<|tool_call_begin|>``: ``functions.name:index`` then ``<|tool_call_argument_begin|>``
#: and a JSON object, to ``<|tool_call_end|>`` (its chat template; vLLM's kimi_k2 tool parser, which takes the
#: name after ``functions.`` and before ``:index``).
_KIMI_ID = re.compile(r"[ \t\r\n]*([^\s:<>]{1,160}?)(?::\d{1,9})?[ \t\r\n]*<\|tool_call_argument_begin\|>")


def _kimi_call(body: str, schemas: Schemas) -> tuple[list[_Found], int]:
    used = min((i for i in (body.find(c) for c in _KIMI_END) if i >= 0), default=len(body))
    head = _KIMI_ID.match(body, 0, used)
    if head is None:
        name = _NAME.match(body, _skip(body, 0), used)
        raise _Unreadable("no <|tool_call_argument_begin|> after the call's id",
                          name.group(0).removeprefix("functions.") if name else "", used)
    name = head.group(1).removeprefix("functions.")
    text = body[head.end():used].strip()
    if not text:
        return [_Found(name, "{}")], used
    try:
        return [_Found(name, _arguments(modeljson.loads(text)))], used
    except json.JSONDecodeError as exc:
        raise _Unreadable(f"arguments: {exc.msg}", name, used) from None


def _wrapper(body: str, schemas: Schemas) -> tuple[list[_Found], int]:
    """A wrapper with no call marker after it: Kimi's section may hold a call whose ``<|tool_call_begin|>``
    was dropped; anything else is a call that cannot be read, to the wrapper's closing token."""
    if _KIMI_ID.match(body) is not None:
        return _kimi_call(body, schemas)
    end = min((i for i in (body.find(c) for c in _CLOSERS) if i >= 0), default=len(body))
    raise _Unreadable("a tool-call wrapper with no call inside", "", end)


def _mistral(body: str, schemas: Schemas) -> tuple[list[_Found], int]:
    """``[TOOL_CALLS] [...]`` (a JSON list) or ``[TOOL_CALLS]name[CALL_ID]id[ARGS]{...}``."""
    start = _skip(body, 0)
    if body.startswith(("{", "["), start):
        values, end = _json_values(body, start)
        return _calls_of(values, explicit=True), end
    name = _NAME.match(body, start)
    if name is None:
        raise _Unreadable("no tool name after [TOOL_CALLS]")
    at = name.end()
    call_id = _CALL_ID.match(body, at)
    if call_id is not None:
        at = call_id.end()
    if body.startswith("[ARGS]", at):
        at += len("[ARGS]")
    elif call_id is None and not body.startswith("{", _skip(body, at)):
        raise _Unreadable("no [ARGS] or arguments after the name")  # prose after the marker: no name read
    at = _skip(body, at)
    try:
        args, end = modeljson.raw_decode(body, at)
    except json.JSONDecodeError as exc:
        raise _Unreadable(f"arguments: {exc.msg}", name.group(0)) from None
    return [_Found(name.group(0), _arguments(args))], end


def _function_tag(body: str, schemas: Schemas) -> tuple[list[_Found], int]:
    """``<function=name>`` then a JSON object or ``<parameter=key>value</parameter>`` pairs, to ``</function>``."""
    head = _FUNCTION_NAME.match(body)
    if head is None:
        raise _Unreadable("no '>' after the function name")
    name = head.group(1)
    close = body.find("</function>", head.end())
    used = len(body) if close < 0 else close
    try:
        return [_Found(name, _function_arguments(body[head.end():used], name, schemas, close >= 0))], used
    except _Unreadable as exc:
        raise exc.closed_at(used) from None


def _function_arguments(inner: str, name: str, schemas: Schemas, closed: bool) -> str:
    text = inner.strip()
    if not text:
        return "{}"
    if text.startswith("{"):
        try:
            return _arguments(modeljson.loads(text))
        except json.JSONDecodeError as exc:
            raise _Unreadable(f"arguments: {exc.msg}", name) from None
    if "<parameter=" in text:
        if not closed:
            # Pairs are not closed as JSON is: without </function> the call may have been cut between two.
            raise _Unreadable("no </function>: the call may be cut off", name)
        return _parameters(text, schemas.get(name, {}), name)
    raise _Unreadable("neither JSON nor <parameter=...> after the function name", name)


def _parameters(text: str, schema: Mapping[str, Any], name: str) -> str:
    """``<parameter=key>value</parameter>`` pairs as a JSON object: text for a parameter the schema types as
    a string, a JSON value (text when it is not one) for the others."""
    props = _properties(schema)
    args: dict[str, Any] = {}
    at = 0
    while (m := _PARAMETER.search(text, at)) is not None:
        close = text.find("</parameter>", m.end())
        if close < 0:
            raise _Unreadable(f"<parameter={m.group(1)}> is never closed", name)
        key = m.group(1)
        # Qwen3-Coder's template puts the value on lines of its own: the newlines around it are markup.
        args[key] = _typed(text[m.end():close].strip("\n"), props.get(key))
        at = close + len("</parameter>")
    return json.dumps(modeljson.cleaned(args), ensure_ascii=False)


def _properties(schema: Any) -> Mapping[str, Any]:
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    return props if isinstance(props, Mapping) else {}


def _typed(raw: str, prop: Any) -> Any:
    """A value written as text in XML-style markup: text for a parameter the schema types as a string, a JSON
    value (the text itself when it is not one) for the others."""
    if isinstance(prop, Mapping) and prop.get("type") == "string":
        return raw
    value = modeljson.try_loads(raw)
    return raw if value is None else value


def _tool_code(body: str, schemas: Schemas) -> tuple[list[_Found], int]:
    """A fenced ``tool_code`` block (Gemma): Python-style calls up to the closing fence."""
    close = body.find(_FENCE)
    source = body if close < 0 else body[:close]
    try:
        return _python_calls(source), (len(body) if close < 0 else close + len(_FENCE))
    except _Unreadable as exc:
        # The raw text is the block's; the span takes its closing fence too.
        exc.end = len(body) if close < 0 else close
        raise


#: InternLM2's call: ``<|action_start|><|plugin|>\n{"name": ..., "parameters": {...}}<|action_end|>``, as its
#: chat format document (InternLM/InternLM chat/chat_format.md) writes it and vLLM's internlm2 tool parser reads
#: it (``parameters`` or ``arguments``). ``<|interpreter|>`` in the plugin's place asks InternLM's code
#: interpreter to run a fenced block; no task offers one, so that action is a call that cannot be read.
_INTERNLM_PLUGIN, _INTERNLM_END = "<|plugin|>", "<|action_end|>"


def _internlm_action(body: str, schemas: Schemas) -> tuple[list[_Found], int]:
    """``<|action_start|>`` then ``<|plugin|>`` (or the JSON straight away) and JSON call objects; the text
    after ``<|action_end|>`` stays in the answer."""
    close = body.find(_INTERNLM_END)
    used = len(body) if close < 0 else close
    at = _skip(body, 0)
    if body.startswith(_INTERNLM_PLUGIN, at):
        at = _skip(body, at + len(_INTERNLM_PLUGIN))
    if not _json_follows(body, at):
        why = ("a code-interpreter action (no interpreter is offered)" if body.startswith("<|interpreter|>", at)
               else "no JSON call after <|action_start|>")
        raise _Unreadable(why, _name_in(body[:used]), used)
    try:
        values, end = _json_values(body, at)
        return _calls_of(values, explicit=True), end
    except _Unreadable as exc:
        raise exc.closed_at(used) from None


def _phi4_functools(body: str, schemas: Schemas) -> tuple[list[_Found], int]:
    """``functools[{"name": ..., "arguments": {...}}, ...]`` (Phi-4-mini): the marker is the word ``functools``
    right before a ``[``, not inside a longer name or after a dot (Python's ``functools`` module is written
    ``functools.`` or ``import functools``, never subscripted). Its tool chat template (vLLM's
    tool_chat_template_phi4_mini.jinja) asks for one JSON list after the marker and no closing marker; vLLM's
    phi4_mini_json parser reads ``arguments`` or ``parameters``. The call ends where the JSON ends."""
    values, end = _json_values(body, _skip(body, 0))
    return _calls_of(values, explicit=True), end


_READERS = {
    "<tool_call>": _tool_call_tag,
    "<TOOLCALL>": _nemotron,
    "<|tool_call|>": _json_after_marker,
    "<|tool_call_start|>": _json_after_marker,
    "<|tool_call_begin|>": _kimi_call,
    "<|tool_calls_section_begin|>": _wrapper,
    "<|tool_call_section_begin|>": _wrapper,
    "<seed:tool_call>": _wrapper,
    "<|python_tag|>": _json_after_marker,
    "[TOOL_CALLS]": _mistral,
    "<function=": _function_tag,
    "```tool_code": _tool_code,
    "<|action_start|>": _internlm_action,
    "functools": _phi4_functools,
}


# --------------------------------------------------------------------------------------------------------
# Python-style calls (Gemma's tool_code, Llama's python tag)


def _python_calls(source: str) -> list[_Found]:
    """Each line a call ``name(key=literal, ...)``, maybe inside ``print(...)``; the callee may be dotted
    (``default_api.get_weather``: the last part is the name). Values go through ``ast.literal_eval``: literals
    only, nothing is evaluated."""
    text = source.strip()
    if not text:
        raise _Unreadable("an empty call block")
    if len(text) > MAX_SOURCE_CHARS:
        raise _Unreadable(f"a call block of more than {MAX_SOURCE_CHARS} characters")
    try:
        tree = ast.parse(text, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        # MemoryError and RecursionError are the parser's own stack limits on absurd nesting, not the process's.
        raise _Unreadable(f"not Python: {type(exc).__name__}") from None
    found = []
    for statement in tree.body:
        node = statement.value if isinstance(statement, ast.Expr) else None
        if isinstance(node, (ast.List, ast.Tuple)):  # [a(x=1), b(y=2)]: LFM2, Llama's pythonic form
            if not node.elts:
                raise _Unreadable("an empty list of calls")
            found.extend(_python_call(element) for element in node.elts)
        else:
            found.append(_python_call(node))
    return found


def _python_call(node: ast.expr | None) -> _Found:
    if isinstance(node, ast.Call) and _callee(node) == "print" and len(node.args) == 1 and not node.keywords:
        node = node.args[0]
    if not isinstance(node, ast.Call) or not _callee(node):
        raise _Unreadable("a statement that is not a call")
    name = _callee(node)
    if node.args:
        raise _Unreadable("positional arguments (only key=value is read)", name)
    args: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            raise _Unreadable("**arguments", name)
        try:
            args[keyword.arg] = _plain(ast.literal_eval(keyword.value))
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            raise _Unreadable(f"the value of {keyword.arg} is not a literal", name) from None
    try:
        text_args = json.dumps(modeljson.cleaned(args), ensure_ascii=False, allow_nan=False)
    except ValueError:
        raise _Unreadable("a number out of range", name) from None
    return _Found(name, text_args)


def _callee(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        # default_api.get_weather(...) names get_weather; Llama's built-ins are written brave_search.call(...)
        if func.attr == "call" and isinstance(func.value, ast.Name):
            return func.value.id
        return func.attr
    return ""


def _plain(value: Any) -> Any:
    """A literal as JSON data: tuples become lists; sets, bytes and complex numbers are refused."""
    if isinstance(value, (str, bool, int, float)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _plain(v) for k, v in value.items()}
    raise ValueError(f"{type(value).__name__} is not a JSON value")


# --------------------------------------------------------------------------------------------------------
# JSON calls


def _json_values(text: str, start: int) -> tuple[list[Any], int]:
    """JSON values from ``start``, separated by whitespace, ``;`` or ``,``; stops before the first thing
    that is not one. Unreadable when not even the first value parses."""
    values: list[Any] = []
    at = end = start
    while at < len(text) and text[at] in "{[":
        try:
            value, at = modeljson.raw_decode(text, at)
        except json.JSONDecodeError as exc:
            if not values:
                raise _Unreadable(exc.msg, _name_in(text[start:])) from None
            break
        values.append(value)
        end = at
        at = _skip(text, at, _SEPARATED)
    return values, end


def _json_calls(text: str, *, explicit: bool) -> list[_Found]:
    """The calls in a text that must be JSON call objects and nothing else."""
    start = _skip(text, 0)
    values, end = _json_values(text, start)
    if not values or text[end:].strip(_SEPARATORS):
        raise _Unreadable("not JSON", _name_in(text))
    return _calls_of(values, explicit=explicit)


def _calls_of(values: list[Any], *, explicit: bool) -> list[_Found]:
    found = []
    for value in values:
        for obj in value if isinstance(value, list) else [value]:
            call = _call_object(obj)
            if call is None:
                if explicit:
                    raise _Unreadable("a JSON value that is not a call object")
                continue
            found.append(call)
    if explicit and not found:
        raise _Unreadable("no call")
    return found


def _call_object(obj: Any) -> _Found | None:
    """``{"name", "arguments" | "parameters"}`` or ``{"function": {"name", "arguments"}}``."""
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("function"), dict):
        obj = obj["function"]
    name = obj.get("name")
    if not isinstance(name, str) or not name:
        return None
    return _Found(name, _arguments(obj.get("arguments", obj.get("parameters"))))


def _arguments(value: Any) -> str:
    """The arguments as the text a native call carries: an object as JSON; a string holding JSON (escaped once
    or twice) unwrapped to it; anything else as written, for the world to refuse."""
    if value is None:
        return "{}"
    for _ in range(2):
        if not isinstance(value, str):
            break
        inner = modeljson.try_loads(value)
        if isinstance(inner, dict):
            return value.strip()
        if not isinstance(inner, str):
            return value
        value = inner
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


_NAME_FIELD = re.compile(r'"name"\s{0,8}:\s{0,8}"([A-Za-z_][A-Za-z0-9_.\-]{0,127})"')


def _name_in(text: str) -> str:
    """The ``"name": "..."`` of a call whose JSON is broken, so its error names the tool."""
    m = _NAME_FIELD.search(text, 0, 2000)
    return m.group(1) if m else ""


# --------------------------------------------------------------------------------------------------------
# Unmarked: fenced JSON, or a reply that is only JSON


def _unmarked(content: str, schemas: Schemas) -> tuple[list[_Found], list[tuple[int, int]]]:
    found: list[_Found] = []
    spans: list[tuple[int, int]] = []
    at = 0
    while (open_at := content.find("```", at)) >= 0:
        close = content.find("```", open_at + 3)
        if close < 0:
            break
        block = content[open_at + 3:close]
        newline = block.find("\n")
        label = block[:newline].strip().lower() if newline >= 0 else ""
        if label in ("", "json"):
            payload = block[newline + 1:] if newline >= 0 else block.removeprefix("json")
            calls = _offered(payload, schemas)
            if calls:
                found.extend(calls)
                spans.append((open_at, close + 3))
        at = close + 3
    if not found and content.lstrip().startswith(("{", "[")):
        calls = _offered(content, schemas)
        if calls:
            found, spans = calls, [(0, len(content))]
    return found, spans


def _offered(text: str, schemas: Schemas) -> list[_Found]:
    """Calls when ``text`` is nothing but JSON call objects naming offered tools; else none."""
    try:
        calls = _json_calls(text, explicit=False)
    except _Unreadable:
        return []
    return calls if calls and all(c.name in schemas for c in calls) else []


# --------------------------------------------------------------------------------------------------------


def _skip(text: str, at: int, pattern: re.Pattern[str] = _SPACE) -> int:
    return pattern.match(text, at).end()  # type: ignore[union-attr]  # a starred class always matches


def _eat_closers(body: str, at: int) -> int:
    """``at`` moved past whitespace and closing tokens, so a call's markup leaves the text whole."""
    while True:
        at = _skip(body, at)
        for closer in _CLOSERS:
            if body.startswith(closer, at):
                at += len(closer)
                break
        else:
            return at


def _raw(body: str) -> str:
    text = body.strip()
    return text if len(text) <= RAW_CHARS else text[:RAW_CHARS] + f"… [{len(text) - RAW_CHARS} chars clipped]"
