"""A whole run against each reproduced server completes and records what preflight found."""

from __future__ import annotations

import pytest

from engine.core.results import load_run_file
from engine.run.runner import run_benchmark
from tests.helpers.fake_servers import FakeLlamaCpp, FakeLMStudio, FakeOllama, FakeVLLM
from tests.model.servers.conftest import knowledge_script, run_request

CASES = [
    (
        FakeLlamaCpp,
        {"n_ctx": 16384, "slots": 3},
        {
            "kind": "llama.cpp",
            "version": "b6543-1a2b3c4",
            "served_context": 16384,
            "slots": 3,
            "tool_support": True,
            "cache_prompt": True,
        },
        3,
    ),
    (
        FakeOllama,
        {"num_ctx": 8192},
        {
            "kind": "ollama",
            "version": "0.12.6",
            "served_context": 8192,
            "trained_context": 40960,
            "tool_support": True,
        },
        1,
    ),
    (
        FakeLMStudio,
        {"loaded_ctx": 8192, "load_s": 0.2},
        {"kind": "lm-studio", "served_context": 8192, "trained_context": 32768, "state": "loaded"},
        1,
    ),
    (FakeVLLM, {"max_model_len": 16384}, {"kind": "vllm", "version": "0.11.0", "served_context": 16384}, 4),
]


@pytest.mark.parametrize("server,kw,meta,concurrency", CASES, ids=[c[0].kind for c in CASES])
def test_a_run_completes_with_the_servers_meta_and_its_default_concurrency(
    server, kw, meta, concurrency, tmp_path
):
    with server(knowledge_script(), **kw) as srv:
        run = run_benchmark(run_request(srv, tmp_path / "r.json", thinking=True))
    assert len(run.trials) == 4 and all(t.passed for t in run.trials)
    recorded = load_run_file(tmp_path / "r.json").provenance.server
    for key, value in meta.items():
        assert recorded[key] == value, key
    assert recorded["default_concurrency"] == concurrency
    assert run.settings.concurrency == concurrency
    assert run.provenance.served_context == meta["served_context"]
    assert recorded["sampler"]["temperature"] == 0.6 and recorded["warmup_ms"] is not None
    assert recorded["thinking_control"]


def test_an_explicit_concurrency_wins_over_the_servers_default(tmp_path):
    with FakeLlamaCpp(knowledge_script(), slots=4) as srv:
        run = run_benchmark(run_request(srv, tmp_path / "r.json", concurrency=1))
    assert run.settings.concurrency == 1 and run.provenance.server["default_concurrency"] == 4


@pytest.mark.parametrize(
    "argv,env,expected",
    [
        ([], {}, None),
        (["--concurrency", "auto"], {"BENCH_CONCURRENCY": "3"}, None),
        (["--concurrency", "2"], {}, 2),
        ([], {"BENCH_CONCURRENCY": "auto"}, None),
        ([], {"BENCH_CONCURRENCY": "5"}, 5),
    ],
)
def test_concurrency_defaults_to_auto_on_the_command_line(argv, env, expected, tmp_path):
    from engine.cli import build_parser
    from engine.commands.run import build_request
    from engine.core.config import Settings

    args = build_parser().parse_args(["run", "--endpoint", "http://127.0.0.1:1/v1", "--model", "m", *argv])
    request = build_request(args, Settings(environ=env, dotenv=tmp_path / "none.env"), "http://127.0.0.1:1/v1")
    assert request.concurrency == expected and request.warm_up is True
