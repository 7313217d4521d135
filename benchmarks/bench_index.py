"""Time the index fit and the full leave-one-out validation on the committed data (target: under 10 s).

Run: python benchmarks/bench_index.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.index.data import load_entries  # noqa: E402
from engine.index.index import build_index  # noqa: E402
from engine.index.validate import leave_one_out  # noqa: E402

TARGET_S = 10.0


def main() -> int:
    start = time.perf_counter()
    entries = load_entries(Path(__file__).resolve().parents[1] / "results" / "reported")
    loaded = time.perf_counter()
    build_index(entries)
    fitted = time.perf_counter()
    report = leave_one_out(entries)
    done = time.perf_counter()
    total = done - loaded
    print(f"load {len(entries)} model files: {loaded - start:.2f} s")
    print(f"fit (one factor):              {fitted - loaded:.2f} s")
    print(f"leave-one-out ({report.n_scores} scores x 1- and 2-factor refits): {done - fitted:.2f} s")
    print(
        f"fit + validation: {total:.2f} s (target < {TARGET_S:.0f} s): {'ok' if total < TARGET_S else 'SLOW'}"
    )
    return 0 if total < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
