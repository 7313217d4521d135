"""The pull-request check through the real command on a scratch git repository: the honest pull request passes
and says where it lands; every forgery of the issue is refused with the file, the field and the fix, and the
summary stays safe Markdown whatever a name holds.

The base commit is the repository's own models.yaml and reference file; each pull request is one commit on
top. Result files are the small honest run (five tasks, made by the real runner) or the committed reference
file, forged in code."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from engine.analysis.judge import JudgedFile, JudgeInfo, ModuleCoverage, TrialVerdict, file_sha256
from engine.bank.load import load_bank
from engine.cli import main
from engine.core.results import RAW_SUFFIX
from tests.conftest import ROOT
from tests.helpers.honest_run import make_honest_run

REFERENCE = "results/reference"
SMOL = f"{REFERENCE}/smollm2-135m-instruct{RAW_SUFFIX}"
QWEN = f"{REFERENCE}/qwen3-8b{RAW_SUFFIX}"


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo, check=True,
                          capture_output=True, text=True)
    return done.stdout.strip()


def contributing_row() -> dict:
    """The models.yaml row CONTRIBUTING.md tells a contributor to add, exactly as printed."""
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    block = re.search(r"Add the row to `models.yaml`.*?```yaml\n(.*?)```", text, re.DOTALL).group(1)
    rows = yaml.safe_load(block)
    assert isinstance(rows, list) and len(rows) == 1
    return rows[0]


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The small honest run as CONTRIBUTING's row names it, at the reference's 3 trials, as JSON."""
    out = tmp_path_factory.mktemp("honest") / f"qwen3-8b{RAW_SUFFIX}"
    make_honest_run(out, model=contributing_row()["name"], trials=3)
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def base_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("base") / "repo"
    (repo / REFERENCE).mkdir(parents=True)
    shutil.copy(ROOT / "models.yaml", repo / "models.yaml")
    shutil.copy(ROOT / SMOL, repo / SMOL)
    shutil.copy(ROOT / REFERENCE / "README.md", repo / REFERENCE / "README.md")
    shutil.copy(ROOT / REFERENCE / "setting.yaml", repo / REFERENCE / "setting.yaml")  # the declared setting
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "base")
    return repo


class Scratch:
    def __init__(self, repo: Path):
        self.repo = repo
        self.base = _git(repo, "rev-parse", "HEAD")

    def write(self, rel: str, data: dict | bytes | str) -> None:
        path = self.repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, dict):
            data = json.dumps(data, indent=1)
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))

    def add_rows(self, *rows: dict, default: str | None = None) -> None:
        doc = yaml.safe_load((self.repo / "models.yaml").read_text(encoding="utf-8"))
        doc["models"] += list(rows)
        if default:
            doc["default"] = default
        (self.repo / "models.yaml").write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True),
                                               encoding="utf-8")

    def commit(self) -> None:
        _git(self.repo, "add", "-A")
        _git(self.repo, "commit", "-qm", "the pull request")

    def land(self) -> None:
        """Merge what is written so far: it becomes part of the base of the next pull request."""
        self.commit()
        self.base = _git(self.repo, "rev-parse", "HEAD")

    def check(self, capsys) -> tuple[int, str, str]:
        self.commit()
        code = main(["pr-check", "--base", self.base, "--root", str(self.repo), "--tasks-dir", str(ROOT / "tasks"),
                     "--sandbox", "bubblewrap"])
        out, err = capsys.readouterr()
        assert str(self.repo) not in out, "the summary uses repository-relative paths"
        assert not any(line.startswith("::") for line in out.splitlines()), "a line the runner would obey"
        return code, out, err


@pytest.fixture
def pr(base_template: Path, tmp_path: Path) -> Scratch:
    repo = tmp_path / "repo"
    shutil.copytree(base_template, repo)
    return Scratch(repo)


def _trials(doc: dict, task_id: str | None = None) -> list[dict]:
    return [t for t in doc["trials"] if task_id is None or t["task_id"] == task_id]


def plain(out: str) -> str:
    """The summary without its Markdown escapes, to read its messages."""
    return out.replace("\\", "")


