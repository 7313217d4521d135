"""Each documented server quirk, against its reproduced server, handled by the client or the runner."""

from __future__ import annotations

import asyncio
import json

import pytest

from engine.core.errors import ContextOverflow, InfraError
from engine.core.results import load_run_file
from engine.core.schema import ToolCall, Turn
from engine.model.client import ChatClient, ClientSettings, SilentTruncation, wire_messages
from engine.model.preflight import inspect_server
from engine.model.requestlimits import RequestLimits
from engine.model.servers import sampler_fields
from engine.run.runner import run_benchmark
from tests.helpers.fake_servers import (
    FakeLlamaCpp,
    FakeLMStudio,
    FakeOllama,
    FakeOpenAICompat,
    FakeVLLM,
    Say,
    always,
    honest_prompt_tokens,
)
from tests.model.servers.conftest import knowledge_script, run_request, write_long_task

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "lookup",
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
        },
    },
    {"type": "function", "function": {"name": "refund", "parameters": {"type": "object", "properties": {}}}},
]
ASK = [Turn(role="user", content="hi")]


def ask(srv, messages=ASK, *, tools=None, tool_choice=None, max_tokens=64, **kw):
    settings = ClientSettings(
        endpoint=srv.url,
        model=srv.model,
        backoff_s=0.01,
        max_retries=kw.pop("retries", 2),
        limits=RequestLimits.of(10),
        **{"server_kind": srv.kind, **kw},
    )

    async def go():
        async with ChatClient(settings) as client:
            reply = await client.chat(messages, tools=tools, tool_choice=tool_choice, max_tokens=max_tokens)
            return reply, client.observed().thinking_check

    return asyncio.run(go())


