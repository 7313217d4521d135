"""The real llama-cpp-python server with the bundled SmolLM2-135M: preflight, a tools request, the thinking
switch. The model is tiny, so what is checked is the plumbing: identity, warm-up, a forced tool call that
comes back as a call, and a thinking check that reports honestly that this model does not think."""

from __future__ import annotations

import asyncio
import json

import pytest

from engine.client import ChatClient, ClientSettings
from engine.local_server import embedded_server
from engine.models_file import load_models
from engine.preflight import probe
from engine.servers import DEFAULT_TEMPERATURE, DEFAULT_TOP_P, sampler_fields

pytestmark = pytest.mark.llama

TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


def test_preflight_tools_and_thinking_switch_on_the_embedded_server():
    models = load_models()
    entry = models.find(models.default)
    with embedded_server(entry, context=2048, threads=1) as server:
        base = ClientSettings(
            endpoint=server.endpoint,
            model=server.model,
            temperature=DEFAULT_TEMPERATURE,
            top_p=DEFAULT_TOP_P,
            thinking=True,
            timeout_s=120,
            backoff_s=0.2,
        )

        async def go():
            info = await probe(
                server.endpoint, None, server.model, warm=True, needs_tools=True, client_settings=base
            )
            settings = ClientSettings(
                **{
                    **base.__dict__,
                    "server_kind": info.kind,
                    "sampler": sampler_fields(info.kind),
                    "thinking": False,
                    "served_context": server.context,
                }
            )
            async with ChatClient(settings) as client:
                forced = {"type": "function", "function": {"name": "get_weather"}}
                called = await client.chat(
                    [
                        {"role": "system", "content": "You call tools."},
                        {"role": "user", "content": "What is the weather in Paris?"},
                    ],
                    tools=[TOOL],
                    tool_choice=forced,
                    max_tokens=48,
                    seed=1,
                )
                history = [
                    {"role": "user", "content": "What is the weather in Paris?"},
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                            }
                        ],
                    },
                    {"role": "tool", "tool_call_id": "c1", "content": "18 C and sunny"},
                ]
                after = await client.chat(history, max_tokens=24, seed=1)
                return info, called, after, client.thinking_check

        info, called, after, check = asyncio.run(go())
    assert info.kind == "llama-cpp-python" and info.version
    assert info.warmup_ms is not None and info.warmup_ms > 0
    assert info.tool_support is True and info.tool_support_source == "tools request accepted"
    # thinking on in the warm-up: this model never reasons, and the check says so instead of pretending
    assert info.details["warmup_thinking"] == {
        "requested": "on",
        "reasoning_seen": False,
        "took_effect": False,
        "control": info.as_meta()["thinking_control"],
        "warning": info.details["warmup_thinking"]["warning"],
    }
    (call,) = called.tool_calls
    assert call.name == "get_weather" and not call.from_text
    assert isinstance(json.loads(call.arguments), dict)
    # a null assistant content went out as "" and the server took it; thinking off took effect
    assert after.finish_reason in ("stop", "length")
    assert check is not None and check["requested"] == "off" and check["took_effect"] is True