def _problem_lines(out: str) -> list[str]:
    block = out.split("### What was checked")[0]
    return [line for line in block.splitlines() if line.startswith("- ")]


# ----------------------------------------------------------------------------------------------------------
# The honest pull request


def test_the_honest_pull_request_with_contributings_row_passes_and_says_where_it_lands(pr, honest, capsys) -> None:
    pr.add_rows(contributing_row())
    pr.write(QWEN, honest)
    code, out, _ = pr.check(capsys)
    assert code == 0, out
    assert "**Every changed file re-derives.**" in out
    assert "models.yaml rows added or changed (valid): `qwen3-8b`" in out
    assert f"`{QWEN}`: model `qwen3-8b`, 15 trials of 5 tasks at 3 per task re-derived: 15 regraded" in out
    assert "(3 code trials in the sandbox)" in out
    landing = out.split("### Where it lands", 1)[1]
    assert re.search(r"- `qwen3-8b`: \*\*[0-9.]+\*\*, tier \*\*\w+\*\*, rank 1 of 2", landing), landing
    assert "### What a maintainer still judges" in out


# ----------------------------------------------------------------------------------------------------------
# Forged verdicts


def test_verdicts_flipped_in_20_tasks_of_the_reference_file_are_each_named(pr, capsys) -> None:
    doc = json.loads((ROOT / SMOL).read_text(encoding="utf-8"))
    # Only trials of today's task files can be regraded: one whose task file changed since the run is named
    # for its task hash instead (results/reference/README.md says which trials those are).
    today = {t.id: t.hash for t in load_bank(ROOT / "tasks")}
    flipped: list[str] = []
    for t in doc["trials"]:
        graded = t["grade"] and not t["error"] and t["truncation"] == "none" and not t["infra"] \
            and today.get(t["task_id"]) == t["task_hash"]
        if graded and len({k.split("#")[0] for k in flipped} | {t["task_id"]}) <= 20:
            t["grade"].update(passed=True, score=1.0)
            flipped.append(f"{t['task_id']}#{t['trial']}")
    pr.write(SMOL, doc)
    code, out, err = pr.check(capsys)
    assert code == 2 and "problem(s)" in err
    named = set(re.findall(r"· `([a-z_]+#\d)` · `grade\.passed`: stored True, re-derived False", out))
    # Every flipped trial is named, and no other: the rest of the file re-derives.
    assert named == set(flipped) and len({k.split("#")[0] for k in flipped}) == 20
    assert "\\`sllmb rescore --in-place --results FILE\\`" in out
    assert "Shown once the problems above are fixed." in out


def test_a_single_flipped_trial_is_named_with_both_values(pr, honest, capsys) -> None:
    doc = json.loads(json.dumps(honest))
    trial = next(t for t in _trials(doc, "kn_slice_reverse") if t["trial"] == 1)
    trial["grade"].update(passed=True, score=1.0)
    pr.add_rows(contributing_row())
    pr.write(QWEN, doc)
    code, out, _ = pr.check(capsys)
    assert code == 2
    fix = ("the stored grade is not what the graders give this transcript\\: regrade it with this version of the "
           "bench \\(\\`sllmb rescore --in-place --results FILE\\`\\) and commit that file, or run the trials again")
    assert _problem_lines(out) == [
        f"- `{QWEN}` · `kn_slice_reverse#1` · `grade.passed`: stored True, re-derived False; {fix}",
        f"- `{QWEN}` · `kn_slice_reverse#1` · `grade.score`: stored 1\\.0, re-derived 0\\.0; {fix}",
    ]


def test_every_trial_carrying_an_error_hides_nothing(pr, honest, capsys) -> None:
    doc = json.loads(json.dumps(honest))
    for t in doc["trials"]:
        t["error"] = "server hiccup"
        t["grade"].update(passed=True, score=1.0)
    pr.add_rows(contributing_row())
    pr.write(QWEN, doc)
    code, out, _ = pr.check(capsys)
    assert code == 2
    for t in doc["trials"]:
        assert f"`{t['task_id']}#{t['trial']}` · `grade.passed`" in out
    assert "a trial with an error cannot pass or score" in plain(out)


