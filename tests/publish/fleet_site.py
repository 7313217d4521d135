"""A synthetic fleet shaped for the site tests: judged, partly judged and unjudged rows, a row with
mismatched settings, and two models whose free-text fields hold an HTML injection attempt and Jinja syntax.
Built in tmp dirs, never committed.

A model name cannot carry either (``engine.core.fieldtypes``: the schemas refuse it), so the attempts ride in
the models.yaml fields that stay free text and reach every page that shows the model: family and
quantisation."""

from __future__ import annotations

import random
from pathlib import Path

import yaml

from engine.analysis.judge import (
    JudgedFile,
    JudgeInfo,
    ModuleCoverage,
    TrialVerdict,
    file_sha256,
    judged_path_for,
    sendable,
    write_judged_file,
)
from engine.core.results import load_run_file, write_run_file
from engine.core.schema import Grade, ToolCall, Turn
from tests.helpers.fleet import make_fleet

HOSTILE = "<img src=x onerror=alert(1)>"
# The same attack in the family field of models.yaml, and Jinja syntax in another model's quantisation.
HOSTILE_FAMILY = "<script>alert(2)</script>"
JINJA_TEXT = "{{ 7*7 }}-model"
# The models that carry them (valid names: a name is letters, digits and . _ : / + -).
HOSTILE_MODEL = "fleet-hostile-fields"
JINJA_MODEL = "fleet-jinja-fields"
# What the hostile model "said" in its first tools trial: markup, a script, an event handler, template syntax,
# emoji and a front-matter fence, in its reply, its reasoning, a tool call's name and arguments, the tool's
# answer (marked as an injected failure), the grade's reason and the world's paths the grade found. The task
# pages must show every one as text.
HOSTILE_REPLY = "<script>alert(3)</script><img src=x onerror=alert(4)> {{ 7*7 }} {% raw %} 🚀🧪\n---\ntitle: x\n---"
HOSTILE_TASK = "tools_01"


def write_judged(raw: Path, rng: random.Random, fail_module: str | None = None) -> Path:
    """A judged file for ``raw``: every sendable trial upheld, a few tools trials rescued or demoted, and
    every trial of ``fail_module`` a failed judge call."""
    run = load_run_file(raw)
    verdicts = []
    for t in run.trials:
        if not sendable(t):
            continue
        assert t.grade is not None
        status, final_score, final_passed = "upheld", t.grade.score, t.grade.passed
        if t.module == fail_module:
            status = "failed"
        elif t.module in ("tools", "multi_turn_if") and not t.grade.hard_gate and rng.random() < 0.08:
            status = "demoted" if t.grade.passed else "rescued"
            final_passed = not t.grade.passed
            final_score = 0.5 if t.grade.passed else 0.97
        elif t.module in ("code", "adversarial", "long_context"):
            status = "advisory"
        verdicts.append(
            TrialVerdict(
                task_id=t.task_id,
                trial=t.trial,
                module=t.module,
                task_hash=t.task_hash,
                det_score=t.grade.score,
                det_passed=t.grade.passed,
                hard_gate=t.grade.hard_gate,
                status=status,
                judge_passed=None if status == "failed" else final_passed,
                judge_score=None if status == "failed" else final_score,
                judge_reason=None if status == "failed" else "looks right",
                error="scripted failure" if status == "failed" else None,
                final_score=final_score,
                final_passed=final_passed,
            )
        )
    modules = {}
    for m in dict.fromkeys(v.module for v in verdicts):
        mine = [v for v in verdicts if v.module == m]
        failed = sum(v.status == "failed" for v in mine)
        modules[m] = ModuleCoverage(
            sent=len(mine), judged=len(mine) - failed, failed=failed, complete=failed == 0
        )
    judged = JudgedFile(
        model=run.settings.model,
        raw_file=raw.name,
        raw_sha256=file_sha256(raw),
        judge=JudgeInfo(endpoint_host="127.0.0.1:9", model="scripted-judge"),
        created_at="2026-01-02T00:00:00+00:00",
        modules=modules,
        flagged_modules=[m for m, c in modules.items() if not c.complete],
        changed=sum(v.status in ("rescued", "demoted") for v in verdicts),
        refused=0,
        verdicts=verdicts,
    )
    path = judged_path_for(raw)
    write_judged_file(path, judged)
    return path


