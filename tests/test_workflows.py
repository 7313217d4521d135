"""The GitHub Actions workflows pass actionlint (syntax, expressions, shell) and zizmor (security)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.conftest import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def test_there_are_workflows_for_tests_pages_model_prs_and_the_fleet():
    names = {p.name for p in WORKFLOWS}
    assert {"ci.yml", "pages.yml", "pr-model.yml", "sweep-fleet.yml"} <= names


def test_actionlint_is_clean():
    exe = shutil.which("actionlint")
    assert exe, "actionlint missing: pip install -e '.[test]' installs it"
    done = subprocess.run([exe, *map(str, WORKFLOWS)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_zizmor_finds_nothing():
    exe = shutil.which("zizmor")
    assert exe, "zizmor missing: pip install -e '.[test]' installs it"
    done = subprocess.run([exe, "--offline", str(ROOT / ".github" / "workflows")], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr


# The regression-gate recipe of the guide: the page is its one copy, so the test lints what a reader copies.
GATE_GUIDE = ROOT / "site_src" / "guides" / "regression-gate.md"


def _gate_recipe(tmp_path) -> tuple[Path, dict]:
    import re

    import yaml

    text = GATE_GUIDE.read_text(encoding="utf-8")
    found = re.search(r"<!-- regression-gate recipe[^>]*-->\n```yaml\n(.*?)```", text, re.S)
    assert found, f"{GATE_GUIDE}: the marked yaml block of the recipe is missing"
    folder = tmp_path / ".github" / "workflows"
    folder.mkdir(parents=True)
    path = folder / "model-regression-gate.yml"
    path.write_text(found.group(1), encoding="utf-8")
    return path, yaml.safe_load(found.group(1))


def test_the_regression_gate_recipe_passes_actionlint_and_zizmor(tmp_path) -> None:
    path, _ = _gate_recipe(tmp_path)
    lint = subprocess.run([shutil.which("actionlint") or "actionlint", str(path)], cwd=tmp_path,
                          capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    audit = subprocess.run([shutil.which("zizmor") or "zizmor", "--offline", str(path.parent)], cwd=tmp_path,
                           capture_output=True, text=True)
    assert audit.returncode == 0, audit.stdout + audit.stderr


def test_the_regression_gate_recipe_runs_the_fast_profile_and_gates_on_compare(tmp_path) -> None:
    _, doc = _gate_recipe(tmp_path)
    (job,) = doc["jobs"].values()
    assert doc["permissions"] == {} and job["permissions"] == {"contents": "read"}
    runs = [s["run"] for s in job["steps"] if "run" in s]
    assert any("sllmb run --profile fast" in r for r in runs)
    (gate,) = [r for r in runs if "sllmb compare" in r]
    assert "--fail-on-regression" in gate and "bench/baseline_raw_results.json" in gate
    # Values of variables and secrets reach the bench through the environment, never pasted into a shell line.
    assert not any("${{" in r for r in runs)


def _pr_model() -> dict:
    import yaml

    return yaml.safe_load((ROOT / ".github" / "workflows" / "pr-model.yml").read_text(encoding="utf-8"))


def test_the_model_check_runs_the_base_commits_code_on_the_pull_requests_data():
    text = (ROOT / ".github" / "workflows" / "pr-model.yml").read_text(encoding="utf-8")
    assert "secrets." not in text
    doc = _pr_model()
    # pull_request, never pull_request_target: a read-only token and no secrets for a fork's pull request.
    assert list(doc[True]) == ["pull_request"]
    assert doc["permissions"] == {}
    (job,) = doc["jobs"].values()
    assert job["permissions"] == {"contents": "read"}
    checkouts = [s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/checkout@")]
    assert all(s["with"]["persist-credentials"] is False for s in checkouts)
    checker, pr = checkouts
    # The checker is the base commit; the pull request's checkout holds its data files and nothing else.
    assert checker["with"]["ref"] == "${{ github.event.pull_request.base.sha }}"
    assert checker["with"]["path"] == "checker"
    assert pr["with"]["path"] == "pr" and "ref" not in pr["with"]
    assert pr["with"]["sparse-checkout"].split() == ["/models.yaml", "/results/"]
    assert pr["with"]["sparse-checkout-cone-mode"] is False
    runs = [s for s in job["steps"] if "run" in s]
    # Installed: the checker and bubblewrap (code trials are regraded in the sandbox); run: the checker's script.
    assert "pip install --quiet ./checker" in runs[0]["run"] and "install -y -qq bubblewrap" in runs[0]["run"]
    assert runs[1]["working-directory"] == "checker" and runs[1]["run"] == 'bash .ci/pr-check ../pr "$BASE_SHA"'
    assert not any("pr/" in s["run"].replace("../pr ", "") for s in runs), "nothing in the pull request's checkout runs"


def test_the_fleet_workflow_runs_a_plans_matrix_with_least_privilege():
    import re

    import yaml

    text = (ROOT / ".github" / "workflows" / "sweep-fleet.yml").read_text(encoding="utf-8")
    doc = yaml.safe_load(text)
    # Started by hand only: no pull request (a fork's) can reach the self-hosted runners through it.
    assert list(doc[True]) == ["workflow_dispatch"]
    assert doc["permissions"] == {}
    jobs = doc["jobs"]
    assert list(jobs) == ["plan", "run", "report"]
    assert all(job["permissions"] == {"contents": "read"} for job in jobs.values())
    steps = [s for job in jobs.values() for s in job["steps"]]
    uses = [s["uses"] for s in steps if "uses" in s]
    assert all(re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", u) for u in uses), "every action pinned to a commit"
    checkouts = [s for s in steps if s.get("uses", "").startswith("actions/checkout@")]
    assert len(checkouts) == 3 and all(s["with"]["persist-credentials"] is False for s in checkouts)
    runs = [s["run"] for s in steps if "run" in s]
    # Inputs, matrix values and secrets reach the shell through env, never pasted into a line.
    assert not any("${{" in r for r in runs)
    # The matrix is what the bench prints for the plan; each job runs its configuration on the plan's runners.
    (matrix_step,) = [s for s in jobs["plan"]["steps"] if s.get("id") == "matrix"]
    assert '"$KIND" "$PLAN" --matrix' in matrix_step["run"]
    assert matrix_step["env"] == {"PLAN": "${{ inputs.plan }}", "KIND": "${{ inputs.kind }}"}
    # Either file: the kind is a choice of two, checked again in every shell that uses it.
    kind = doc[True]["workflow_dispatch"]["inputs"]["kind"]
    assert (kind["type"], kind["options"]) == ("choice", ["sweep", "fleet"])
    assert all("case \"$KIND\" in sweep|fleet) ;;" in r for r in runs if "$KIND" in r)
    run = jobs["run"]
    assert run["strategy"]["matrix"] == "${{ fromJSON(needs.plan.outputs.plan).matrix }}"
    assert run["runs-on"] == "${{ matrix.runs_on }}" and run["strategy"]["fail-fast"] is False
    (one,) = [s for s in run["steps"] if "--only" in s.get("run", "")]
    assert 'python -m engine "$KIND" "$PLAN" --only "$NAME" --quiet' in one["run"]
    assert one["env"]["NAME"] == "${{ matrix.name }}"
    assert one["env"]["BENCH_API_KEY"] == "${{ secrets.BENCH_API_KEY }}" and run["environment"] == "sweep-fleet"
    (upload,) = [s for s in run["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert upload["with"]["path"] == "${{ matrix.result }}" and upload["with"]["if-no-files-found"] == "error"
    assert upload["with"]["name"] == "result-${{ matrix.key }}"
    # The last job collects every file, re-derives each and writes the report, with workflow commands off.
    report = jobs["report"]
    assert report["needs"] == ["plan", "run"]
    assert report["if"] == "${{ !cancelled() && needs.plan.result == 'success' }}"
    assert "${{ secrets." not in yaml.safe_dump(report)
    (download,) = [s for s in report["steps"] if s.get("uses", "").startswith("actions/download-artifact@")]
    assert download["with"]["pattern"] == "result-*" and download["with"]["merge-multiple"] is True
    (collect,) = [s for s in report["steps"] if "--report-only" in s.get("run", "")]
    assert "--rederive --sandbox bubblewrap" in collect["run"] and "::stop-commands::" in collect["run"]
    # A fleet's files then make the board, against the reference setting, while workflow commands are still off.
    board = collect["run"].index("python -m engine leaderboard --results-dir \"$OUTPUT\" --setting "
                                 "results/reference/setting.yaml")
    assert collect["run"].index("::stop-commands::") < board < collect["run"].index('echo "::${token}::"')


def test_the_matrix_of_a_fleet_list_is_one_job_per_model_keyed_by_its_result_file(tmp_path, capsys, monkeypatch):
    import json

    from engine.cli import main

    (tmp_path / "fleet.yaml").write_text(
        "runs_on: [self-hosted, gpu]\noutput: out\nmodels:\n"
        "  - {name: 'qwen3:8b', endpoint: 'http://127.0.0.1:11434/v1'}\n"
        "  - {name: smollm2-135m-instruct, runs_on: [self-hosted, cpu]}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["fleet", "fleet.yaml", "--matrix"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1, "the workflow appends one line to $GITHUB_OUTPUT"
    # The key (the artifact's name) is the result file's stem, a plain word even where the model name is not.
    assert json.loads(out) == {"matrix": {"include": [
        {"name": "qwen3:8b", "key": "qwen3_8b", "runs_on": ["self-hosted", "gpu"],
         "result": "out/qwen3_8b_raw_results.json"},
        {"name": "smollm2-135m-instruct", "key": "smollm2-135m-instruct", "runs_on": ["self-hosted", "cpu"],
         "result": "out/smollm2-135m-instruct_raw_results.json"},
    ]}, "output": "out"}
    assert not (tmp_path / "out").exists(), "--matrix runs nothing"
