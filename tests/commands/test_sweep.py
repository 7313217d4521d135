"""``sllmb sweep PLAN.yaml`` against a real loopback scripted server: two configurations of one model, each
into its own result file, the report, a resumed sweep that runs nothing again, and plans that are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from engine.cli import main
from engine.core.results import load_run_file
from tests.conftest import KNOWLEDGE_ANSWERS
from tests.helpers.honest_run import small_bank
from tests.helpers.scripted_server import Action, ScriptedServer

WRONG_WHEN_HOT = ("bakery", "Single tickets")


def _responder(body: dict) -> Action:
    """Right on every knowledge task at temperature 0; wrong on two of them when the sampler runs hot."""
    prompt = " ".join(str(m.get("content")) for m in body["messages"] if m["role"] == "user")
    hot = float(body.get("temperature", 0)) > 0.5
    for marker, answer in KNOWLEDGE_ANSWERS.items():
        if marker in prompt:
            return Action(text=f"Working it out.\nAnswer: {'0' if hot and marker in WRONG_WHEN_HOT else answer}")
    return Action(text="I do not know.")


def _plan(tmp_path: Path, url: str, **overrides: object) -> Path:
    bank = small_bank(tmp_path / "bank")
    doc = {
        "model": "scripted",
        "profile": "full",
        "modules": ["knowledge"],
        "tasks_dir": str(bank),
        "trials": 2,
        "output": "out",
        "configurations": [
            {"name": "cold", "endpoint": url, "temperature": 0.0},
            {"name": "hot", "endpoint": url, "temperature": 1.0, "top_p": 0.9},
        ],
        **overrides,
    }
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def test_a_sweep_runs_each_configuration_and_reports_each_against_the_first(tmp_path: Path, capsys) -> None:
    with ScriptedServer(_responder) as srv:
        plan = _plan(tmp_path, srv.url)
        assert main(["sweep", str(plan), "--no-warm-up", "--quiet"]) == 0
        sent = list(srv.requests)
    out = tmp_path / "out"
    cold, hot = load_run_file(out / "cold_raw_results.json"), load_run_file(out / "hot_raw_results.json")
    # Each configuration ran with its own sampler, on the plan's trials and seeds.
    assert (cold.settings.temperature, hot.settings.temperature, hot.settings.top_p) == (0.0, 1.0, 0.9)
    assert cold.settings.trials == hot.settings.trials == 2
    assert sorted({r.seed for r in cold.trials}) == sorted({r.seed for r in hot.trials}) == [0, 1]
    assert {b["temperature"] for b in sent} == {0.0, 1.0}
    report = json.loads((out / "sweep_report.json").read_text(encoding="utf-8"))
    overall, knowledge = report["scopes"]
    assert overall["scope"] == "overall" and knowledge["scope"] == "knowledge"
    base, other = overall["rows"]
    assert base["configuration"] == "cold" and base["test"] is None and base["pass_k"] == 1.0
    test = other["test"]
    assert (test["wins_baseline"], test["wins_candidate"], test["ties"]) == (2, 0, 2)
    # Two tasks of four cannot separate them: the report says so and how many tasks it would take.
    assert test["verdict"] == "not separable" and test["tasks_needed"] > 4
    assert other["pass_k"] == pytest.approx(0.5) and other["tokens_per_pass"] is not None
    assert len(report["verdicts"]) == 1
    assert "cannot tell them apart" in report["verdicts"][0]
    md = (out / "sweep_report.md").read_text(encoding="utf-8")
    assert "| hot | 50.0 |" in md and "## knowledge" in md
    printed = capsys.readouterr().out
    assert "cannot tell them apart" in printed and "sweep_report.md" in printed


def test_top_k_and_min_p_of_a_configuration_reach_its_requests_and_its_file(tmp_path: Path) -> None:
    with ScriptedServer(_responder) as srv:
        plan = _plan(tmp_path, srv.url, configurations=[
            {"name": "plain", "endpoint": srv.url},
            {"name": "topk", "endpoint": srv.url, "top_k": 20, "min_p": 0.05},
        ])
        assert main(["sweep", str(plan), "--no-warm-up", "--quiet"]) == 0
        sent = [r for r in srv.requests if "messages" in r]
    # The neutral values (this server is of no known kind: none) for one, the configuration's for the other.
    assert {(b.get("top_k"), b.get("min_p")) for b in sent} == {(None, None), (20, 0.05)}
    plain = load_run_file(tmp_path / "out" / "plain_raw_results.json").settings
    topk = load_run_file(tmp_path / "out" / "topk_raw_results.json").settings
    assert (plain.sampling_mode, plain.top_k, plain.min_p) == ("bench", None, None)
    assert (topk.sampling_mode, topk.top_k, topk.min_p, topk.temperature) == ("custom", 20, 0.05, 0.6)


def test_a_gguf_is_read_from_the_plans_folder_and_checked_before_any_configuration_runs(tmp_path: Path,
                                                                                        capsys) -> None:
    from engine.run.sweep_plan import load_plan

    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "q8.gguf").write_bytes(b"not a model file")
    with ScriptedServer(_responder) as srv:
        plan = _plan(tmp_path, srv.url, configurations=[
            {"name": "server", "endpoint": srv.url},
            {"name": "q8", "embedded": {"gguf": "models/q8.gguf", "context": 2048}},
        ])
        assert load_plan(plan).configurations[1].embedded.gguf == tmp_path / "models" / "q8.gguf"
        assert main(["sweep", str(plan), "--no-warm-up", "--quiet"]) == 2
        assert not srv.requests, "the first configuration ran before the second's file was checked"
    err = capsys.readouterr().err
    assert f"configuration 'q8': embedded.gguf {tmp_path / 'models' / 'q8.gguf'}: " in err and "GGUF magic" in err


def test_a_configuration_whose_result_ran_another_gguf_is_refused_not_mixed(tmp_path: Path, capsys) -> None:
    with ScriptedServer(_responder) as srv:
        plan = _plan(tmp_path, srv.url)
        assert main(["sweep", str(plan), "--no-warm-up", "--quiet"]) == 0
    # The "hot" result as if it had run q4.gguf on the embedded server; the plan now names another file.
    hot = tmp_path / "out" / "hot_raw_results.json"
    doc = json.loads(hot.read_text(encoding="utf-8"))
    doc["provenance"]["server"]["model_file"] = "q4.gguf"
    hot.write_text(json.dumps(doc), encoding="utf-8")
    before = hot.read_bytes()
    plan = _plan(tmp_path, "http://127.0.0.1:9/v1", configurations=[
        {"name": "cold", "endpoint": "http://127.0.0.1:9/v1", "temperature": 0.0},
        {"name": "hot", "embedded": {"gguf": "q8.gguf"}, "temperature": 1.0, "top_p": 0.9},
    ])
    assert main(["sweep", str(plan), "--no-warm-up", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "configuration 'hot'" in err and "'q4.gguf'" in err and "'q8.gguf'" in err
    assert "new configuration name" in err
    assert hot.read_bytes() == before


def test_a_partial_checkpoint_of_another_gguf_is_refused_not_resumed(tmp_path: Path, capsys) -> None:
    from engine.core.schema import CheckpointHeader
    from engine.run.checkpoint import checkpoint_path

    with ScriptedServer(_responder) as srv:
        plan = _plan(tmp_path, srv.url)
        assert main(["sweep", str(plan), "--no-warm-up", "--quiet"]) == 0
    # "hot" interrupted while running q4.gguf: its checkpoint's header records the file, and no result is left.
    hot = tmp_path / "out" / "hot_raw_results.json"
    run = load_run_file(hot)
    partial = checkpoint_path(hot)
    header = CheckpointHeader(fingerprint="f", settings=run.settings, started_at="t", model_file="q4.gguf")
    partial.write_text(header.model_dump_json() + "\n" + "".join(t.model_dump_json() + "\n" for t in run.trials[:1]),
                       encoding="utf-8")
    hot.unlink()
    before = partial.read_bytes()
    (tmp_path / "q8.gguf").write_bytes(b"not read: refused first")
    plan = _plan(tmp_path, "http://127.0.0.1:9/v1", configurations=[
        {"name": "cold", "endpoint": "http://127.0.0.1:9/v1", "temperature": 0.0},
        {"name": "hot", "embedded": {"gguf": "q8.gguf"}, "temperature": 1.0, "top_p": 0.9},
    ])
    assert main(["sweep", str(plan), "--no-warm-up", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"configuration 'hot': {partial} was made with the model file 'q4.gguf'" in err and "'q8.gguf'" in err
    assert partial.read_bytes() == before and not hot.exists()


def test_the_runs_checkpoint_header_records_the_model_file_and_the_resume_rule_holds_it(tmp_path: Path) -> None:
    from engine.core.errors import UserError
    from engine.run.resume_rule import check_model_file

    with pytest.raises(UserError, match="was made with the model file 'a.gguf', and this run would use 'b.gguf'"):
        check_model_file(tmp_path / "r.partial.jsonl", "a.gguf", "b.gguf")
    check_model_file(tmp_path / "r.partial.jsonl", None, "b.gguf")  # an older checkpoint, or an endpoint
    check_model_file(tmp_path / "r.partial.jsonl", "a.gguf", None)
    check_model_file(tmp_path / "r.partial.jsonl", "a.gguf", "a.gguf")


def test_a_finished_configuration_is_not_run_again(tmp_path: Path, capsys) -> None:
    with ScriptedServer(_responder) as srv:
        plan = _plan(tmp_path, srv.url)
        assert main(["sweep", str(plan), "--no-warm-up", "--quiet"]) == 0
        first = len(srv.requests)
        before = (tmp_path / "out" / "cold_raw_results.json").read_bytes()
        assert main(["sweep", str(plan), "--no-warm-up", "--quiet"]) == 0
        assert len(srv.requests) == first, "a finished configuration sent requests again"
    assert (tmp_path / "out" / "cold_raw_results.json").read_bytes() == before
    assert "is finished; not run again" in capsys.readouterr().err


def test_a_changed_configuration_is_not_taken_as_finished(tmp_path: Path, capsys) -> None:
    with ScriptedServer(_responder) as srv:
        plan = _plan(tmp_path, srv.url)
        assert main(["sweep", str(plan), "--no-warm-up", "--quiet"]) == 0
        changed = _plan(tmp_path, srv.url, configurations=[
            {"name": "cold", "endpoint": srv.url, "temperature": 0.2},
            {"name": "hot", "endpoint": srv.url, "temperature": 1.0, "top_p": 0.9},
        ])
        # The run's own resume rule refuses to mix samplers in one file, and names the configuration.
        assert main(["sweep", str(changed), "--no-warm-up", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "configuration 'cold'" in err and "temperature: 0.0 then, 0.2 now" in err


def test_a_server_that_is_down_stops_the_sweep_and_keeps_what_finished(tmp_path: Path, capsys) -> None:
    with ScriptedServer(_responder) as srv:
        plan = _plan(tmp_path, srv.url, configurations=[
            {"name": "cold", "endpoint": srv.url, "temperature": 0.0},
            {"name": "gone", "endpoint": "http://127.0.0.1:9/v1", "temperature": 1.0},
        ])
        assert main(["sweep", str(plan), "--no-warm-up", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "configuration 'gone'" in err and "kept (cold)" in err
    assert (tmp_path / "out" / "cold_raw_results.json").is_file()


@pytest.mark.parametrize(("change", "field", "fix"), [
    ({"top_k": 40}, "top_k", "unknown key"),
    ({"configurations": [{"name": "a", "endpoint": "http://127.0.0.1:1/v1", "min_p": 2},
                         {"name": "b", "endpoint": "http://127.0.0.1:1/v1"}]}, "configurations.0.min_p",
     "less than or equal to 1"),
    ({"configurations": [{"name": "a", "endpoint": "http://127.0.0.1:1/v1", "top_k": -1},
                         {"name": "b", "endpoint": "http://127.0.0.1:1/v1"}]}, "configurations.0.top_k",
     "greater than or equal to 0"),
    ({"configurations": [{"name": "a", "embedded": {"gguf": "m.gguf"}, "endpoint": "http://127.0.0.1:1/v1"},
                         {"name": "b"}]}, "configurations.0", "not both"),
    ({"configurations": [{"name": "a", "endpoint": "http://127.0.0.1:1/v1"}]}, "configurations",
     "at least 2"),
    ({"configurations": [{"name": "a", "endpoint": "ftp://x/v1"}, {"name": "b"}]}, "configurations.0.endpoint",
     "http"),
    ({"configurations": [{"name": "a"}, {"name": "A"}]}, "configurations", "must differ"),
    ({"configurations": [{"name": "a", "embedded": {"kv_cache_type": "q3"}}, {"name": "b"}]},
     "configurations.0.embedded.kv_cache_type", "q8_0"),
    ({"configurations": [{"name": "../x"}, {"name": "b"}]}, "configurations.0.name", "pattern"),
    ({"trials": 0}, "trials", "greater than or equal to 1"),
    ({"configurations": [{"name": "a", "sampling": "card", "temperature": 0.2, "top_p": 0.9}, {"name": "b"}]},
     "configurations.0", "sampling: card and temperature, top_p both choose the sampling; give one of them"),
    ({"configurations": [{"name": "a", "sampling": "greedy"}, {"name": "b"}]}, "configurations.0.sampling",
     "'card' or 'bench'"),
])
def test_a_bad_plan_names_the_file_the_field_and_the_fix(tmp_path: Path, capsys, change, field, fix) -> None:
    plan = _plan(tmp_path, "http://127.0.0.1:1/v1", **change)
    assert main(["sweep", str(plan)]) == 2
    err = capsys.readouterr().err
    assert str(plan) in err and f"field '{field}'" in err and fix in err
    assert not (tmp_path / "out").exists()


def test_a_missing_or_broken_plan_is_refused(tmp_path: Path, capsys) -> None:
    assert main(["sweep", str(tmp_path / "nope.yaml")]) == 2
    assert "nope.yaml" in capsys.readouterr().err
    broken = tmp_path / "broken.yaml"
    broken.write_text("model: [unclosed\n", encoding="utf-8")
    assert main(["sweep", str(broken)]) == 2
    assert "not valid YAML" in capsys.readouterr().err


# ----------------------------------------------------------------------------------------------------------
# The fleet workflow's side: the matrix, one configuration per job, and the report from the collected files.


def test_the_matrix_is_one_job_per_configuration_on_the_plans_runners(tmp_path: Path, capsys, monkeypatch) -> None:
    _plan(tmp_path, "http://127.0.0.1:1/v1", runs_on=["self-hosted", "gpu"], configurations=[
        {"name": "q4", "endpoint": "http://127.0.0.1:1/v1"},
        {"name": "q8", "endpoint": "http://127.0.0.1:2/v1", "runs_on": ["self-hosted", "gpu-48g"]},
        {"name": "embedded.q8kv", "embedded": {"kv_cache_type": "q8_0"}},
    ])
    monkeypatch.chdir(tmp_path)
    assert main(["sweep", "plan.yaml", "--matrix"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1, "the workflow appends one line to $GITHUB_OUTPUT"
    assert json.loads(out) == {
        "matrix": {"include": [
            {"name": "q4", "key": "q4", "runs_on": ["self-hosted", "gpu"], "result": "out/q4_raw_results.json"},
            {"name": "q8", "key": "q8", "runs_on": ["self-hosted", "gpu-48g"], "result": "out/q8_raw_results.json"},
            {"name": "embedded.q8kv", "key": "embedded.q8kv", "runs_on": ["self-hosted", "gpu"],
             "result": "out/embedded.q8kv_raw_results.json"},
        ]},
        "output": "out",
    }
    assert not (tmp_path / "out").exists(), "--matrix runs nothing"


def test_the_matrix_defaults_to_self_hosted_runners(tmp_path: Path, capsys, monkeypatch) -> None:
    plan = _plan(tmp_path, "http://127.0.0.1:1/v1")
    monkeypatch.chdir(tmp_path)
    assert main(["sweep", str(plan), "--matrix"]) == 0
    jobs = json.loads(capsys.readouterr().out)["matrix"]["include"]
    assert [(j["name"], j["runs_on"]) for j in jobs] == [("cold", ["self-hosted"]), ("hot", ["self-hosted"])]


@pytest.mark.parametrize(("runs_on", "field"), [
    (["self-hosted", "gpu; curl x | sh"], "runs_on.1"),
    (["${{ secrets.BENCH_API_KEY }}"], "runs_on.0"),
    ([], "runs_on"),
    ("self-hosted", "runs_on"),
])
def test_a_runner_label_that_is_not_a_plain_word_is_refused(tmp_path: Path, capsys, runs_on, field) -> None:
    plan = _plan(tmp_path, "http://127.0.0.1:1/v1", runs_on=runs_on)
    assert main(["sweep", str(plan), "--matrix"]) == 2
    err = capsys.readouterr().err
    assert str(plan) in err and f"field '{field}'" in err


def test_an_output_outside_the_checkout_cannot_be_a_matrix(tmp_path: Path, capsys, monkeypatch) -> None:
    plan = _plan(tmp_path, "http://127.0.0.1:1/v1", output=str(tmp_path.parent / "elsewhere"))
    (tmp_path / "repo").mkdir()
    monkeypatch.chdir(tmp_path / "repo")
    assert main(["sweep", str(plan), "--matrix"]) == 2
    err = capsys.readouterr().err
    assert "field 'output'" in err and "outside the working directory" in err


def test_each_job_runs_one_configuration_and_the_last_collects_them(tmp_path: Path, capsys) -> None:
    with ScriptedServer(_responder) as srv:
        plan = _plan(tmp_path, srv.url)
        assert main(["sweep", str(plan), "--no-warm-up", "--quiet", "--only", "hot"]) == 0
        assert {b["temperature"] for b in srv.requests} == {1.0}, "--only hot ran another configuration"
        out = tmp_path / "out"
        assert (out / "hot_raw_results.json").is_file() and not (out / "cold_raw_results.json").exists()
        assert not (out / "sweep_report.json").exists(), "one job of the fleet writes no report"
        # The collecting job before every file is there: it names the missing configuration and runs nothing.
        capsys.readouterr()
        sent = len(srv.requests)
        assert main(["sweep", str(plan), "--report-only"]) == 2
        assert "configuration 'cold'" in capsys.readouterr().err and len(srv.requests) == sent
        assert main(["sweep", str(plan), "--no-warm-up", "--quiet", "--only", "cold"]) == 0
        sent = len(srv.requests)
        assert main(["sweep", str(plan), "--report-only", "--rederive"]) == 0
        assert len(srv.requests) == sent, "--report-only sent a request"
    err = capsys.readouterr().err
    assert "hot_raw_results.json: re-derived" in err and "cold_raw_results.json: re-derived" in err
    report = json.loads((out / "sweep_report.json").read_text(encoding="utf-8"))
    assert [r["configuration"] for r in report["scopes"][0]["rows"]] == ["cold", "hot"]


def test_a_collected_file_that_does_not_re_derive_fails_the_collecting_job(tmp_path: Path, capsys) -> None:
    with ScriptedServer(_responder) as srv:
        plan = _plan(tmp_path, srv.url)
        assert main(["sweep", str(plan), "--no-warm-up", "--quiet"]) == 0
    hot = tmp_path / "out" / "hot_raw_results.json"
    doc = json.loads(hot.read_text(encoding="utf-8"))
    failed = next(t for t in doc["trials"] if t["grade"] and not t["grade"]["passed"])
    failed["grade"]["passed"], failed["grade"]["score"] = True, 1.0  # a forged pass
    hot.write_text(json.dumps(doc), encoding="utf-8")
    (tmp_path / "out" / "sweep_report.json").unlink()
    assert main(["sweep", str(plan), "--report-only", "--rederive"]) == 2
    err = capsys.readouterr().err
    assert f"{hot}: " in err and "passed" in err and "does not re-derive" in err
    assert not (tmp_path / "out" / "sweep_report.json").exists()


def test_an_unknown_only_name_and_mixed_modes_are_refused(tmp_path: Path, capsys) -> None:
    plan = _plan(tmp_path, "http://127.0.0.1:1/v1")
    assert main(["sweep", str(plan), "--only", "warm"]) == 2
    assert "--only warm: not in the sweep plan; it has cold, hot" in capsys.readouterr().err
    assert main(["sweep", str(plan), "--rederive"]) == 2
    assert "go with --report-only" in capsys.readouterr().err
    assert main(["sweep", str(plan), "--matrix", "--report-only"]) == 2
    assert not (tmp_path / "out").exists()


def test_the_request_deadlines_reach_every_configurations_run(tmp_path: Path, capsys) -> None:
    # A server that takes a second per reply, and deadlines of a third of one: every request times out, so
    # the run stops, naming the deadline; with the default deadlines the same server is merely slow.
    with ScriptedServer(lambda body: Action(text="Answer: 1", delay_s=1.0)) as srv:
        plan = _plan(tmp_path, srv.url)
        assert main(["sweep", str(plan), "--no-warm-up", "--quiet", "--first-byte-timeout", "0.3",
                     "--request-timeout", "0.3"]) == 2
    err = capsys.readouterr().err
    assert "configuration 'cold'" in err and "timed out" in err
