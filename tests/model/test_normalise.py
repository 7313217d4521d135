"""Reasoning apart from the answer, and tool calls written as text, in every shape servers and models use."""

from __future__ import annotations

import json

import pytest

from engine.model.client import prompt_token_floor
from engine.model.normalise import extract_text_tool_calls, split_reasoning, tool_calls_from_text

NAMES = {"lookup", "refund"}


@pytest.mark.parametrize(
    "content,answer,reasoning",
    [
        ("<think>add 2 and 2</think>The answer is 4.", "The answer is 4.", "add 2 and 2"),
        ("<think>a</think>x<think>b</think>y", "xy", "a\n\nb"),
        # the template opened the block, so only the closing tag reaches the content
        ("add 2 and 2</think>\n\nThe answer is 4.", "The answer is 4.", "add 2 and 2"),
        # cut off while thinking: everything after <think> is reasoning, there is no answer
        ("<think>still adding", "", "still adding"),
        # gpt-oss without a reasoning parser, special tokens stripped by the server
        (
            "analysisThe user wants 2+2.assistantfinalThe answer is 4.",
            "The answer is 4.",
            "The user wants 2+2.",
        ),
        # gpt-oss harmony text with its tokens left in
        (
            "<|channel|>analysis<|message|>User wants 4.<|end|>"
            "<|start|>assistant<|channel|>final<|message|>4<|return|>",
            "4",
            "User wants 4.",
        ),
        ("<|channel|>analysis<|message|>ran out here", "", "ran out here"),
        ("Plain answer, no reasoning.", "Plain answer, no reasoning.", None),
    ],
)
def test_split_reasoning_shapes(content, answer, reasoning):
    assert split_reasoning(content) == (answer, reasoning)


def test_a_word_like_analysis_inside_an_answer_is_left_alone():
    text = "The analysis shows growth; the assistant final report is attached."
    assert split_reasoning(text) == (text, None)


@pytest.mark.parametrize(
    "content,name,args",
    [
        ('<tool_call>{"name": "lookup", "arguments": {"q": "x"}}</tool_call>', "lookup", {"q": "x"}),
        ('[TOOL_CALLS] [{"name": "refund", "arguments": {"order": 7}}]', "refund", {"order": 7}),
        ('<|python_tag|>{"name": "lookup", "parameters": {"q": "y"}}<|eom_id|>', "lookup", {"q": "y"}),
        ('<function=lookup>{"q": "z"}</function>', "lookup", {"q": "z"}),
        ('```json\n{"name": "lookup", "arguments": {"q": "f"}}\n```', "lookup", {"q": "f"}),
        ('{"function": {"name": "refund", "arguments": "{\\"order\\": 1}"}}', "refund", {"order": 1}),
    ],
)
def test_tool_calls_written_as_text_are_recovered_and_flagged(content, name, args):
    calls, rest = extract_text_tool_calls(content, NAMES)
    assert [(c.name, json.loads(c.arguments), c.from_text) for c in calls] == [(name, args, True)]
    assert rest == ""


def test_text_around_a_recovered_call_is_kept_and_the_markup_removed():
    calls, rest = extract_text_tool_calls(
        'Let me check.\n<tool_call>{"name": "lookup", "arguments": {}}</tool_call>', NAMES
    )
    assert len(calls) == 1 and rest == "Let me check."


def test_json_that_names_no_offered_tool_is_an_answer_not_a_call():
    content = '{"name": "Alice", "arguments": "none"}'
    assert tool_calls_from_text(content, NAMES) == []
    assert extract_text_tool_calls(content, NAMES) == ([], content)


def test_broken_json_is_not_a_call():
    assert tool_calls_from_text('<tool_call>{"name": "lookup", "arguments": {</tool_call>', NAMES) == []


def test_prompt_floor_stays_below_an_honest_count():
    prose = (
        "The quarterly report shows that revenue grew in every region except the north, where a supplier "
        "dispute delayed two shipments. "
    ) * 200
    floor = prompt_token_floor([{"role": "user", "content": prose}])
    words = len(prose.split())
    # every word is at least one token on any tokenizer (they split at white space first): the floor is that
    assert floor == words
    # runs of one character, which a tokenizer may swallow whole, do not inflate it
    table = "| a | b |\n|" + "-" * 5000 + "|\n"
    assert prompt_token_floor([{"role": "user", "content": table}]) < 10
    assert prompt_token_floor([{"role": "user", "content": " " * 10000 + "x"}]) < 5
