"""End to end on a real llama.cpp server (llama-cpp-python) with the bundled SmolLM2-135M model.

No endpoint is configured, so ``run`` must start the embedded server itself, run the knowledge module,
stop the server and write a valid result file. The tiny model fails most answers; what is checked here is
that every trial reached the model and was graded, none lost to the harness.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from engine.results import load_run_file
from tests.conftest import ROOT

pytestmark = pytest.mark.llama


def test_run_with_no_endpoint_benchmarks_the_embedded_model(tmp_path):
    out = tmp_path / "smollm2.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("BENCH_")}
    done = subprocess.run(
        [sys.executable, "-m", "engine", "run", "--modules", "knowledge", "--trials", "1", "--output", str(out),
         "-q"],
        cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "embedded llama.cpp server" in done.stderr
    run = load_run_file(out)
    assert run.settings.model == "smollm2-135m-instruct"
    assert run.provenance.served_context == 8192
    assert len(run.trials) == 4
    for trial in run.trials:
        assert not trial.infra, trial.error
        assert trial.grade is not None
        replies = [t for t in trial.turns if t.role == "assistant"]
        assert replies and (replies[0].content or trial.truncation != "none")
    assert "headline pass^1" in done.stdout
    # The cost figures come from the real server's log: every request of the run left its prompt-eval line.
    cost = run.provenance.cost
    assert cost.cache_source == "llama-cpp-python server log" and cost.trials_run == 4
    assert cost.prompt_tokens_evaluated > 0 and cost.prompt_tokens_cached >= 0
    assert 0 < cost.server_wait_s <= cost.wall_s
    assert "waiting for the server" in done.stdout
    # the server was stopped: nothing listens on the recorded address any more
    host, port = run.settings.endpoint_host.split(":")
    with pytest.raises(OSError):
        socket.create_connection((host, int(port)), timeout=2).close()


def test_the_embedded_server_dies_with_a_killed_bench():
    """A bench killed outright (SIGKILL) must not leave its llama.cpp server holding the port."""
    import signal
    import time

    from engine.local_server import free_port

    port = free_port()
    bench = subprocess.Popen([sys.executable, "-m", "engine", "serve", "--port", str(port)], cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
    try:
        line = bench.stdout.readline()  # printed once the server answers
        assert f"127.0.0.1:{port}" in line, line
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
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
