"""A sweep configuration's sampling mode against a real loopback scripted server: with no sampling keys it
runs the card's sampling where the model's models.yaml row has one (as ``sllmb run`` does), ``sampling: bench``
the bench's; each file records its mode and the report names it. A card asked of a row without one is refused
before any request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import main
from engine.core.results import load_run_file
from tests.commands.test_sweep import _plan, _responder
from tests.helpers.scripted_server import ScriptedServer

CARD = "https://example.org/scripted-card"


def _models_yaml(folder: Path, sampling: dict | None) -> None:
    """A models.yaml in the working folder (the one the bench reads first) with a row for the plan's model."""
    row = {"name": "scripted", "card_url": CARD, **({"sampling": sampling} if sampling else {})}
    (folder / "models.yaml").write_text(json.dumps({"default": "scripted", "models": [row]}), encoding="utf-8")


def test_a_configuration_without_sampling_keys_runs_the_cards_and_bench_when_asked(tmp_path: Path, capsys,
                                                                                  monkeypatch) -> None:
    _models_yaml(tmp_path, {"temperature": 0.3, "top_p": 0.8, "top_k": 20, "source": CARD})
    monkeypatch.chdir(tmp_path)
    with ScriptedServer(_responder) as srv:
        plan = _plan(tmp_path, srv.url, configurations=[
            {"name": "card", "endpoint": srv.url},
            {"name": "bench", "endpoint": srv.url, "sampling": "bench"},
            {"name": "served", "endpoint": srv.url, "served_model": "scripted-q8"},
        ])
        assert main(["sweep", str(plan), "--no-warm-up", "--quiet"]) == 0
        sent = [r for r in srv.requests if "messages" in r]
    out = tmp_path / "out"
    card, bench, served = (load_run_file(out / f"{n}_raw_results.json").settings for n in ("card", "bench", "served"))
    assert (card.sampling_mode, card.temperature, card.top_p, card.top_k, card.sampling_source) == (
        "card", 0.3, 0.8, 20, CARD)
    assert (bench.sampling_mode, bench.temperature, bench.top_p, bench.top_k) == ("bench", 0.6, 0.95, None)
    # The server's own name for the model has no row: the plan's model's card applies.
    assert (served.model, served.sampling_mode, served.temperature) == ("scripted-q8", "card", 0.3)
    assert {(b["temperature"], b.get("top_k")) for b in sent} == {(0.3, 20), (0.6, None)}
    report = json.loads((out / "sweep_report.json").read_text(encoding="utf-8"))
    assert [c["settings"]["sampling_mode"] for c in report["configurations"]] == ["card", "bench", "card"]
    assert "| card | scripted | " in (out / "sweep_report.md").read_text(encoding="utf-8")
    assert "sampling_mode" in (out / "sweep_report.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("sampling", [None, {}])
def test_a_card_the_row_lacks_is_refused_before_any_request(tmp_path: Path, capsys, monkeypatch, sampling) -> None:
    if sampling is not None:
        _models_yaml(tmp_path, None)  # a row without sampling; else no row at all (the repository's file)
    monkeypatch.chdir(tmp_path)
    with ScriptedServer(_responder) as srv:
        plan = _plan(tmp_path, srv.url, configurations=[
            {"name": "bench", "endpoint": srv.url},
            {"name": "card", "endpoint": srv.url, "sampling": "card"},
        ])
        assert main(["sweep", str(plan), "--no-warm-up", "--quiet"]) == 2
        assert not srv.requests, "a configuration ran before another's sampling was found impossible"
    err = capsys.readouterr().err
    assert "configuration 'card'" in err and "has no sampling from its model card" in err
    assert not (tmp_path / "out").exists()
