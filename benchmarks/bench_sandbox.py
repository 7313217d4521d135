"""Median overhead of one sandboxed execution of ``print('ok')``, per backend that works here.

    python benchmarks/bench_sandbox.py [--runs N]

bubblewrap should stay at or under 50 ms on the reference machine (the script exits 1 when it does not).
The docker figure appears when an engine answers (DOCKER_HOST, or Docker's or Podman's usual socket) and
has the image (``sandbox/build_image.sh``); for Podman, ``.ci/sandbox_docker_tests.sh`` shows how to start
the socket. Overhead is the median minus the median of the same interpreter run bare on the host
(/usr/bin/python3 -E -s main.py through the unsandboxed backend).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.core.errors import InfraError  # noqa: E402
from engine.sandbox import Backend, Limits, SandboxUnavailable, make_backend  # noqa: E402
from engine.sandbox.unsandboxed import UnsandboxedBackend  # noqa: E402

BWRAP_TARGET_MS = 50.0


def median_ms(backend: Backend, runs: int) -> float:
    limits = Limits()
    backend.run("print('ok')", {}, limits=limits, timeout_s=30)  # warm the page cache
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = backend.run("print('ok')", {}, limits=limits, timeout_s=30)
        times.append((time.perf_counter() - start) * 1000)
        if result.stdout.strip() != "ok":
            raise SystemExit(f"{backend.name}: unexpected result {result}")
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    failed = False
    python = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
    floor = median_ms(UnsandboxedBackend(python=python), args.runs)
    print(f"{'bare':12s} median {floor:7.1f} ms over {args.runs} runs  [{python} on the host, no sandbox]")
    for name, runs in (("bubblewrap", args.runs), ("docker", max(5, args.runs // 3))):
        backend = make_backend(name)
        try:
            backend.check()
        except (SandboxUnavailable, InfraError) as exc:
            print(f"{name:12s} unavailable: {str(exc)[:160]}")
            failed |= name == "bubblewrap"
            continue
        ms = median_ms(backend, runs)
        overhead = ms - floor
        note = ""
        if name == "bubblewrap":
            ok = overhead <= BWRAP_TARGET_MS
            failed |= not ok
            note = f"  (target <= {BWRAP_TARGET_MS:.0f} ms: {'met' if ok else 'MISSED'})"
        print(f"{name:12s} median {ms:7.1f} ms, overhead {overhead:7.1f} ms over {runs} runs  "
              f"[{backend.describe()}]{note}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
