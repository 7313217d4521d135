"""Bad input from the person running the bench: every case exits 2 with a message that names the flag or the
file, before any trial runs; and the files a crash or a second run could spoil stay readable and single."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.cli import main
from engine.core.outputlock import lock_path, output_lock
from engine.core.results import default_output, model_slug
from engine.core.schema import CheckpointHeader, RunSettings, TrialRecord, Turn
from engine.run.checkpoint import Checkpoint, fingerprint
from engine.run.request import RunRequest
from engine.run.runner import run_benchmark
from tests.conftest import ROOT, knowledge_responder
from tests.helpers.scripted_server import Action, ScriptedServer, sequence


def run_cli(capsys, *args: str) -> tuple[int, str]:
    try:
        code = main(["run", *args])
    except SystemExit as exc:  # argparse's own exit for a flag that fails its type
        code = int(exc.code or 0)
    return code, capsys.readouterr().err


BASE = ["--endpoint", "http://127.0.0.1:9/v1", "--model", "m", "-q"]


@pytest.mark.parametrize("args,flag", [
    (["--trials", "1000000000"], "--trials"),
    (["--trials", "0"], "--trials"),
    (["--add-trials", "-1"], "--add-trials"),
    (["--max-tokens", "0"], "--max-tokens"),
    (["--max-tokens", "-5"], "--max-tokens"),
    (["--temperature", "-1"], "--temperature"),
    (["--temperature", "nan"], "--temperature"),
    (["--temperature", "inf"], "--temperature"),
    (["--top-p", "0"], "--top-p"),
    (["--top-k", "-1"], "--top-k"),
    (["--top-k", "1001"], "--top-k"),
    (["--min-p", "1.5"], "--min-p"),
    (["--min-p", "nan"], "--min-p"),
    (["--seed", "-2"], "--seed"),
    (["--concurrency", "0"], "--concurrency"),
    (["--concurrency", "many"], "--concurrency"),
    (["--sandbox-memory", "1"], "--sandbox-memory"),
    (["--context", "10"], "--context"),
    (["--request-timeout", "0"], "--request-timeout"),
    (["--idle-timeout", "nan"], "--idle-timeout"),
    (["--endpoint", "http://[::1/v1"], "--endpoint"),
    (["--endpoint", "http://127.0.0.1:99999/v1"], "--endpoint"),
    (["--endpoint", "ftp://127.0.0.1/v1"], "--endpoint"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_a_flag_out_of_range_exits_2_naming_the_flag_and_the_value(capsys, args, flag):
    code, err = run_cli(capsys, *BASE, *args)
    assert code == 2
    assert f"argument {flag}" in err and args[1].strip("-")[:6] in err
    assert "Traceback" not in err


def test_an_environment_value_out_of_range_exits_2_naming_the_variable(capsys, monkeypatch):
    monkeypatch.setenv("BENCH_TRIALS", "1000000000")
    code, err = run_cli(capsys, *BASE)
    assert code == 2 and "BENCH_TRIALS" in err and "1 to 1000" in err


def test_output_naming_a_folder_is_refused_before_any_trial(capsys, tmp_path):
    with ScriptedServer(knowledge_responder()) as srv:
        code, err = run_cli(capsys, "--endpoint", srv.url, "--model", "m", "-q", "-o", str(tmp_path))
        assert srv.requests == []
    assert code == 2 and "--output" in err and "is a folder" in err


# -- files --------------------------------------------------------------------------------------------


def _request(url: str, out: Path, **kw) -> RunRequest:
    base = dict(model="scripted", endpoint=url, output=out, trials=1, modules=["knowledge"], pattern="kn_rail*",
                backoff_s=0.01, max_retries=0, show_progress=False)
    return RunRequest(**{**base, **kw})


def test_non_utf8_result_checkpoint_and_task_files_get_a_message_naming_the_file(capsys, tmp_path):
    from engine.core.errors import UserError

    out = tmp_path / "r.json"
    out.write_bytes(b'{"schema_version": 1, "settings": "\xff\xfe"}')
    with ScriptedServer(knowledge_responder()) as srv:
        with pytest.raises(UserError, match=r"r\.json: result file is not UTF-8"):
            run_benchmark(_request(srv.url, out))
        out.unlink()
        (tmp_path / "r.partial.jsonl").write_bytes(b'{"kind": "header"\xc3\x28}\n')
        with pytest.raises(UserError, match=r"r\.partial\.jsonl: the checkpoint is not UTF-8.*--no-resume"):
            run_benchmark(_request(srv.url, out))
    bank = tmp_path / "tasks" / "knowledge"
    bank.mkdir(parents=True)
    (bank / "latin1.yaml").write_bytes("id: caf\xe9\n".encode("latin-1"))
    assert main(["tasks", "--tasks-dir", str(tmp_path / "tasks")]) == 2
    assert "latin1.yaml" in capsys.readouterr().err


@pytest.mark.parametrize("version,advice", [(0, "run the benchmark again"), (99, "upgrade small-llm-bench")])
def test_a_result_file_of_an_unknown_schema_version_is_refused_with_what_to_do(capsys, tmp_path, version, advice):
    out = tmp_path / "r.json"
    with ScriptedServer(knowledge_responder()) as srv:
        run_benchmark(_request(srv.url, out))
    data = json.loads(out.read_text())
    data["schema_version"] = version
    out.write_text(json.dumps(data))
    assert main(["score", "--results", str(out)]) == 2
    err = capsys.readouterr().err
    assert "schema_version" in err and str(version) in err and advice in err


def test_a_checkpoint_of_an_unknown_schema_version_is_refused(tmp_path):
    from engine.core.errors import UserError

    settings = RunSettings(model="m", endpoint_host="h", trials=1, profile="full", modules=[])
    header = json.loads(CheckpointHeader(fingerprint="f", settings=settings, started_at="t").model_dump_json())
    path = tmp_path / "r.partial.jsonl"
    path.write_text(json.dumps({**header, "schema_version": 99}) + "\n")
    with pytest.raises(UserError, match="newer than this build"):
        Checkpoint(path).read()


LINE_BREAKS = "\r \x0b \x0c \x1c \x1d \x1e \x85 \u2028 \u2029 \r\n"


def test_a_checkpoint_keeps_one_record_per_newline_whatever_the_text_holds(tmp_path):
    settings = RunSettings(model="m", endpoint_host="h", trials=2, profile="full", modules=[])
    header = CheckpointHeader(fingerprint="f", settings=settings, started_at="t")
    records = [
        TrialRecord(task_id="kn_x", task_hash="h", module="knowledge", trial=i,
                    turns=[Turn(role="assistant", content=f"every break{LINE_BREAKS}in one reply {i}")])
        for i in range(2)
    ]
    checkpoint = Checkpoint(tmp_path / "r.partial.jsonl")
    checkpoint.open(header, records[:1])
    checkpoint.append(records[1])
    checkpoint.close()
    assert checkpoint.read() == (header, records)
    with checkpoint.path.open("a", encoding="utf-8") as fh:  # a crash cut the next line mid-write
        fh.write(records[0].model_dump_json()[:40])
    assert checkpoint.read() == (header, records)


def test_a_run_whose_replies_hold_unicode_line_breaks_resumes_after_a_crash(tmp_path):
    out = tmp_path / "r.json"
    text = f"Working{LINE_BREAKS}it out.\nAnswer: 0"
    with ScriptedServer(sequence([Action(text=text)])) as srv:
        first = run_benchmark(_request(srv.url, out, trials=2))
        # As if killed before the result file was written: only the checkpoint is left.
        settings = first.settings
        header = CheckpointHeader(fingerprint=fingerprint(settings), settings=settings,
                                  started_at=first.provenance.started_at)
        checkpoint = Checkpoint(tmp_path / "r.partial.jsonl")
        checkpoint.open(header, first.trials[:1])
        checkpoint.close()
        out.unlink()
        asked = len(srv.requests)
        resumed = run_benchmark(_request(srv.url, out, trials=2))
        assert len(srv.requests) == asked + 1  # only the missing trial ran again
    assert resumed.trials[0] == first.trials[0] and LINE_BREAKS in resumed.trials[0].turns[-1].content


# -- the output lock ------------------------------------------------------------------------------------


HOLD = """
import sys, time
from pathlib import Path
from engine.core.outputlock import output_lock
with output_lock(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(60)
"""


def test_a_second_run_on_the_same_output_says_who_holds_it_and_exits_2(capsys, tmp_path):
    out = tmp_path / "r.json"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with ScriptedServer(knowledge_responder()) as srv:
            code, err = run_cli(capsys, "--endpoint", srv.url, "--model", "m", "-q", "-o", str(out))
            assert srv.requests == []
        assert code == 2 and "in use by another run" in err and f"pid {holder.pid}" in err
    finally:
        holder.kill()
        holder.wait()
    # The kernel dropped the dead holder's lock: the next run takes it.
    deadline = time.monotonic() + 5
    while True:
        try:
            with output_lock(out):
                break
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    assert not lock_path(out).exists()


# -- model names in file names --------------------------------------------------------------------------


def test_model_names_stay_readable_and_distinct_in_file_names():
    assert default_output("модель-7b").name == "модель-7b_raw_results.json"
    assert model_slug("qwen3:8b") == "qwen3_8b"
    symbols = {model_slug(n) for n in ("???", "!!!", "…")}
    assert len(symbols) == 3 and all(s.startswith("model-") for s in symbols)