def test_an_excluded_failing_trial_is_refused(pr, honest, capsys) -> None:
    # Excluding one failed trial of a task leaves it short of k, which drops the task from the score.
    doc = json.loads(json.dumps(honest))
    trial = _trials(doc, "kn_slice_reverse")[0]
    trial.update(infra=True, grade=None, error="server answered HTTP 503")
    pr.add_rows(contributing_row())
    pr.write(QWEN, doc)
    code, out, _ = pr.check(capsys)
    assert code == 2
    assert "nothing can re-derive an exclusion" in plain(out) and "kn_slice_reverse#0" in plain(out)


def _hand_judged(raw: Path) -> dict:
    """A judged file that rescues every failed trial the judge could be sent, with a correct SHA-256."""
    from engine.core.results import load_run_file

    run = load_run_file(raw)
    verdicts = []
    for t in run.trials:
        if not t.scorable or t.grade is None:
            continue
        rescue = not t.grade.passed
        verdicts.append(TrialVerdict(
            task_id=t.task_id, trial=t.trial, module=t.module, task_hash=t.task_hash, det_score=t.grade.score,
            det_passed=t.grade.passed, hard_gate=t.grade.hard_gate or ("degenerate" if t.truncation == "degenerate"
                                                                        else None),
            status="rescued" if rescue else "upheld", judge_passed=True, judge_score=1.0, judge_reason="fine",
            final_score=1.0 if rescue else t.grade.score, final_passed=True))
    modules = {m: ModuleCoverage(sent=n, judged=n, failed=0, complete=True)
               for m in dict.fromkeys(v.module for v in verdicts)
               for n in [sum(v.module == m for v in verdicts)]}
    judged = JudgedFile(model=run.settings.model, raw_file=raw.name, raw_sha256=file_sha256(raw),
                        judge=JudgeInfo(endpoint_host="127.0.0.1:9", model="my-judge"), created_at="2026-01-01",
                        modules=modules, changed=sum(v.status == "rescued" for v in verdicts), refused=0,
                        verdicts=verdicts)
    return judged.model_dump(mode="json")


def _landed_honest_row(pr: Scratch, honest: dict) -> Path:
    pr.add_rows(contributing_row())
    pr.write(QWEN, honest)
    pr.land()
    return pr.repo / QWEN


def test_a_hand_written_judged_file_beside_an_untouched_raw_file_is_refused(pr, honest, capsys) -> None:
    raw = _landed_honest_row(pr, honest)
    pr.write(f"{REFERENCE}/qwen3-8b_judged.json", _hand_judged(raw))
    code, out, _ = pr.check(capsys)
    assert code == 2
    text = plain(out)
    # Knowledge is never sent to the judge (its sure verdicts), and code's verdicts are advisory: neither can
    # be rescued.
    assert "`verdicts kn_slice_reverse#0` · `status`: the judge is never sent this trial (module knowledge is " \
           "never judged unless its check was unsure)" in text
    assert "the raw file's is" not in text, "the facts each verdict records are the raw trial's"


def test_a_judged_file_the_judge_wrote_passes(pr, honest, capsys) -> None:
    from engine.analysis.judge import JudgeConfig, judge_run
    from engine.core.results import load_run_file
    from tests.helpers.scripted_server import Action, ScriptedServer

    raw = _landed_honest_row(pr, honest)
    verdict = Action(text=json.dumps({"passed": True, "score": 1.0, "reason": "the function is right"}))
    with ScriptedServer(lambda body: verdict) as srv:
        judged = judge_run(load_run_file(raw), raw, JudgeConfig(endpoint=srv.url, model="judge", max_retries=0))
    pr.write(f"{REFERENCE}/qwen3-8b_judged.json", judged.model_dump(mode="json"))
    code, out, _ = pr.check(capsys)
    assert code == 0, out
    assert f"`{REFERENCE}/qwen3-8b_judged.json`: 3 verdicts re-applied under the judge's rules" in out


