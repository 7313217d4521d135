"""The server check against hostile metadata: every read (/v1/models, /props, Ollama's /api/show and /api/ps,
llama.cpp's /tokenize) has a total deadline and a byte cap, so a drip of one byte a second fails the check
within its deadline and a body claiming 600 MB is closed at the cap (issue #27, item 4)."""

from __future__ import annotations

import asyncio
import dataclasses
import time
import tracemalloc

import pytest

from engine.core.errors import UserError
from engine.core.schema import Turn
from engine.model import servers
from engine.model.client import ChatClient, ClientSettings, SilentTruncation
from engine.model.preflight import inspect_server
from engine.model.requestlimits import RequestLimits
from engine.run.request import RunRequest
from engine.run.runner import run_benchmark
from tests.helpers import hostile_server as hs
from tests.helpers.hostile_server import HostileServer

CHECK = RequestLimits(check_s=3.0)
CAP = CHECK.max_check_bytes


def ollama(**overrides) -> dict[str, hs.Behaviour]:
    """An Ollama's native routes, honest unless overridden."""
    show = {"capabilities": ["completion"], "model_info": {"x.context_length": 8192}, "parameters": ""}
    routes = {
        "/api/version": hs.reply_json({"version": "0.12.6"}),
        "/api/show": hs.reply_json(show),
        "/api/ps": hs.reply_json({"models": [{"name": "hostile:latest", "context_length": 4096}]}),
    }
    routes.update(overrides)
    return routes


def check(srv: HostileServer, *, warm: bool = False, limits: RequestLimits = CHECK):
    settings = ClientSettings(endpoint=srv.url, model="hostile", backoff_s=0.01, max_retries=0, limits=limits)
    return asyncio.run(inspect_server(srv.url, None, "hostile", warm=warm, client_settings=settings,
                                      ready_timeout_s=5, poll_s=0.05))


DRIPPED = {
    "/v1/models": {"/v1/models": hs.drip_body(every_s=1.0)},
    "/props": {"/props": hs.drip_body(every_s=1.0)},
    "/api/show": ollama(**{"/api/show": hs.drip_body(every_s=1.0)}),
    "/api/ps": ollama(**{"/api/ps": hs.drip_body(every_s=1.0)}),
}


@pytest.mark.parametrize("path", list(DRIPPED), ids=list(DRIPPED))
def test_a_read_dripped_a_byte_a_second_fails_the_check_within_its_deadline(path):
    with HostileServer(hs.ok_text("ready"), routes=DRIPPED[path]) as srv:
        started = time.monotonic()
        with pytest.raises(UserError) as caught:
            check(srv, warm=path == "/api/ps")  # /api/ps is read after the warm-up
        took = time.monotonic() - started
    message = str(caught.value)
    assert f"{path} did not arrive in full within 3 s" in message and "server check stopped" in message
    assert took < CHECK.check_s + 2.0


FLOODED = {
    "/props": {"/props": hs.flood_body()},
    "/v1/models": {"/v1/models": hs.flood_body()},
    "/api/show": ollama(**{"/api/show": hs.flood_body()}),
}


@pytest.mark.parametrize("path", list(FLOODED), ids=list(FLOODED))
def test_a_read_claiming_600_mb_is_closed_at_the_cap(path):
    with HostileServer(hs.ok_text("ready"), routes=FLOODED[path]) as srv:
        tracemalloc.start()
        try:
            with pytest.raises(UserError, match=f"more than {CAP} bytes; closed it there"):
                check(srv)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        time.sleep(0.3)  # let the server notice the hang-up
        sent = srv.bytes_sent
    # the client held the cap and a read's worth more, never the body
    assert peak < 2 * CAP + (1 << 20), f"the check held {peak >> 20} MB"
    # the server got out the cap and what the loopback's socket buffers take (several MB), not 600 MB
    assert sent < 64 << 20, f"{sent >> 20} MB were sent"


