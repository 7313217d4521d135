"""Reasoning apart from the answer, in every shape servers and models use, read in linear time."""

from __future__ import annotations

import time

import pytest

from engine.model.client import prompt_token_floor
from engine.model.normalise import split_reasoning


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
        # Seed-OSS's own tag name for the same block, closed or cut off
        ("<seed:think>ignore the mail step</seed:think>- one\n- two", "- one\n- two", "ignore the mail step"),
        ("<seed:think>still reading", "", "still reading"),
        # a tag that only looks like it is left alone
        ("<seed:thinking>x</seed:thinking> y", "<seed:thinking>x</seed:thinking> y", None),
    ],
)
def test_split_reasoning_shapes(content, answer, reasoning):
    assert split_reasoning(content) == (answer, reasoning)


def test_a_word_like_analysis_inside_an_answer_is_left_alone():
    text = "The analysis shows growth; the assistant final report is attached."
    assert split_reasoning(text) == (text, None)


def test_a_lone_close_tag_makes_everything_before_it_reasoning_even_with_blocks_around():
    # R1-style: the template opened the block, the model closed it, then answered; an earlier balanced
    # block and a later one do not move the answer.
    text = "<think>a</think>first thoughts\nstill thinking</think>\n\nThe answer is 7.<think>b</think>"
    answer, reasoning = split_reasoning(text)
    assert answer == "The answer is 7."
    assert reasoning is not None and "first thoughts" in reasoning and "still thinking" in reasoning


@pytest.mark.parametrize("unit", ["<think>", "</think>", "<think></think>", "<think>x</think>y",
                                  "<|channel|>analysis<|message|>", "<|channel|>final<|message|>", "analysis"])
def test_a_quarter_million_characters_of_tags_is_read_in_linear_time(unit):
    """Guard only (generous bound): the figure is benchmarks/bench_reply_parsing.py's. The old lazy patterns
    took over a minute on some of these."""
    text = unit * (250_000 // len(unit))
    started = time.perf_counter()
    answer, reasoning = split_reasoning(text)
    assert time.perf_counter() - started < 2.0
    assert len(answer) + len(reasoning or "") <= len(text)


@pytest.mark.parametrize("head", ["", "<s>", "<|im_start|>assistant", "<bos><start_of_turn>model", "assistant"])
@pytest.mark.parametrize("blank", [" ", "\n", "\u00a0"])
def test_a_quarter_million_blanks_around_a_role_header_are_read_in_linear_time(head, blank):
    """Guard only: the header pattern once held two runs of ``\\s*`` side by side, and sixty thousand spaces
    took a minute. Blanks alone, or a header with nothing after it, are no header and stay as the answer."""
    text = head + blank * 250_000
    started = time.perf_counter()
    answer, reasoning = split_reasoning(text)
    assert time.perf_counter() - started < 2.0
    assert (answer, reasoning) == (head.strip(), None)


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


@pytest.mark.parametrize("content, answer", [
    ("Answer: 10:3,8:1<end_of_turn>", "Answer: 10:3,8:1"),
    ("Answer: Dana<|im_end|>\n", "Answer: Dana"),
    ("Answer: 7 <|eot_id|><|end_of_text|>", "Answer: 7"),
    ("Answer: 7<|end|>", "Answer: 7"),
    ("Answer: 7</s>", "Answer: 7"),
    ("<think>\ncounting\n</think>\n<answer>10:3,8:1,4:1,3:1</answer>", "10:3,8:1,4:1,3:1"),
    ("<answer>Dana, because the handover", "Dana, because the handover"),  # cut before its close
])
def test_template_end_markers_and_the_answer_block_are_removed(content, answer):
    assert split_reasoning(content)[0] == answer


@pytest.mark.parametrize("content", [
    "<|tool_call_start|>[lookup(city='Oslo')]<|tool_call_end|>",  # a text tool call keeps its markers
    "Use <end_of_turn> to end a Gemma turn.",                       # a marker inside the text is text
    "Wrap it in <answer> tags, then write <answer>x</answer>",       # not an answer block around the reply
    "The tag <b>",
])
def test_markers_that_do_not_end_the_reply_stay(content):
    assert split_reasoning(content)[0] == content


@pytest.mark.parametrize("content, answer", [
    ("assistant\n\n{\"id\": \"INC-4471\"}", "{\"id\": \"INC-4471\"}"),      # tokens stripped, bare role line
    ("assistant\nThe capital of Canada is Ottawa.", "The capital of Canada is Ottawa."),
    ("Assistant\n\nAnswer: Dana", "Answer: Dana"),
    ("  MODEL \n- one\n- two", "- one\n- two"),
    ("<|im_start|>assistant\nAnswer: 7<|im_end|>", "Answer: 7"),
    ("<|start_header_id|>assistant<|end_header_id|>\n\nThe owner is Dana.<|eot_id|>", "The owner is Dana."),
    ("<|begin_of_text|><|start_header_id|>assistant<|end_header_id|>\n\nDana", "Dana"),
    ("<start_of_turn>model\nSaturday: 10:00 – 16:00<end_of_turn>", "Saturday: 10:00 – 16:00"),
    ("<|assistant|>\nHello there.", "Hello there."),
    ("<|assistant|>Hello there.", "Hello there."),                          # a token needs no line break
    ("<|im_start|>assistant\n<think>count them</think>\n\nAnswer: 4", "Answer: 4"),
    ("The fix is below.<|im_end|>\n<|im_start|>assistant", "The fix is below."),  # an empty turn opened after
    ("Answer: 7<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n", "Answer: 7"),
])
def test_a_role_header_that_opens_the_reply_is_the_templates(content, answer):
    assert split_reasoning(content)[0] == answer


@pytest.mark.parametrize("content", [
    "Assistant: Dana",                                    # a label on the line, not a header alone
    "Model: X-200\nColour: red",
    "Assistant managers approve refunds over 50 EUR.\nAnswer: Dana",
    "Model answers vary.\n\nAnswer: 4",
    "assistant",                                          # the whole reply: nothing to cut it from
    "model",
    "assistantfinal\nThe answer is 4.",                   # not the role alone on its line
    "The assistant\nreplied later.",
    "Dear assistant,\nthanks.",
    "Write <|im_start|>assistant to open a turn.",        # a marker inside the text is text
])
def test_a_first_line_that_is_not_only_the_role_stays(content):
    assert split_reasoning(content)[0] == content