def long_messages(words: int = 6000) -> list[Turn]:
    text = " ".join(f"Line {i}: the meter read {i * 3} units at noon." for i in range(words // 8))
    return [Turn(role="system", content="You are a careful reader."), Turn(role="user", content=text)]


# -- silent truncation ------------------------------------------------------------------------------------


def test_ollama_cutting_the_front_of_a_long_prompt_is_detected():
    with FakeOllama(num_ctx=2048) as srv:
        with pytest.raises(SilentTruncation, match="silent truncation") as caught:
            ask(srv, long_messages())
        assert caught.value.reported < caught.value.floor
        # the same check with the window known
        with pytest.raises(SilentTruncation):
            ask(srv, long_messages(), served_context=2048)


def test_an_honest_server_with_the_same_long_prompt_is_not_flagged():
    with FakeLlamaCpp(n_ctx=65536) as srv:
        reply, _ = ask(srv, long_messages())
    assert reply.content == "ready"


class _CountsOnlyNewTokens(FakeOpenAICompat):
    """Reports only the tokens it had to compute, leaving out what its one-slot prompt cache held (the previous
    request's messages, where this one starts with them), as some versions did."""

    last: list = []

    def chat(self, body):
        messages = body.get("messages") or []
        cached = self.last if messages[: len(self.last)] == self.last else []
        self.last = messages
        counted = honest_prompt_tokens(body) - (honest_prompt_tokens({"messages": cached}) if cached else 0)
        return self.reply(body, self.script(body), prompt_tokens=max(1, counted))


def test_the_server_check_finds_a_server_that_counts_only_uncached_tokens():
    with _CountsOnlyNewTokens() as srv:
        settings = ClientSettings(endpoint=srv.url, model=srv.model, backoff_s=0.01, limits=RequestLimits.of(10))
        info = asyncio.run(inspect_server(srv.url, None, srv.model, warm=True, client_settings=settings, poll_s=0.05))
        assert len(srv.chats) == 2  # the warm-up, and the same again to see how a cached prompt is counted
    assert info.whole_prompt_counts is False and "uncached tokens only" in info.details["prompt_counts"]
    with FakeLlamaCpp() as srv:  # counts whole prompts (and says what came from its cache)
        settings = ClientSettings(endpoint=srv.url, model=srv.model, backoff_s=0.01, limits=RequestLimits.of(10))
        info = asyncio.run(inspect_server(srv.url, None, srv.model, warm=True, client_settings=settings, poll_s=0.05))
    assert info.whole_prompt_counts is True and "prompt_counts" not in info.details


def test_on_such_a_server_a_low_count_well_inside_the_window_is_cache_accounting_not_truncation():
    with _CountsOnlyNewTokens() as srv:
        first, _ = ask(srv, long_messages(), served_context=131072, whole_prompt_counts=False)
        again, _ = ask(srv, long_messages(), served_context=131072, whole_prompt_counts=False)
    assert first.content == again.content == "ready" and again.usage.prompt_tokens == 1
    with _CountsOnlyNewTokens() as srv:  # the same count from a server that counts whole prompts is a cut
        ask(srv, long_messages(), served_context=131072)
        with pytest.raises(SilentTruncation, match="reported 1 prompt tokens"):
            ask(srv, long_messages(), served_context=131072)


def test_a_silently_truncated_trial_is_invalid_and_the_run_says_how_to_fix_the_window(tmp_path, capsys):
    task_id = write_long_task(tmp_path / "bank", words=6000)
    # an Ollama that does not say its window: the run cannot refuse up front, the reply must give it away
    with FakeOllama(knowledge_script(), num_ctx=2048, ps_context=False) as srv:
        request = run_request(srv, tmp_path / "r.json", tasks_dir=tmp_path / "bank", pattern=task_id)
        run = run_benchmark(request)
    (trial,) = run.trials
    assert trial.invalid_reason == "silent_truncation" and not trial.scorable and not trial.infra
    assert trial.grade is None and "silent truncation" in trial.error
    advice = run.provenance.server["advice"]
    assert any("OLLAMA_CONTEXT_LENGTH" in line for line in advice)
    assert "OLLAMA_CONTEXT_LENGTH" in capsys.readouterr().err
    # after the window is enlarged, re-issuing the command runs the invalid trial again
    with FakeOllama(knowledge_script(), num_ctx=65536, ps_context=False) as srv:
        run = run_benchmark(
            run_request(
                srv, tmp_path / "r.json", tasks_dir=tmp_path / "bank", pattern=task_id, endpoint=srv.url
            )
        )
    (trial,) = run.trials
    assert trial.invalid_reason is None and trial.passed


def test_a_window_that_preflight_reads_refuses_the_run_before_any_trial(tmp_path):
    from engine.core.errors import UserError

    task_id = write_long_task(tmp_path / "bank", words=6000)
    with FakeOllama(knowledge_script(), num_ctx=2048) as srv:
        with pytest.raises(UserError, match="context window is 2048 tokens"):
            run_benchmark(run_request(srv, tmp_path / "r.json", tasks_dir=tmp_path / "bank", pattern=task_id))
        assert len(srv.chats) == 2  # the warm-up only (sent twice: how is a cached prompt counted?)


# -- thinking switch --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "server,on,expected",
    [
        (FakeLlamaCpp, False, {"chat_template_kwargs": {"enable_thinking": False}}),
        (FakeVLLM, True, {"chat_template_kwargs": {"enable_thinking": True}}),
        (FakeOllama, False, {"reasoning_effort": "none"}),
        (FakeOllama, True, {"reasoning_effort": "medium"}),
        (FakeLMStudio, False, {"chat_template_kwargs": {"enable_thinking": False}}),
    ],
)
def test_one_thinking_switch_maps_to_each_servers_control(server, on, expected):
    with server(always(Say(text="ok", reasoning="hmm"))) as srv:
        reply, check = ask(srv, thinking=on)
        sent = srv.chats[0]
    for key, value in expected.items():
        assert sent[key] == value
    if server is not FakeOllama:
        assert "reasoning_effort" not in sent or server is FakeLMStudio
    assert check["took_effect"] is True and bool(reply.reasoning) is on


def test_a_thinking_switch_the_server_ignores_is_warned_about_at_the_end_of_the_run(tmp_path, capsys):
    with FakeVLLM(knowledge_script(reasoning="let me think"), honours_thinking_switch=False) as srv:
        run = run_benchmark(run_request(srv, tmp_path / "r.json", thinking=False, pattern="kn_rail*"))
    check = run.provenance.server["thinking_check"]
    assert check["requested"] == "off" and check["took_effect"] is False and check["reasoning_seen"] is True
    assert "chat_template_kwargs.enable_thinking" in check["warning"]
    assert "--thinking" in capsys.readouterr().err
    assert run.trials[0].passed  # the reasoning never reached the grader


# -- reasoning in every field -----------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    "server,kw",
    [
        (FakeOllama, {}),  # message.reasoning
        (FakeVLLM, {}),  # reasoning (parser on)
        (FakeVLLM, {"reasoning_parser": False}),  # inline <think> in the content
        (FakeLlamaCpp, {}),  # reasoning_content
        (FakeLMStudio, {"loaded": True}),
    ],
)
def test_reasoning_is_read_from_every_shape_and_kept_out_of_the_answer(server, kw, stream):
    with server(always(Say(text="The answer is 4.", reasoning="two plus two")), **kw) as srv:
        reply, _ = ask(srv, stream=stream)
    assert reply.content == "The answer is 4."
    assert reply.reasoning == "two plus two"