def test_a_run_against_a_dripping_server_fails_its_check_with_a_clear_message(tmp_path):
    with HostileServer(hs.ok_text("ready"), routes={"/props": hs.drip_body(every_s=1.0)}) as srv:
        request = RunRequest(model="hostile", endpoint=srv.url, output=tmp_path / "r.json", modules=["knowledge"],
                             pattern="kn_rail*", show_progress=False, limits=CHECK)
        started = time.monotonic()
        with pytest.raises(UserError, match="the answer to GET /props did not arrive in full within 3 s"):
            run_benchmark(request)
    assert time.monotonic() - started < CHECK.check_s + 3.0
    assert not (tmp_path / "r.json").exists()


def test_hostile_shapes_in_the_metadata_are_ignored_not_crashed_on():
    """Lists where objects belong, nesting deeper than any parser, text for numbers: read as nothing."""
    routes = ollama(**{
        "/api/show": hs.reply_json({"capabilities": "tools", "model_info": [1, 2], "details": "big",
                                    "parameters": ["num_ctx 4"]}),
        "/api/ps": hs.reply_json({"models": "all"}),
    })
    routes["/props"] = lambda h, body: h.body_reply(200, b"[" * 200_000)
    with HostileServer(hs.ok_text("ready"), routes=routes) as srv:
        info = check(srv, warm=True)
    assert info.kind == servers.OLLAMA and info.served_context is None and info.tool_support is None


# -- /tokenize, asked after replies whose prompt count nears the window ---------------------------------------


def counted_reply(h, body):
    """A reply whose usage puts its prompt in the band where the tokenizer is asked."""
    h.stream_start()
    h.event({"choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}]})
    h.event({"choices": [], "usage": {"prompt_tokens": 3000, "completion_tokens": 1}})
    h.stream_end()


@pytest.mark.parametrize("tokenizer", [hs.drip_body(every_s=1.0), hs.flood_body()], ids=["drip", "flood"])
def test_a_hostile_tokenizer_costs_one_deadline_at_most_and_is_not_asked_again(tokenizer):
    limits = RequestLimits(check_s=1.5)
    settings = ClientSettings(endpoint="", model="hostile", max_retries=0, limits=limits,
                              server_kind=servers.LLAMA_CPP, served_context=4096)
    asked: list[float] = []

    def tokenize(h, body):
        asked.append(time.monotonic())
        tokenizer(h, body)

    with HostileServer(counted_reply, routes={"/tokenize": tokenize}) as srv:
        settings = dataclasses.replace(settings, endpoint=srv.url)

        async def go():
            async with ChatClient(settings) as client:
                timed = []
                for _ in range(3):
                    started = time.monotonic()
                    reply = await client.chat([Turn(role="user", content="hi")], max_tokens=8)
                    timed.append(time.monotonic() - started)
                    assert reply.content == "ok"
                return timed

        took = asyncio.run(go())
    assert len(asked) == 1  # a tokenizer that failed so is not asked for every later reply
    assert took[0] < limits.check_s + 1.0 and max(took[1:]) < 0.5


def test_an_honest_tokenizer_answer_is_read_whole_and_counts():
    """Within its bounds the tokenizer is still the exact check: it counts 5,000 tokens of text the server said
    was 3,000 tokens of prompt, so the server cut it."""
    settings = ClientSettings(endpoint="", model="hostile", max_retries=0, server_kind=servers.LLAMA_CPP,
                              served_context=4096)
    with HostileServer(counted_reply, routes={"/tokenize": hs.reply_json({"tokens": list(range(5000))})}) as srv:
        settings = dataclasses.replace(settings, endpoint=srv.url)

        async def go():
            async with ChatClient(settings) as client:
                return await client.chat([Turn(role="user", content="hi")], max_tokens=8)

        with pytest.raises(SilentTruncation, match="reported 3000 prompt tokens"):
            asyncio.run(go())
