"""Engine overhead benchmark: CPU per model call and wall time for 1,000 trials at concurrency 8.

The scripted server runs in a separate process and answers instantly, so the CPU time of this process is
the engine's own cost (client, runner, grading, checkpoint). With --llama it also times a real run of the
knowledge module through the embedded llama.cpp server and the bundled model.

    python benchmarks/bench_engine.py [--trials-total 1000] [--concurrency 8] [--llama]
"""

from __future__ import annotations

import argparse
import multiprocessing
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _serve(port_queue: multiprocessing.Queue, stop: multiprocessing.Event) -> None:
    from tests.conftest import knowledge_responder
    from tests.helpers.scripted_server import ScriptedServer

    with ScriptedServer(knowledge_responder()) as srv:
        port_queue.put(srv.url)
        stop.wait()


def bench_scripted(total: int, concurrency: int) -> None:
    from engine.run.request import RunRequest
    from engine.run.runner import run_benchmark

    queue: multiprocessing.Queue = multiprocessing.Queue()
    stop = multiprocessing.Event()
    server = multiprocessing.Process(target=_serve, args=(queue, stop), daemon=True)
    server.start()
    url = queue.get(timeout=30)
    knowledge_tasks = 4
    trials = max(1, total // knowledge_tasks)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            request = RunRequest(model="scripted", endpoint=url, output=Path(tmp) / "bench.json", trials=trials,
                                 concurrency=concurrency, modules=["knowledge"], show_progress=False,
                                 tasks_dir=ROOT / "tasks")
            cpu0, wall0 = time.process_time(), time.perf_counter()
            run = run_benchmark(request)
            cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    finally:
        stop.set()
        server.join(timeout=5)
    calls = sum(1 for t in run.trials for turn in t.turns if turn.role == "assistant")
    print(f"scripted server: {len(run.trials)} trials, {calls} model calls, concurrency {concurrency}")
    print(f"  wall time            {wall:8.2f} s   (target < 10 s for 1,000 trials)")
    print(f"  engine CPU per call  {cpu / calls * 1000:8.2f} ms  (target <= 2 ms)")
    print(f"  throughput           {len(run.trials) / wall:8.1f} trials/s")


def bench_llama() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "llama.json"
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "engine", "run", "--modules", "knowledge", "--trials", "1",
                               "--output", str(out), "-q"], cwd=ROOT, capture_output=True, text=True)
        wall = time.perf_counter() - started
    if done.returncode != 0:
        print(done.stderr[-2000:])
        raise SystemExit("the llama.cpp run failed")
    print(f"real llama.cpp (embedded SmolLM2-135M), knowledge module, 1 trial: {wall:.1f} s wall (incl. start-up)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials-total", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--llama", action="store_true", help="also time a real run on the embedded server")
    args = parser.parse_args()
    bench_scripted(args.trials_total, args.concurrency)
    if args.llama:
        bench_llama()


if __name__ == "__main__":
    main()
