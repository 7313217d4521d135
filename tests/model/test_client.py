"""The client against a real loopback server: replies, streams, and every fault class."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from engine.core.errors import ContextOverflow, InfraError, ToolCallParseFailure
from engine.core.schema import AssistantTurn, ToolCall, Turn
from engine.model.client import ChatClient, ClientSettings, wire_messages
from engine.model.requestlimits import RequestLimits
from tests.helpers.scripted_server import Action, ScriptedServer, sequence, tool_call

MSGS = [Turn(role="user", content="hi")]
TOOLS = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object", "properties": {}}}}]


def chat(url: str, *, stream: bool = True, tools=None, retries: int = 2, timeout: float = 5.0, **kw):
    settings = ClientSettings(endpoint=url, model="scripted", max_retries=retries, backoff_s=0.01,
                              limits=RequestLimits.of(timeout), stream=stream, **kw)

    async def go():
        async with ChatClient(settings) as client:
            return await client.chat(MSGS, tools=tools, max_tokens=64, seed=7)

    return asyncio.run(go())


@pytest.mark.parametrize("stream", [True, False])
def test_text_reply_with_usage_and_reasoning(stream):
    with ScriptedServer(sequence([Action(text="<think>hmm</think>The answer is 4.", completion_tokens=6)])) as srv:
        reply = chat(srv.url, stream=stream)
        sent = srv.requests[0]
    assert reply.content == "The answer is 4."
    assert reply.reasoning == "hmm"
    assert reply.usage.completion_tokens == 6
    assert reply.finish_reason == "stop"
    assert sent["seed"] == 7 and sent["max_tokens"] == 64
    assert "temperature" not in sent  # left to the server when unset
    assert bool(sent.get("stream")) is stream


def test_streaming_measures_time_to_first_token_and_copies_server_timings():
    action = Action(text="x" * 80, completion_tokens=20, timings={"predicted_per_second": 123.0, "cache_n": 5})
    with ScriptedServer(sequence([action])) as srv:
        reply = chat(srv.url)
    assert reply.timings.ttft_ms is not None and reply.timings.ttft_ms >= 0
    assert reply.timings.decode_tps == 123.0
    assert reply.usage.cached_prompt_tokens == 5


def test_tool_turns_are_sent_without_streaming_and_calls_parsed():
    action = Action(tool_calls=[tool_call("lookup", {"q": "x"}, "c1")])
    with ScriptedServer(sequence([action])) as srv:
        reply = chat(srv.url, tools=TOOLS)
        assert "stream" not in srv.requests[0]
    assert [(c.id, c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [("c1", "lookup", {"q": "x"})]


def test_tool_calls_written_as_text_are_recovered_and_flagged():
    text = '<tool_call>{"name": "lookup", "arguments": {"q": "y"}}</tool_call>'
    with ScriptedServer(sequence([Action(text=text)])) as srv:
        reply = chat(srv.url, tools=TOOLS)
    assert reply.tool_calls[0].name == "lookup" and reply.tool_calls[0].from_text


def test_thinking_and_temperature_are_sent_when_set():
    with ScriptedServer(sequence([Action(text="ok")])) as srv:
        chat(srv.url, thinking=False, temperature=0.0)
        sent = srv.requests[0]
    assert sent["chat_template_kwargs"] == {"enable_thinking": False}
    assert sent["temperature"] == 0.0


@pytest.mark.parametrize("fault", [
    Action(status=500, error_body='{"error": "boom"}'),
    Action(status=503, error_body='{"error": "busy"}'),
    Action(status=429, headers={"Retry-After": "0"}),
    Action(malformed=True),
    Action(drop=True),
])
def test_infra_faults_are_retried_then_succeed(fault):
    with ScriptedServer(sequence([fault, Action(text="recovered")])) as srv:
        reply = chat(srv.url, stream=False)
        assert len(srv.requests) == 2
    assert reply.content == "recovered"


def test_retry_after_is_honoured():
    with ScriptedServer(sequence([Action(status=429, headers={"Retry-After": "1"}), Action(text="ok")])) as srv:
        started = time.monotonic()
        chat(srv.url, stream=False)
        assert time.monotonic() - started >= 0.9


def test_dropped_stream_is_an_infra_error_after_retries():
    with ScriptedServer(sequence([Action(text="a" * 200, drop_mid_stream=True)])) as srv:
        with pytest.raises(InfraError):
            chat(srv.url, retries=1)
        assert len(srv.requests) == 2


def test_a_stream_closed_before_its_first_chunk_is_asked_again_unstreamed():
    """llama-cpp-python answers 200 and then fails inside its generator when the prompt is over its window,
    so the stream just ends; unstreamed, the same request gets its 400 and the overflow is the model's."""
    overflow = json.dumps({"error": {
        "message": "This model's maximum context length is 8192 tokens. However, you requested 21728 tokens "
                   "(21216 in the messages, 512 in the completion).",
        "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}})

    def respond(body):
        return Action(empty_stream=True) if body.get("stream") else Action(status=400, error_body=overflow)

    with ScriptedServer(respond) as srv:
        with pytest.raises(ContextOverflow, match="maximum context length"):
            chat(srv.url, stream=True)
        assert [bool(r.get("stream")) for r in srv.requests] == [True, False]
        assert "stream_options" not in srv.requests[1]


def test_an_empty_stream_then_a_good_unstreamed_reply_is_kept():
    def respond(body):
        return Action(empty_stream=True) if body.get("stream") else Action(text="fine")

    with ScriptedServer(respond) as srv:
        assert chat(srv.url, stream=True).content == "fine"


def test_timeout_is_an_infra_error():
    with ScriptedServer(sequence([Action(text="late", delay_s=1.5)])) as srv:
        with pytest.raises(InfraError, match="timed out"):
            chat(srv.url, retries=0, timeout=0.3, stream=False)


@pytest.mark.parametrize("status", [401, 403, 404])
def test_auth_and_missing_model_are_infra(status):
    with ScriptedServer(sequence([Action(status=status)])) as srv:
        with pytest.raises(InfraError, match=str(status)):
            chat(srv.url, retries=1, stream=False)
        assert len(srv.requests) == 2


@pytest.mark.parametrize("status,body", [
    (400, '{"error": {"type": "exceed_context_size_error", "message": "request exceeds the available context size"}}'),
    (400, '{"object": "error", "message": "This model\'s maximum context length is 8192 tokens."}'),
    (500, '{"error": "This model\'s maximum context length is 4096 tokens"}'),
])
def test_context_overflow_is_final_and_never_retried(status, body):
    with ScriptedServer(sequence([Action(status=status, error_body=body)])) as srv:
        with pytest.raises(ContextOverflow):
            chat(srv.url, stream=False)
        assert len(srv.requests) == 1


def test_server_failing_to_parse_tool_json_is_the_models_failure():
    body = '{"error": {"message": "Failed to parse tool call arguments as JSON"}}'
    with ScriptedServer(sequence([Action(status=500, error_body=body)])) as srv:
        with pytest.raises(ToolCallParseFailure):
            chat(srv.url, tools=TOOLS)
        assert len(srv.requests) == 1


def test_truncation_is_reported_as_length():
    with ScriptedServer(sequence([Action(text="cut off mid", finish_reason="length")])) as srv:
        reply = chat(srv.url)
    assert reply.finish_reason == "length"


def test_api_key_is_sent_as_bearer_and_not_in_repr():
    seen = {}

    def respond(body):
        return Action(text="ok")

    with ScriptedServer(respond) as srv:
        settings = ClientSettings(endpoint=srv.url, model="m", api_key="sk-secret-123")
        assert "sk-secret-123" not in repr(settings)

        async def go():
            async with ChatClient(settings) as client:
                seen["auth"] = client._http.headers["authorization"]
                await client.chat(MSGS)

        asyncio.run(go())
    assert seen["auth"] == "Bearer sk-secret-123"


def test_vllm_tool_choice_400_is_not_retried_and_names_the_flags():
    body = ('{"object": "error", "message": "\\"auto\\" tool choice requires --enable-auto-tool-choice and '
            '--tool-call-parser to be set"}')
    with ScriptedServer(sequence([Action(status=400, error_body=body)])) as srv:
        with pytest.raises(InfraError, match="--enable-auto-tool-choice --tool-call-parser"):
            chat(srv.url, tools=TOOLS, retries=3)
        assert len(srv.requests) == 1


def test_an_unknown_server_gets_only_standard_sampler_fields():
    with ScriptedServer(sequence([Action(text="ok")])) as srv:
        chat(srv.url, temperature=0.6, top_p=0.95)
        sent = srv.requests[0]
    assert (sent["temperature"], sent["top_p"]) == (0.6, 0.95)
    assert not {"top_k", "min_p", "repeat_penalty", "repetition_penalty", "reasoning_effort"} & set(sent)


def test_a_conversation_goes_out_in_the_wire_shape_and_its_reply_comes_back_as_the_turn_to_store():
    turns = [
        Turn(role="system", content="Be brief."),
        Turn(role="user", content="find x"),
        Turn(role="assistant", tool_calls=[ToolCall(id="c1", name="lookup", arguments='{"q": "x"}')]),
        Turn(role="tool", tool_call_id="c1", name="lookup", content="x=1"),
    ]

    async def go(url: str):
        settings = ClientSettings(endpoint=url, model="scripted", limits=RequestLimits.of(5))
        async with ChatClient(settings) as client:
            return await client.chat(turns, max_tokens=64)

    with ScriptedServer(sequence([Action(text="x is 1", completion_tokens=3)])) as srv:
        reply = asyncio.run(go(srv.url))
        sent = srv.requests[0]["messages"]
    assert sent == wire_messages(turns) == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "find x"},
        # content is never null: a reply that only called tools goes out with ""
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": '{"q": "x"}'}}]},
        {"role": "tool", "content": "x=1", "tool_call_id": "c1", "name": "lookup"},
    ]
    assert isinstance(reply, AssistantTurn) and reply.role == "assistant" and reply.content == "x is 1"
    # usage and timings are always there on a reply, whatever the server reported
    assert reply.usage.completion_tokens == 3 and reply.timings.wall_ms > 0
