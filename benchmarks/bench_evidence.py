"""Evidence benchmark: `mkdocs build --strict` time and built size, with a task page per task and its trials
as JSON, for the committed reference folder and for a synthetic 28-model fleet with full transcripts.

Goals (issue 29): the build within 60 s; every page, counted with what it loads from the site (its CSS and
scripts, and a task page's trials.json), at most 1.5 MB. The fleet's transcripts are padded to a realistic
size first (a system prompt, three assistant turns with reasoning and a tool call each, the tools' answers:
about 12 KB a trial, above the reference run's 8.6 KB); it is written in a temporary folder (not timed).

    python benchmarks/bench_evidence.py [--models 28] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BUILD_GOAL_S = 60.0
PAGE_GOAL_BYTES = 1_500_000
_ASSET = re.compile(r'(?:src|href)="([^"?#:]+\.(?:js|css))"')


def _words(rng: random.Random, n: int) -> str:
    vocab = ("the", "record", "status", "tool", "call", "answer", "check", "file", "value", "done", "<b>", "{{", "🚀")
    return " ".join(rng.choice(vocab) for _ in range(n))


def pad_transcripts(results: Path, seed: int) -> None:
    """Give every trial of every file in ``results`` a full, multi-turn transcript."""
    from engine.core.results import load_run_file, write_run_file
    from engine.core.schema import Timings, ToolCall, Turn, Usage

    rng = random.Random(seed)
    for path in sorted(results.glob("*_raw_results.json")):
        run = load_run_file(path)
        trials = []
        for t in run.trials:
            turns = [Turn(role="system", content=_words(rng, 250)), Turn(role="user", content=_words(rng, 80))]
            for i in range(3):
                call = ToolCall(id=f"call_{i}", name="update_record", arguments=json.dumps({"note": _words(rng, 30)}))
                turns.append(Turn(
                    role="assistant", content=_words(rng, 120), reasoning=_words(rng, 300), tool_calls=[call],
                    finish_reason="tool_calls", usage=Usage(prompt_tokens=900, completion_tokens=400),
                    timings=Timings(wall_ms=2400.0, ttft_ms=180.0, decode_tps=40.0),
                ))
                turns.append(Turn(role="tool", tool_call_id=call.id, name=call.name, content=_words(rng, 150)))
            turns.append(Turn(role="assistant", content=_words(rng, 60), finish_reason="stop"))
            trials.append(t.model_copy(update={"turns": turns}) if t.grade is not None else t)
        path.unlink()
        write_run_file(path, run.model_copy(update={"trials": trials}))


def build(results: Path, models: Path | None, out: Path) -> float:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", SLLMB_SITE_RESULTS=str(results))
    if models is not None:
        env["SLLMB_SITE_MODELS"] = str(models)
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
    )
    took = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"mkdocs build failed for {results}:\n{done.stderr[-3000:]}")
    return took


def page_weights(site: Path) -> list[tuple[int, str]]:
    """Each page's bytes with the site's CSS and scripts it names and, for a task page, its trials.json."""
    weights = []
    for page in site.rglob("index.html"):
        text = page.read_text(encoding="utf-8")
        total = page.stat().st_size + sum((page.parent / a).resolve().stat().st_size for a in set(_ASSET.findall(text)))
        if (page.parent / "trials.json").is_file():
            total += (page.parent / "trials.json").stat().st_size
        weights.append((total, page.parent.relative_to(site).as_posix() + "/"))
    return sorted(weights, reverse=True)


def report(name: str, site: Path, seconds: float) -> bool:
    size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    tasks = sum(p.stat().st_size for p in (site / "tasks").rglob("trials.json")) if (site / "tasks").is_dir() else 0
    weights = page_weights(site)
    heaviest, where = weights[0]
    cards = [w for w, rel in weights if rel.startswith("models/")]
    task_pages = [w for w, rel in weights if rel.startswith("tasks/") and rel != "tasks/"]
    print(f"{name}: build {seconds:.1f} s (goal ≤ {BUILD_GOAL_S:.0f} s); site {size / 1e6:.1f} MB, "
          f"of it trials.json {tasks / 1e6:.1f} MB; {len(weights)} pages")
    print(f"  heaviest page {heaviest / 1e6:.2f} MB ({where}; goal ≤ 1.5 MB); heaviest card "
          f"{max(cards, default=0) / 1e6:.2f} MB; heaviest task page with its trials "
          f"{max(task_pages, default=0) / 1e6:.2f} MB")
    return seconds <= BUILD_GOAL_S and heaviest <= PAGE_GOAL_BYTES


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=28)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    from tests.helpers.fleet import make_fleet

    ok = True
    print(f"load average {os.getloadavg()[0]:.1f} (1 min) on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ok &= report("reference folder", root / "ref", build(ROOT / "results" / "reference", None, root / "ref"))
        make_fleet(root / "fleet", args.models, args.seed)
        pad_transcripts(root / "fleet" / "results", args.seed)
        raw = sum(p.stat().st_size for p in (root / "fleet" / "results").glob("*_raw_results.json"))
        print(f"fleet of {args.models} models with full transcripts written ({raw / 1e6:.1f} MB of result files)")
        seconds = build(root / "fleet" / "results", root / "fleet" / "models.yaml", root / "fleet-site")
        ok &= report(f"{args.models}-model fleet", root / "fleet-site", seconds)
    print("goals met" if ok else "GOAL MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