def test_a_judged_file_must_name_the_sha256_of_the_raw_file_it_judged(pr, honest, capsys) -> None:
    raw = _landed_honest_row(pr, honest)
    judged = _hand_judged(raw)
    judged["raw_sha256"] = "0" * 64
    pr.write(f"{REFERENCE}/qwen3-8b_judged.json", judged)
    code, out, _ = pr.check(capsys)
    assert code == 2
    assert f"`judged file` · `raw_sha256`: stored '{'0' * 64}', but qwen3-8b_raw_results.json hashes to " \
           f"'{file_sha256(raw)}'" in plain(out)
    # An older judged file, written before judged files named the hash: judge again.
    del judged["raw_sha256"]
    pr.write(f"{REFERENCE}/qwen3-8b_judged.json", judged)
    code, out, _ = pr.check(capsys)
    assert code == 2
    assert "`raw_sha256`: not a valid judged file: a judged file names the SHA-256 of the raw file it judged" in \
        plain(out)


# ----------------------------------------------------------------------------------------------------------
# Hashes, trials and seeds


def test_a_forged_task_hash_is_refused(pr, honest, capsys) -> None:
    doc = json.loads(json.dumps(honest))
    _trials(doc, "kn_rail_pass")[2]["task_hash"] = "0123456789abcdef"
    pr.add_rows(contributing_row())
    pr.write(QWEN, doc)
    code, out, _ = pr.check(capsys)
    assert code == 2
    assert "`kn_rail_pass#2` · `task_hash`: stored '0123456789abcdef', which this task never had" in \
        plain(out)


def test_settings_trials_that_disagree_with_the_trials_present_are_refused(pr, honest, capsys) -> None:
    doc = json.loads(json.dumps(honest))
    doc["settings"]["trials"] = 5
    pr.add_rows(contributing_row())
    pr.write(QWEN, doc)
    code, out, _ = pr.check(capsys)
    assert code == 2
    text = plain(out)
    for task in {t["task_id"] for t in doc["trials"]}:
        assert f"`{task}` · `trials`: 3 trial(s) where settings.trials is 5 (missing [3, 4])" in text


# ----------------------------------------------------------------------------------------------------------
# Names, files and links


def test_a_result_whose_model_differs_from_its_row_is_refused(pr, honest, capsys) -> None:
    doc = json.loads(json.dumps(honest))
    doc["settings"]["model"] = "qwen3-8b-instruct"
    pr.add_rows(contributing_row())
    pr.write(QWEN, doc)
    code, out, _ = pr.check(capsys)
    assert code == 2
    text = plain(out)
    assert ("`settings` · `model`: 'qwen3-8b-instruct' has no models.yaml row of that name (this file's name "
            "belongs to the row 'qwen3-8b'") in text
    assert f"move it there (git mv {QWEN} {REFERENCE}/qwen3-8b-instruct{RAW_SUFFIX})" in text


@pytest.mark.parametrize("rel,why", [
    (f"{REFERENCE}/qwen3-8b.json", "results/reference/ holds only <model>_raw_results.json"),
    (f"results/qwen3-8b{RAW_SUFFIX}", "a result file belongs in results/reference/"),
    (f"{REFERENCE}/qwen3-8b_rescored.json", "rewrites the raw file itself"),
    (f"{REFERENCE}/nested/qwen3-8b{RAW_SUFFIX}", "a result file belongs in results/reference/"),
    ("results/notes.txt", "results/ holds result files in results/reference/"),
], ids=["no raw suffix", "results not reference", "rescored", "nested", "anything else"])
def test_a_file_in_the_wrong_place_says_where_it_belongs(pr, honest, capsys, rel: str, why: str) -> None:
    pr.add_rows(contributing_row())
    pr.write(rel, honest)
    code, out, _ = pr.check(capsys)
    assert code == 2
    assert f"- `{rel}`: " in out and why in plain(out)


def test_a_non_ascii_file_name_is_read(pr, honest, capsys) -> None:
    rel = f"{REFERENCE}/модель{RAW_SUFFIX}"
    pr.add_rows(contributing_row())
    pr.write(rel, honest)
    code, out, _ = pr.check(capsys)
    assert code == 2
    assert f"- `{rel}`: model 'qwen3-8b''s result file is {QWEN}" in plain(out)
    # It was read and re-derived, not skipped as a quoted name.
    assert f"`{rel}`: model `qwen3-8b`, 15 trials" in out


