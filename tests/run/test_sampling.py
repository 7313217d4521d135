"""Which sampling a run sends (the card's, the bench's, or values by hand), what the result file records,
and the machine and server facts beside it: whole runs against a loopback llama.cpp-like server."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from engine.core.errors import UserError
from engine.core.models_file import CardSampling, ModelsFile
from engine.run.plan import Selection, make_plan, select_tasks
from engine.run.request import RunRequest
from engine.run.runner import Runner
from engine.run.sampling import resolve_sampling
from engine.run.sandbox_choice import SandboxChoice
from tests.conftest import ROOT, knowledge_responder
from tests.helpers.scripted_server import ScriptedServer

CARD = CardSampling(temperature=0.7, top_p=0.8, top_k=20, min_p=0.0, source="https://huggingface.co/Org/Model")
# What a llama.cpp server's /props says about its window, slots and model file.
PROPS = {"default_generation_settings": {"n_ctx": 16384, "params": {}}, "total_slots": 1,
         "model_ftype": "Q4_K_M", "build_info": "b6000-abc", "model_path": "/models/m.Q4_K_M.gguf"}


def _request(url: str, out: Path, **kw) -> RunRequest:
    base = dict(model="scripted", endpoint=url, output=out, trials=1, modules=["knowledge"], pattern="kn_rail*",
                tasks_dir=ROOT / "tasks", backoff_s=0.01, max_retries=1, show_progress=False)
    return RunRequest(**{**base, **kw})


def _run(request: RunRequest, props: dict | None = PROPS):
    with ScriptedServer(knowledge_responder(), props=props) as srv:
        request = request.model_copy(update={"endpoint": srv.url})
        plan = asyncio.run(make_plan(request, Selection.of(select_tasks(request)), SandboxChoice()))
        run = asyncio.run(Runner(plan).run())
    chats = [r for r in srv.requests if "messages" in r]
    return run, chats


def test_the_cards_sampling_is_sent_and_recorded_by_default(tmp_path: Path) -> None:
    run, chats = _run(_request("", tmp_path / "r.json", card_sampling=CARD))
    assert chats and all((c["temperature"], c["top_p"], c["top_k"], c["min_p"]) == (0.7, 0.8, 20, 0.0) for c in chats)
    s = run.settings
    assert (s.sampling_mode, s.temperature, s.top_p, s.top_k, s.min_p) == ("card", 0.7, 0.8, 20, 0.0)
    assert s.sampling_source == "https://huggingface.co/Org/Model"
    assert run.provenance.server["sampler"]["top_k"] == 20  # what was sent, as the file has always said


def test_bench_mode_sends_the_fixed_sampling_with_top_k_and_min_p_neutral(tmp_path: Path) -> None:
    run, chats = _run(_request("", tmp_path / "r.json", card_sampling=CARD, sampling="bench"))
    # llama.cpp's neutral values: top-k and min-p off.
    assert all((c["temperature"], c["top_p"], c["top_k"], c["min_p"]) == (0.6, 0.95, 0, 0.0) for c in chats)
    s = run.settings
    assert (s.sampling_mode, s.top_k, s.min_p, s.sampling_source) == ("bench", None, None, None)


def test_top_k_and_min_p_by_hand_are_sent_and_recorded_as_custom(tmp_path: Path) -> None:
    run, chats = _run(_request("", tmp_path / "r.json", card_sampling=CARD, top_k=40, min_p=0.05))
    # The card is set aside whole: what was not given by hand is the bench's, not the card's.
    assert chats and all((c["temperature"], c["top_p"], c["top_k"], c["min_p"]) == (0.6, 0.95, 40, 0.05)
                         for c in chats)
    s = run.settings
    assert (s.sampling_mode, s.temperature, s.top_p, s.top_k, s.min_p, s.sampling_source) == (
        "custom", 0.6, 0.95, 40, 0.05, None)
    assert run.provenance.server["sampler"]["top_k"] == 40 and run.provenance.server["sampler"]["min_p"] == 0.05


def test_the_machine_and_the_server_are_recorded(tmp_path: Path) -> None:
    run, _ = _run(_request("", tmp_path / "r.json"))
    machine, server = run.provenance.machine, run.provenance.server
    assert machine is not None and machine.os and machine.cpu_cores
    assert (server["kind"], server["version"], server["quantization"], server["served_context"],
            server["slots"]) == ("llama.cpp", "b6000-abc", "Q4_K_M", 16384, 1)


def test_a_row_without_a_card_runs_in_bench_mode_and_by_hand_is_custom(tmp_path: Path) -> None:
    assert resolve_sampling(_request("x", tmp_path / "r.json")).mode == "bench"
    custom = resolve_sampling(_request("x", tmp_path / "r.json", card_sampling=CARD, temperature=0.2))
    assert (custom.mode, custom.temperature, custom.top_p, custom.top_k) == ("custom", 0.2, 0.95, None)


def test_impossible_asks_are_refused_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="has no sampling from its model card.*--sampling bench"):
        resolve_sampling(_request("x", tmp_path / "r.json", sampling="card"))
    with pytest.raises(UserError, match="give one of them"):
        resolve_sampling(_request("x", tmp_path / "r.json", card_sampling=CARD, sampling="card", top_p=0.5))
    with pytest.raises(UserError, match="--top-k/--min-p.*give one of them"):
        resolve_sampling(_request("x", tmp_path / "r.json", sampling="bench", min_p=0.1))


def test_a_resume_in_another_mode_is_refused_naming_the_mode(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    _run(_request("", out, card_sampling=CARD))
    with pytest.raises(UserError, match="it sampled in card mode, this run in bench: give --sampling card"):
        _run(_request("", out, card_sampling=CARD, sampling="bench", trials=2))


def test_a_models_yaml_row_may_carry_its_cards_sampling() -> None:
    base = {"default": "m", "models": [{"name": "m", "sampling": {"temperature": 0.7, "top_p": 0.8,
                                                                    "source": "https://example.org/card"}}]}
    row = ModelsFile.model_validate(base).models[0]
    assert row.sampling is not None and row.sampling.top_k is None
    for bad in ({"temperature": 0.7, "top_p": 0.8, "source": "http://example.org"},  # https only
                {"temperature": 3, "top_p": 0.8, "source": "https://example.org"},
                {"temperature": 0.7, "source": "https://example.org"},  # top_p is required
                {"temperature": 0.7, "top_p": 0.8, "top_k": 40, "source": "https://e.org", "typical_p": 1}):
        with pytest.raises(ValueError):
            ModelsFile.model_validate({**base, "models": [{"name": "m", "sampling": bad}]})
