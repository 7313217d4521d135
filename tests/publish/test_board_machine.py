"""The board against a reference setting in card mode, the server-kind flag, and the machine and server on
a model's card, on small synthetic fleets written as real files."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from engine.core.results import load_run_file, write_run_file
from engine.core.schema import GpuInfo, MachineInfo
from engine.publish.board import Board, board_from_dir
from engine.publish.html import standalone_html
from engine.publish.reference import server_kind_flags
from tests.helpers.fleet import FLEET_SETTING, make_fleet, write_setting


@pytest.fixture
def fleet(tmp_path: Path) -> list[Path]:
    return make_fleet(tmp_path, 3, seed=5)


def _board(tmp_path: Path) -> Board:
    return board_from_dir(tmp_path / "results", tmp_path / "models.yaml")


def _update(path: Path, *, settings: dict | None = None, server: dict | None = None, **provenance: object) -> None:
    run = load_run_file(path)
    prov = run.provenance.model_copy(update={**provenance, **({"server": server} if server is not None else {})})
    write_run_file(path, run.model_copy(update={"settings": run.settings.model_copy(update=settings or {}),
                                                "provenance": prov}))


def test_in_card_mode_rows_are_compared_by_mode_not_by_value(tmp_path: Path, fleet: list[Path]) -> None:
    write_setting(tmp_path / "results", sampling={"mode": "card", "seed": 0})
    # As a real run writes them: the settings, and what was sent in provenance.server.sampler.
    _update(fleet[0], settings={"sampling_mode": "card", "temperature": 0.7, "top_p": 0.8, "top_k": 20},
            server={"kind": "llama.cpp", "sampler": {"temperature": 0.7, "top_p": 0.8, "top_k": 20}})
    _update(fleet[1], settings={"sampling_mode": "card", "temperature": 1.0, "top_p": 1.0},
            server={"kind": "llama.cpp", "sampler": {"temperature": 1.0, "top_p": 1.0}})
    board = _board(tmp_path)
    flags = {r.source_file: {f.field: (f.value, f.reference) for f in r.flags} for r in board.rows}
    assert flags[fleet[0].name] == {} and flags[fleet[1].name] == {}
    # A row run on the bench's fixed sampling is flagged, whatever its values.
    assert flags[fleet[2].name] == {"sampling": ("temperature 0, top_p 0.95, seed 0", "each model's card, seed 0")}
    row = next(r for r in board.rows if r.source_file == fleet[0].name)
    shown = {s.field: s.value for s in row.settings}
    assert shown["sampling"] == "model card: temperature 0.7, top_p 0.8, seed 0, top_k 20"


def test_in_bench_mode_a_card_row_is_flagged_and_a_file_without_the_mode_is_bench(tmp_path: Path,
                                                                                  fleet: list[Path]) -> None:
    assert "mode" not in FLEET_SETTING["sampling"]  # a setting from before the mode: bench
    _update(fleet[0], settings={"sampling_mode": "card", "temperature": 0.0, "top_p": 0.95})
    board = _board(tmp_path)
    flagged = {r.source_file: [f.field for f in r.flags] for r in board.rows}
    assert flagged == {fleet[0].name: ["sampling"], fleet[1].name: [], fleet[2].name: []}


def test_runs_of_one_model_on_two_server_kinds_are_flagged(fleet: list[Path]) -> None:
    # The rule on the runs themselves, keyed by name (the board keys it by model card: the next test).
    run = load_run_file(fleet[0])
    on = {kind: run.model_copy(update={"provenance": run.provenance.model_copy(
        update={"server": {**run.provenance.server, "kind": kind}})}) for kind in ("llama.cpp", "ollama")}
    other = load_run_file(fleet[1])
    flags = server_kind_flags([on["llama.cpp"], on["ollama"], other])
    assert [[(f.field, f.value, f.reference) for f in row] for row in flags] == [
        [("server_kind", "llama.cpp", "one server kind for every row of this model (also run on ollama)")],
        [("server_kind", "ollama", "one server kind for every row of this model (also run on llama.cpp)")],
        [],
    ]
    assert server_kind_flags([on["llama.cpp"], other]) == [[], []]


def test_a_board_flags_two_rows_of_one_model_card_served_by_two_server_kinds(tmp_path: Path,
                                                                              fleet: list[Path]) -> None:
    # One model served twice under two names (the same weights on llama.cpp and on Ollama): models.yaml gives
    # both rows the same card, and the board flags both; the third model, with a card of its own, is not.
    doc = yaml.safe_load((tmp_path / "models.yaml").read_text())
    names = [row["name"] for row in doc["models"]]
    cards = {names[0]: "https://example.org/org/model-a", names[1]: "https://example.org/org/model-a",
             names[2]: "https://example.org/org/model-c"}
    for row in doc["models"]:
        row["card_url"] = cards[row["name"]]
    (tmp_path / "models.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    for path, kind in zip(fleet, ("llama.cpp", "ollama", "vllm"), strict=True):
        _update(path, server={**load_run_file(path).provenance.server, "kind": kind})
    flagged = {r.source_file: [(f.field, f.value) for f in r.flags] for r in _board(tmp_path).rows}
    assert flagged == {fleet[0].name: [("server_kind", "llama.cpp")], fleet[1].name: [("server_kind", "ollama")],
                       fleet[2].name: []}
    # Without a shared card the two names are two models: nothing to flag, whatever their servers.
    cards[names[1]] = "https://example.org/org/model-b"
    for row in doc["models"]:
        row["card_url"] = cards[row["name"]]
    (tmp_path / "models.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    assert all(not r.flags for r in _board(tmp_path).rows)


def test_the_card_shows_the_machine_and_the_server_escaped(tmp_path: Path, fleet: list[Path]) -> None:
    machine = MachineInfo(os="Linux 6.1 (x86_64)", cpu_model="AMD EPYC <b>9654</b>", cpu_cores=16, usable_cores=8,
                          memory_mb=131072, gpus=[GpuInfo(name="NVIDIA H200", memory_mb=143771)],
                          gpu_tool="nvidia-smi")
    server = {"kind": "llama.cpp", "embedded": True, "embedded_server": "xllamacpp 2026.10.11549",
              "quantization": "Q4_1", "served_context": 8192, "slots": 4, "cache_type_k": "f16",
              "cache_type_v": "q8_0", "flash_attn": "auto", "sampler": {"top_p": 0.95}}
    _update(fleet[0], server=server, machine=machine)
    board = _board(tmp_path)
    row = next(r for r in board.rows if r.source_file == fleet[0].name)
    shown = {s.field: s.value for s in row.settings}
    assert shown["machine"] == "AMD EPYC <b>9654</b>, 16 cores (8 usable), 128.0 GiB memory, Linux 6.1 (x86_64)"
    assert shown["gpus"] == "NVIDIA H200 (140.4 GiB) (from nvidia-smi)"
    assert shown["server"] == ("llama.cpp xllamacpp 2026.10.11549 (embedded), quantization Q4_1, context 8192, "
                               "slots 4, KV cache K f16, KV cache V q8_0, flash attention auto")
    other = next(r for r in board.rows if r.source_file == fleet[1].name)
    assert {s.field: s.value for s in other.settings}["machine"] == "not recorded"  # a file from before
    html = standalone_html(board)
    assert "AMD EPYC &lt;b&gt;9654&lt;/b&gt;" in html and "<b>9654</b>" not in html