def test_a_reply_emptied_by_reasoning_that_spent_the_budget_is_recorded_as_such(tmp_path):
    steps = " ".join(f"Step {i}: carry the {i * 7 % 10} and check the {i}th column." for i in range(30))
    spent = Say(text="", reasoning=steps, finish_reason="length")
    with FakeOllama(always(spent)) as srv:
        run = run_benchmark(run_request(srv, tmp_path / "r.json", pattern="kn_rail*", warm_up=False))
    (trial,) = run.trials
    assert trial.truncation == "incomplete" and not trial.passed and trial.scorable
    assert trial.grade.details["reasoning_spent_budget"] is True
    assert "spent the whole budget reasoning" in trial.error


# -- tool calls -------------------------------------------------------------------------------------------


def test_lm_studio_streamed_tool_calls_with_empty_names_are_accumulated_by_index():
    say = Say(tool_calls=[("lookup", {"q": "north region"}), ("refund", {"order": 12})])
    with FakeLMStudio(always(say), loaded=True) as srv:
        reply, _ = ask(srv, tools=TOOLS, stream_tool_turns=True)
        assert srv.chats[0]["stream"] is True
    assert [(c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [
        ("lookup", {"q": "north region"}),
        ("refund", {"order": 12}),
    ]


class _AllCallsIndexZero(FakeOpenAICompat):
    """Streams every complete call at index 0, each with its own id."""

    def tool_deltas(self, say):
        return [
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": f"call_{i}",
                        "type": "function",
                        "function": {"name": n, "arguments": json.dumps(a)},
                    }
                ]
            }
            for i, (n, a) in enumerate(say.tool_calls)
        ]


def test_calls_that_a_server_numbers_all_zero_are_kept_apart():
    say = Say(tool_calls=[("lookup", {"q": "a"}), ("refund", {"order": 1})])
    with _AllCallsIndexZero(always(say)) as srv:
        reply, _ = ask(srv, tools=TOOLS, stream_tool_turns=True)
    assert [(c.id, c.name) for c in reply.tool_calls] == [("call_0", "lookup"), ("call_1", "refund")]


def test_tool_turns_are_not_streamed_by_default():
    with FakeLMStudio(always(Say(tool_calls=[("lookup", {"q": "x"})])), loaded=True) as srv:
        reply, _ = ask(srv, tools=TOOLS, stream=True)
        assert "stream" not in srv.chats[0]
    assert reply.tool_calls[0].name == "lookup" and not reply.tool_calls[0].from_text


def test_a_tool_call_written_in_the_content_is_parsed_and_flagged():
    text = 'I will look it up.\n<tool_call>\n{"name": "lookup", "arguments": {"q": "x"}}\n</tool_call>'
    with FakeVLLM(always(Say(text=text))) as srv:
        reply, _ = ask(srv, tools=TOOLS)
    assert [(c.name, c.from_text) for c in reply.tool_calls] == [("lookup", True)]
    assert reply.content == "I will look it up."


def test_assistant_tool_call_messages_go_out_with_empty_content_not_null():
    # A reply that only calls tools is stored with empty content (Turn holds no null), and goes out so.
    history = [
        Turn(role="user", content="find x"),
        Turn(role="assistant", tool_calls=[ToolCall(id="c1", name="lookup", arguments="{}")]),
        Turn(role="tool", tool_call_id="c1", content="x=1"),
    ]
    with FakeOpenAICompat(always(Say(text="x is 1"))) as srv:
        reply, _ = ask(srv, history, tools=TOOLS)
        assert srv.chats[0]["messages"][1]["content"] == ""
    assert reply.content == "x is 1"


def test_tool_choice_is_not_sent_to_ollama():
    with FakeOllama(always(Say(tool_calls=[("lookup", {})]))) as srv:
        ask(srv, tools=TOOLS, tool_choice="auto")
        assert "tool_choice" not in srv.chats[0] and srv.chats[0]["tools"]


def test_llama_cpp_template_without_tools_answers_in_text_and_preflight_would_have_refused():
    # the server drops the tools silently: the reply is plain text, no call, no error
    with FakeLlamaCpp(always(Say(text="I cannot call tools.")), supports_tools=False) as srv:
        reply, _ = ask(srv, tools=TOOLS)
    assert reply.tool_calls == [] and reply.content == "I cannot call tools."


# -- errors: final or retried -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "server,kw",
    [
        (FakeLlamaCpp, {"n_ctx": 512}),
        (FakeVLLM, {"max_model_len": 512}),
        (FakeVLLM, {"max_model_len": 512, "overflow_status": 500}),
        # LM Studio's 400 "Trying to keep the first N tokens when context the overflows", once recorded as infra
        (FakeLMStudio, {"loaded": True, "loaded_ctx": 512}),
        # Ollama 0.31 and later on a model without context shift: a 400, once recorded as infra
        (FakeOllama, {"version": "0.31.0", "context_shift": False, "num_ctx": 512}),
    ],
    ids=["llama.cpp", "vllm-400", "vllm-500", "lm-studio-400", "ollama-no-context-shift"],
)
def test_context_overflow_is_final_and_never_retried(server, kw):
    with server(**kw) as srv:
        with pytest.raises(ContextOverflow):
            ask(srv, long_messages(2000), retries=3)
        assert len(srv.chats) == 1


