"""Cases per second of the answer-corpus replay (``engine.corpus.replay``: real runner, loopback scripted
server, real bubblewrap sandbox for code), for a subset of modules.

    python benchmarks/bench_corpus_replay.py [--modules knowledge,format] [--limit N] [--repeat R]

The corpus replay is most of the test suite's time (tests/corpus), so this is the figure to watch when the
corpus grows or the runner changes. Each repeat replays the same cases; the best repeat is reported, since
on a shared machine the noise only ever adds time. It also prints a digest of every verdict (case, graded,
reason): a speed change must leave that digest as it was.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.bank.load import load_bank  # noqa: E402
from engine.corpus.replay import evaluate, load_corpus  # noqa: E402
from engine.episodes.code.module import SandboxHandle  # noqa: E402
from engine.sandbox import Limits, make_backend  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--modules", default="knowledge", help="comma-separated modules (default knowledge)")
    ap.add_argument("--limit", type=int, default=0, help="at most this many cases (0: all of those modules')")
    ap.add_argument("--repeat", type=int, default=1, help="replay the cases this many times (best is reported)")
    args = ap.parse_args()
    modules = set(args.modules.split(","))
    bank = {t.id: t.task.module for t in load_bank(ROOT / "tasks")}
    files = [f for f in load_corpus(ROOT / "tests" / "corpus") if bank.get(f.task) in modules]
    if args.limit:
        kept, left = [], args.limit
        for f in files:
            if left <= 0:
                break
            kept.append(f.model_copy(update={"cases": f.cases[:left]}))
            left -= len(kept[-1].cases)
        files = kept
    cases = sum(len(f.cases) for f in files)
    if not cases:
        raise SystemExit(f"no corpus cases for modules {sorted(modules)}")
    sandbox = None
    if "code" in modules:
        backend = make_backend("bubblewrap")
        backend.check()
        sandbox = SandboxHandle(backend, Limits())
    best = float("inf")
    digest = ""
    for i in range(args.repeat):
        start = time.perf_counter()
        results = evaluate(files, ROOT / "tasks", sandbox=sandbox)
        took = time.perf_counter() - start
        best = min(best, took)
        text = "\n".join(f"{r.task}/{r.batch}/{r.case}\t{r.got}\t{r.reason}" for r in results)
        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        print(f"repeat {i + 1}: {cases} cases in {took:.1f} s ({cases / took:.2f} cases/s)", flush=True)
    print(f"modules {','.join(sorted(modules))}: {cases} cases, best {best:.1f} s, {cases / best:.2f} cases/s, "
          f"verdict digest {digest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
