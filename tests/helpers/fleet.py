"""A synthetic fleet of result files, built in code for tests (never committed as results).

``make_fleet(tmp_path, n_models, seed)`` writes ``tmp_path/results/<model>_raw_results.json`` for each model,
``tmp_path/results/setting.yaml`` (the reference setting every file of the fleet was run at) and
``tmp_path/models.yaml`` with a row per model, and returns the result file paths (sorted by name).

The fleet behaves like a real one on purpose: each model has an ability that grows with its (active) size,
each task a difficulty, and a trial passes with a logistic chance of the gap, so bigger models tend to rank
higher, some tasks are dead easy or dead hard, a few trials are flaky. On top of that: a failed tools trial
sometimes carries a hard gate, a few trials are infra errors (excluded), assistant turns carry decode
timings. Everything is drawn from ``random.Random(seed)``: the same arguments give the same files.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import yaml

from engine.analysis.scoring import bank_task_counts
from engine.core.results import write_run_file
from engine.core.schema import Grade, Provenance, RunFile, RunSettings, Timings, ToolCall, TrialRecord, Turn, Usage

# Total parameters (billions) the fleet's models are drawn from, smallest first.
SIZE_LADDER = (0.5, 1.0, 1.7, 3.0, 4.0, 7.0, 8.0, 12.0, 14.0, 24.0, 27.0, 32.0)
TRIALS = 3
FLEET_TASK_SET = "f1ee7f1ee7f1ee70"
# The settings every fleet file is run at, as a reference setting file says them (overrides per test).
FLEET_SETTING: dict = {
    "schema_version": 1,
    "k": TRIALS,
    "profile": "full",
    "task_set": FLEET_TASK_SET,
    "bench_version": "0.1.0",
    "sampling": {"temperature": 0.0, "top_p": 0.95, "seed": 0},
    "max_tokens": "per task",
    "thinking": "server default",
    "sandbox": "confined",
    "stop_loops": False,
    "early_stop": False,
}


def write_setting(results: Path, **overrides: object) -> Path:
    """``results/setting.yaml``: the fleet's reference setting with ``overrides`` (top-level keys)."""
    path = results / "setting.yaml"
    path.write_text(yaml.safe_dump({**FLEET_SETTING, **overrides}, sort_keys=False), encoding="utf-8")
    return path


def fleet_task_ids() -> dict[str, str]:
    """Task id -> module for the fleet's bank: the real bank's counts per module (39 tasks)."""
    return {f"{module}_{i:02d}": module for module, n in bank_task_counts().items() for i in range(1, n + 1)}


def _turns(task_id: str, module: str, passed: bool, rng: random.Random) -> list[Turn]:
    timing = Timings(wall_ms=rng.uniform(200, 2000), decode_tps=round(rng.uniform(20, 80), 1))
    turns = [Turn(role="user", content=f"Please do task {task_id}.")]
    if module in ("tools", "multi_turn_if"):
        call = ToolCall(id="call_0", name="update_record", arguments=json.dumps({"id": 7, "status": "done"}))
        turns.append(
            Turn(
                role="assistant",
                tool_calls=[call],
                finish_reason="tool_calls",
                usage=Usage(prompt_tokens=120, completion_tokens=20),
                timings=timing,
            )
        )
        turns.append(Turn(role="tool", tool_call_id="call_0", name="update_record", content='{"ok": true}'))
    answer = "Done: the record is updated." if passed else "I could not finish that."
    turns.append(
        Turn(
            role="assistant",
            content=answer,
            finish_reason="stop",
            usage=Usage(prompt_tokens=160, completion_tokens=12),
            timings=timing,
        )
    )
    return turns


def _trial(task_id: str, module: str, index: int, p: float, rng: random.Random) -> TrialRecord:
    base = dict(
        task_id=task_id,
        task_hash=f"h{task_id}",
        module=module,
        trial=index,
        seed=index,
        prompt_tokens=280,
        completion_tokens=32,
        wall_s=round(rng.uniform(1, 20), 3),
    )
    if rng.random() < 0.02:
        return TrialRecord(**base, infra=True, error="server answered HTTP 503: scripted")
    passed = rng.random() < p
    gate = None
    if passed:
        grade = Grade(score=1.0, passed=True, breakdown={"goal": 1.0}, reason="all checks passed")
    else:
        score = round(rng.uniform(0.0, 0.9), 3)
        if module == "tools" and rng.random() < 0.15:
            gate, score = "call_budget", 0.0
        grade = Grade(
            score=score, passed=False, breakdown={"goal": score}, reason="checks failed", hard_gate=gate
        )
    if module == "code":
        grade.details["first_try_pass"] = passed and rng.random() < 0.7
    return TrialRecord(**base, turns=_turns(task_id, module, passed, rng), grade=grade)


def make_fleet(tmp_path: Path, n_models: int, seed: int, *, unsized: int = 0) -> list[Path]:
    """Write ``n_models`` result files and models.yaml under ``tmp_path``; return the result file paths.

    ``unsized`` leaves that many models (the last ones) out of models.yaml, so their size shows as "?".
    """
    if n_models < 1:
        raise ValueError("a fleet needs at least one model")
    rng = random.Random(seed)
    tasks = fleet_task_ids()
    difficulty = {t: rng.uniform(-2.0, 3.5) for t in tasks}
    results = tmp_path / "results"
    results.mkdir(parents=True, exist_ok=True)
    write_setting(results)
    rows = []
    paths = []
    for i in range(n_models):
        total = SIZE_LADDER[i % len(SIZE_LADDER)] * (1 + (i // len(SIZE_LADDER)) * 0.1)
        moe = i % 4 == 3
        active = round(total / 8, 2) if moe else total
        name = f"fleet-{i:02d}-{total:g}b"
        ability = 1.3 * math.log(active + 0.5) + rng.gauss(0, 0.3) - 0.8
        records = []
        for task_id, module in tasks.items():
            p = 1 / (1 + math.exp(-1.8 * (ability - difficulty[task_id])))
            records.extend(_trial(task_id, module, j, p, rng) for j in range(TRIALS))
        run = RunFile(
            settings=RunSettings(
                model=name,
                endpoint_host="127.0.0.1:8080",
                trials=TRIALS,
                profile="full",
                modules=[],
                temperature=0.0,
                seed=0,
                sandbox_backend="bubblewrap (confined)",
            ),
            provenance=Provenance(
                bench_version="0.1.0",
                task_set_hash=FLEET_TASK_SET,
                server={"sampler": {"temperature": 0.0, "top_p": 0.95}},
                python_version="3.11",
                started_at="2026-01-01T00:00:00+00:00",
                finished_at="2026-01-01T01:00:00+00:00",
                duration_s=round(rng.uniform(1200, 6000), 1),
            ),
            task_hashes={t: f"h{t}" for t in tasks},
            trials=records,
        )
        path = results / f"{name}_raw_results.json"
        write_run_file(path, run)
        paths.append(path)
        if i < n_models - unsized:
            rows.append(
                {
                    "name": name,
                    "family": "Fleet",
                    "total_params_b": total,
                    "active_params_b": active,
                    "architecture": "moe" if moe else "dense",
                    "quantisation": "Q4_K_M",
                }
            )
    if rows:
        doc = {"schema_version": 1, "default": rows[0]["name"], "models": rows}
        (tmp_path / "models.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return sorted(paths)