def test_ollama_queues_requests_past_its_parallel_slots_instead_of_refusing_them(tmp_path):
    with FakeOllama(knowledge_script(), work_s=0.05) as srv:
        run = run_benchmark(run_request(srv, tmp_path / "r.json", concurrency=4, trials=2, warm_up=False))
        assert srv.rejected_busy == 0
    assert all(t.passed for t in run.trials) and len(run.trials) == 8


def test_ollama_busy_503_past_its_queue_is_backed_off_and_retried(tmp_path):
    with FakeOllama(knowledge_script(), max_queue=1, work_s=0.05) as srv:
        run = run_benchmark(
            run_request(srv, tmp_path / "r.json", concurrency=4, trials=2, max_retries=8, warm_up=False)
        )
        assert srv.rejected_busy > 0
    assert all(t.passed for t in run.trials) and len(run.trials) == 8


def test_llama_cpp_without_jinja_refuses_tools_with_a_500_that_names_the_flag_and_is_not_retried():
    with FakeLlamaCpp(always(Say(text="ok")), jinja=False) as srv:
        with pytest.raises(InfraError, match="--jinja") as caught:
            ask(srv, tools=TOOLS, retries=3)
        assert len(srv.chats) == 1 and caught.value.retryable is False
        reply, _ = ask(srv)  # a request without tools is served
    assert reply.content == "ok"


def test_preflight_refuses_a_tool_run_on_llama_cpp_without_jinja_naming_the_flag():
    from engine.core.errors import UserError
    from engine.model.preflight import inspect_server

    with FakeLlamaCpp(always(Say(text="ok")), jinja=False) as srv:
        settings = ClientSettings(endpoint=srv.url, model=srv.model, backoff_s=0.01, max_retries=3,
                                  limits=RequestLimits.of(10))
        with pytest.raises(UserError, match="rejected a request with tools: restart llama-server with --jinja"):
            asyncio.run(inspect_server(srv.url, None, srv.model, warm=True, needs_tools=True, client_settings=settings))
        assert len(srv.chats) == 3  # the warm-up (twice) and one tool-call check, not retried


# -- sampler ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("server", [FakeLlamaCpp, FakeOllama, FakeLMStudio, FakeVLLM])
def test_every_request_carries_an_explicit_sampler(server, tmp_path):
    with server(knowledge_script(), **({"loaded": True} if server is FakeLMStudio else {})) as srv:
        run_benchmark(run_request(srv, tmp_path / "r.json", pattern="kn_rail*"))
        sent = srv.chats
    assert len(sent) == 3  # the warm-up, sent twice (how is a cached prompt counted?), and the trial
    for body in sent:
        assert body["temperature"] == 0.6 and body["top_p"] == 0.95
        for key, value in sampler_fields(srv.kind).items():
            assert body[key] == value
    if server is FakeVLLM:  # nothing left for the model's generation config to fill in
        assert srv.defaulted == [[], [], []]


def test_a_given_temperature_is_sent_as_given(tmp_path):
    with FakeVLLM(knowledge_script()) as srv:
        run = run_benchmark(
            run_request(srv, tmp_path / "r.json", pattern="kn_rail*", temperature=0.0, top_p=1.0)
        )
        assert {(b["temperature"], b["top_p"]) for b in srv.chats} == {(0.0, 1.0)}
    assert run.settings.temperature == 0.0
    assert load_run_file(tmp_path / "r.json").provenance.server["sampler"]["temperature"] == 0.0


@pytest.mark.parametrize(("server", "top_k_sent"), [(FakeLlamaCpp, 0), (FakeVLLM, -1)])
def test_top_k_off_is_each_servers_own_off_and_min_p_is_sent_as_given(tmp_path, server, top_k_sent):
    with server(knowledge_script()) as srv:
        run = run_benchmark(run_request(srv, tmp_path / "r.json", pattern="kn_rail*", top_k=0, min_p=0.05))
        assert {(b["top_k"], b["min_p"]) for b in srv.chats} == {(top_k_sent, 0.05)}
    assert (run.settings.sampling_mode, run.settings.top_k, run.settings.min_p) == ("custom", 0, 0.05)
    assert load_run_file(tmp_path / "r.json").provenance.server["sampler"]["top_k"] == top_k_sent


def test_fake_servers_count_prompts_honestly():
    body = {"messages": wire_messages(long_messages())}
    from engine.model.client import prompt_token_floor

    assert honest_prompt_tokens(body) > prompt_token_floor(body["messages"])
