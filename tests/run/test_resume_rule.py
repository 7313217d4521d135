"""The one rule for what a resume may change: a run adds to its file and never drops or mixes what it holds.
Each case runs the real runner against the loopback scripted server, or the real command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.core.errors import UserError
from engine.core.results import load_run_file
from engine.core.schema import CheckpointHeader, Grade, RunSettings, TrialRecord
from engine.run.checkpoint import Checkpoint, checkpoint_path, fingerprint
from engine.run.plan import select_tasks
from engine.run.request import RunRequest
from engine.run.resume_rule import MATCH_ONCE_CODE_RAN, MAY_CHANGE, MAY_GROW, MUST_MATCH, resume_problems
from engine.run.runner import run_benchmark
from tests.conftest import knowledge_responder
from tests.helpers.scripted_server import ScriptedServer
from tests.run.test_runner import cli


def request(url: str, out: Path, **kw) -> RunRequest:
    base = dict(model="scripted", endpoint=url, output=out, trials=2, modules=["knowledge"],
                backoff_s=0.01, max_retries=1, show_progress=False)
    return RunRequest(**{**base, **kw})


def _keys(path: Path) -> list[tuple[str, int]]:
    return sorted((t.task_id, t.trial) for t in load_run_file(path).trials)


def test_every_setting_has_its_place_in_the_rule():
    named = [*MUST_MATCH, *MAY_CHANGE, *MAY_GROW, *MATCH_ONCE_CODE_RAN]
    assert len(named) == len(set(named)) and set(named) == set(RunSettings.model_fields)


def test_a_narrower_reissue_of_a_finished_run_is_refused_and_drops_nothing(tmp_path):
    out = tmp_path / "r.json"
    with ScriptedServer(knowledge_responder()) as srv:
        run_benchmark(request(srv.url, out))
        before, asked = out.read_bytes(), len(srv.requests)
        assert len(_keys(out)) == 8
        with pytest.raises(UserError, match=r"leaves out 3 task\(s\).*kn_bakery_batches.*--modules knowledge"):
            run_benchmark(request(srv.url, out, pattern="kn_rail*"))
        with pytest.raises(UserError, match="leaves out"):
            run_benchmark(request(srv.url, out, modules=["tools"]))
        with pytest.raises(UserError, match=r"trials: 2 then, 1 now"):
            run_benchmark(request(srv.url, out, trials=1))
        assert out.read_bytes() == before and len(srv.requests) == asked
        assert not checkpoint_path(out).exists()


def test_a_narrower_resume_of_an_interrupted_run_keeps_its_checkpoint(tmp_path):
    out = tmp_path / "r.json"
    with ScriptedServer(knowledge_responder()) as srv:
        run_benchmark(request(srv.url, out))
    # An interrupted run: the checkpoint holds every trial, no result file yet.
    run = load_run_file(out)
    checkpoint = Checkpoint(checkpoint_path(out))
    checkpoint.open(CheckpointHeader(fingerprint=fingerprint(run.settings), settings=run.settings,
                                     started_at=run.provenance.started_at), run.trials)
    checkpoint.close()
    out.unlink()
    held = checkpoint.path.read_bytes()
    with ScriptedServer(knowledge_responder()) as srv:
        with pytest.raises(UserError, match=r"r\.partial\.jsonl cannot be resumed.*leaves out 3 task"):
            run_benchmark(request(srv.url, out, pattern="kn_rail*"))
        assert checkpoint.path.read_bytes() == held and not out.exists()
        # The same selection (or a wider one) finishes it from the checkpoint without a model call.
        run_benchmark(request(srv.url, out))
        assert srv.requests == []
    assert _keys(out) == sorted((t.task_id, t.trial) for t in run.trials)


def test_a_wider_selection_adds_to_the_file(tmp_path):
    out = tmp_path / "r.json"
    with ScriptedServer(knowledge_responder()) as srv:
        run_benchmark(request(srv.url, out, pattern="kn_rail*"))
        first = load_run_file(out)
        run_benchmark(request(srv.url, out))
    wider = load_run_file(out)
    assert len(wider.trials) == 8
    assert [t for t in wider.trials if t.task_id == "kn_rail_pass"] == first.trials
    assert wider.settings.filter is None


def test_no_resume_keeps_both_files_as_backups(tmp_path):
    out = tmp_path / "r.json"
    with ScriptedServer(knowledge_responder()) as srv:
        run_benchmark(request(srv.url, out))
        before = out.read_bytes()
        checkpoint_path(out).write_text("an interrupted attempt\n")
        run_benchmark(request(srv.url, out, pattern="kn_rail*", resume=False))
    assert (tmp_path / "r.json.bak").read_bytes() == before
    assert (tmp_path / "r.partial.jsonl.bak").read_text() == "an interrupted attempt\n"
    assert _keys(out) == [("kn_rail_pass", 0), ("kn_rail_pass", 1)]


@pytest.mark.parametrize("change,field", [
    ({"top_p": 0.5}, "top_p"),
    ({"stop_loops": True}, "stop_loops"),
    ({"temperature": 0.7}, "temperature"),
    ({"seed": 5}, "seed"),
    ({"max_tokens": 512}, "max_tokens"),
    ({"thinking": False}, "thinking"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_a_setting_that_decides_what_the_model_saw_is_refused(tmp_path, change, field):
    out = tmp_path / "r.json"
    with ScriptedServer(knowledge_responder()) as srv:
        run_benchmark(request(srv.url, out, trials=1, pattern="kn_rail*"))
        before = out.read_bytes()
        with pytest.raises(UserError, match=rf"{field}: .* then, .* now"):
            run_benchmark(request(srv.url, out, trials=1, pattern="kn_rail*", **change))
    assert out.read_bytes() == before


def test_what_a_resume_may_change(tmp_path):
    out = tmp_path / "r.json"
    with ScriptedServer(knowledge_responder()) as srv:
        run_benchmark(request(srv.url, out, trials=1, pattern="kn_rail*", top_p=0.8))
        run = run_benchmark(request(srv.url, out, trials=2, pattern="kn_rail*", top_p=0.8, concurrency=3,
                                    early_stop=True))
    assert run.settings.top_p == 0.8 and run.settings.concurrency == 3 and len(run.trials) == 2


def test_top_p_is_recorded_and_an_old_file_without_it_resumes_at_the_default(tmp_path, capsys):
    out = tmp_path / "r.json"
    with ScriptedServer(knowledge_responder()) as srv:
        run = run_benchmark(request(srv.url, out, trials=1, pattern="kn_rail*"))
        assert run.settings.top_p == 0.95
        assert srv.requests and all(r["top_p"] == 0.95 for r in srv.requests)
        # A file from before top_p was recorded.
        data = json.loads(out.read_text())
        del data["settings"]["top_p"]
        out.write_text(json.dumps(data))
        with pytest.raises(UserError, match=r"top_p: 0\.95 then, 0\.5 now"):
            run_benchmark(request(srv.url, out, trials=1, pattern="kn_rail*", top_p=0.5))
        again = run_benchmark(request(srv.url, out, trials=2, pattern="kn_rail*"))
    assert again.settings.top_p == 0.95 and len(again.trials) == 2
    assert "does not record top_p" in capsys.readouterr().err


def _code_trial(task_id: str) -> TrialRecord:
    return TrialRecord(task_id=task_id, task_hash="h", module="code", trial=0,
                       grade=Grade(score=1.0, passed=True))


def test_the_sandbox_must_match_once_code_ran_in_it():
    old = RunSettings(model="m", endpoint_host="h", trials=1, profile="full", modules=[], top_p=0.95,
                      sandbox_backend="docker (confined)")
    tasks = select_tasks(RunRequest(model="m", endpoint=None, output=Path("x.json"), modules=["code"]))
    held = [_code_trial(tasks[0].id)]
    moved = old.model_copy(update={"sandbox_backend": "bubblewrap (confined)"})
    assert any("sandbox_backend" in p for p in resume_problems(old, moved, held, tasks, dict))
    # No code graded yet (or only infrastructure errors): the backend may be chosen now.
    assert resume_problems(old, moved, [], tasks, dict) == []
    infra = [held[0].model_copy(update={"grade": None, "infra": True})]
    assert resume_problems(old, moved, infra, tasks, dict) == []


def test_the_command_line_says_what_to_do_and_exits_2(tmp_path):
    out = tmp_path / "r.json"
    with ScriptedServer(knowledge_responder()) as srv:
        args = ["run", "--endpoint", srv.url, "--model", "scripted", "--modules", "knowledge", "--trials", "2",
                "-q", "--no-warm-up", "--output", str(out)]
        assert cli(*args).returncode == 0
        before = out.read_bytes()
        done = cli(*args, "--filter", "kn_rail*")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "leaves out 3 task(s)" in done.stderr and "--no-resume" in done.stderr
    assert out.read_bytes() == before
