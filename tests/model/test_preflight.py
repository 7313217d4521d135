"""Preflight against each reproduced server: identity, window, slots, readiness, warm-up, tool refusals."""

from __future__ import annotations

import asyncio
import dataclasses
import time

import pytest

from engine.core.errors import UserError
from engine.model.client import ClientSettings
from engine.model.preflight import inspect_server
from engine.model.requestlimits import RequestLimits
from tests.helpers.fake_servers import (
    FakeLlamaCpp,
    FakeLMStudio,
    FakeOllama,
    FakeOpenAICompat,
    FakeVLLM,
    Say,
    always,
)


def run_server_check(srv, *, warm=True, needs_tools=False, thinking=None, **kw):
    settings = ClientSettings(
        endpoint=srv.url, model=srv.model, backoff_s=0.01, max_retries=1, limits=RequestLimits.of(10), thinking=thinking
    )
    return asyncio.run(
        inspect_server(
            srv.url,
            None,
            srv.model,
            warm=warm,
            needs_tools=needs_tools,
            client_settings=settings,
            poll_s=0.05,
            **kw,
        )
    )


def test_llama_cpp_per_slot_window_slots_version_and_tool_caps():
    with FakeLlamaCpp(n_ctx=4096, slots=3) as srv:
        info = run_server_check(srv)
    assert (info.kind, info.version, info.served_context, info.slots) == (
        "llama.cpp",
        "b6543-1a2b3c4",
        4096,
        3,
    )
    assert info.trained_context == 32768
    assert info.tool_support is True and "chat_template_caps" in info.tool_support_source
    assert info.default_concurrency == 3
    meta = info.as_meta()
    assert meta["cache_prompt"] is True and meta["model_file"] == "qwen2.5-0.5b-instruct-q4_k_m.gguf"
    assert meta["warmup_ms"] is not None
    # What the check found is final once it returns: nothing downstream can change it.
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.served_context = 8192
    with pytest.raises(TypeError):
        info.details["tools_note"] = "added later"  # type: ignore[index]
    assert isinstance(info.models, tuple)


def test_llama_cpp_loading_is_waited_for():
    with FakeLlamaCpp(loading_s=0.6) as srv:
        started = time.monotonic()
        info = run_server_check(srv)
        assert time.monotonic() - started >= 0.5
        # nothing but the warm-up (sent twice: how is a cached prompt counted?) reached the chat endpoint, and
        # only after loading finished
        assert len(srv.chats) == 2
    assert info.ready_wait_s > 0.2 and info.kind == "llama.cpp"


def test_a_server_that_never_finishes_loading_is_refused_with_the_reason():
    with FakeLlamaCpp(loading_s=60) as srv:
        with pytest.raises(UserError, match="still loading"):
            run_server_check(srv, ready_timeout_s=0.3)


def test_llama_cpp_without_tools_in_its_template_refuses_a_tool_run_naming_jinja():
    with FakeLlamaCpp(supports_tools=False) as srv:
        with pytest.raises(UserError, match="--jinja"):
            run_server_check(srv, needs_tools=True)
        info = run_server_check(srv, needs_tools=False)  # a run without tools goes ahead
    assert info.tool_support is False


def test_ollama_identity_trained_and_allocated_window_and_capabilities():
    with FakeOllama(num_ctx=4096, trained=40960) as srv:
        info = run_server_check(srv)
    assert (info.kind, info.version, info.trained_context) == ("ollama", "0.12.6", 40960)
    assert info.served_context == 4096 and info.details["context_source"] == "/api/ps context_length"
    assert info.tool_support is True and info.details["capabilities"] == ["completion", "tools", "thinking"]
    assert info.default_concurrency == 1


def test_ollama_modelfile_num_ctx_is_read_without_a_model_call():
    with FakeOllama(modelfile_num_ctx=16384) as srv:
        info = run_server_check(srv, warm=False)
        assert srv.chats == []
    assert info.served_context == 16384 and info.details["context_source"] == "Modelfile num_ctx"


def test_ollama_model_without_tools_is_refused_naming_the_capability():
    with FakeOllama(capabilities=("completion",)) as srv:
        with pytest.raises(UserError, match="capabilities"):
            run_server_check(srv, needs_tools=True)


def test_ollama_unknown_model_names_the_pull_command():
    with FakeOllama() as srv:
        with pytest.raises(UserError, match="ollama pull llama9"):
            asyncio.run(inspect_server(srv.url, None, "llama9"))


def test_lm_studio_loads_on_the_first_request_and_then_reports_the_loaded_window():
    with FakeLMStudio(loaded=False, load_s=0.3, max_ctx=32768, loaded_ctx=8192) as srv:
        info = run_server_check(srv)
    assert info.kind == "lm-studio" and info.trained_context == 32768
    assert info.served_context == 8192 and info.details["state"] == "loaded"
    assert info.warmup_ms >= 300 and info.default_concurrency == 1


def test_lm_studio_with_no_model_loaded_says_how_to_load_one():
    with FakeLMStudio(loaded=False, jit=False) as srv:
        with pytest.raises(UserError, match="lms load"):
            run_server_check(srv)


def test_vllm_window_version_and_default_concurrency():
    with FakeVLLM(max_model_len=16384) as srv:
        info = run_server_check(srv)
    assert (info.kind, info.version, info.served_context) == ("vllm", "0.11.0", 16384)
    assert info.default_concurrency == 4


def test_vllm_without_auto_tool_choice_is_refused_naming_both_flags():
    with FakeVLLM(auto_tool_choice=False) as srv:
        with pytest.raises(UserError, match="--enable-auto-tool-choice --tool-call-parser"):
            run_server_check(srv, needs_tools=True)


def test_vllm_serving_another_model_name_is_refused_with_the_served_name():
    with FakeVLLM() as srv:
        with pytest.raises(UserError, match="Qwen/Qwen3-8B"):
            asyncio.run(inspect_server(srv.url, None, "qwen3"))


def test_unknown_server_is_other_and_still_warmed_up():
    with FakeOpenAICompat(always(Say(text="ready"))) as srv:
        info = run_server_check(srv, needs_tools=True)
        assert len(srv.chats) == 3  # the warm-up (twice) and the tool-call check
    assert info.kind == "other" and info.tool_support is True
    assert info.tool_support_source == "tools request accepted"


def test_warm_up_reply_shows_whether_the_thinking_switch_took_effect():
    with FakeVLLM(always(Say(text="ready", reasoning="hm")), honours_thinking_switch=False) as srv:
        info = run_server_check(srv, thinking=False)
    assert info.details["warmup_thinking"]["took_effect"] is False
