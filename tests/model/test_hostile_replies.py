"""The client against a hostile loopback server: every reply of the wrong shape, every way of holding a
request open, every way of filling memory ends inside the request limits as an infrastructure error (or a
reply cut at its budget), and no key the run knows appears in what it keeps."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time

import pytest

from engine.core.errors import ContextOverflow, InfraError
from engine.core.schema import Turn
from engine.model.client import MAX_TIMEOUT_RETRIES, ChatClient, ClientSettings
from engine.model.replies import Chunk, Completion
from engine.model.requestlimits import (
    DELTA_SLACK,
    FIRST_BYTE_MULTIPLE,
    Prefill,
    ReplyTooLarge,
    RequestLimits,
    RequestTimeout,
    ServerStalled,
    measured_prefill,
)
from tests.helpers import hostile_server as hs
from tests.helpers.hostile_server import HostileServer

MSGS = [Turn(role="user", content="hi")]
TOOLS = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object", "properties": {}}}}]
FAST = RequestLimits(first_byte_s=0.6, idle_s=0.6, total_s=3.0, max_retry_after_s=0.3)


def chat(url: str, *, stream: bool = True, retries: int = 1, limits: RequestLimits = FAST, max_tokens: int = 64,
         messages=None, tools=None, api_key: str | None = None):
    settings = ClientSettings(endpoint=url, model="hostile", max_retries=retries, backoff_s=0.01, stream=stream,
                              limits=limits, api_key=api_key, stream_tool_turns=True)

    async def go():
        async with ChatClient(settings) as client:
            return await client.chat(messages or MSGS, tools=tools, max_tokens=max_tokens)

    return asyncio.run(go())


def _delta(**delta):
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}


WRONG_STREAM_CHUNKS = {
    "chunk_is_a_list": [1, 2, 3],
    "chunk_is_a_string": "surprise",
    "chunk_is_a_number": 42,
    "choices_is_a_string": {"choices": "all of them"},
    "choice_is_not_an_object": {"choices": [7]},
    "delta_is_not_an_object": {"choices": [{"index": 0, "delta": ["content"]}]},
    "content_is_a_number": _delta(content=42),
    "prompt_tokens_is_a_word": {"choices": [], "usage": {"prompt_tokens": "lots", "completion_tokens": 1}},
    "tool_call_name_is_a_number": _delta(tool_calls=[{"index": 0, "id": "c", "function": {"name": 7}}]),
    "tool_calls_is_an_object": _delta(tool_calls={"index": 0}),
    "finish_reason_is_a_list": {"choices": [{"index": 0, "delta": {}, "finish_reason": ["stop"]}]},
    "timings_rate_is_text": {"choices": [], "timings": {"predicted_per_second": "fast"}},
}

WRONG_COMPLETIONS = {
    "body_is_a_list": [{"choices": []}],
    "no_choices": {"choices": []},
    "message_is_a_string": {"choices": [{"index": 0, "message": "hello", "finish_reason": "stop"}]},
    "content_is_a_number": hs.completion({"role": "assistant", "content": 42}),
    "prompt_tokens_is_a_word": hs.completion({"role": "assistant", "content": "x"}, {"prompt_tokens": "lots"}),
    "tool_call_name_is_a_number": hs.completion({"role": "assistant", "content": "", "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": 7, "arguments": "{}"}}]}),
    "negative_token_count": hs.completion({"role": "assistant", "content": "x"}, {"completion_tokens": -3}),
}


@pytest.mark.parametrize("chunk", list(WRONG_STREAM_CHUNKS.values()), ids=list(WRONG_STREAM_CHUNKS))
def test_a_stream_chunk_of_the_wrong_shape_is_an_infra_error_quoting_the_server(chunk):
    first = _delta(content="fine so far")
    with HostileServer(hs.stream_events(first, chunk)) as srv:
        with pytest.raises(InfraError, match="malformed stream chunk") as caught:
            chat(srv.url)
        assert len(srv.requests) == 2  # retried like any infrastructure fault, then given up
    assert json.dumps(chunk)[:20] in str(caught.value)


@pytest.mark.parametrize("payload", list(WRONG_COMPLETIONS.values()), ids=list(WRONG_COMPLETIONS))
def test_a_completion_of_the_wrong_shape_is_an_infra_error(payload):
    with HostileServer(hs.reply_json(payload)) as srv:
        with pytest.raises(InfraError, match="malformed chat completion"):
            chat(srv.url, stream=False)


def test_the_reply_models_accept_what_real_servers_send():
    """The models are strict about types, not about the fields servers add or leave null."""
    chunk = Chunk.model_validate_json(json.dumps({
        "id": "x", "object": "chat.completion.chunk", "system_fingerprint": None, "choices": [
            {"index": 0, "delta": {"role": "assistant", "content": None, "tool_calls": [
                {"index": 0, "id": None, "function": {"name": None, "arguments": {"q": 1}}}]},
             "logprobs": None, "finish_reason": None}],
        "usage": None, "timings": {"predicted_per_second": 12, "n_ctx": 4096}}))
    assert chunk.timings is not None and chunk.timings.as_dict()["n_ctx"] == 4096
    done = Completion.model_validate_json(json.dumps(hs.completion(
        {"role": "assistant", "content": None, "reasoning_content": "r"},
        {"prompt_tokens": 5, "prompt_tokens_details": {"cached_tokens": 2}})))
    assert done.usage is not None and done.usage.prompt_tokens_details.cached_tokens == 2


# -- time -----------------------------------------------------------------------------------------------


def _timed(fn):
    started = time.monotonic()
    try:
        fn()
    except InfraError as exc:
        return time.monotonic() - started, exc
    raise AssertionError("expected an InfraError")


def test_headers_then_nothing_times_out_at_the_first_byte_limit_and_is_tried_once_more():
    with HostileServer(hs.stall(30)) as srv:
        took, exc = _timed(lambda: chat(srv.url, retries=4))
        assert len(srv.requests) == 1 + MAX_TIMEOUT_RETRIES  # not 5: a stalled server stalls again
    assert isinstance(exc, RequestTimeout) and "--first-byte-timeout" in str(exc)
    assert took < (1 + MAX_TIMEOUT_RETRIES) * FAST.first_byte_s + 1.5


def test_a_keep_alive_comment_every_so_often_does_not_keep_a_request_alive():
    with HostileServer(hs.drip(every_s=0.1, seconds=30)) as srv:
        took, exc = _timed(lambda: chat(srv.url, retries=0))
    assert isinstance(exc, RequestTimeout) and "--first-byte-timeout" in str(exc)
    assert took < FAST.first_byte_s + 1.0


def test_data_then_only_comments_times_out_at_the_idle_limit():
    with HostileServer(hs.drip(every_s=0.1, seconds=30, first=(_delta(content="start"),))) as srv:
        took, exc = _timed(lambda: chat(srv.url, retries=0))
    assert isinstance(exc, RequestTimeout) and "--idle-timeout" in str(exc)
    assert took < FAST.idle_s + 1.0


def test_a_slow_steady_stream_is_cut_at_the_total_limit():
    def behaviour(h, body):
        h.stream_start()
        for _ in range(300):
            h.event(_delta(content="x"))
            time.sleep(0.05)

    with HostileServer(behaviour) as srv:
        took, exc = _timed(lambda: chat(srv.url, retries=0, max_tokens=10_000))
    assert isinstance(exc, RequestTimeout) and "--request-timeout" in str(exc)
    assert FAST.total_s - 0.1 < took < FAST.total_s + 1.0


def test_every_form_of_a_limit_is_one_request_limits():
    assert RequestLimits.of(None) == RequestLimits()
    assert RequestLimits.of(FAST) is FAST
    whole = RequestLimits.of(10)  # a number bounds the whole request, and no phase waits longer
    assert (whole.total_s, whole.first_byte_s, whole.idle_s) == (10.0, 10.0, 10.0)
    assert whole.connect_s == RequestLimits().connect_s
    long = RequestLimits.of(3600)
    assert (long.first_byte_s, long.idle_s) == (RequestLimits().first_byte_s, RequestLimits().idle_s)


def test_retry_after_is_capped():
    assert RequestLimits().retry_after("3600") == RequestLimits().max_retry_after_s
    assert RequestLimits().retry_after("nan") is None and RequestLimits().retry_after("-5") is None
    with HostileServer(hs.retry_after("3600", hs.ok_text("patient"))) as srv:
        started = time.monotonic()
        reply = chat(srv.url, stream=False)
        took = time.monotonic() - started
    assert reply.content == "patient" and took < 2.0


# -- size -----------------------------------------------------------------------------------------------


def test_an_endless_token_stream_is_closed_at_max_tokens_as_a_length_cut():
    with HostileServer(hs.endless_tokens(seconds=20)) as srv:
        started = time.monotonic()
        reply = chat(srv.url, max_tokens=64)
        took = time.monotonic() - started
    assert reply.finish_reason == "length"  # as if the server had kept the budget: the model ran out
    assert len(reply.content) <= len("la ") * (64 + DELTA_SLACK + 1) and took < 3.0


@pytest.mark.parametrize("stream", [True, False])
def test_one_fifty_megabyte_chunk_is_refused_without_being_stored(stream):
    # The size cap is under test, not the clock: generous deadlines, so a loaded machine that is slow to start
    # the 50 MB chunk cannot turn this into a time-out.
    patient = RequestLimits(first_byte_s=20.0, idle_s=20.0, total_s=60.0, max_retry_after_s=0.3)
    with HostileServer(hs.huge_chunk(50, stream=stream)) as srv:
        with pytest.raises(ReplyTooLarge, match="more than"):
            chat(srv.url, stream=stream, retries=0, max_tokens=1024, limits=patient)
        sent = srv.bytes_sent
    assert sent < 50 << 20  # the client hung up long before the end


def test_ten_thousand_tool_calls_keep_only_the_cap_and_count_the_rest():
    with HostileServer(hs.many_tool_calls(10_000)) as srv:
        reply = chat(srv.url, stream=False, tools=TOOLS, limits=RequestLimits())
    cap = RequestLimits().max_tool_calls
    assert len(reply.tool_calls) == cap and reply.tool_calls_refused == 10_000 - cap


def test_stored_text_is_clipped_with_a_marker():
    limits = RequestLimits(stored_chars=1000)
    with HostileServer(hs.ok_text("y" * 5000)) as srv:
        reply = chat(srv.url, stream=False, limits=limits, max_tokens=4096)
    assert reply.content.startswith("y" * 1000) and reply.content.endswith("[4000 chars clipped]")


# -- secrets and phrases ---------------------------------------------------------------------------------


def test_an_error_body_that_echoes_the_authorization_header_never_carries_the_key():
    key = "sk-live-" + "7" * 24
    with HostileServer(hs.echo_headers(500)) as srv:
        with pytest.raises(InfraError) as caught:
            chat(srv.url, stream=False, api_key=key)
        assert srv.headers[0]["Authorization"] == f"Bearer {key}"  # it was sent, and echoed back
    assert key not in str(caught.value) and "[redacted]" in str(caught.value)


def test_a_server_echoing_a_request_that_holds_an_overflow_phrase_is_not_the_models_failure():
    messages = [Turn(role="user", content="What does 'maximum context length' mean for a model?")]
    with HostileServer(hs.echo_request(500)) as srv:
        with pytest.raises(InfraError) as caught:
            chat(srv.url, stream=False, messages=messages)
    assert not isinstance(caught.value, ContextOverflow)


# -- a byte-order mark ------------------------------------------------------------------------------------


@pytest.mark.parametrize("split", [False, True], ids=["whole", "split_over_writes"])
def test_a_stream_opening_with_a_byte_order_mark_keeps_its_first_event(split):
    bom = b"\xef\xbb\xbf"
    first = f"data: {json.dumps(_delta(content='first '))}\n\n".encode()

    def behaviour(h, body):
        h.stream_start()
        if split:  # the mark's bytes in separate TCP writes, as a slow proxy may send them
            for i in range(3):
                h.chunk(bom[i:i + 1])
                time.sleep(0.05)
            h.chunk(first)
        else:
            h.chunk(bom + first)
        h.event({"choices": [{"index": 0, "delta": {"content": "second"}, "finish_reason": "stop"}]})
        h.stream_end()

    with HostileServer(behaviour) as srv:
        reply = chat(srv.url)
    assert reply.content == "first second"


# -- first-byte deadlines that follow the prompt, and a stalled client ----------------------------------------


def test_the_first_byte_deadline_follows_the_prompt_between_its_floor_and_its_ceiling():
    measured = Prefill(fixed_s=0.05, per_token_s=0.002)  # 500 tokens a second
    limits = RequestLimits().with_prefill(measured, parallel=1)
    assert limits.first_byte_for(100) == limits.first_byte_floor_s  # a short prompt: the floor
    assert limits.first_byte_for(4000) == pytest.approx(FIRST_BYTE_MULTIPLE * (0.05 + 4000 * 0.002), abs=0.1)
    assert limits.first_byte_for(10**6) == limits.first_byte_s  # never past --first-byte-timeout's default
    # four requests reading their prompts at once each take about four times as long
    assert RequestLimits().with_prefill(measured, parallel=4).first_byte_for(4000) > limits.first_byte_for(4000)
    # nothing measured, or a --first-byte-timeout the user gave: that value, whatever the prompt
    assert RequestLimits().first_byte_for(10) == RequestLimits().first_byte_s
    fixed = RequestLimits(first_byte_s=42.0, scale_first_byte=False).with_prefill(measured, parallel=1)
    assert fixed.first_byte_for(10) == fixed.first_byte_for(10**6) == 42.0


@pytest.mark.parametrize("first_ms,tokens,prompt_ms", [
    (float("inf"), 500, None), (float("nan"), 500, None), (-5.0, 500, None), (None, 500, None), (80.0, 0, None),
])
def test_a_warm_up_timing_that_is_not_a_plain_positive_number_measures_nothing(first_ms, tokens, prompt_ms):
    assert measured_prefill(first_ms, tokens, prompt_ms) is None


def test_server_timings_split_the_warm_ups_time_and_absurd_ones_are_not_used():
    split = measured_prefill(100.0, 500, 60.0, 500)
    assert split == Prefill(fixed_s=pytest.approx(0.04), per_token_s=pytest.approx(0.00012))
    for absurd in (float("inf"), -1.0, 1e12):  # past the time to the first data: the whole time is the prompt's
        assert measured_prefill(100.0, 500, absurd) == Prefill(fixed_s=0.0, per_token_s=pytest.approx(0.0002))


def test_when_requests_keep_timing_out_every_waiting_one_ends_at_once_and_no_more_are_sent():
    limits = RequestLimits(first_byte_s=0.6, idle_s=0.6, total_s=30.0)
    settings = ClientSettings(endpoint="", model="hostile", max_retries=4, backoff_s=0.01, limits=limits)

    async def one(client: ChatClient, delay: float):
        await asyncio.sleep(delay)
        try:
            await client.chat(MSGS, max_tokens=8)
        except InfraError as exc:
            return exc, time.monotonic()

    with HostileServer(hs.stall(60)) as srv:
        settings = dataclasses.replace(settings, endpoint=srv.url)

        async def go():
            async with ChatClient(settings) as client:
                # three sent together time out together; a fourth sent later was still waiting
                results = await asyncio.gather(*(one(client, d) for d in (0, 0, 0, 0.3)))
                assert client.stalled
                sent = len(srv.requests)
                with pytest.raises(ServerStalled):
                    await client.chat(MSGS, max_tokens=8)
                assert len(srv.requests) == sent  # nothing is sent once stalled
                return results, sent

        started = time.monotonic()
        results, sent = asyncio.run(go())
    # the four, and at most the retries of the first two to time out before the third made it three in a row
    assert 4 <= sent <= 6
    assert all(isinstance(exc, (ServerStalled, RequestTimeout)) for exc, _ in results)
    assert isinstance(results[3][0], ServerStalled) and "3 requests in a row timed out" in str(results[3][0])
    assert max(at for _, at in results) - started < limits.first_byte_s + 1.0  # the fourth did not wait its own
