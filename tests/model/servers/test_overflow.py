"""A conversation longer than the served window, on each reproduced server: never graded as the model's
answer, never thrown away as an infrastructure error (issue #17)."""

from __future__ import annotations

import asyncio

import pytest

from engine.core.errors import ContextOverflow
from engine.core.schema import Turn
from engine.model import servers
from engine.model.client import ChatClient, ClientSettings, SilentTruncation, wire_messages
from engine.model.overflow import prompt_token_estimate, prompt_token_floor
from engine.model.preflight import inspect_server
from engine.model.requestlimits import RequestLimits
from engine.run.runner import run_benchmark
from tests.helpers.fake_servers import (
    FakeLlamaCpp,
    FakeLMStudio,
    FakeOllama,
    FakeVLLM,
    Say,
    always,
    has_marker,
    honest_prompt_tokens,
)
from tests.model.servers.conftest import knowledge_script, run_request, write_long_task


def text_of(tokens: int) -> str:
    """Prose that the reproduced servers count as about ``tokens`` tokens (4 characters a token)."""
    line = "The meter on the north wall read a steady value at noon today. "
    return (line * (tokens * 4 // len(line) + 1))[: tokens * 4]


def chat_all(srv, conversations, *, served_context=None, stream=True):
    """Send each message list in turn through one client, as an episode's turns go; returns the replies."""
    settings = ClientSettings(
        endpoint=srv.url, model=srv.model, backoff_s=0.01, max_retries=2, limits=RequestLimits.of(10),
        server_kind=srv.kind, served_context=served_context, stream=stream,
    )

    async def go():
        async with ChatClient(settings) as client:
            return [await client.chat(m, max_tokens=64) for m in conversations]

    return asyncio.run(go())


def one_long_prompt(tokens: int) -> list[Turn]:
    return [Turn(role="system", content="You are a careful reader."), Turn(role="user", content=text_of(tokens))]


# -- 1. Ollama's cuts ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "version,reported",
    [("0.12.6", 4096), ("0.30.2", 4095), ("0.31.0", 2050)],
    ids=["before-0.30-cuts-to-the-window", "0.30-cuts-one-under", "0.31-keeps-about-half"],
)
def test_an_ollama_prompt_cut_to_fit_its_window_is_silent_truncation(version, reported):
    # ~5,000 tokens: more than the window, but its text at 8 characters a token is only ~2,500
    messages = one_long_prompt(5000)
    with FakeOllama(always(Say(text="ok")), num_ctx=4096, version=version) as srv:
        with pytest.raises(SilentTruncation, match="silent truncation") as caught:
            chat_all(srv, [messages], served_context=4096)
    assert caught.value.reported == reported


def test_ollama_dropping_the_oldest_turns_of_a_conversation_is_caught_from_the_previous_turns_count():
    first = one_long_prompt(2000)
    second = [*first, Turn(role="assistant", content="Noted."), Turn(role="user", content=text_of(2500))]
    body = {"messages": wire_messages(second)}
    assert honest_prompt_tokens(body) > 4096  # the whole conversation no longer fits
    with FakeOllama(always(Say(text="ok")), num_ctx=4096, version="0.31.0") as srv:
        with pytest.raises(SilentTruncation) as caught:
            chat_all(srv, [first, second], served_context=4096)
        # Ollama kept the system prompt and the newest turns, a count the characters alone cannot fault
        kept = honest_prompt_tokens({"messages": wire_messages([second[0], *second[2:]])})
        assert caught.value.reported == kept and len(srv.chats) == 2
    # the same conversation in a window that holds it is answered and not flagged
    with FakeOllama(always(Say(text="ok")), num_ctx=65536, version="0.31.0") as srv:
        replies = chat_all(srv, [first, second], served_context=65536)
    assert [r.content for r in replies] == ["ok", "ok"]


def dense_prompt(tokens: int) -> list[Turn]:
    """A prompt of few words (long hexadecimal runs), whose text alone proves little about its length."""
    chunk = "9f3a0c7e5b2d4f61" * 4
    text = " ".join([chunk] * (tokens * 4 // (len(chunk) + 1) + 1))[: tokens * 4]
    return [Turn(role="system", content="You are a careful reader."), Turn(role="user", content=text)]


def test_a_llama_cpp_build_that_cut_prompts_is_caught_by_its_own_tokenizer():
    # builds from before the truncation was removed, started with context shift: keep the last n_ctx/2 blocks.
    # A cut of a dense prompt to ~3,000 tokens stays above what its text alone proves (1 token in 8 characters).
    with FakeLlamaCpp(always(Say(text="ok")), n_ctx=4096, context_shift_truncates=True) as srv:
        with pytest.raises(SilentTruncation) as caught:
            chat_all(srv, [dense_prompt(5000)], served_context=4096)
        floor = prompt_token_floor(wire_messages(dense_prompt(5000)))
        assert srv.tokenized == 1 and floor < caught.value.reported < 4096
    with FakeLlamaCpp(always(Say(text="ok")), n_ctx=8192) as srv:  # an honest count in the same band
        (reply,) = chat_all(srv, [dense_prompt(5000)], served_context=8192)
        assert srv.tokenized == 1
    assert reply.content == "ok"


def test_a_cut_prose_prompt_is_caught_by_its_words_alone():
    with FakeLlamaCpp(always(Say(text="ok")), n_ctx=4096, context_shift_truncates=True) as srv:
        with pytest.raises(SilentTruncation) as caught:
            chat_all(srv, [one_long_prompt(5000)], served_context=4096)
        assert srv.tokenized == 0 and caught.value.reported < 4096  # no tokenizer needed


# -- 2. Ollama's names ---------------------------------------------------------------------------------------


def test_ollama_lists_a_model_asked_for_without_a_tag_as_latest_and_the_window_is_kept():
    with FakeOllama(model="qwen3", num_ctx=4096) as srv:
        settings = ClientSettings(endpoint=srv.url, model="qwen3", backoff_s=0.01, limits=RequestLimits.of(10))
        info = asyncio.run(inspect_server(srv.url, None, "qwen3", warm=True, client_settings=settings, poll_s=0.05))
    assert info.served_context == 4096 and info.details["context_source"] == "/api/ps context_length"


@pytest.mark.parametrize(
    "asked,listed,same",
    [
        ("qwen3", "qwen3:latest", True),
        ("Qwen3:Latest", "qwen3:latest", True),
        ("library/qwen3", "registry.ollama.ai/library/qwen3:latest", True),
        ("hf.co/org/model:Q4_K_M", "hf.co/org/model:q4_k_m", True),
        ("localhost:5000/team/model", "localhost:5000/team/model:latest", True),
        ("qwen3:8b", "qwen3:latest", False),
        ("qwen3", "qwen3-coder:latest", False),
    ],
)
def test_ollama_names_match_the_way_ollama_resolves_them(asked, listed, same):
    assert (servers.ollama_model_name(asked) == servers.ollama_model_name(listed)) is same


# -- 3 and 4. LM Studio's overflows ---------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [True, False])
def test_lm_studio_answering_an_over_window_prompt_with_an_empty_200_is_a_context_overflow(stream):
    with FakeLMStudio(always(Say(text="ok")), loaded=True, loaded_ctx=2048, overflow="empty") as srv:
        with pytest.raises(ContextOverflow, match="more than its 2048-token window"):
            chat_all(srv, [one_long_prompt(3000)], served_context=2048, stream=stream)
        assert len(srv.chats) == 1


def test_lm_studio_sending_its_overflow_message_with_a_200_is_still_a_context_overflow():
    with FakeLMStudio(always(Say(text="ok")), loaded=True, loaded_ctx=2048, overflow="error-200") as srv:
        with pytest.raises(ContextOverflow, match="Trying to keep the first"):
            chat_all(srv, [one_long_prompt(3000)], stream=False)
        assert len(srv.chats) == 1


# -- 5. LM Studio's documented window --------------------------------------------------------------------------


def test_lm_studio_window_and_parallel_come_from_its_documented_v1_list():
    with FakeLMStudio(loaded=False, loaded_ctx=8192, max_ctx=32768, parallel=4, v0_window=False) as srv:
        settings = ClientSettings(endpoint=srv.url, model=srv.model, backoff_s=0.01, limits=RequestLimits.of(10))
        info = asyncio.run(inspect_server(srv.url, None, srv.model, warm=True, client_settings=settings, poll_s=0.05))
    assert (info.kind, info.served_context, info.trained_context, info.slots) == ("lm-studio", 8192, 32768, 4)
    assert info.details["context_source"].startswith("/api/v1/models")


def test_lm_studio_before_0_4_is_still_read_from_v0():
    with FakeLMStudio(loaded=True, loaded_ctx=8192, api_v1=False) as srv:
        info = asyncio.run(inspect_server(srv.url, None, srv.model, warm=False))
    assert (info.kind, info.served_context, info.details["state"]) == ("lm-studio", 8192, "loaded")


# -- 6. one rule on every server, and the run says what to do --------------------------------------------------


OVER_WINDOW = [
    (FakeLlamaCpp, {"n_ctx": 2048}, "context_overflow", "-c"),
    (FakeVLLM, {"max_model_len": 2048}, "context_overflow", "--max-model-len"),
    (FakeLMStudio, {"loaded": True, "loaded_ctx": 2048}, "context_overflow", "--context-length"),
    (FakeLMStudio, {"loaded": True, "loaded_ctx": 2048, "overflow": "empty"}, "context_overflow", "--context-length"),
    (FakeOllama, {"num_ctx": 2048}, "silent_truncation", "OLLAMA_CONTEXT_LENGTH"),
    (FakeOllama, {"num_ctx": 2048, "version": "0.31.0"}, "silent_truncation", "OLLAMA_CONTEXT_LENGTH"),
    (FakeOllama, {"num_ctx": 2048, "version": "0.31.0", "context_shift": False}, "context_overflow",
     "OLLAMA_CONTEXT_LENGTH"),
]


@pytest.mark.parametrize(
    "server,kw,named,fix", OVER_WINDOW,
    ids=["llama.cpp", "vllm", "lm-studio-400", "lm-studio-empty-200", "ollama-0.12", "ollama-0.31",
         "ollama-no-shift"],
)
def test_an_over_window_trial_is_named_in_its_record_and_the_run_says_how_to_enlarge_the_window(
    server, kw, named, fix, tmp_path, capsys
):
    task_id = write_long_task(tmp_path / "bank", words=6000)
    with server(knowledge_script(), **kw) as srv:
        request = run_request(srv, tmp_path / "r.json", tasks_dir=tmp_path / "bank", pattern=task_id,
                         allow_undersized_context=True)
        run = run_benchmark(request)
    (trial,) = run.trials
    assert not trial.infra and not trial.passed  # never excluded, never graded as the model's answer
    if named == "context_overflow":
        assert trial.grade is not None and trial.grade.reason == "context_overflow" and trial.scorable
    else:
        assert trial.invalid_reason == "silent_truncation" and trial.grade is None
    advice = " ".join(run.provenance.server["advice"])
    assert fix in advice and fix in capsys.readouterr().err


# -- 7. a cut is a cut whatever the window (issue #27, item 6) ------------------------------------------------


class ShrinkingOllama(FakeOllama):
    """An Ollama 0.30 restarted mid-run with a smaller window: 32k through the server check (its warm-ups and
    /api/ps), 4k from the first trial on."""

    def window(self) -> int:
        trial_started = any(has_marker(c, "inventory log") for c in self.chats)
        return 4096 if trial_started else 32768


def test_a_window_that_shrinks_mid_run_cuts_a_long_prompt_and_the_trial_is_invalid_not_the_models(tmp_path):
    task_id = write_long_task(tmp_path / "bank", words=19500)
    with ShrinkingOllama(knowledge_script(), version="0.30.2") as srv:
        request = run_request(srv, tmp_path / "r.json", tasks_dir=tmp_path / "bank", pattern=task_id,
                              allow_undersized_context=True)
        run = run_benchmark(request)
        asked = srv.chats[-1]
    assert run.provenance.served_context == 32768  # what the server check read
    assert prompt_token_estimate(asked["messages"]) > 22_000  # a 23k-token prompt, well under half of 32k...
    (trial,) = run.trials
    # ...cut to one under the new window: far under what the prompt must hold, so invalid, never graded
    assert trial.invalid_reason == "silent_truncation" and trial.grade is None and not trial.scorable
    assert "reported 4095 prompt tokens" in (trial.error or "")


def test_an_old_ollama_cutting_to_exactly_its_unreported_window_gets_no_verdict(tmp_path):
    # Ollama 0.9: cuts to exactly num_ctx (2048) and leaves context_length out of /api/ps, so no window is known
    task_id = write_long_task(tmp_path / "bank", words=3100)
    with FakeOllama(knowledge_script(), version="0.9.6", num_ctx=2048, ps_context=False) as srv:
        run = run_benchmark(run_request(srv, tmp_path / "r.json", tasks_dir=tmp_path / "bank", pattern=task_id))
        asked = srv.chats[-1]
    assert run.provenance.served_context is None
    assert 3500 < prompt_token_estimate(asked["messages"]) < 3900  # the bench's own estimate: ~3,700 tokens
    (trial,) = run.trials
    assert trial.invalid_reason == "silent_truncation" and trial.grade is None
    assert "reported 2048 prompt tokens" in (trial.error or "")
    assert "OLLAMA_CONTEXT_LENGTH" in " ".join(run.provenance.server["advice"])


def test_an_honest_count_of_a_long_prompt_in_a_large_window_is_not_a_cut(tmp_path):
    """The other side of the rule: an honest server's count of the same long prompt is never under it."""
    task_id = write_long_task(tmp_path / "bank", words=19500)
    with FakeOllama(knowledge_script(), version="0.30.2", num_ctx=32768) as srv:
        run = run_benchmark(run_request(srv, tmp_path / "r.json", tasks_dir=tmp_path / "bank", pattern=task_id,
                                        allow_undersized_context=True))
    (trial,) = run.trials
    assert trial.invalid_reason is None and trial.grade is not None and trial.scorable
