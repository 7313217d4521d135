"""The JSON reader for model text: total on every hostile document, identical to json.loads on honest ones."""

from __future__ import annotations

import json
import time

import pytest

from engine.core import modeljson

HONEST = ['{"a": [1, 2.5, -3e2, true, null, "x"]}', "[]", '"\\ud83d\\ude00"', '  {"nested": {"deep": [[[1]]]}}  ',
          '{"big": ' + "9" * modeljson.MAX_NUMBER_CHARS + "}", '"[[[[ not nesting inside a string"',
          '{"escaped": "a \\" [[[[ quote"}']


@pytest.mark.parametrize("text", HONEST)
def test_honest_documents_read_as_json_loads_reads_them(text):
    assert modeljson.loads(text) == json.loads(text)


HOSTILE = {
    "unclosed_brackets": ("[" * 1200, "nested deeper than 64 levels"),
    "deep_objects": ('{"a":' * 100 + "1" + "}" * 100, "nested deeper than"),
    "huge_integer": ("9" * 5000, "a number of 5000 characters"),
    "huge_integer_inside": ('{"n": [' + "1" * 4500 + "]}", "a number of 4500 characters"),
    "huge_float": ("1" * 500 + ".5", "a number of 502 characters"),
    "infinite_float": ("[1e999]", "out of range"),
    "nan": ('{"x": NaN}', "NaN is not a JSON value"),
    "infinity": ("-Infinity", "-Infinity is not a JSON value"),
    "too_long": (" " * (modeljson.MAX_CHARS + 1), "longer than"),
}


@pytest.mark.parametrize("text,why", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_documents_are_invalid_json_with_a_reason(text, why):
    with pytest.raises(json.JSONDecodeError) as caught:
        modeljson.loads(text)
    assert why in caught.value.msg
    assert 0 <= caught.value.pos <= len(text)
    assert modeljson.try_loads(text) is None


def test_lone_surrogates_come_out_as_replacement_characters_everywhere():
    value = modeljson.loads('{"k\\udc00": ["\\ud800", {"x": "a\\udfffb"}], "pair": "\\ud83d\\ude00"}')
    assert value == {"k\ufffd": ["\ufffd", {"x": "a\ufffdb"}], "pair": "\U0001F600"}
    json.dumps(value, ensure_ascii=False).encode("utf-8")
    assert modeljson.clean("a\ud800b") == "a\ufffdb"


def test_raw_decode_reads_one_value_and_leaves_the_rest():
    text = 'call {"a": 1}; {"b": [2]} tail'
    value, end = modeljson.raw_decode(text, 5)
    assert value == {"a": 1} and text[end:] == '; {"b": [2]} tail'
    with pytest.raises(json.JSONDecodeError, match="nested deeper"):
        modeljson.raw_decode("x " + "[" * 100, 2)


def test_reading_many_values_of_one_long_text_stays_linear():
    """Each value's depth scan stops where the value closes, so 10,000 values are not 10,000 scans of the
    text (guard with a generous bound)."""
    text = '{"a": [1]} ' * 10_000
    started = time.perf_counter()
    at, count = 0, 0
    while at < len(text):
        _, at = modeljson.raw_decode(text, at)
        at += 1
        count += 1
    assert count == 10_000 and time.perf_counter() - started < 2.0


def test_a_quarter_million_brackets_are_refused_at_once():
    started = time.perf_counter()
    for text in ("[" * 250_000, "{" * 250_000, '[{"a":' * 40_000):
        assert modeljson.try_loads(text) is None
    assert time.perf_counter() - started < 1.0