HOSTILE_NAMES = {
    "backticks and an image": "m`![x](https://e.example/p.png)`",
    "workflow command": "::error title=x::pwned",
    "300 characters": "m" * 300,
    "emoji": "qwen3-🚀",
}


@pytest.mark.parametrize("name", HOSTILE_NAMES.values(), ids=HOSTILE_NAMES.keys())
def test_a_hostile_name_is_refused_and_stays_text(pr, honest, capsys, name: str) -> None:
    doc = json.loads(json.dumps(honest))
    doc["settings"]["model"] = name
    pr.add_rows(dict(contributing_row(), name=name))
    pr.write(QWEN, doc)
    code, out, _ = pr.check(capsys)
    assert code == 2
    assert "- `models.yaml`:" in out and "a model name is 1 to 100 characters" in plain(out)
    assert f"`{QWEN}` · `settings.model`: not a valid result file: a model name is" in plain(out)
    if any(ch in name for ch in "`[]():"):
        assert name not in out, "the name reaches the summary only escaped"
    assert "![" not in out and "](https" not in out


def test_a_javascript_card_url_is_refused(pr, honest, capsys) -> None:
    pr.add_rows(dict(contributing_row(), card_url="javascript:alert(3)"))
    pr.write(QWEN, honest)
    code, out, _ = pr.check(capsys)
    assert code == 2
    assert "card_url" in plain(out) and "must be an https:// address" in plain(out)


def test_deleting_a_reference_file_needs_its_row_gone_too(pr, honest, capsys) -> None:
    (pr.repo / SMOL).unlink()
    pr.add_rows(contributing_row())
    pr.write(QWEN, honest)
    code, out, _ = pr.check(capsys)
    assert code == 2
    assert f"- `{SMOL}`: deleted, which takes model 'smollm2-135m-instruct' off the board" in plain(out)


