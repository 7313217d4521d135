"""measure-speed against a loopback server that streams like OpenRouter: a slow first token, a fast stream."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from engine.core.errors import UserError
from engine.index.data import entry_to_yaml, load_entries
from engine.index.speed import PROMPT, PROMPT_ID, measure_speed

from .helpers import entry, score
from .loopback import Reply, Request, loopback

TODAY = dt.date(2026, 12, 6)
KEY = "sk-or-test-secret"
PATH = "/api/v1/chat/completions"
FIRST_TOKEN_S = 0.30
TOKENS = 24
GAP_S = 0.004


def _sse(obj: object) -> bytes:
    return f"data: {json.dumps(obj)}\n\n".encode()


def openrouter_stream(request: Request, reasoning: bool = False) -> Reply:
    """OpenRouter's streaming reply: keep-alive comments while the provider warms up, then chunks, usage."""
    if request.headers.get("authorization") != f"Bearer {KEY}":
        return Reply.json({"error": {"message": "No auth credentials found", "code": 401}}, 401)
    body = json.loads(request.body)
    pieces: list[tuple[float, bytes]] = [(0.0, b": OPENROUTER PROCESSING\n\n")]
    pieces.append((FIRST_TOKEN_S, b": OPENROUTER PROCESSING\n\n"))
    base = {
        "id": "gen-1",
        "provider": "FastInference",
        "model": body["model"],
        "object": "chat.completion.chunk",
    }
    for n in range(TOKENS):
        key = "reasoning" if reasoning and n < 4 else "content"
        delta = {"role": "assistant", key: f"w{n} "}
        pieces.append((0.0 if n == 0 else GAP_S, _sse({**base, "choices": [{"index": 0, "delta": delta}]})))
    pieces.append((0.0, _sse({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]})))
    usage = {"prompt_tokens": 61, "completion_tokens": TOKENS, "total_tokens": 61 + TOKENS}
    pieces.append((0.0, _sse({**base, "choices": [], "usage": usage})))
    pieces.append((0.0, b"data: [DONE]\n\n"))
    return Reply(200, pieces, content_type="text/event-stream")


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    for e in (
        entry("fast", [score("MMLU-Pro", 50)], openrouter_id="lab/fast-8b"),
        entry("other", [score("MMLU-Pro", 55)], openrouter_id="lab/other-4b"),
        entry("local-only", [score("MMLU-Pro", 45)]),
    ):
        (tmp_path / f"{e.id}.yaml").write_text(entry_to_yaml(e), encoding="utf-8")
    return tmp_path


def _snapshot(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.iterdir())}


def test_medians_of_slow_first_token_and_fast_stream(data_dir):
    with loopback() as srv:
        srv.routes[PATH] = openrouter_stream
        report = measure_speed(data_dir, srv.base + "/api/v1", KEY, TODAY, models=["fast"], runs=3)
        sent = json.loads(srv.requests[0].body)
    assert sent["stream"] is True and sent["model"] == "lab/fast-8b"
    assert sent["messages"][0]["content"] == PROMPT and sent["provider"] == {"sort": "throughput"}
    assert len(srv.requests) == 3
    run = {e.id: e for e in load_entries(data_dir)}["fast"].speed
    assert run is not None and report.measured["fast"] == run
    # The first token waits ~0.3 s; the 23 tokens after it arrive in ~0.1 s (~250 tokens/s when unloaded).
    assert FIRST_TOKEN_S <= run.ttft_s < FIRST_TOKEN_S + 0.5
    assert 60 < run.output_tokens_per_s < (TOKENS - 1) / ((TOKENS - 1) * GAP_S) + 1
    assert run.runs == 3 and run.provider == "FastInference" and run.measured == TODAY
    assert run.prompt_tokens == 61 and run.prompt_chars == len(PROMPT) and run.prompt_id == PROMPT_ID
    assert run.endpoint.startswith("127.0.0.1:") and run.endpoint.endswith("/api/v1")
    files = _snapshot(data_dir)
    assert all(KEY not in text for text in files.values())
    assert "speed:" not in files["other.yaml"]  # only the models asked for


def test_reasoning_chunks_count_as_the_first_token(data_dir):
    with loopback() as srv:
        srv.routes[PATH] = lambda r: openrouter_stream(r, reasoning=True)
        measure_speed(data_dir, srv.base + "/api/v1", KEY, TODAY, models=["fast"], runs=1)
    run = {e.id: e for e in load_entries(data_dir)}["fast"].speed
    assert run.ttft_s < FIRST_TOKEN_S + 0.5


def test_bad_key_fails_the_model_and_keeps_its_file(data_dir):
    before = _snapshot(data_dir)
    with loopback() as srv:
        srv.routes[PATH] = openrouter_stream
        report = measure_speed(data_dir, srv.base + "/api/v1", "wrong-key", TODAY, models=["fast"], runs=3)
        assert len(srv.requests) == 1  # a refused key is not retried
    assert "HTTP 401" in report.failed["fast"] and "wrong-key" not in report.failed["fast"]
    assert _snapshot(data_dir) == before


def test_all_models_by_default_skipping_those_without_an_id(data_dir):
    with loopback() as srv:
        srv.routes[PATH] = openrouter_stream
        report = measure_speed(data_dir, srv.base + "/api/v1", KEY, TODAY, runs=1)
    assert sorted(report.measured) == ["fast", "other"] and report.skipped == ["local-only"]
    assert "FAILED" not in report.summary()


def test_unknown_model_id_is_a_user_error(data_dir):
    with pytest.raises(UserError, match="--models: no model file for nope"):
        measure_speed(data_dir, "http://127.0.0.1:9", KEY, TODAY, models=["nope"])
