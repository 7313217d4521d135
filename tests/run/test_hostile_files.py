"""The run's own files against what a machine or a server does to them: two names for one output, numbers JSON
cannot hold, a full disk. Real processes, a real loopback server, a real size-limited tmpfs (bubblewrap)."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.core.errors import UserError
from engine.core.results import load_run_file
from engine.publish.board import board_from_dir
from engine.run.request import RunRequest
from engine.run.runner import run_benchmark
from tests.conftest import ROOT, knowledge_responder
from tests.helpers.scripted_server import Action, ScriptedServer
from tests.run.test_runner import cli

RUN = ["run", "--model", "scripted", "--modules", "knowledge", "--trials", "2", "-q", "--no-warm-up"]


def _strict_json(text: str) -> object:
    def refuse(constant: str) -> object:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_output_with_and_without_json_is_one_file_with_one_lock(tmp_path):
    with ScriptedServer(knowledge_responder(delay_s=1.5)) as srv:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        env.pop("BENCH_ENDPOINT", None)
        first = subprocess.Popen([sys.executable, "-m", "engine", *RUN, "--endpoint", srv.url,
                                  "--output", str(tmp_path / "r")], cwd=ROOT, env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 60
            while not (tmp_path / "r.partial.jsonl").exists() and time.monotonic() < deadline:
                time.sleep(0.02)
            assert (tmp_path / "r.json.lock").exists()
            second = cli(*RUN, "--endpoint", srv.url, "--output", str(tmp_path / "r.json"))
        finally:
            out, err = first.communicate(timeout=120)
    assert second.returncode == 2 and "in use by another run" in second.stderr
    assert first.returncode == 0, err
    assert not (tmp_path / "r").exists() and len(load_run_file(tmp_path / "r.json").trials) == 8
    assert RunRequest(model="m", endpoint=None, output=Path("a/b")).output == Path("a/b.json")


def _infinite_timings(body: dict) -> Action:
    answer = knowledge_responder()(body)
    answer.timings = {"predicted_per_second": math.inf, "prompt_per_second": math.nan, "prompt_ms": 12.5,
                      "predicted_ms": -math.inf}
    return answer


def test_timings_of_infinity_or_nan_are_not_reported_and_the_file_is_json(tmp_path):
    out = tmp_path / "results" / "scripted_raw_results.json"
    with ScriptedServer(_infinite_timings) as srv:
        run = run_benchmark(RunRequest(model="scripted", endpoint=srv.url, output=out, trials=1,
                                       modules=["knowledge"], show_progress=False))
    data = _strict_json(out.read_text(encoding="utf-8"))  # Infinity or NaN in it would raise here
    turns = [t for trial in data["trials"] for t in trial["turns"] if t["role"] == "assistant"]
    assert turns and all(t["timings"]["prompt_tps"] is None and t["timings"]["prompt_ms"] == 12.5 for t in turns)
    # The decode rate is the bench's own measure when the server's is not a number.
    assert all(t["timings"]["decode_tps"] is None or math.isfinite(t["timings"]["decode_tps"]) for t in turns)
    assert all(t.passed for t in run.trials)
    reference = Path(__file__).resolve().parents[2] / "results" / "reference" / "setting.yaml"
    (row,) = board_from_dir(out.parent, None, setting_path=reference).rows
    assert row.decode_tps is None or math.isfinite(row.decode_tps)


def test_a_result_file_holding_infinity_is_refused_naming_the_field(tmp_path):
    out = tmp_path / "r.json"
    with ScriptedServer(knowledge_responder()) as srv:
        run_benchmark(RunRequest(model="scripted", endpoint=srv.url, output=out, trials=1, pattern="kn_rail*",
                                 modules=["knowledge"], show_progress=False))
    data = json.loads(out.read_text())
    data["trials"][0]["turns"][-1]["timings"]["decode_tps"] = math.inf
    out.write_text(json.dumps(data))  # what an earlier build wrote: Infinity
    with pytest.raises(UserError, match=r"r\.json: not a valid result file \(trials\.0\.turns\.\d+\.timings"
                                        r"\.decode_tps: Input should be a finite number"):
        load_run_file(out)


def test_a_number_json_cannot_hold_is_never_written(tmp_path):
    from engine.core.results import write_run_file

    out = tmp_path / "r.json"
    with ScriptedServer(knowledge_responder()) as srv:
        run = run_benchmark(RunRequest(model="scripted", endpoint=srv.url, output=out, trials=1,
                                       pattern="kn_rail*", modules=["knowledge"], show_progress=False))
    # A rate set on a record after it was validated (as the client sets its own), never checked again.
    trial = run.trials[0]
    turns = list(trial.turns)
    last = turns[-1]
    turns[-1] = last.model_copy(update={"timings": last.timings.model_copy(update={"decode_tps": math.inf})})
    bad = run.model_copy(update={"trials": [trial.model_copy(update={"turns": turns}), *run.trials[1:]]})
    where = rf"trials\.0\.turns\.{len(turns) - 1}\.timings\.decode_tps = inf"
    with pytest.raises(UserError, match=rf"r2\.json: not written: {where} is not a number JSON can hold"):
        write_run_file(tmp_path / "r2.json", bad)
    assert not (tmp_path / "r2.json").exists() and [p.name for p in tmp_path.iterdir()] == ["r.json"]


# ----------------------------------------------------------------------------------------------------------
# A full disk: the output's folder is a small tmpfs inside bubblewrap


def _long_answers(body: dict) -> Action:
    answer = knowledge_responder()(body)
    answer.text = "Working it out carefully. " * 1200 + answer.text  # cut at the task's token budget
    return answer


def _in_small_disk(tmp_path: Path, size: int, script: str) -> subprocess.CompletedProcess:
    """Run ``script`` (sh) with ``tmp_path/disk`` a tmpfs of ``size`` bytes; the rest of the machine as is."""
    if shutil.which("bwrap") is None:
        pytest.fail("bubblewrap is missing: apt-get install bubblewrap (.ci/install does)")
    disk = tmp_path / "disk"
    disk.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DISK": str(disk)}
    env.pop("BENCH_ENDPOINT", None)
    return subprocess.run(["bwrap", "--dev-bind", "/", "/", "--size", str(size), "--tmpfs", str(disk),
                           "--chdir", str(ROOT), "sh", "-c", script], env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("where", ["final_write", "checkpoint"])
def test_a_full_disk_is_a_clear_message_exit_2_and_the_checkpoint_is_kept(tmp_path, where):
    with ScriptedServer(_long_answers) as srv:
        # How big the checkpoint of this run gets, measured on a disk with room.
        sized = tmp_path / "sized" / "r.json"
        run_benchmark(RunRequest(model="scripted", endpoint=srv.url, output=sized, trials=2,
                                 modules=["knowledge"], show_progress=False))
        result = sized.stat().st_size
        assert result > 30_000
        # Room for the checkpoint but not for the result file beside it; or for a few trials only.
        size = int(result * 1.4) if where == "final_write" else result // 3
        run = " ".join([sys.executable, "-m", "engine", *RUN, "--endpoint", srv.url])
        script = (f'{run} --output "$DISK/r.json"; echo "rc=$?"; '
                  'cp "$DISK/r.partial.jsonl" "$DISK/../kept.jsonl"; ls "$DISK"')
        done = _in_small_disk(tmp_path, size, script)
        assert "rc=2" in done.stdout, done.stdout + done.stderr
        assert "Traceback" not in done.stderr and "No space left on device" in done.stderr
        if where == "final_write":
            assert "r.json: cannot write it" in done.stderr and "Every trial is kept in" in done.stderr
            assert "r.json\n" not in done.stdout  # the result file was not written, nor half of it
        else:
            assert "cannot add a trial to the checkpoint" in done.stderr
        assert ".tmp" not in done.stdout  # no temporary file left behind
        kept = (tmp_path / "kept.jsonl").read_text(encoding="utf-8").split("\n")
        trials = [line for line in kept[1:] if line.strip()]
        assert (len(trials) >= 8) if where == "final_write" else (1 <= len(trials) < 8)
        # With room again, the same command resumes from what was kept and runs only what is missing.
        (tmp_path / "room").mkdir()
        (tmp_path / "kept.jsonl").rename(tmp_path / "room" / "r.partial.jsonl")
        asked = len(srv.requests)
        again = cli(*RUN, "--endpoint", srv.url, "--output", str(tmp_path / "room" / "r.json"))
        assert again.returncode == 0, again.stderr
        ran_again = len(srv.requests) - asked
    complete = [t for t in trials if t.endswith("}")]
    assert ran_again <= 8 - len(complete) + 1
    assert len(load_run_file(tmp_path / "room" / "r.json").trials) == 8