def test_deleting_a_reference_file_with_its_row_passes(pr, honest, capsys) -> None:
    (pr.repo / SMOL).unlink()
    doc = yaml.safe_load((pr.repo / "models.yaml").read_text(encoding="utf-8"))
    doc["models"] = [contributing_row()]
    doc["default"] = doc["models"][0]["name"]
    (pr.repo / "models.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    pr.write(QWEN, honest)
    code, out, _ = pr.check(capsys)
    assert code == 0, out
    assert "rank 1 of 1" in out


def test_every_problem_is_listed_not_only_the_first(pr, honest, capsys) -> None:
    doc = json.loads(json.dumps(honest))
    _trials(doc, "kn_bakery_batches")[0]["seed"] = 99
    pr.add_rows(dict(contributing_row(), card_url="http://example.org/card"))
    pr.write(QWEN, doc)
    pr.write(f"results/other{RAW_SUFFIX}", honest)
    code, out, err = pr.check(capsys)
    assert code == 2
    lines = _problem_lines(out)
    assert len(lines) == 3 and "3 problem(s)" in err, lines
    assert [line.split("`")[1] for line in lines] == ["models.yaml", f"results/other{RAW_SUFFIX}", QWEN]


# ----------------------------------------------------------------------------------------------------------
# The workflow's script runs none of the pull request's code


HOSTILE_CODE = 'import pathlib; pathlib.Path({mark!r}).write_text("ran"); print("PWNED: all good")\n'


def test_the_workflow_script_runs_the_checkers_code_not_the_pull_requests(pr, honest, tmp_path) -> None:
    mark = tmp_path / "the-pull-requests-code-ran"
    code = HOSTILE_CODE.format(mark=str(mark))
    # A pull request that replaces the checker and hooks Python's start-up, beside an honest model.
    for rel in ("engine/__init__.py", "engine/__main__.py", "engine/publish/pr_check.py", "sitecustomize.py",
                "usercustomize.py", "conftest.py"):
        pr.write(rel, code)
    pr.add_rows(contributing_row())
    pr.write(QWEN, honest)
    pr.commit()
    summary = tmp_path / "summary.md"
    done = subprocess.run(["bash", str(ROOT / ".ci" / "pr-check"), str(pr.repo), pr.base], cwd=pr.repo,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHON": sys.executable, "GITHUB_STEP_SUMMARY": str(summary)})
    assert not mark.exists() and "PWNED" not in done.stdout + done.stderr
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    token = lines[0].removeprefix("::stop-commands::")
    assert len(token) == 32 and lines[-1] == f"::{token}::", "workflow commands are off while the check prints"
    assert "**Every changed file re-derives.**" in done.stdout and "- `qwen3-8b`: **" in done.stdout
    assert summary.read_text(encoding="utf-8") == "\n".join(lines[1:-1]) + "\n"


def test_what_sllmb_graders_writes_under_results_is_allowed() -> None:
    from engine.publish.pr_check import where_it_belongs

    assert where_it_belongs("results/graders.json") is None
    assert where_it_belongs("results/first_sight/b2.json") is None
    assert where_it_belongs("results/first_sight/deeper/b2.json") is not None


def test_a_model_pull_request_may_not_change_the_reference_setting(pr: Scratch, capsys) -> None:
    path = pr.repo / REFERENCE / "setting.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("k: 3", "k: 1"), encoding="utf-8")
    code, out, _ = pr.check(capsys)
    assert code == 2
    assert "results/reference/setting.yaml" in out and "maintainers' to change" in out


# ----------------------------------------------------------------------------------------------------------
# A committed sweep (results/sweeps/<name>/): its files re-derived, its report rebuilt from them

SWEEP = "results/sweeps/qwen3-8b-q4-vs-q8"


def _sweep(pr: Scratch, honest: dict) -> dict:
    """Two configurations (the honest run, twice) and the report `sllmb sweep` writes for them."""
    from engine.analysis.sweep_report import build_report
    from engine.core.results import load_run_file

    for name in ("q4", "q8"):
        pr.write(f"{SWEEP}/{name}{RAW_SUFFIX}", honest)
    named = [(n, pr.repo / SWEEP / f"{n}{RAW_SUFFIX}", load_run_file(pr.repo / SWEEP / f"{n}{RAW_SUFFIX}"), False)
             for n in ("q4", "q8")]
    report = json.loads(build_report(Path("plan.yaml"), "qwen3-8b", named).model_dump_json())
    pr.write(f"{SWEEP}/sweep_report.json", report)
    pr.write(f"{SWEEP}/plan.yaml", "model: qwen3-8b\n")
    return report


def test_an_honest_sweep_passes_with_its_files_re_derived_and_its_report_rebuilt(pr, honest, capsys) -> None:
    _sweep(pr, honest)
    code, out, _ = pr.check(capsys)
    assert code == 0, out
    assert f"`{SWEEP}/q4{RAW_SUFFIX}`" in out and f"`{SWEEP}/q8{RAW_SUFFIX}`" in out
    assert "the report its result files give" in plain(out)


def test_a_sweep_report_that_its_files_do_not_give_is_refused(pr, honest, capsys) -> None:
    report = _sweep(pr, honest)
    report["verdicts"] = ["q8 is better than q4 (forged)"]
    report["scopes"][0]["rows"][1]["pass_k"] = 1.0
    pr.write(f"{SWEEP}/sweep_report.json", report)
    code, out, _ = pr.check(capsys)
    assert code == 2
    text = plain(out)
    assert f"{SWEEP}/sweep_report.json" in text and "scopes" in text and "verdicts" in text
    assert "sllmb sweep PLAN --report-only" in text


@pytest.mark.parametrize("rel,why", [
    (f"{SWEEP}/notes.txt", "a sweep's folder holds its result files"),
    ("results/sweeps/bad name!/sweep_report.md", "rename the folder"),
    (f"{SWEEP}/nested/q4{RAW_SUFFIX}", "a result file belongs in results/reference/"),
])
def test_a_stray_file_in_a_sweep_folder_is_refused(pr, honest, capsys, rel: str, why: str) -> None:
    pr.write(rel, "x")
    code, out, _ = pr.check(capsys)
    assert code == 2 and why in plain(out)
