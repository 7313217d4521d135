"""The hand-offs of a run: a frozen request, a frozen plan built once, and a runner that only executes it."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest
from pydantic import ValidationError

from engine.core.errors import UserError
from engine.core.results import load_run_file
from engine.core.schema import CheckpointHeader
from engine.model.local_server import LocalServer
from engine.run.checkpoint import Checkpoint, checkpoint_path, fingerprint
from engine.run.plan import RunPlan, Selection, make_plan, select_tasks
from engine.run.request import RunRequest
from engine.run.resume import read_previous
from engine.run.runner import Runner, run_benchmark
from engine.run.sandbox_choice import SandboxChoice
from tests.conftest import ROOT, knowledge_responder
from tests.helpers.scripted_server import ScriptedServer


def _request(url: str | None, out: Path, **kw) -> RunRequest:
    base = dict(model="scripted", endpoint=url, output=out, trials=2, modules=["knowledge"],
                tasks_dir=ROOT / "tasks", backoff_s=0.01, max_retries=1, show_progress=False)
    return RunRequest(**{**base, **kw})


def _plan(request: RunRequest, tasks=None, embedded: LocalServer | None = None) -> RunPlan:
    selected = tasks if tasks is not None else select_tasks(request)
    return asyncio.run(make_plan(request, Selection.of(selected), SandboxChoice(), embedded))


def _run(plan: RunPlan):
    return asyncio.run(Runner(plan).run())


def test_the_request_is_frozen_and_refuses_unknown_fields(tmp_path):
    request = _request("http://127.0.0.1:1/v1", tmp_path / "r.json", modules=["knowledge"])
    assert request.modules == ("knowledge",)  # a list given is kept as a tuple: nothing can append to it
    with pytest.raises(ValidationError, match="frozen"):
        request.trials = 5  # type: ignore[misc]
    with pytest.raises(ValidationError, match="sandbox_candidates"):
        RunRequest(model="m", endpoint=None, output=tmp_path / "r.json", sandbox_candidates=[])  # type: ignore[call-arg]


def test_the_plan_is_frozen_and_carries_what_was_resolved(tmp_path):
    with ScriptedServer(knowledge_responder()) as srv:
        plan = _plan(_request(srv.url, tmp_path / "r.json", temperature=None, concurrency=None))
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.tasks = ()  # type: ignore[misc]
    with pytest.raises(TypeError):
        plan.server_meta["kind"] = "vllm"  # type: ignore[index]
    assert plan.settings.temperature == 0.6 and plan.settings.top_p == 0.95  # the defaults, settled once
    assert plan.settings.concurrency == 1 and plan.client.server_kind == "other"
    assert not hasattr(plan, "request")  # the runner reads only what was resolved
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.client.max_retries = 9  # type: ignore[misc]
    assert plan.client.temperature == plan.settings.temperature and plan.client.server_kind == "other"


def test_a_time_limit_given_as_seconds_is_the_one_limits_object_the_client_gets(tmp_path):
    request = _request("http://127.0.0.1:1/v1", tmp_path / "r.json", limits=30)
    assert request.limits.total_s == 30.0 and request.limits.first_byte_s == 30.0
    with ScriptedServer(knowledge_responder()) as srv:
        plan = _plan(request.model_copy(update={"endpoint": srv.url}))
    assert plan.client.limits == request.limits  # nothing to scale without a warm-up
    assert plan.kept == ()


def test_a_plan_built_for_some_tasks_runs_exactly_those(tmp_path):
    request = _request(None, tmp_path / "r.json", trials=1)  # the knowledge module: four tasks
    chosen = tuple(t for t in select_tasks(request) if t.id.startswith("kn_rail"))
    with ScriptedServer(knowledge_responder()) as srv:
        plan = _plan(request.model_copy(update={"endpoint": srv.url}), chosen)
        run = _run(plan)
    assert [t.task_id for t in run.trials] == [t.id for t in chosen] and len(chosen) == 1
    assert set(run.task_hashes) == {t.id for t in chosen}


def test_run_benchmark_runs_the_tasks_it_is_given_without_selecting_again(tmp_path):
    request = _request(None, tmp_path / "r.json", trials=1, pattern="no_task_has_this_id")
    with pytest.raises(UserError, match="no task matches"):
        select_tasks(request)
    given = select_tasks(request.model_copy(update={"pattern": "kn_rail"}))
    with ScriptedServer(knowledge_responder()) as srv:
        run = run_benchmark(request.model_copy(update={"endpoint": srv.url}), tasks=given)
    assert [t.task_id for t in run.trials] == [t.id for t in given]


def test_resume_reads_the_earlier_attempt_once_when_planning(tmp_path):
    out = tmp_path / "r.json"
    with ScriptedServer(knowledge_responder()) as srv:
        first = run_benchmark(_request(srv.url, out, trials=1))
        plan = _plan(_request(srv.url, out, trials=1, add_trials=1))
        out.unlink()  # the runner works from the plan: the file it came from is not read again
        asked = len(srv.requests)
        resumed = _run(plan)
        assert len(srv.requests) == asked + len(first.trials)  # only the added trials ran
    assert plan.kept == tuple(first.trials) and plan.previous_duration_s == first.provenance.duration_s
    assert resumed.trials[::2] == first.trials and resumed.provenance.duration_s >= first.provenance.duration_s
    assert load_run_file(out) == resumed


def test_a_damaged_result_file_beside_a_checkpoint_costs_only_its_recorded_time(tmp_path):
    out = tmp_path / "r.json"
    with ScriptedServer(knowledge_responder()) as srv:
        first = run_benchmark(_request(srv.url, out, trials=1))
    out.write_text("{not json")
    with pytest.raises(UserError, match=r"r\.json"):
        read_previous(out, resume=True)  # nothing else to resume from: the user must see it
    checkpoint = Checkpoint(checkpoint_path(out))
    header = CheckpointHeader(fingerprint=fingerprint(first.settings), settings=first.settings,
                              started_at=first.provenance.started_at)
    checkpoint.open(header, first.trials)
    checkpoint.close()
    previous = read_previous(out, resume=True)
    assert previous.header == header and previous.trials == tuple(first.trials)
    assert previous.duration_s == 0.0 and previous.source == checkpoint.path


def test_the_embedded_server_is_passed_beside_the_request(tmp_path):
    with ScriptedServer(knowledge_responder()) as srv:
        server = LocalServer(endpoint=srv.url, model="scripted", context=4096, slots=1, threads=2,
                             model_file=Path("/models/small.gguf"), pid=0, version="0.0.1", log=tmp_path / "log")
        plan = _plan(_request(None, tmp_path / "r.json", trials=1, pattern="kn_rail"), embedded=server)
    assert plan.client.endpoint == server.endpoint
    assert {k: plan.server_meta[k] for k in ("embedded", "model_file", "embedded_server", "threads")} == {
        "embedded": True, "model_file": "small.gguf", "embedded_server": "xllamacpp 0.0.1", "threads": 2}
    with pytest.raises(UserError, match="no endpoint"):
        _plan(_request(None, tmp_path / "r.json"))


def test_required_context_is_the_largest_need_of_the_selected_tasks():
    request = _request(None, Path("r.json"), modules=["long_context"])
    tasks = select_tasks(request)
    selection = Selection.of(tasks)
    assert selection.required_context == max(Selection.of([t]).required_context for t in tasks) > 30_000
    assert set(selection.needs) == {t.id for t in tasks}  # each task's need estimated once, kept by id
    assert Selection.of(()).required_context is None