def _hostile_trial(path: Path) -> None:
    """Trial 0 of ``HOSTILE_TASK`` in ``path`` gets ``HOSTILE_REPLY`` in every free-text field it has."""
    run = load_run_file(path)
    trials = []
    for t in run.trials:
        if t.task_id == HOSTILE_TASK and t.trial == 0:
            call = ToolCall(id="call_<b>0</b>", name="<img src=x onerror=alert(5)>", arguments=HOSTILE_REPLY)
            turns = [
                Turn(role="user", content=HOSTILE_REPLY),
                Turn(role="assistant", content=HOSTILE_REPLY, reasoning=HOSTILE_REPLY, tool_calls=[call]),
                Turn(role="tool", tool_call_id=call.id, name=call.name, content=HOSTILE_REPLY,
                     injected_failure=True),
                Turn(role="assistant", content=HOSTILE_REPLY, finish_reason="stop"),
            ]
            # The world grader's findings, every path and value hostile: the task is not in the bank, so the
            # trial's world is these paths (engine/publish/world_view.py).
            details = {
                HOSTILE_REPLY: HOSTILE_REPLY,
                "missed": {HOSTILE_REPLY: {"expected": HOSTILE_REPLY, "got": None}},
                "side_effects": {"{{ 7*7 }}": {"seed": "<b>seed</b>", "got": HOSTILE_REPLY}},
                "undone_changes": {"onerror=alert(6)": {"allowed": [None], "went_through": [HOSTILE_REPLY]}},
            }
            grade = Grade(score=0.0, passed=False, reason=HOSTILE_REPLY, details=details)
            t = t.model_copy(update={"turns": turns, "grade": grade, "infra": False, "error": None})
        trials.append(t)
    path.unlink()
    write_run_file(path, run.model_copy(update={"trials": trials}))


def build_site_fleet(root: Path, n_models: int = 12, seed: int = 7) -> Path:
    """Write ``root/results`` and ``root/models.yaml``; return the results folder."""
    paths = make_fleet(root, n_models, seed, unsized=1)
    rng = random.Random(seed)
    models_path = root / "models.yaml"
    doc = yaml.safe_load(models_path.read_text(encoding="utf-8"))

    # Model 0's family and quantisation are HTML, model 1's Jinja; both are renamed so tests can find them.
    hostile = ((paths[0], HOSTILE_MODEL, HOSTILE_FAMILY, HOSTILE), (paths[1], JINJA_MODEL, "{% raw %}", JINJA_TEXT))
    for path, new_name, family, quantisation in hostile:
        run = load_run_file(path)
        old = run.settings.model
        run = run.model_copy(update={"settings": run.settings.model_copy(update={"model": new_name})})
        path.unlink()
        write_run_file(path, run)
        for row in doc["models"]:
            if row["name"] == old:
                row["name"] = new_name
                row["family"] = family
                row["quantisation"] = quantisation
    if doc["default"] not in [r["name"] for r in doc["models"]]:
        doc["default"] = doc["models"][0]["name"]
    models_path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")

    _hostile_trial(paths[0])

    # One row run with different settings: thinking on and a different max_tokens.
    odd = load_run_file(paths[2])
    odd = odd.model_copy(
        update={"settings": odd.settings.model_copy(update={"thinking": True, "max_tokens": 512})}
    )
    write_run_file(paths[2], odd)

    # Judged files: most rows fully judged, one partly (a module's judge calls failed), the rest unjudged.
    for i, path in enumerate(paths):
        if i % 3 == 0:
            continue
        write_judged(path, rng, fail_module="multi_turn_if" if i == 4 else None)
    return root / "results"
