"""Tool calls written as text: every format the reader reads, what it does with one it cannot read, and that it
stays linear on a quarter of a million characters of hostile markup."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from engine.core import modeljson
from engine.model.textcalls import RAW_CHARS, read_text_calls

TOOLS = {
    "get_weather": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}},
    "lookup": {"type": "object", "properties": {"q": {"type": "string"}}},
}
PORTO = ("get_weather", {"city": "Porto"})
OSLO = ("get_weather", {"city": "Oslo"})


def read(text: str, **kw):
    found = read_text_calls(text, TOOLS, **kw)
    calls = [(c.name, json.loads(c.arguments)) for c in found.calls]
    assert all(c.from_text for c in found.calls)
    assert len({c.id for c in found.calls}) == len(found.calls)
    return calls, found


FORMATS = {
    "hermes_several_tags": (
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Porto"}}</tool_call>\n'
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>', [PORTO, OSLO]),
    "qwen_two_objects_in_one_tag": (
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Porto"}}\n'
        '{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>', [PORTO, OSLO]),
    "openai_shape_in_a_tag": (
        '<tool_call>{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Porto"}}}'
        '</tool_call>', [PORTO]),
    "llama_python_tag": ('<|python_tag|>{"name": "get_weather", "parameters": {"city": "Porto"}}<|eom_id|>', [PORTO]),
    "llama_python_tag_semicolons": (
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Porto"}}; '
        '{"name": "get_weather", "parameters": {"city": "Oslo"}}<|eot_id|>', [PORTO, OSLO]),
    "llama_python_tag_builtin_call": ('<|python_tag|>brave_search.call(query="rain")<|eom_id|>',
                                      [("brave_search", {"query": "rain"})]),
    "llama_function_tag": ('<function=get_weather>{"city": "Porto"}</function>', [PORTO]),
    "llama_function_tags_several": (
        '<function=get_weather>{"city": "Porto"}</function><function=get_weather>{"city": "Oslo"}</function>',
        [PORTO, OSLO]),
    "qwen_coder_parameters_typed_by_schema": (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\n4000\n</parameter>\n"
        "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>",
        [("get_weather", {"city": "4000", "days": 3})]),
    "function_tag_without_arguments": ("<function=lookup></function>", [("lookup", {})]),
    "mistral_list": (
        '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Porto"}}, '
        '{"name": "lookup", "arguments": {"q": "x"}}]', [PORTO, ("lookup", {"q": "x"})]),
    "mistral_v11_several": (
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Porto"}[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}',
        [PORTO, OSLO]),
    "mistral_v13_call_id": ('[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{"city": "Porto"}', [PORTO]),
    "mistral_args_token_stripped": ('[TOOL_CALLS]get_weather{"city": "Porto"}', [PORTO]),
    "granite": ('<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Porto"}}, '
                '{"name": "get_weather", "arguments": {"city": "Oslo"}}]', [PORTO, OSLO]),
    "gemma_tool_code": (
        '```tool_code\nget_weather(city="Porto")\nprint(default_api.get_weather(city="Oslo", days=2))\n```',
        [PORTO, ("get_weather", {"city": "Oslo", "days": 2})]),
    "gemma_literals_of_every_kind": (
        "```tool_code\nlookup(q='x', opts={'a': (1, 2.5)}, flag=True, none=None, neg=-3)\n```",
        [("lookup", {"q": "x", "opts": {"a": [1, 2.5]}, "flag": True, "none": None, "neg": -3})]),
    "fenced_json": ('```json\n{"name": "get_weather", "arguments": {"city": "Porto"}}\n```', [PORTO]),
    "bare_json_semicolons": ('{"name": "get_weather", "parameters": {"city": "Porto"}};\n'
                             '{"name": "get_weather", "parameters": {"city": "Oslo"}}', [PORTO, OSLO]),
    "arguments_as_escaped_json": (
        '<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"Porto\\"}"}</tool_call>', [PORTO]),
    # LFM2: a Python list of calls between its tokens (vLLM's lfm2 tool parser), or JSON when asked for JSON
    "lfm2_pythonic": ('<|tool_call_start|>[get_weather(city="Porto")]<|tool_call_end|>', [PORTO]),
    "lfm2_pythonic_several": ("<|tool_call_start|>[get_weather(city='Porto'), get_weather(city='Oslo', days=2)]"
                              "<|tool_call_end|>", [PORTO, ("get_weather", {"city": "Oslo", "days": 2})]),
    "lfm2_json": ('<|tool_call_start|>[{"name": "get_weather", "arguments": {"city": "Porto"}}]<|tool_call_end|>',
                  [PORTO]),
    # Kimi K2: functions.<name>:<index> and JSON arguments, several calls in one section
    "kimi_section": (
        '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>'
        '{"city": "Porto"}<|tool_call_end|><|tool_call_begin|>functions.get_weather:1'
        '<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|><|tool_calls_section_end|>', [PORTO, OSLO]),
    "kimi_singular_section_spaced": (
        '<|tool_call_section_begin|>\n<|tool_call_begin|> functions.lookup:7 <|tool_call_argument_begin|> {} '
        '<|tool_call_end|>\n<|tool_call_section_end|>', [("lookup", {})]),
    "kimi_without_index_or_section": (
        '<|tool_call_begin|>get_weather<|tool_call_argument_begin|>{"city": "Porto"}<|tool_call_end|>', [PORTO]),
    "kimi_call_begin_dropped": (
        '<|tool_calls_section_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Porto"}'
        '<|tool_call_end|><|tool_calls_section_end|>', [PORTO]),
    # Nemotron: a JSON list in <TOOLCALL>
    "nemotron": ('<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Porto"}}, '
                 '{"name": "get_weather", "arguments": {"city": "Oslo"}}]</TOOLCALL>', [PORTO, OSLO]),
    "nemotron_unlisted_object": ('<TOOLCALL>{"name": "get_weather", "arguments": {"city": "Porto"}}</TOOLCALL>',
                                 [PORTO]),
    # GLM-4.5 pairs typed by the schema (a string stays text, "4000" too; an integer is JSON), GLM-4.7 without
    # newlines, a call without arguments, GLM-4's name-then-JSON
    "glm45_pairs": ("<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>4000</arg_value>\n"
                    "<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>",
                    [("get_weather", {"city": "4000", "days": 3})]),
    "glm47_no_newlines": ("<tool_call>get_weather<arg_key>city</arg_key><arg_value>Porto</arg_value></tool_call>"
                          "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Oslo</arg_value></tool_call>",
                          [PORTO, OSLO]),
    "glm_value_with_markup_characters": (
        "<tool_call>lookup\n<arg_key>q</arg_key>\n<arg_value>a < b && {c}</arg_value>\n</tool_call>",
        [("lookup", {"q": "a < b && {c}"})]),
    "glm_without_arguments": ("<tool_call>lookup\n</tool_call>", [("lookup", {})]),
    "glm4_name_then_json": ('<tool_call>get_weather\n{"city": "Porto"}</tool_call>', [PORTO]),
    # Seed-OSS: Qwen3-Coder's <function=...> inside <seed:tool_call>
    "seed_oss": ("<seed:tool_call>\n<function=get_weather>\n<parameter=city>Porto</parameter>\n</function>\n"
                 "</seed:tool_call><seed:tool_call><function=get_weather><parameter=city>Oslo</parameter>"
                 "</function></seed:tool_call>", [PORTO, OSLO]),
    # InternLM2/2.5: one call per <|action_start|><|plugin|> ... <|action_end|>, "parameters" or "arguments"
    "internlm_action": ('<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "Porto"}}'
                        "<|action_end|>", [PORTO]),
    "internlm_several_actions": (
        '<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "Porto"}}<|action_end|>\n'
        '<|action_start|><|plugin|>{"name": "get_weather", "arguments": {"city": "Oslo"}}<|action_end|>',
        [PORTO, OSLO]),
    "internlm_spaced_over_lines": (
        '<|action_start|> <|plugin|>\n\n{\n  "name": "lookup",\n  "parameters": {"q": "x"}\n}\n<|action_end|>\n',
        [("lookup", {"q": "x"})]),
    "internlm_plugin_token_dropped": ('<|action_start|>{"name": "get_weather", "parameters": {"city": "Porto"}}'
                                      "<|action_end|>", [PORTO]),
    "internlm_without_arguments": ('<|action_start|><|plugin|>{"name": "lookup"}<|action_end|>', [("lookup", {})]),
    # Phi-4-mini: functools and one JSON list, no closing marker
    "phi4_functools": ('functools[{"name": "get_weather", "arguments": {"city": "Porto"}}]', [PORTO]),
    "phi4_functools_several": (
        'functools[{"name": "get_weather", "arguments": {"city": "Porto"}}, '
        '{"name": "get_weather", "arguments": {"city": "Oslo"}}]', [PORTO, OSLO]),
    "phi4_functools_parameters_over_lines": (
        'functools [\n  {"name": "get_weather", "parameters": {"city": "Porto", "days": 2}},\n'
        '  {"name": "lookup", "parameters": {}}\n]\n', [("get_weather", {"city": "Porto", "days": 2}), ("lookup", {})]),
    "phi4_functools_escaped_arguments": (
        'functools[{"name": "get_weather", "arguments": "{\\"city\\": \\"Porto\\"}"}]', [PORTO]),
    "phi4_functools_twice": ('functools[{"name": "get_weather", "arguments": {"city": "Porto"}}]\n'
                             'functools[{"name": "get_weather", "arguments": {"city": "Oslo"}}]', [PORTO, OSLO]),
    "arguments_escaped_twice": (
        '<tool_call>' + json.dumps({"name": "get_weather", "arguments": json.dumps(json.dumps({"city": "Porto"}))})
        + '</tool_call>', [PORTO]),
}


@pytest.mark.parametrize("text,expected", list(FORMATS.values()), ids=list(FORMATS))
def test_every_format_is_read_and_its_markup_removed(text, expected):
    calls, found = read(text)
    assert calls == expected
    assert found.rest == "" and found.unread == 0


def test_the_text_around_calls_is_kept():
    calls, found = read('I will check both.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Porto"}}'
                        '</tool_call>\nThen compare.\n[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}\nBye.')
    assert calls == [PORTO, OSLO]
    assert found.rest == "I will check both.\nThen compare.\nBye."
    calls, found = read("Looking it up.\n```tool_code\nget_weather(city='Porto')\n```\nOne moment.")
    assert calls == [PORTO] and found.rest == "Looking it up.\nOne moment."


@pytest.mark.parametrize("text", [
    "Sending the same refund again.\n<|tool_call_start|>[get_weather(city='Porto')]<|tool_call_end|>\nDone.",
    "Sending the same refund again.\n<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
    '<|tool_call_argument_begin|>{"city": "Porto"}<|tool_call_end|><|tool_calls_section_end|>\nDone.',
    'Sending the same refund again.\n<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Porto"}}]'
    "</TOOLCALL>\nDone.",
    "Sending the same refund again.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Porto"
    "</arg_value>\n</tool_call>\nDone.",
    "Sending the same refund again.\n<seed:tool_call>\n<function=get_weather>\n<parameter=city>Porto</parameter>"
    "\n</function>\n</seed:tool_call>\nDone.",
    'Sending the same refund again.\n<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": '
    '{"city": "Porto"}}<|action_end|>\nDone.',
    'Sending the same refund again.\nfunctools[{"name": "get_weather", "arguments": {"city": "Porto"}}]\nDone.',
])
def test_the_text_around_a_call_of_each_newer_format_is_kept(text):
    calls, found = read(text)
    assert calls == [PORTO] and found.rest == "Sending the same refund again.\nDone."


def test_text_between_a_wrapper_and_its_call_stays_in_the_answer():
    calls, found = read("<seed:tool_call>I will look.\n<function=get_weather>{\"city\": \"Porto\"}</function>"
                        "</seed:tool_call>")
    assert calls == [PORTO] and found.rest == "I will look." and found.unread == 0


def test_a_wrapper_closed_before_the_next_call_wraps_nothing_and_is_a_call_that_cannot_be_read():
    found = read_text_calls("<|tool_calls_section_begin|>I cannot.<|tool_calls_section_end|>\nThen:\n"
                            '<tool_call>{"name": "get_weather", "arguments": {"city": "Porto"}}</tool_call>', TOOLS)
    assert [(c.name, c.arguments) for c in found.calls] == [("", "I cannot."), ("get_weather", '{"city": "Porto"}')]
    assert found.unread == 1 and found.rest == "Then:"


@pytest.mark.parametrize("text", [
    '{"name": "Alice", "arguments": "none"}',  # JSON that names no offered tool is an answer
    '```json\n{"name": "delete_everything", "arguments": {}}\n```',
    '{"name": "get_weather", "arguments": {"city": "Porto"}} and that is what I would call.',
    "```python\nget_weather(city='Porto')\n```",  # only a tool_code block is a call block
    "Plain answer with [brackets] and {braces}.",
    # the functools marker is the word right before "[": Python's module, a longer name or an attribute is not
    "I cached it with functools.lru_cache; `import functools` first.",
    "```python\nimport functools\n\n@functools.lru_cache(maxsize=None)\ndef f(n):\n    return n\n```",
    'Use myfunctools[{"name": "get_weather", "arguments": {"city": "Porto"}}] there.',
    'Then lib.functools[{"name": "get_weather", "arguments": {"city": "Porto"}}] runs.',
    "InternLM's tokens <|plugin|> and <|action_end|> alone open nothing.",
])
def test_unmarked_json_or_code_that_is_not_only_offered_calls_is_an_answer(text):
    calls, found = read(text)
    assert calls == [] and found.rest == text.strip()


# -- what cannot be read is kept as a malformed call -----------------------------------------------------

UNREADABLE = {
    "broken_json": ('<tool_call>{"name": "get_weather", "arguments": {</tool_call> after', "get_weather"),
    # a lone name in the tag is GLM's call without arguments (read above); prose is not
    "no_json_at_all": ("<tool_call>not a call at all</tool_call> after", ""),
    "json_not_a_call": ('<tool_call>{"city": "Porto"}</tool_call> after', ""),
    "cut_off_tag": ("after <tool_call>", ""),
    "mistral_prose": ("after [TOOL_CALLS] Sorry, I cannot.", ""),
    # a format with no closing tag runs to the next marker or the end: text before it stays
    "mistral_broken_args": ('after [TOOL_CALLS]get_weather[ARGS]{"city": "Po', "get_weather"),
    "granite_broken": ('after <|tool_call|>[{"name": "get_weather", "arguments": {"city"', "get_weather"),
    "function_tag_prose": ("<function=get_weather>the city of Porto</function> after", "get_weather"),
    "unclosed_parameter": ("<function=get_weather><parameter=city>Porto</function> after", "get_weather"),
    "gemma_positional": ('```tool_code\nget_weather("Porto")\n```\nafter', "get_weather"),
    "gemma_not_a_literal": ("```tool_code\nget_weather(city=input())\n```\nafter", "get_weather"),
    "gemma_not_a_call": ("```tool_code\nx = 1\n```\nafter", ""),
    "gemma_set_literal": ("```tool_code\nget_weather(city={'Porto'})\n```\nafter", "get_weather"),
    "huge_number": ('<tool_call>{"name": "get_weather", "arguments": {"days": ' + "9" * 5000 + "}}</tool_call> after",
                    "get_weather"),
    "deep_nesting": ('<tool_call>{"name": "lookup", "arguments": {"q": ' + "[" * 1200 + "}}</tool_call> after",
                     "lookup"),
    "nan": ('<|python_tag|>{"name": "get_weather", "parameters": {"days": NaN}}<|eom_id|> after', "get_weather"),
    "python_infinity": ("```tool_code\nget_weather(days=1e999)\n```\nafter", "get_weather"),
    "lfm2_positional": ('<|tool_call_start|>[get_weather("Porto")]<|tool_call_end|> after', "get_weather"),
    "lfm2_empty_list": ("<|tool_call_start|>[]<|tool_call_end|> after", ""),
    "lfm2_list_with_a_non_call": ("<|tool_call_start|>[get_weather(city='Porto'), 3]<|tool_call_end|> after", ""),
    "lfm2_not_python": ("<|tool_call_start|>[get_weather(city=]<|tool_call_end|> after", ""),
    "lfm2_code_not_literal": ("<|tool_call_start|>[get_weather(city=open('/etc/passwd').read())]<|tool_call_end|>"
                              " after", "get_weather"),
    "kimi_broken_json": ('<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0'
                         '<|tool_call_argument_begin|>{"city": <|tool_call_end|><|tool_calls_section_end|> after',
                         "get_weather"),
    "kimi_no_argument_token": ('<|tool_call_begin|>functions.get_weather:0{"city": "Porto"}<|tool_call_end|> after',
                               "get_weather"),
    "kimi_section_of_prose": ("<|tool_calls_section_begin|>I cannot call that.<|tool_calls_section_end|> after", ""),
    "kimi_cut_off": ("after <|tool_calls_section_begin|><|tool_call_begin|>functions.get_wea", "get_wea"),
    "nemotron_broken": ('<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Po</TOOLCALL> after',
                        "get_weather"),
    "nemotron_not_a_call": ('<TOOLCALL>["get_weather"]</TOOLCALL> after', ""),
    "glm_unclosed_key": ("<tool_call>get_weather\n<arg_key>city\n</tool_call> after", "get_weather"),
    "glm_key_without_value": ("<tool_call>get_weather\n<arg_key>city</arg_key> Porto\n</tool_call> after",
                              "get_weather"),
    "glm_unclosed_value": ("<tool_call>get_weather\n<arg_key>city</arg_key><arg_value>Porto\n</tool_call> after",
                           "get_weather"),
    "glm_empty_key": ("<tool_call>get_weather<arg_key> </arg_key><arg_value>x</arg_value></tool_call> after",
                      "get_weather"),
    "glm4_broken_json": ('<tool_call>get_weather\n{"city": </tool_call> after', "get_weather"),
    # pairs cut off before the closing tag may be missing arguments: never run
    "glm_cut_off": ("after <tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Porto</arg_value>",
                    "get_weather"),
    "qwen_coder_cut_off": ("after <function=get_weather>\n<parameter=city>\nPorto\n</parameter>", "get_weather"),
    "seed_wrapping_nothing": ("<seed:tool_call>get_weather city=Porto</seed:tool_call> after", ""),
    # a marker named in prose is a call that cannot be read, as for every other format
    "internlm_prose": ("<|action_start|> is the token InternLM opens a call with<|action_end|> after", ""),
    "internlm_broken_json": ('<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": '
                             "<|action_end|> after", "get_weather"),
    "internlm_not_a_call": ('<|action_start|><|plugin|>{"city": "Porto"}<|action_end|> after', ""),
    "internlm_code_interpreter": ("<|action_start|><|interpreter|>\n```python\nprint(1)\n```<|action_end|> after",
                                  ""),
    "internlm_cut_off": ('after <|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"ci', "get_weather"),
    "phi4_prose": ("after functools[...] is how Phi-4-mini writes its calls.", ""),
    "phi4_broken_json": ('after functools[{"name": "get_weather", "arguments": {"city": "Po', "get_weather"),
    "phi4_python_style": ("after functools[get_weather(city='Porto')]", ""),
    "phi4_empty_list": ("after functools[]", ""),
    "phi4_list_of_non_calls": ('after functools[{"city": "Porto"}]', ""),
}


@pytest.mark.parametrize("text,name", list(UNREADABLE.values()), ids=list(UNREADABLE))
def test_a_marked_call_that_cannot_be_read_becomes_a_malformed_call_with_its_raw_text(text, name):
    found = read_text_calls(text, TOOLS)
    assert len(found.calls) == 1 and found.unread == 1
    call = found.calls[0]
    assert call.name == name and call.from_text
    assert len(call.arguments) <= RAW_CHARS + 40
    # the arguments are never a readable object: the world answers them with an error
    assert not isinstance(modeljson.try_loads(call.arguments), dict) or name == ""
    assert found.rest == "after"  # the text after the call's own markup stays in the answer


def test_nothing_in_a_tool_code_block_is_ever_run(tmp_path: Path):
    marker = tmp_path / "ran"
    text = f"```tool_code\nget_weather(city=__import__('pathlib').Path({str(marker)!r}).touch())\n```"
    found = read_text_calls(text, TOOLS)
    assert found.unread == 1 and not marker.exists()


def test_lone_surrogates_in_arguments_become_replacement_characters():
    for text, key in (('<tool_call>{"name": "lookup", "arguments": {"q": "a\\ud800b"}}</tool_call>', "q"),
                      ("```tool_code\nlookup(q='a\\ud800b')\n```", "q"),
                      # a parameter the schema does not type as a string is read as JSON
                      ('<function=get_weather><parameter=days>\n"a\\ud800b"\n</parameter></function>', "days")):
        found = read_text_calls(text, TOOLS)
        assert json.loads(found.calls[0].arguments)[key] == "a\ufffdb"
        found.calls[0].arguments.encode("utf-8")  # storable


def test_calls_past_the_cap_are_counted_and_not_read():
    text = '<tool_call>{"name": "lookup", "arguments": {}}</tool_call>' * 50
    found = read_text_calls(text, TOOLS, max_calls=32)
    assert len(found.calls) == 32 and found.refused == 18


# -- bounded ---------------------------------------------------------------------------------------------

HOSTILE_UNITS = ["<tool_call>", "<tool_call>{", "<tool_call>[", "[TOOL_CALLS] [", "[TOOL_CALLS]a[ARGS]{",
                 "<|python_tag|>{", "<|python_tag|>a(", "<function=a>", "<function=a>{", "<function=a><parameter=x>",
                 "```", "```json\n{", "```tool_code\na(x=[", "<|tool_call|>[", "{", "[", '"', "\\",
                 '{"name":"lookup","arguments":{}}; ', "<tool_call>\n<function=a>\n",
                 "<|tool_call_start|>[", "<|tool_call_start|>[a(x=", "<|tool_calls_section_begin|>",
                 "<|tool_call_begin|>", "<|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{",
                 "<|tool_calls_section_begin|><|tool_call_begin|>a", "<TOOLCALL>[{", "<TOOLCALL>",
                 "<tool_call>a<arg_key>", "<tool_call>a<arg_key>k</arg_key>", "<arg_key>k</arg_key><arg_value>",
                 "<tool_call>a\n", "<seed:tool_call>", "<seed:tool_call>x", "<|action_start|>",
                 "<|action_start|><|plugin|>{", "<|action_start|><|plugin|>[", "<|action_end|>", "functools[",
                 "functools[{", "functools [", "functools", "functools" + " " * 20 + "[", " ", "\n", "a"]


@pytest.mark.parametrize("unit", HOSTILE_UNITS)
def test_a_quarter_million_characters_of_markup_is_read_in_linear_time(unit):
    """Guard only, with a generous bound; the measured figure is printed by benchmarks/bench_reply_parsing.py."""
    text = unit * (250_000 // len(unit))
    started = time.perf_counter()
    found = read_text_calls(text, TOOLS, max_calls=32)
    assert time.perf_counter() - started < 3.0
    assert len(found.calls) <= 32


LONG_BODIES = {
    "kimi_id_of_spaces": "<|tool_call_begin|>" + " " * 250_000,
    "kimi_id_of_name_characters": "<|tool_call_begin|>" + "a" * 250_000,
    "glm_pairs": "<tool_call>a" + "<arg_key>k</arg_key><arg_value>v</arg_value>" * 5_000 + "</tool_call>",
    "glm_name_then_spaces": "<tool_call>a" + " " * 250_000 + "x",
    "lfm2_long_list": "<|tool_call_start|>[" + "a(x=1)," * 2_000 + "]<|tool_call_end|>",
    "seed_wrapper_of_text": "<seed:tool_call>" + "x" * 250_000,
    "internlm_plugin_then_spaces": "<|action_start|><|plugin|>" + " " * 250_000,
    "internlm_long_action": "<|action_start|><|plugin|>" + '{"name": "a", "parameters": {}}' * 5_000,
    "phi4_long_list": "functools[" + '{"name": "a", "arguments": {}}, ' * 5_000 + "]",
    "phi4_unclosed_list": "functools[" + "[" * 250_000,
}


@pytest.mark.parametrize("text", list(LONG_BODIES.values()), ids=list(LONG_BODIES))
def test_one_marker_with_a_quarter_million_characters_after_it_is_read_in_linear_time(text):
    started = time.perf_counter()
    found = read_text_calls(text, TOOLS, max_calls=32)
    assert time.perf_counter() - started < 3.0
    assert 1 <= len(found.calls) <= 32
    assert all(len(c.arguments) <= RAW_CHARS + 40 or c.name == "a" for c in found.calls)
