"""A server that answers the warm-up and then stalls: the run stops after a few timeouts in a row instead of
walking every trial into the same wall, keeps what finished, says how to resume, and a resume after the
server recovers finishes the run (issue #27, item 5)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from engine.core.errors import UserError
from engine.core.results import load_run_file
from engine.model.requestlimits import RequestLimits
from engine.run.checkpoint import Checkpoint, checkpoint_path
from engine.run.request import RunRequest
from engine.run.runner import run_benchmark
from tests.conftest import ROOT
from tests.helpers import hostile_server as hs
from tests.helpers.hostile_server import HostileServer

# A llama.cpp with four slots: four trials at once do not queue, so the first-byte deadline is scaled.
LLAMA_4_SLOTS = {"/props": hs.llama_props(slots=4)}


def recoverable(state: dict[str, bool]) -> hs.Behaviour:
    """Answers the warm-up, then stalls (headers and nothing) while ``state["stalled"]``; answers after."""

    def run(h, body):
        (hs.stall(120) if state["stalled"] else hs.ok_text("Answer: 4"))(h, body)

    return hs.first_then(hs.ok_text("ready"), 1, run)


def sllmb_run(url: str, out) -> tuple[subprocess.CompletedProcess, float]:
    command = [sys.executable, "-m", "engine", "run", "--endpoint", url, "--model", "m", "-q", "--modules",
               "knowledge", "--filter", "kn_rail*", "--trials", "4", "--concurrency", "4", "-o", str(out)]
    started = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
                          text=True, timeout=240)
    return done, time.monotonic() - started


def test_a_server_stalling_after_the_warm_up_stops_the_run_fast_and_a_resume_finishes_it(tmp_path):
    out = tmp_path / "m_raw_results.json"
    state = {"stalled": True}
    with HostileServer(recoverable(state), routes=LLAMA_4_SLOTS) as srv:
        stopped, took = sllmb_run(srv.url, out)
        assert stopped.returncode != 0, stopped.stderr
        # 4 trials at concurrency 4, default limits: the short prompt's scaled deadline (20 s) and the stop,
        # not 300 s of --first-byte-timeout and a retry for each
        assert took < 50, f"the stalled run took {took:.0f} s"
        assert "stopped the run" in stopped.stderr and "re-issue the same command" in stopped.stderr
        assert "Traceback" not in stopped.stderr
        assert not out.exists()
        header, trials = Checkpoint(checkpoint_path(out)).read()
        assert header is not None and len(trials) == 4 and all(t.infra for t in trials)

        state["stalled"] = False
        resumed, _ = sllmb_run(srv.url, out)
    assert resumed.returncode == 0, resumed.stderr
    run = load_run_file(out)
    assert len(run.trials) == 4 and not any(t.infra for t in run.trials)
    assert not checkpoint_path(out).exists()


def request(url: str, out, **kw) -> RunRequest:
    base = dict(model="m", endpoint=url, output=out, trials=4, concurrency=4, modules=["knowledge"],
                pattern="kn_rail*", backoff_s=0.01, show_progress=False, warm_up=True, ready_timeout_s=5,
                limits=RequestLimits(first_byte_floor_s=1.0))
    base.update(kw)
    return RunRequest(**base)


def test_keep_alive_comments_after_the_warm_up_meet_the_scaled_deadline_not_the_ceiling(tmp_path):
    out = tmp_path / "r.json"
    behaviour = hs.first_then(hs.ok_text("ready"), 1, hs.drip(every_s=1.0, seconds=60))
    with HostileServer(behaviour, routes=LLAMA_4_SLOTS) as srv:
        started = time.monotonic()
        with pytest.raises(UserError, match="stopped the run") as stopped:
            run_benchmark(request(srv.url, out))
        took = time.monotonic() - started
    assert took < 30  # the deadline of this short prompt (a 1 s floor), not the 300 s ceiling
    assert "scales to each prompt" in str(stopped.value)
    _, trials = Checkpoint(checkpoint_path(out)).read()
    assert len(trials) == 4 and all(t.infra for t in trials)


def test_a_given_first_byte_timeout_is_the_deadline_as_is(tmp_path):
    out = tmp_path / "r.json"
    fixed = RequestLimits(first_byte_s=1.5, scale_first_byte=False, first_byte_floor_s=0.1)
    behaviour = hs.first_then(hs.ok_text("ready"), 1, hs.stall(30))
    with HostileServer(behaviour, routes=LLAMA_4_SLOTS) as srv:
        started = time.monotonic()
        with pytest.raises(UserError, match=r"no data within 1\.5 s of sending \(--first-byte-timeout\)"):
            run_benchmark(request(srv.url, out, limits=fixed))
    assert 1.4 < time.monotonic() - started < 10
