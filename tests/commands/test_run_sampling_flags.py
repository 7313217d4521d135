"""``sllmb run --top-k K --min-p P`` against a real loopback scripted server: the flags reach every request
and the result file records them as custom sampling; mixed with ``--sampling`` they are refused."""

from __future__ import annotations

from pathlib import Path

from engine.cli import main
from engine.core.results import load_run_file
from tests.conftest import ROOT, knowledge_responder
from tests.helpers.scripted_server import ScriptedServer


def test_top_k_and_min_p_reach_every_request_and_the_file(tmp_path: Path, capsys) -> None:
    out = tmp_path / "r.json"
    with ScriptedServer(knowledge_responder()) as srv:
        code = main(["run", "--endpoint", srv.url, "--model", "scripted", "--modules", "knowledge", "--filter",
                     "kn_rail*", "--trials", "1", "--tasks-dir", str(ROOT / "tasks"), "--top-k", "20",
                     "--min-p", "0.05", "--no-warm-up", "-q", "--output", str(out)])
        chats = [r for r in srv.requests if "messages" in r]
    assert code == 0, capsys.readouterr().err
    assert chats and {(c["top_k"], c["min_p"], c["temperature"]) for c in chats} == {(20, 0.05, 0.6)}
    s = load_run_file(out).settings
    assert (s.sampling_mode, s.top_k, s.min_p, s.temperature, s.top_p) == ("custom", 20, 0.05, 0.6, 0.95)


def test_top_k_with_a_sampling_mode_is_refused_before_any_request(tmp_path: Path, capsys) -> None:
    with ScriptedServer(knowledge_responder()) as srv:
        code = main(["run", "--endpoint", srv.url, "--model", "scripted", "--modules", "knowledge", "--filter",
                     "kn_rail*", "--trials", "1", "--tasks-dir", str(ROOT / "tasks"), "--top-k", "20",
                     "--sampling", "bench", "--no-warm-up", "-q", "--output", str(tmp_path / "r.json")])
        chats = [r for r in srv.requests if "messages" in r]
    assert code == 2 and not chats
    assert "--sampling bench and --temperature/--top-p/--top-k/--min-p" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()
