"""Prefix-cache benchmark: the same trials in two job orders on the real embedded llama.cpp server.

Each order gets a fresh server (cold cache) and runs the same selection with the same seeds:
``trial`` runs every task once before any runs twice (the runner's old order), ``task`` runs a task's
trials back to back (the runner's order now). On a single-slot server only the second lets the prefix
cache serve a task's repeated opening prompt. Prints, per order, the wall time, the time spent waiting
for the server, and the prompt tokens the server took from its cache against those it computed (from the
``timings`` of its replies), then whether the two orders produced the same replies.

    python benchmarks/bench_prefix_cache.py [--filter 'lc_[mn]*'] [--trials 3]

The default slice is the two long-context tasks with the longest opening prompts that the bundled
model's 8,192-token window holds; it takes a few minutes per order on 2 CPU cores.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def run_order(order: str, pattern: str, trials: int, out: Path):
    from engine.core.models_file import load_models
    from engine.model.local_server import Layout, embedded_server
    from engine.run.request import RunRequest
    from engine.run.runner import run_benchmark

    models = load_models()
    entry = models.find(models.default)
    # One slot: the order only matters where a second task in between evicts the first one's prompt.
    with embedded_server(entry, Layout(threads=os.cpu_count() or 1, slots=1, context_per_slot=8192)) as server:
        request = RunRequest(model=server.model, endpoint=None, output=out, trials=trials, pattern=pattern,
                             show_progress=False, resume=False, concurrency=1)
        started = time.perf_counter()
        run = run_benchmark(request, embedded=server, job_order=order)
        return run, time.perf_counter() - started


def replies(run) -> dict[tuple[str, int], list[str]]:
    return {(t.task_id, t.trial): [x.content for x in t.turns if x.role == "assistant"] for t in run.trials}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--filter", default="lc_[mn]*", help="task id glob (default: %(default)s)")
    parser.add_argument("--trials", type=int, default=3)
    args = parser.parse_args()
    print(f"slice {args.filter!r}, {args.trials} trials, load average {os.getloadavg()[0]:.1f} at start")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for order in ("trial", "task"):
            run, wall = run_order(order, args.filter, args.trials, Path(tmp) / f"{order}.json")
            cost = run.provenance.cost
            results[order] = run
            print(f"order={order:5s}  trials {cost.trials_run}  run {cost.wall_s:6.1f} s "
                  f"(with preflight {wall:6.1f} s)  "
                  f"waiting for the server {cost.server_wait_s:6.1f} s  "
                  f"prompt tokens cached {cost.prompt_tokens_cached}  computed {cost.prompt_tokens_evaluated}  "
                  f"({cost.cache_source})")
    same = replies(results["trial"]) == replies(results["task"])
    before, after = results["trial"].provenance.cost, results["task"].provenance.cost
    print(f"run time {before.wall_s:.1f} s -> {after.wall_s:.1f} s "
          f"({(1 - after.wall_s / before.wall_s) * 100:.0f}% less); replies identical across orders: {same}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
