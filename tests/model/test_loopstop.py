"""--stop-loops: the rule that ends a streamed reply once it is certainly degenerate, the client that ends
the stream on a real loopback server, and a run that records the cut reply as the token limit would have."""

from __future__ import annotations

import asyncio
import time

from engine.core.results import load_run_file
from engine.core.schema import Turn
from engine.model.client import ChatClient, ClientSettings
from engine.model.loopstop import MIN_SPAN, LoopWatch, certainly_degenerate, cycle_span, next_check
from engine.model.textcheck import truncation_class
from engine.run.runner import run_benchmark
from tests.helpers.fake_servers import FakeLlamaCpp, Say
from tests.model.servers.conftest import run_request

LOOP = "The answer is in the ledger. " * 200
PROSE = " ".join(f"Step {i}: carry the {i % 7} and add {i * 3} to the running total of the ledger."
                 for i in range(120))


def test_a_long_exact_cycle_is_certainly_degenerate():
    assert cycle_span(LOOP) == (29, len(LOOP))
    assert certainly_degenerate(LOOP) and truncation_class(LOOP) == "degenerate"
    assert certainly_degenerate("Answer: " + "}" * (MIN_SPAN + 10))


def test_real_answers_that_repeat_a_little_are_not():
    assert not certainly_degenerate(PROSE)
    table = "| a | b |\n|---|---|\n" + "".join(f"| {i} | {i * i} |\n" for i in range(200))
    assert not certainly_degenerate(table)
    rule = "Results\n" + "=" * 80 + "\nAll good."
    assert not certainly_degenerate(rule)
    # a cycle repeated often but short of the span, and a long span of too few repeats
    assert not certainly_degenerate("ha " * 100)
    paragraph = PROSE[:600]
    assert not certainly_degenerate(paragraph * 3)


def test_the_watch_checks_only_every_so_often():
    watch = LoopWatch()
    assert not watch.due(10) and watch.due(300) and not watch.due(400)


def test_the_checks_of_a_long_stream_grow_with_it_so_their_cost_stays_linear():
    """A check reads the whole text; at a fixed step a 250K-character stream was checked ~1,000 times over
    a growing text. Growing steps check it a few dozen times, and a loop is still caught within an eighth."""
    watch, checks = LoopWatch(), []
    for size in range(8, 250_001, 8):
        if watch.due(size):
            checks.append(size)
    assert checks[:8] == [256 * i for i in range(1, 9)]  # short texts: every 256 characters, as before
    assert len(checks) < 60
    assert all(b - a <= max(256, a // 8) + 8 for a, b in zip(checks, checks[1:], strict=False))
    assert next_check(100_000) == 112_500


def test_a_long_stream_of_hostile_text_is_watched_in_bounded_time():
    """Guard with a generous bound (the figure: benchmarks/bench_reply_parsing.py): 250K characters of
    unclosed think tags and of prose, fed in 8-character deltas as the client feeds them."""
    for text in (("<think>x " * 30_000)[:250_000], (PROSE * 30)[:250_000]):
        watch, parts, started = LoopWatch(), [], time.perf_counter()
        for at in range(0, len(text), 8):
            parts.append(text[at:at + 8])
            if watch.due(at + 8) and watch.looping("".join(parts), ""):
                break
        assert time.perf_counter() - started < 10.0


def _looping_server():
    def script(body):
        prompt = body["messages"][-1]["content"]
        if "ready" in prompt:
            return Say(text="ready")
        return Say(text=LOOP, finish_reason="length", completion_tokens=1200)

    return FakeLlamaCpp(script)


def test_the_client_ends_a_looping_stream_and_reports_the_token_limit():
    async def ask(stop: bool):
        with _looping_server() as srv:
            settings = ClientSettings(endpoint=srv.url, model=srv.model, stop_loops=stop, server_kind="llama.cpp")
            async with ChatClient(settings) as client:
                reply = await client.chat([Turn(role="user", content="go")], max_tokens=1200)
                return reply, client.observed().loops_stopped

    full, none_stopped = asyncio.run(ask(False))
    cut, stopped = asyncio.run(ask(True))
    assert full.content == LOOP.strip() and none_stopped == 0
    assert stopped == 1 and cut.finish_reason == "length"
    assert MIN_SPAN <= len(cut.content) < len(LOOP) // 2
    assert truncation_class(cut.content) == "degenerate"


def test_a_run_with_stop_loops_records_it_and_grades_the_cut_reply_as_degenerate(tmp_path):
    with _looping_server() as srv:
        run_benchmark(run_request(srv, tmp_path / "r.json", stop_loops=True))
    run = load_run_file(tmp_path / "r.json")
    assert run.settings.stop_loops is True
    assert run.provenance.cost.replies_stopped_as_loops == len(run.trials) > 0
    for trial in run.trials:
        assert trial.truncation == "degenerate" and trial.grade.hard_gate == "degenerate"


def test_the_board_flags_a_row_that_used_stop_loops():
    from engine.core.reference_setting import load_reference_setting
    from engine.publish.reference import setting_flags
    from tests.conftest import ROOT

    ref = load_reference_setting(ROOT / "results" / "reference" / "setting.yaml")
    plain = load_run_file(ROOT / "results" / "reference" / "smollm2-135m-instruct_raw_results.json")
    cut = plain.model_copy(update={"settings": plain.settings.model_copy(update={"stop_loops": True})})
    assert [f for f in setting_flags(plain, ref) if f.field == "stop_loops"] == []
    (flag,) = [f for f in setting_flags(cut, ref) if f.field == "stop_loops"]
    assert (flag.value, flag.reference) == ("on", "off")
